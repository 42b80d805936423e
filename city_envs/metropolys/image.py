"""The public Metropolys board as an RGB image (matplotlib, no window, no global pyplot state).

Neighbourhoods are drawn at their approximate board positions (components.POSITION, y down) as discs
of their colour, joined by their adjacencies (bridges dashed); lakes and statues are marked lightly and
removed districts faded. Tokens still on the board are small lettered dots; built buildings are squares
in the player's colour with the value; bids of the current call are player-coloured rings with the value,
the top bid on a gold halo. A side panel lists every seat's public state and the pending decision.
Secret cards appear only once the game is over.

Speed: the static board is drawn once per set of districts in play and cached; the pieces are drawn on a
transparent figure and composited over it, and every label is a glyph path (matplotlib's Text rasterizes
each glyph anew, which made one frame cost several hundred milliseconds).
"""

from __future__ import annotations

from functools import lru_cache
from typing import cast

import numpy as np
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import LineCollection, PathCollection
from matplotlib.colors import to_rgba
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties, findfont, get_font
from matplotlib.patches import FancyBboxPatch
from matplotlib.path import Path
from matplotlib.textpath import TextPath
from matplotlib.transforms import Affine2D, IdentityTransform

from city_envs.core.regions import BoardMap, Region, circle, legal_only, pixel_points
from city_envs.metropolys import components as cp
from city_envs.metropolys import rules as r
from city_envs.metropolys.rules import State
from city_envs.metropolys.view import secret_cards

NBHD_COLOURS = ("#9a9a9a", "#f29b38", "#5cb85c", "#d9534f", "#4a7fd1")  # gray, orange, green, red, blue
SEAT_COLOURS = ("#1f5fbf", "#c0392b", "#ffffff", "#6d6d6d")  # blue, red, white, grey (cp.PLAYER_COLOURS)
SEAT_TEXT = ("#1f5fbf", "#c0392b", "#000000", "#555555")  # the seat's colour, readable on white
TOKEN_STYLE = {cp.TRENDY: ("T", "#8e44ad"), cp.SUBWAY: ("S", "#2e86de"), cp.ARCH: ("A", "#e84393")}
HIGHLIGHT, ALERT, MUTED = "#f1c40f", "#b03a2e", "#555555"
WIDTH_IN, HEIGHT_IN, DPI = 12.5, 8.0, 80
WIDTH, HEIGHT = int(WIDTH_IN * DPI), int(HEIGHT_IN * DPI)  # 1000 x 640 pixels for every state
BOARD_RECT, PANEL_X = (0.0, 0.0, 0.64, 1.0), 655  # board axes; left edge of the panel text, px

XY = np.array(cp.POSITION, dtype=float)
DISC_SIZE = 520  # a neighbourhood's disc, in points squared (matplotlib's scatter size)
_EDGES = tuple((a, b) for a in range(cp.NUM_NBHDS) for b in cp.ADJ[a] if a < b)
STATUE_XY = np.array([XY[list(statue)].mean(axis=0) for statue in cp.STATUES])


