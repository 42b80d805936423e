"""The public Big City table as an RGB image (matplotlib, no window, no global pyplot state).

The city: every plot as a cell tinted by its neighbourhood, with its number; holes hatched; pieces
drawn over their plots (one block per piece) in their type's colour with the owner's seat colour as
border and a type letter; parks green, factories grey; trams as thick lines on the streets. Beside
it every seat's public state (score, cards held per pile) and the pending decision. Hands are never shown.
"""

from __future__ import annotations

from typing import cast

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from city_envs.big_city import components as cp
from city_envs.big_city import rules as r
from city_envs.big_city.render import piece_name
from city_envs.big_city.rules import State
from city_envs.core.regions import BoardMap, Region, legal_only, pixel_points, rectangle
from city_envs.core.svg import SEAT_COLOURS

TILE_TINTS = ("#fdf2e9", "#eaf2f8", "#f4ecf7", "#e9f7ef", "#fef9e7", "#f2f3f4", "#fdedec", "#e8f8f5")
KIND_COLOURS = {
    **dict.fromkeys(cp.RESIDENCES, "#f5cba7"),
    **dict.fromkeys(cp.BUSINESSES, "#aed6f1"),
    cp.CITY_HALL: "#f9e79f",
    cp.CHURCH: "#d7bde2",
    cp.CINEMA: "#f1948a",
    cp.POST_OFFICE: "#a3e4d7",
    cp.BANK: "#f0b27a",
    cp.SHOPPING_CENTER: "#bb8fce",
    **dict.fromkeys(cp.PARKS, "#58d68d"),
    **dict.fromkeys(cp.FACTORIES, "#909497"),
}
LABELS = ("R", "R", "R", "B", "B", "B", "H", "C", "M", "P", "K", "S", "park", "park", "fact", "fact")
TRAM_COLOUR = "#212f3d"  # no seat colour (core.svg.SEAT_COLOURS) means anything else
WIDTH_IN, HEIGHT_IN, DPI = 12.5, 8.0, 80  # 1000 x 640 pixels
BOARD_RECT = (0.0, 0.0, 0.64, 1.0)  # the city's axes in the figure


def _frame_city(fig: Figure, s: State):
    """The board axes framing the city with a margin of at least half a plot (one plot = one data unit)."""
    ax = fig.add_axes(BOARD_RECT)
    placed = [p for p in range(cp.NUM_PLOTS) if s.px[p] >= 0]
    x0, x1 = min(s.px[p] for p in placed), max(s.px[p] for p in placed) + 1
    y0, y1 = min(s.py[p] for p in placed), max(s.py[p] for p in placed) + 1
    side = max(x1 - x0, y1 - y0, 8) + 1
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    ax.set_xlim(cx - side / 2, cx + side / 2)
    ax.set_ylim(cy + side / 2, cy - side / 2)
    ax.set_aspect("equal")
    ax.axis("off")
    return ax


def _new_figure() -> Figure:
    fig = Figure(figsize=(WIDTH_IN, HEIGHT_IN), dpi=DPI)
    FigureCanvasAgg(fig)
    return fig


def _draw_city(ax, s: State) -> None:
    placed = [p for p in range(cp.NUM_PLOTS) if s.px[p] >= 0]
    font = max(4.5, min(9.0, 90.0 / (ax.get_xlim()[1] - ax.get_xlim()[0])))
    for i in s.holes:
        hx, hy = i % r.PAD - 1, i // r.PAD - 1
        ax.add_patch(Rectangle((hx, hy), 1, 1, fc="#ffffff", ec="#bbbbbb", hatch="//", lw=0.3))
    for p in placed:
        x, y = s.px[p], s.py[p]
        ax.add_patch(Rectangle((x, y), 1, 1, fc=TILE_TINTS[cp.PLOT_TILE[p] - 1], ec="#7f8c8d", lw=0.5))
        if s.occupant[p] < 0:
            ax.text(x + 0.5, y + 0.5, str(cp.PLOT_NUMBER[p]), ha="center", va="center", fontsize=font, color="#566573")
    for piece in s.pieces:
        kind, owner, plots, points = piece.kind, piece.owner, piece.plots, piece.points
        xs = [s.px[p] for p in plots]
        ys = [s.py[p] for p in plots]
        colour = KIND_COLOURS[kind]
        for p in plots:  # cells first, then one border around the block's bounding box
            ax.add_patch(Rectangle((s.px[p] + 0.06, s.py[p] + 0.06), 0.88, 0.88, fc=colour, ec="none"))
        if kind == cp.FACTORY_L:  # not a rectangle: border each cell
            for p in plots:
                ax.add_patch(
                    Rectangle((s.px[p] + 0.06, s.py[p] + 0.06), 0.88, 0.88, fc="none", ec=SEAT_COLOURS[owner], lw=1.2)
                )
        else:
            ax.add_patch(
                Rectangle(
                    (min(xs) + 0.06, min(ys) + 0.06),
                    max(xs) - min(xs) + 0.88,
                    max(ys) - min(ys) + 0.88,
                    fc="none",
                    ec=SEAT_COLOURS[owner],
                    lw=1.8,
                )
            )
        label = LABELS[kind] + (f"{points}" if kind < cp.NUM_KINDS and kind != cp.CITY_HALL else "")
        for p in plots:
            ax.text(s.px[p] + 0.5, s.py[p] + 0.38, label, ha="center", va="center", fontsize=font, weight="bold")
            ax.text(
                s.px[p] + 0.5,
                s.py[p] + 0.75,
                str(cp.PLOT_NUMBER[p]),
                ha="center",
                va="center",
                fontsize=font * 0.7,
                color="#424949",
            )
    for key in s.trams:
        a, b = r.key_vertices(key)
        (ax_, ay_), (bx, by) = divmod(a, r.VERTEX_ROW)[::-1], divmod(b, r.VERTEX_ROW)[::-1]
        ax.plot([ax_, bx], [ay_, by], color=TRAM_COLOUR, lw=3.2, solid_capstyle="round")


