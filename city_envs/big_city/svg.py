"""The public Big City table as SVG: every plot with its number at a readable size (the buttons name
plots by number), pieces in their type's colour bordered in the owner's seat colour, trams, the tile
being placed with its plot numbers, each seat's public state, and a legend. Hands are never shown.
"""

from __future__ import annotations

from city_envs.big_city import components as cp
from city_envs.big_city import rules as r
from city_envs.big_city.image import KIND_COLOURS, TILE_TINTS, TRAM_COLOUR, edge_shape
from city_envs.big_city.render import piece_name, tile_label
from city_envs.big_city.rules import State
from city_envs.core.svg import Drawing, Point

CITY = 640.0  # the city's square, in user units
PANEL = 350.0  # the text panel beside (or below) it
MIN_CELL, MAX_CELL = 28.0, 56.0  # a plot holds two 13-unit lines of text
HOLE_COLOUR = "#eeeeee"
# a piece's letter on its plots (a number after it: the points it scores)
LETTERS = ("R", "R", "R", "B", "B", "B", "H", "C", "M", "P", "K", "S", "Pk", "Pk", "F", "F")
LEGEND = (
    ("R residence", cp.RES1),
    ("B business", cp.BUS1),
    ("H City Hall", cp.CITY_HALL),
    ("C church", cp.CHURCH),
    ("M cinema", cp.CINEMA),
    ("P post office", cp.POST_OFFICE),
    ("K bank", cp.BANK),
    ("S shopping center", cp.SHOPPING_CENTER),
    ("Pk park", cp.PARK2),
    ("F factory", cp.FACTORY_L),
)


class Frame:
    """Where the city's cells lie: cell (x, y) of the plot grid has its top left at `at(x, y)`."""

    def __init__(self, s: State) -> None:
        placed = [p for p in range(cp.NUM_PLOTS) if s.px[p] >= 0]
        x0, x1 = min(s.px[p] for p in placed), max(s.px[p] for p in placed) + 1
        y0, y1 = min(s.py[p] for p in placed), max(s.py[p] for p in placed) + 1
        across, down = max(x1 - x0, 8) + 1, max(y1 - y0, 8) + 1  # half a plot of margin all round
        self.cell = max(MIN_CELL, min(MAX_CELL, CITY / max(across, down)))
        self.left, self.top = (x0 + x1 - across) / 2, (y0 + y1 - down) / 2
        self.width, self.height = across * self.cell, down * self.cell

    def at(self, x: float, y: float) -> Point:
        return (x - self.left) * self.cell, (y - self.top) * self.cell

    def shape(self, points: tuple[Point, ...]) -> tuple[Point, ...]:
        return tuple(self.at(x, y) for x, y in points)


def _cell_box(frame: Frame, x: int, y: int, inset: float) -> tuple[float, float, float]:
    left, top = frame.at(x + inset, y + inset)
    return left, top, frame.cell * (1 - 2 * inset)


