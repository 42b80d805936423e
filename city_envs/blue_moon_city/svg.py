"""The public Blue Moon City table as SVG: every tile with its place (p5) and name, its sections as
rows naming their number, colour and value, the seat whose marker is on each; the dragons as tokens
carrying their names (no dragon takes a seat's colour); the figures; the obelisk on the Courtyard; each
seat's public state and a legend. Hands and pending reward cards are never shown.

Its places to click: the tiles the figure may move to, the sections it may build, and the tiles a dragon
may go to, these in one layer per dragon and way of moving (a tile may take the figure and several
dragons), each shown by its switch beside the city.
"""

from __future__ import annotations

from city_envs.blue_moon_city import components as cp
from city_envs.blue_moon_city import rules as r
from city_envs.blue_moon_city.render import choice_group
from city_envs.blue_moon_city.rules import State
from city_envs.core.svg import Drawing, Point

TILE_W, TILE_H = 146.0, 160.0
CITY_W = 5 * TILE_W
PANEL_X = CITY_W + 12
# a section's tint per card colour (then "any colour"): pale, so a seat's marker on it stands out; the
# row also names the colour
SECTION_TINTS = ("#3d3d3d", "#f5b7b1", "#aed6f1", "#d5d8dc", "#c9a27e", "#ffffff", "#f9e79f", "#a9dfbf", "#d7bde2")
DARK_TINTS = frozenset((cp.BLACK,))
DRAGON_FILL = "#2b2b2b"
FIGURE_FILL = "#ffffff"
COMPLETE = "#d5d8dc"
COURTYARD = "#fdebd0"
OPEN = "#fbfcfc"
ROW_TOP, ROW_H = 40.0, 19.0


def _corner(position: int) -> Point:
    row, col = cp.CELLS[position]
    return col * TILE_W, row * TILE_H


def _section_box(position: int, section: int) -> tuple[float, float, float, float]:
    x, y = _corner(position)
    return x + 6, y + ROW_TOP + section * ROW_H, TILE_W - 12, ROW_H - 2


def _box(left: float, top: float, width: float, height: float) -> tuple[Point, ...]:
    return (left, top), (left + width, top), (left + width, top + height), (left, top + height)


def _draw_obelisk(d: Drawing, s: State, x: float, y: float) -> None:
    """The obelisk's spaces bottom up (in reading order), each with its cost and the seat that filled it."""
    for index, cost in enumerate(cp.OBELISK_COSTS[s.n]):
        row, col = divmod(index, 4)
        left, top = x + 10 + col * 30, y + 62 + (3 - row) * 24
        owner = s.obelisk[index] if index < len(s.obelisk) else -1
        if owner >= 0:
            d.rect(left, top, 27, 21, seat=owner, seat_as="fill")
            d.text(left + 13.5, top + 11, cost, size=13, anchor="middle", middle=True, fill="#ffffff", bold=True)
        else:
            d.rect(left, top, 27, 21, fill="#ffffff", stroke="#555555")
            d.text(left + 13.5, top + 11, cost, size=13, anchor="middle", middle=True)


def _draw_tile(d: Drawing, s: State, position: int) -> None:
    x, y = _corner(position)
    tile = s.tile_at[position]
    shade = COURTYARD if tile == cp.COURTYARD else COMPLETE if s.complete[position] else OPEN
    d.rect(x + 3, y + 3, TILE_W - 6, TILE_H - 6, fill=shade, stroke="#34495e", stroke_width=1.5, rx=4)
    d.text(x + TILE_W / 2, y + 19, cp.TILE_NAMES[tile], size=13, anchor="middle", bold=len(cp.TILE_NAMES[tile]) < 13)
    d.text(x + 8, y + 35, f"p{position}", size=13, fill="#555555")
    for seat in range(s.n):  # figures: a white pawn outlined and numbered in the seat's colour
        if s.figures[seat] == position:
            left = x + TILE_W - 24 - 21 * (s.n - 1 - seat)
            d.rect(left, y + 22, 18, 16, fill=FIGURE_FILL, seat=seat, stroke_width=2.5, rx=3)
            d.text(left + 9, y + 30.5, seat, size=13, anchor="middle", middle=True, seat=seat, bold=True)
    if tile == cp.COURTYARD:
        d.text(x + TILE_W / 2, y + 56, "obelisk", size=13, anchor="middle", bold=True)
        _draw_obelisk(d, s, x, y)
    elif s.complete[position]:
        d.text(x + TILE_W / 2, y + 60, "complete", size=14, anchor="middle", fill="#34495e")
    else:
        for section, (colour, value) in enumerate(cp.SECTIONS[tile]):
            left, top, width, height = _section_box(position, section)
            seat = s.markers_on[position][section]
            name = "any" if colour == cp.ANY else cp.COLOUR_NAMES[colour]
            if seat >= 0:  # built: the row takes the builder's colour
                d.rect(left, top, width, height, seat=seat, seat_as="fill")
                ink = "#ffffff"
            else:
                d.rect(left, top, width, height, fill=SECTION_TINTS[colour], stroke="#555555")
                ink = "#ffffff" if colour in DARK_TINTS else "#1b2631"
            d.text(left + 4, top + height / 2, f"section {section}", size=13, middle=True, fill=ink)
            d.text(
                left + width - 4,
                top + height / 2,
                f"{name} {value}",
                size=13,
                anchor="end",
                middle=True,
                fill=ink,
                bold=True,
            )
    _dragons(d, [n for n, at in enumerate(s.dragons) if at == position], x + 8, y + TILE_H - 30)