def _panel_lines(s: State) -> list[tuple[str, str, bool]]:
    hall = "built" if r.city_hall_built(s) else "not built"
    lines = [
        (f"Big City, {s.n} players, turn {s.turns + 1}", "#000000", True),
        (f"City Hall {hall}; trams left {r.trams_left(s)}", "#000000", False),
        ("piles " + " ".join(f"{i + 1}:{len(pile)}" for i, pile in enumerate(s.piles)), "#000000", False),
        ("tiles placed " + " ".join(str(n + 1) for n in range(8) if s.tiles[n] is not None), "#000000", False),
    ]
    if s.decision == r.GAME_OVER:
        note = " (turn cap)" if s.truncated else ""
        lines.append((f"game over{note} - winners: " + ", ".join(f"seat {w}" for w in s.winners), "#b03a2e", True))
    else:
        lines.append((f"seat {s.active}: {r.Decision.name_of(s.decision)}", "#b03a2e", True))
        if s.kind >= 0:
            chosen = ", ".join(str(cp.PLOT_NUMBER[p]) for p in s.selected) or "-"
            lines.append((f"placing {piece_name(s.kind)}: {chosen}", "#000000", False))
    lines.append(("", "#000000", False))
    for seat in range(s.n):
        counts = [0] * 8
        for c in s.hands[seat]:
            counts[cp.CARD_PILE[c] - 1] += 1
        held = " ".join(f"{i + 1}:{k}" for i, k in enumerate(counts) if k) or "none"
        lines.append(
            (f"seat {seat}: {s.scores[seat]} points" + (" <" if seat == s.active else ""), SEAT_COLOURS[seat], True)
        )
        lines.append((f"  {len(s.hands[seat])} cards (pile:count {held})", "#000000", False))
    lines.append(("", "#000000", False))
    lines.append(("R residence, B business, H City Hall, C church,", "#555555", False))
    lines.append(("M cinema, P post office, K bank, S shopping,", "#555555", False))
    lines.append(("park, fact(ory); the number after a letter = points", "#555555", False))
    return lines


def render_image(s: State) -> np.ndarray:
    fig = _new_figure()
    _draw_city(_frame_city(fig, s), s)
    panel = fig.add_axes((0.66, 0.0, 0.34, 1.0))
    panel.axis("off")
    for index, (text, colour, bold) in enumerate(_panel_lines(s)):
        panel.text(
            0.0,
            0.97 - index * 0.042,
            text,
            fontsize=9.5,
            color=colour,
            weight="bold" if bold else "normal",
            va="top",
            transform=panel.transAxes,
        )
    canvas = cast(FigureCanvasAgg, fig.canvas)  # _new_figure gave the figure an Agg canvas
    canvas.draw()
    return np.asarray(canvas.buffer_rgba())[:, :, :3].copy()


TRAM_END = 0.15  # a tram's place stops this far (in plots) short of each end of its street


def edge_shape(s: State, e: int, tile: bool) -> tuple[tuple[float, float], ...]:
    """Edge e (side of placed plot q) in data units. For a tile, the quarter of the empty plot beyond it
    that touches the edge (the quarters of one empty plot never overlap); for a tram, a thin diamond
    along the middle of the street, clear of its ends (two streets' diamonds never meet)."""
    q, side = divmod(e, 4)
    x, y = s.px[q], s.py[q]
    corners = (((x, y), (x + 1, y)), ((x + 1, y), (x + 1, y + 1)), ((x, y + 1), (x + 1, y + 1)), ((x, y), (x, y + 1)))[
        side
    ]
    (ax_, ay_), (bx, by) = corners
    dx, dy = cp.DIRS[side]
    mx, my = (ax_ + bx) / 2, (ay_ + by) / 2
    if tile:
        return (ax_, ay_), (bx, by), (mx + dx * 0.5, my + dy * 0.5)
    start, end = (
        (ax_ + (bx - ax_) * TRAM_END, ay_ + (by - ay_) * TRAM_END),
        (bx + (ax_ - bx) * TRAM_END, by + (ay_ - by) * TRAM_END),
    )
    return start, (mx + dx * 0.2, my + dy * 0.2), end, (mx - dx * 0.2, my - dy * 0.2)


def board_map(s: State, mask: np.ndarray) -> BoardMap:
    """Clickable plots (building, facilities) and streets (where a tile touches the city, trams)."""
    fig = _new_figure()
    ax = _frame_city(fig, s)
    regions = []
    if s.decision in (r.Decision.BUILD_SELECT, r.Decision.PIECE_SELECT):
        regions = [
            Region(p, pixel_points(ax, rectangle(s.px[p] + 0.06, s.py[p] + 0.06, 0.88, 0.88)))
            for p in range(cp.NUM_PLOTS)
            if s.px[p] >= 0 and mask[p]
        ]
    elif s.decision in (r.Decision.TILE_EDGE, r.Decision.TRAM_EDGE, r.Decision.TRAM_EDGE_OPT):
        tile = s.decision == r.Decision.TILE_EDGE
        regions = [
            Region(r.EDGE + e, pixel_points(ax, edge_shape(s, e, tile)))
            for e in np.flatnonzero(mask[r.EDGE : r.LOCAL_CELL]).tolist()
        ]
    width, height = int(WIDTH_IN * DPI), int(HEIGHT_IN * DPI)
    return BoardMap(width, height, legal_only(mask, regions))