def _segment_distance(points: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    along = np.clip(((points - a) @ (b - a)) / float((b - a) @ (b - a)), 0.0, 1.0)
    return np.linalg.norm(points - (a + along[:, None] * (b - a)), axis=1)


def _free_spot(near: np.ndarray, reach: float = 6.0) -> tuple[float, float]:
    """The point within `reach` of `near` farthest from every neighbourhood and street (for a lake label)."""
    offsets = np.linspace(-reach, reach, 13)
    grid = np.array([(near[0] + dx, near[1] + dy) for dx in offsets for dy in offsets if dx * dx + dy * dy <= reach**2])
    clearance = np.min(np.linalg.norm(grid[:, None, :] - XY[None, :, :], axis=2), axis=1) - 2.0  # disc radius
    for a, b in _EDGES:
        clearance = np.minimum(clearance, _segment_distance(grid, XY[a], XY[b]))
    clearance -= 0.05 * np.linalg.norm(grid - near, axis=1)  # prefer the centroid among equals
    return tuple(grid[int(np.argmax(clearance))])


LAKE_XY = tuple(_free_spot(XY[list(lake)].mean(axis=0)) for lake in cp.LAKES)


def _token_spot(nb: int) -> np.ndarray:
    """Where a token dot sits by neighbourhood `nb`: bottom right unless another disc is in the way."""
    others = np.delete(XY, nb, axis=0)
    for angle in (45, 90, 0, 135, -45, 180, -90):  # degrees, y down; the id label sits at -135
        spot = XY[nb] + 3.3 * np.array([np.cos(np.radians(angle)), np.sin(np.radians(angle))])
        if np.min(np.linalg.norm(others - spot, axis=1)) > 3.2:
            return spot
    return XY[nb] + (2.3, 2.4)


TOKEN_XY = np.array([_token_spot(nb) for nb in range(cp.NUM_NBHDS)])


# ----- text as glyph paths ---------------------------------------------------------------------
@lru_cache(maxsize=1024)  # the few characters, sizes and weights the drawing uses
def _glyph(char: str, size: float, bold: bool) -> tuple[Path | None, float]:
    """One character as a path in points (pen at the origin, baseline y=0; None if blank), its advance in points."""
    prop = FontProperties(weight="bold" if bold else "normal")
    font = get_font(findfont(prop))
    font.set_size(size, 72)
    advance = font.load_char(ord(char)).linearHoriAdvance / 65536
    return (None if char.isspace() else TextPath((0, 0), char, size=size, prop=prop)), advance


def _width(text: str, size: float, bold: bool) -> float:
    return sum(_glyph(char, size, bold)[1] for char in text)


@lru_cache(maxsize=512)
def _centred(text: str, size: float, bold: bool) -> Path:
    """A short label as one path in points, centred on the origin."""
    path = TextPath((0, 0), text, size=size, prop=FontProperties(weight="bold" if bold else "normal"))
    (x0, y0), (x1, y1) = path.get_extents().get_points()
    return path.transformed(Affine2D().translate(-(x0 + x1) / 2, -(y0 + y1) / 2))


class _Text:
    """Collects text lines and draws all their glyphs as one PathCollection (positions in pixels, y down)."""

    def __init__(self) -> None:
        self.paths: list[Path] = []
        self.offsets: list[tuple[float, float]] = []
        self.colours: list[str] = []

    def line(
        self,
        x: float,
        y: float,
        text: str,
        size: float = 8.5,
        colour: str = "black",
        bold: bool = False,
        right: bool = False,
    ) -> None:
        """`text` with its baseline at pixel row y, starting (or, if `right`, ending) at pixel column x."""
        scale = DPI / 72
        if right:
            x -= _width(text, size, bold) * scale
        for char in text:
            path, advance = _glyph(char, size, bold)
            if path is not None:
                self.paths.append(path)
                self.offsets.append((x, HEIGHT - y))
                self.colours.append(colour)
            x += advance * scale

    def draw(self, fig: Figure) -> None:
        if self.paths:
            fig.add_artist(
                PathCollection(
                    self.paths,
                    sizes=[1.0],
                    offsets=self.offsets,
                    offset_transform=IdentityTransform(),
                    transform=IdentityTransform(),
                    facecolors=self.colours,
                    edgecolors="none",
                    snap=False,
                    zorder=10,
                )
            )


def _labels(ax, items: list[tuple[float, float, str, str]], size: float, zorder: float, bold: bool = True) -> None:
    """Short labels (x, y, text, colour) centred at board positions, as one collection."""
    if items:
        paths = [_centred(text, size, bold) for _, _, text, _ in items]
        ax.add_collection(
            PathCollection(
                paths,
                sizes=[1.0],
                offsets=[(x, y) for x, y, _, _ in items],
                offset_transform=ax.transData,
                transform=IdentityTransform(),
                facecolors=[colour for *_, colour in items],
                edgecolors="none",
                snap=False,
                zorder=zorder,
            )
        )


# ----- the board -------------------------------------------------------------------------------
def _new_figure(transparent: bool = False) -> tuple[Figure, Axes]:
    fig = Figure(figsize=(WIDTH_IN, HEIGHT_IN), dpi=DPI, facecolor="none" if transparent else "white")
    FigureCanvasAgg(fig)
    board = fig.add_axes(BOARD_RECT)
    board.set_xlim(-1, 101)
    board.set_ylim(99, -1)
    board.axis("off")
    return fig, board


def _faded(colour: str, on: bool) -> tuple[float, float, float, float]:
    return to_rgba(colour, 1.0 if on else 0.15)


def _draw_discs(ax, nbhds: list[int], in_play, zorder: float = 2) -> None:
    face = [_faded(NBHD_COLOURS[cp.COLOUR[nb]], in_play[nb]) for nb in nbhds]
    edge = [_faded("#000000" if nb in cp.BORDER else "#555555", in_play[nb]) for nb in nbhds]
    ax.scatter(XY[nbhds, 0], XY[nbhds, 1], s=DISC_SIZE, c=face, edgecolors=edge, linewidths=1.0, zorder=zorder)


@lru_cache(maxsize=16)
def _board_layer(in_play: tuple[bool, ...]) -> np.ndarray:
    """The static board (streets, bridges, lakes, statues, neighbourhoods) as RGB, per districts in play."""
    fig, ax = _new_figure()
    for bridge, colour, style in (
        (False, "#c8c8c8", {"linewidths": 1.2}),
        (True, "#8c6d3f", {"linewidths": 2.2, "linestyles": "--"}),
    ):
        edges = [(a, b) for a, b in _EDGES if (cp.DISTRICT[a] != cp.DISTRICT[b]) == bridge]
        colours = [to_rgba(colour, 0.9 if in_play[a] and in_play[b] else 0.2) for a, b in edges]
        ax.add_collection(LineCollection([(XY[a], XY[b]) for a, b in edges], colors=colours, zorder=1, **style))
    for index, (x, y) in enumerate(LAKE_XY, start=1):
        ax.text(
            x,
            y,
            f"L{index}",
            ha="center",
            va="center",
            fontsize=7,
            color="#1b4f72",
            zorder=1.6,
            bbox={"boxstyle": "round,pad=0.25", "fc": "#d6eaf8", "ec": "#aed6f1"},
        )
    ax.scatter(STATUE_XY[:, 0], STATUE_XY[:, 1], s=40, c="#b7950b", marker="*", zorder=1.5)
    _draw_discs(ax, list(range(cp.NUM_NBHDS)), in_play)
    canvas = cast(FigureCanvasAgg, fig.canvas)  # _new_figure gave the figure an Agg canvas
    canvas.draw()
    layer = np.asarray(canvas.buffer_rgba())[:, :, :3].copy()
    layer.flags.writeable = False
    return layer


def _value_items(spots: list[tuple[int, int, int]]) -> list[tuple[float, float, str, str]]:
    return [(XY[nb, 0], XY[nb, 1], str(value), "black" if seat == 2 else "white") for seat, nb, value in spots]


def _draw_pieces(ax, s: State) -> None:
    tokens = [nb for nb in range(cp.NUM_NBHDS) if s.token[nb] != cp.NO_TOKEN]
    labels = []
    if tokens:
        ax.scatter(
            TOKEN_XY[tokens, 0],
            TOKEN_XY[tokens, 1],
            s=80,
            zorder=6,
            edgecolors="white",
            linewidths=0.6,
            c=[TOKEN_STYLE[s.token[nb]][1] for nb in tokens],
        )
        _labels(ax, [(*TOKEN_XY[nb], TOKEN_STYLE[s.token[nb]][0], "white") for nb in tokens], 6.0, 6.5)
    built = [(s.owner[nb], nb, s.built_value[nb]) for nb in range(cp.NUM_NBHDS) if s.owner[nb] >= 0]
    if built:
        spots = [nb for _, nb, _ in built]
        ax.scatter(
            XY[spots, 0],
            XY[spots, 1],
            s=200,
            marker="s",
            c=[SEAT_COLOURS[seat] for seat, _, _ in built],
            edgecolors="black",
            linewidths=1.0,
            zorder=3,
        )
        labels += _value_items(built)
    if s.bids:
        spots = [nb for _, nb, _ in s.bids]
        colours = [SEAT_COLOURS[seat] for seat, _, _ in s.bids]
        top = s.bids[-1][1]
        ax.scatter(
            [XY[top, 0]], [XY[top, 1]], s=1500, c=HIGHLIGHT, edgecolors="#b7950b", linewidths=1.0, zorder=1.8
        )  # a halo behind the top bid's neighbourhood ...
        _draw_discs(ax, [top], s.in_play, zorder=1.9)  # ... which is redrawn over it
        ax.scatter(XY[spots, 0], XY[spots, 1], s=700, facecolors="none", edgecolors="black", linewidths=5.5, zorder=3)
        ax.scatter(XY[spots, 0], XY[spots, 1], s=700, facecolors="none", edgecolors=colours, linewidths=3.5, zorder=3.1)
        ax.scatter(XY[spots, 0], XY[spots, 1], s=170, c=colours, edgecolors="black", linewidths=0.8, zorder=3.2)
        labels += _value_items(s.bids)
    _labels(ax, labels, 8.0, 7)
    _labels(
        ax,
        [
            (XY[nb, 0] - 2.4, XY[nb, 1] - 2.4, str(nb), "#222222" if s.in_play[nb] else "#bbbbbb")
            for nb in range(cp.NUM_NBHDS)
        ],
        6.5,
        8,
        bold=False,
    )  # ids over any halo or ring


# ----- the panel -------------------------------------------------------------------------------
def _status(s: State) -> tuple[str, str]:
    """The headline (who is to do what, or the result) and a detail line."""
    if s.decision == r.GAME_OVER:
        return "game over - winner: " + ", ".join(f"seat {w}" for w in r.winners(s)), "final scores below"
    if not s.bids:
        return f"seat {s.actor} to open call {s.calls + 1}", "bid on any free neighbourhood"
    seat, nb, value = s.bids[-1]
    if s.decision == r.Decision.VALUE:
        return f"seat {s.actor} to choose a bid value", f"top bid: seat {seat}, {value} on {nb}"
    return f"seat {s.actor} to outbid or pass", f"top bid: seat {seat}, {value} on {nb} (outbid next to it)"


def _draw_panel(fig: Figure, s: State) -> None:
    over = s.decision == r.GAME_OVER
    text, x = _Text(), PANEL_X
    text.line(x, 22, f"Metropolys ({s.version}), {s.n} players", 11, bold=True)
    calls = f"{s.calls} calls completed" + ("" if over else f"; call {s.calls + 1} opened by seat {s.opener}")
    text.line(x, 42, calls, 9)
    if s.removed:
        text.line(x, 58, "out of play: " + ", ".join(cp.DISTRICT_NAMES[d] for d in s.removed), 9)
    status, detail = _status(s)
    text.line(x, 84, status, 10.5, ALERT, bold=True)
    text.line(x, 101, detail, 9)
    row_h = (HEIGHT - 118 - 62) / 4
    for seat in range(s.n):
        top = 118 + seat * row_h
        if seat == s.actor:
            fig.add_artist(
                FancyBboxPatch(
                    (x - 8, HEIGHT - top - row_h + 6),
                    WIDTH - x,
                    row_h - 8,
                    boxstyle="round,pad=2",
                    fc="#fff7d6",
                    ec="#d4a017",
                    lw=1.5,
                    transform=IdentityTransform(),
                    zorder=0,
                )
            )
        fig.add_artist(
            FancyBboxPatch(
                (x, HEIGHT - top - 17),
                11,
                11,
                boxstyle="square,pad=0",
                fc=SEAT_COLOURS[seat],
                ec="black",
                lw=0.8,
                transform=IdentityTransform(),
            )
        )
        text.line(x + 17, top + 16, f"seat {seat} ({cp.PLAYER_COLOURS[seat]})", 10, SEAT_TEXT[seat], bold=True)
        marks = [
            name for name, held in (("Subway card", s.subway_card == seat), ("Arch card", s.arch_card == seat)) if held
        ]
        if s.passed >> seat & 1:
            marks.append("passed")
        if seat == s.actor:
            marks.append("TO ACT")
        text.line(
            WIDTH - 12, top + 16, "  ".join(marks), 9, ALERT if seat == s.actor else "black", bold=True, right=True
        )
        trendy, subway, arch = s.tokens[seat]
        supply = " ".join(map(str, r.values_of(s.supply[seat]))) or "-"
        bids = ", ".join(f"{value} on {nb}" for bidder, nb, value in s.bids if bidder == seat)
        body = [
            (f"built {s.built[seat]}/13    public score {r.token_points(s, seat)}", "black", False),
            (f"tokens {trendy} trendy, {subway} subway, {arch} archaeological", "black", False),
            (f"supply {supply}", "black", False),
        ]
        if bids:
            body.append((f"bids this call: {bids}", "black", False))
        if over:
            cards = ", ".join(f"{kind} {name}" for kind, name in secret_cards(s, seat).items())
            body += [(f"cards: {cards}", ALERT, False), (f"FINAL SCORE {r.score(s, seat)}", ALERT, True)]
        for index, (line, colour, bold) in enumerate(body):
            text.line(x, top + 35 + 17 * index, line, 9, colour, bold)
    legend = (
        "square + value: building;  ring + value: bid;  gold halo: top bid",
        "T trendy, S subway, A archaeological token;  dashed: bridge",
        "* statue;  L lake;  faded: out of play" + ("" if over else ";  secret cards hidden"),
    )
    for index, line in enumerate(legend):
        text.line(x, HEIGHT - 44 + 15 * index, line, 8, MUTED)
    text.draw(fig)


def render_image(s: State) -> np.ndarray:
    """The public board and panel as an H x W x 3 uint8 array (640 x 1000 for every state)."""
    fig, board = _new_figure(transparent=True)
    _draw_pieces(board, s)
    _draw_panel(fig, s)
    canvas = cast(FigureCanvasAgg, fig.canvas)  # _new_figure gave the figure an Agg canvas
    canvas.draw()
    pieces = np.asarray(canvas.buffer_rgba())
    alpha = pieces[:, :, 3:].astype(np.uint16)
    background = _board_layer(tuple(bool(on) for on in s.in_play)).astype(np.uint16)
    return ((pieces[:, :, :3] * alpha + background * (255 - alpha) + 127) // 255).astype(np.uint8)


def board_map(s: State, mask: np.ndarray) -> BoardMap:
    """Each neighbourhood one may bid on, as its disc."""
    _, ax = _new_figure()
    radius = np.sqrt(DISC_SIZE) / 2 * DPI / 72 + 2  # the disc's radius in pixels, and its outline
    regions = [
        Region(nb, circle(*pixel_points(ax, [XY[nb]])[0], radius))
        for nb in np.flatnonzero(mask[: cp.NUM_NBHDS]).tolist()
    ]
    return BoardMap(WIDTH, HEIGHT, legal_only(mask, regions))