def _dragons(d: Drawing, dragons: list[int], x: float, y: float) -> None:
    """Dragon tokens in a row from (x, y), by name and all alike."""
    for dragon in dragons:
        name = cp.DRAGON_NAMES[dragon]
        wide = 10 + 8.6 * len(name)
        d.rect(x, y, wide, 20, fill=DRAGON_FILL, stroke=None, rx=9)
        d.text(x + wide / 2, y + 10, name, size=13, anchor="middle", middle=True, fill="#ffffff")
        x += wide + 4


def _status(s: State) -> list[tuple[str, int | None, bool]]:
    rows: list[tuple[str, int | None, bool]] = [
        (f"Blue Moon City, {s.n} players", None, True),
        (f"turn {s.turns + 1}; next offering {r.offer_cost(s)} crystals", None, False),
        (f"scales left {s.scale_supply}; deck {len(s.deck)}; discards {sum(s.discard)}", None, False),
    ]
    if s.decision == r.GAME_OVER:
        note = " (max_rounds)" if s.truncated else ""
        rows.append((f"game over{note}", None, True))
        rows.append(("winners: " + ", ".join(f"seat {w}" for w in s.winners), None, True))
    else:
        rows.append((f"seat {s.active} to choose", s.active, True))
        if s.payment is not None:
            pay = s.payment
            colour = cp.COLOUR_NAMES[pay.colour] if pay.colour >= 0 else "colour to choose"
            rows.append((f"paying section {pay.section}: {pay.total} of {pay.value}, {colour}", None, False))
    rows.append(("", None, False))
    for seat in range(s.n):
        pending = f" +{len(s.pending)} due" if seat == s.active and s.pending else ""
        mark = " (to choose)" if seat == s.active and s.decision != r.GAME_OVER else ""
        rows.append((f"seat {seat}{mark}", seat, True))
        rows.append(
            (f"  offerings {s.offerings[seat]} of {cp.OFFERINGS_TO_WIN[s.n]}, crystals {s.crystals[seat]}", None, False)
        )
        rows.append((f"  scales {s.scales[seat]}, markers {s.markers[seat]}", None, False))
        rows.append((f"  cards {sum(s.hands[seat])}{pending}", None, False))
    return rows


def _choices(d: Drawing, s: State, choices: dict[int, str]) -> None:
    """Tiles the figure may move to, the sections of its tile it may build, and the tiles a dragon may
    go to: each dragon move in the layer of its dragon and way of moving, so one tile is one place there."""
    for action, text in sorted(choices.items()):
        if r.DRAGON_MOVE <= action < r.FLIT_BOOST:
            x, y = _corner((action - r.DRAGON_MOVE) % 21)
            d.choice(action, text, _box(x + 3, y + 3, TILE_W - 6, TILE_H - 6), layer=choice_group(s, action))
        elif r.MOVE_FIGURE <= action < r.SELECT_SECTION:
            x, y = _corner(action - r.MOVE_FIGURE)
            d.choice(action, text, _box(x + 3, y + 3, TILE_W - 6, TILE_H - 6))
        elif r.SELECT_SECTION <= action < r.END_CONTRIBUTION:
            d.choice(action, text, _box(*_section_box(s.figures[s.active], action - r.SELECT_SECTION)))


def _dragon_switches(d: Drawing, s: State, choices: dict[int, str], x: float, y: float) -> float:
    """Beside the city, a switch per dragon and way of moving it that has a tile to go to: on, the board
    shows that dragon's tiles in place of the figure's. Returns the y below them."""
    layers: dict[str, int] = {}
    for action in sorted(choices):
        if r.DRAGON_MOVE <= action < r.FLIT_BOOST:
            layers[choice_group(s, action)] = layers.get(choice_group(s, action), 0) + 1
    if not layers:
        return y
    y = d.lines(x, y, [("to move a dragon, pick it here,", None, True), ("then click its tile:", None, True)], size=13)
    for layer, count in layers.items():
        top = y + 5
        d.rect(x, top, 246, 22, fill="#ffffff", stroke="#909497", rx=3)
        d.text(x + 6, top + 11, f"{layer} ({count} tiles)", size=13, middle=True)
        d.layer_switch(layer, f"{layer}: show its tiles on the board", _box(x, top, 246, 22))
        y = top + 22
    return d.lines(x, y, [("picked again: back to your figure", None, False)], size=13)


def render_svg(s: State, choices: dict[int, str]) -> str:
    d = Drawing(1000, 5 * TILE_H, f"Blue Moon City: the city, the obelisk and each seat, turn {s.turns + 1}")
    for position in range(cp.NUM_POSITIONS):
        _draw_tile(d, s, position)
    _choices(d, s, choices)
    y = d.lines(PANEL_X, 0, _status(s), size=13.5, gap=1.3)
    y = _dragon_switches(d, s, choices, PANEL_X, y + 4)
    waiting = [n for n, at in enumerate(s.dragons) if at == cp.OFF_BOARD]
    if waiting:
        y = d.lines(PANEL_X, y, [("dragons not yet in the city:", None, False)], size=13)
        _dragons(d, waiting, PANEL_X, y + 5)
        y += 25
    items: list[tuple[str, str | int]] = [(f"seat {seat}: figure, built section", seat) for seat in range(s.n)]
    items += [("a dragon (its name on it)", DRAGON_FILL), ("a completed building", COMPLETE)]
    items += [("the Courtyard, with the obelisk", COURTYARD), ("a section: number, colour, value", OPEN)]
    d.legend(PANEL_X, y + 8, items)
    return d.document()