def _draw_city(d: Drawing, s: State, frame: Frame) -> None:
    c = frame.cell
    for i in s.holes:
        left, top, side = _cell_box(frame, i % r.PAD - 1, i // r.PAD - 1, 0.0)
        d.rect(left, top, side, side, fill=HOLE_COLOUR, stroke="#aab7b8", dash="3 3")
    for p in range(cp.NUM_PLOTS):
        if s.px[p] >= 0:
            left, top, side = _cell_box(frame, s.px[p], s.py[p], 0.0)
            d.rect(left, top, side, side, fill=TILE_TINTS[cp.PLOT_TILE[p] - 1], stroke="#909497")
    for piece in s.pieces:
        for p in piece.plots:
            left, top, side = _cell_box(frame, s.px[p], s.py[p], 0.05)
            d.rect(left, top, side, side, fill=KIND_COLOURS[piece.kind], stroke=None, seat=piece.owner, stroke_width=3)
    for p in range(cp.NUM_PLOTS):
        if s.px[p] < 0:
            continue
        left, top = frame.at(s.px[p], s.py[p])
        number = str(cp.PLOT_NUMBER[p])
        if s.occupant[p] < 0:
            d.text(left + c / 2, top + c / 2, number, size=max(14.0, c * 0.32), anchor="middle", middle=True)
            continue
        kind, points = s.pieces[s.occupant[p]].kind, s.pieces[s.occupant[p]].points
        label = LETTERS[kind] + (f"{points}" if kind < cp.NUM_KINDS and kind != cp.CITY_HALL else "")
        d.text(left + c / 2, top + c * 0.3, label, size=13, anchor="middle", bold=True, middle=True)
        d.text(left + c / 2, top + c * 0.72, number, size=13, anchor="middle", middle=True, fill="#34495e")
    for p in s.selected:
        left, top, side = _cell_box(frame, s.px[p], s.py[p], 0.1)
        d.rect(left, top, side, side, fill=None, stroke="#17202a", stroke_width=2.5, dash="5 3")
    for key in s.trams:
        a, b = r.key_vertices(key)
        (ax, ay), (bx, by) = divmod(a, r.VERTEX_ROW)[::-1], divmod(b, r.VERTEX_ROW)[::-1]
        d.line(frame.at(ax, ay), frame.at(bx, by), TRAM_COLOUR, width=max(5.0, c * 0.14))


def _choices(d: Drawing, s: State, frame: Frame, choices: dict[int, str]) -> None:
    """Plots to build on, streets a tile or a tram goes along: the places the legal choices stand for."""
    for action, text in sorted(choices.items()):
        if action < cp.NUM_PLOTS and s.decision in (r.Decision.BUILD_SELECT, r.Decision.PIECE_SELECT):
            left, top, side = _cell_box(frame, s.px[action], s.py[action], 0.04)
            d.choice(action, text, ((left, top), (left + side, top), (left + side, top + side), (left, top + side)))
        elif r.EDGE <= action < r.LOCAL_CELL and s.decision in (
            r.Decision.TILE_EDGE,
            r.Decision.TRAM_EDGE,
            r.Decision.TRAM_EDGE_OPT,
        ):
            d.choice(action, text, frame.shape(edge_shape(s, action - r.EDGE, s.decision == r.Decision.TILE_EDGE)))


def _status(s: State) -> list[tuple[str, int | None, bool]]:
    hall = "built" if r.city_hall_built(s) else "not built"
    rows: list[tuple[str, int | None, bool]] = [
        (f"Big City, {s.n} players, turn {s.turns + 1}", None, True),
        (f"City Hall {hall}; trams left {r.trams_left(s)}", None, False),
        ("cards in piles " + " ".join(f"{i + 1}:{len(pile)}" for i, pile in enumerate(s.piles)), None, False),
    ]
    if s.decision == r.GAME_OVER:
        note = " (turn cap)" if s.truncated else ""
        rows.append((f"game over{note}", None, True))
        rows.append(("winners: " + ", ".join(f"seat {w}" for w in s.winners), None, True))
    else:
        rows.append((f"seat {s.active} to choose", s.active, True))
        if s.kind >= 0:
            chosen = ", ".join(str(cp.PLOT_NUMBER[p]) for p in s.selected) or "none yet"
            rows.append((f"placing {piece_name(s.kind)}: plots {chosen}", None, False))
    for seat in range(s.n):
        piles = sorted({cp.CARD_PILE[c] for c in s.hands[seat]})
        mark = "  (to choose)" if seat == s.active and s.decision != r.GAME_OVER else ""
        rows.append((f"seat {seat}: {s.scores[seat]} points{mark}", seat, True))
        rows.append((f"   {len(s.hands[seat])} cards, from piles " + (" ".join(map(str, piles)) or "-"), None, False))
    return rows


def _tile_preview(d: Drawing, s: State, x: float, y: float) -> float:
    """The neighbourhood being placed, as it lies now, with its plot numbers (the choices name them)."""
    if s.decision not in (r.Decision.TILE_ROTATION, r.Decision.TILE_EDGE, r.Decision.TILE_CELL):
        return y
    layout = cp.LAYOUTS[s.tile][max(s.rotation, 0)]
    height, cells = layout.height, layout.cells
    side = 32.0
    shape = tile_label(s.tile).removeprefix(f"neighbourhood {s.tile} ")
    y = d.lines(x, y, [(f"placing neighbourhood {s.tile}", None, True), (shape, None, False)])
    y += 6
    for ordinal, (cx, cy) in enumerate(cells):
        left, top = x + cx * side, y + cy * side
        d.rect(left, top, side, side, fill=TILE_TINTS[s.tile - 1], stroke="#909497")
        d.text(left + side / 2, top + side / 2, str(10 * s.tile + ordinal + 1), size=14, anchor="middle", middle=True)
    return y + height * side + 4


def _waiting_tiles(d: Drawing, s: State, x: float, y: float) -> float:
    """The neighbourhoods not yet in the city, each named as the choices name it, two to a row."""
    waiting = [n for n in range(1, cp.NUM_TILES + 1) if s.tiles[n - 1] is None]
    if not waiting:
        return y
    y = d.lines(x, y, [("to place:", None, False)], size=13)
    for index, n in enumerate(waiting):
        row, column = divmod(index, 2)
        d.rect(x + column * PANEL / 2, y + 5 + row * 19, 13, 13, fill=TILE_TINTS[n - 1], stroke="#555555")
        d.text(x + column * PANEL / 2 + 18, y + 16 + row * 19, f"neighbourhood {n}", size=13)
    return y + 19 * (-(-len(waiting) // 2)) + 4


def render_svg(s: State, choices: dict[int, str]) -> str:
    frame = Frame(s)
    beside = frame.width <= CITY
    width = frame.width + PANEL + 10 if beside else max(frame.width, 2 * PANEL)
    panel_x, panel_y = (frame.width + 10, 0.0) if beside else (10.0, frame.height + 10)
    legend_rows = (len(LEGEND) + 1) // 2 + 4
    panel_height = 19.0 * (len(_status(s)) + legend_rows) + 300
    height = max(frame.height, panel_y + panel_height)
    d = Drawing(width, height, f"Big City: the city and each seat's public state, turn {s.turns + 1}")
    _draw_city(d, s, frame)
    _choices(d, s, frame, choices)
    y = d.lines(panel_x, panel_y, _status(s), size=14)
    y = _waiting_tiles(d, s, panel_x, y)
    y = _tile_preview(d, s, panel_x, y + 8)
    items: list[tuple[str, str | int]] = [(f"seat {seat}", seat) for seat in range(s.n)]
    items += [(label, KIND_COLOURS[kind]) for label, kind in LEGEND]
    items += [("tram line", TRAM_COLOUR), ("hole (no plot)", HOLE_COLOUR)]
    items += [("neighbourhood n: plots n1, n2 ...", TILE_TINTS[0])]
    y = d.legend(panel_x, y + 6, items, columns=2, column_width=PANEL / 2)
    d.lines(panel_x, y, [("a piece: its letter, its points, its plot", None, False)], size=13)
    return d.document()
