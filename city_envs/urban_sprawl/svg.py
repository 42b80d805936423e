"""The public Urban Sprawl table as SVG. Left: the 12 x 12 city, every lot with its name (a1..l12, as
the buttons name lots), each block's value on a badge at its centre, buildings tinted by zone and
outlined in their controller's colour, the wealth (W) and prestige (P) rows, and the grey circles by
name with their markers; the legend below. Right: the planning and contract cards on offer, each
with its space, its AP cost and its full name (the buttons name them so); then each seat's public
state. Deck order is never shown.
"""

from __future__ import annotations

import textwrap

from city_envs.core.svg import Drawing, Point
from city_envs.urban_sprawl import components as cp
from city_envs.urban_sprawl import rules as r
from city_envs.urban_sprawl.image import placement_shape
from city_envs.urban_sprawl.render import lot_name
from city_envs.urban_sprawl.rules import State

LOT, STREET = 44.0, 10.0
CITY = 12 * LOT + 5 * STREET
LEFT, TOP = 30.0, 56.0  # the forest's width on the left, the water's height on top
PANEL_X = LEFT + CITY + 62
PANEL_CHARS = 44  # characters of 13-unit text in a panel line
# pale tints of the zones (CIV, COM, IND, RES, PARK): the controller's outline stands out on them
ZONE_TINTS = ("#f5b7b1", "#f9e79f", "#aed6f1", "#d7bde2", "#a9dfbf")
WATER, FOREST, EMPTY, CIRCLE = "#d6eaf8", "#d5f5e3", "#fbfcfc", "#e5e8e8"
WEALTH_MARK, PRESTIGE_MARK = "#fdebd0", "#ebdef0"
INK, MUTED = "#1b2631", "#4d5656"


def lot_xy(lot: int) -> Point:
    i, j = cp.LOT_COORDS[lot]
    return LEFT + j * LOT + (j // 2) * STREET, TOP + i * LOT + (i // 2) * STREET


def circle_centre(g: int) -> Point:
    """T0-T2 on the water above their two block columns, R0-R5 on the water right of their block rows."""
    if g < 3:
        x, _ = lot_xy(4 * (2 * g))
        return x + 2 * LOT + STREET / 2, TOP / 2 + 4
    _, y = lot_xy(24 * (g - 3))
    return LEFT + CITY + 28, y + LOT


def _box(left: float, top: float, width: float, height: float) -> tuple[Point, ...]:
    return (left, top), (left + width, top), (left + width, top + height), (left, top + height)


def _draw_city(d: Drawing, s: State) -> None:
    d.rect(LEFT - 4, 4, CITY + 60, TOP - 8, fill=WATER, stroke=None)
    d.rect(LEFT + CITY + 4, 4, 52, CITY + TOP - 4, fill=WATER, stroke=None)
    d.rect(2, 4, LEFT - 6, CITY + TOP + 26, fill=FOREST, stroke=None)
    d.rect(2, TOP + CITY + 4, CITY + LEFT + 2, 26, fill=FOREST, stroke=None)
    contractor = s.offices[cp.CONTRACTOR]
    for lot in range(cp.LOTS):
        x, y = lot_xy(lot)
        record = s.buildings[s.lot_building[lot]] if s.lot_building[lot] >= 0 else None
        zone = record[0] if record is not None else -1
        d.rect(x + 1, y + 1, LOT - 2, LOT - 2, fill=ZONE_TINTS[zone] if zone >= 0 else EMPTY, stroke="#aab7b8")
    for record in s.buildings:
        if record is None:
            continue
        _, _, lots, owner = record
        corners = [lot_xy(x) for x in lots]
        x0, y0 = min(x for x, _ in corners), min(y for _, y in corners)
        x1, y1 = max(x for x, _ in corners) + LOT, max(y for _, y in corners) + LOT
        if owner >= 0:
            d.rect(x0 + 3, y0 + 3, x1 - x0 - 6, y1 - y0 - 6, fill=None, seat=owner, stroke_width=4)
            if owner == contractor:
                d.rect(x0 + 7, y0 + 7, x1 - x0 - 14, y1 - y0 - 14, fill=None, stroke="#111111", dash="4 3")
        else:
            d.rect(x0 + 3, y0 + 3, x1 - x0 - 6, y1 - y0 - 6, fill=None, stroke="#111111", stroke_width=1.5)
    for lot in range(cp.LOTS):
        x, y = lot_xy(lot)
        d.text(x + LOT / 2, y + LOT / 2, lot_name(lot), size=13, anchor="middle", middle=True, fill=INK)
    for block in range(cp.BLOCKS):
        x, y = lot_xy(4 * block)
        d.circle(x + LOT, y + LOT, 10, fill="#ffffff", stroke="#555555")
        d.text(x + LOT, y + LOT + 0.5, r.block_value(s, block), size=13, anchor="middle", middle=True, bold=True)
    for column in range(6):
        x, _ = lot_xy(4 * column)
        d.text(x + LOT, TOP + CITY + 22, f"W{cp.WEALTH_COLUMN[column]}", size=13, anchor="middle", bold=True)
    for band, rows in cp.BAND_ROWS.items():
        _, y = lot_xy(24 * rows[0])
        d.text(LEFT / 2 - 1, y + 2 * LOT + STREET / 2 + 5, f"P{band}", size=13, anchor="middle", bold=True)
    for g in range(cp.CIRCLES):
        x, y = circle_centre(g)
        marker = s.circles[g]
        fill = CIRCLE if not marker else WEALTH_MARK if marker in cp.WEALTH_MARKERS else PRESTIGE_MARK
        d.circle(x, y, 14, fill=fill, stroke="#555555")
        if marker:
            d.text(x, y + 0.5, marker, size=14, anchor="middle", middle=True, bold=True)
        name_x, name_y = (x - 30, y + 0.5) if g < 3 else (x, y - 22)
        d.text(name_x, name_y, cp.CIRCLE_NAMES[g], size=13, anchor="middle", middle=True, fill="#1b4f72", bold=True)


def _cards(s: State) -> list[tuple[str, int, str, str]]:
    """The cards on offer: (kind, space, the space with its AP cost, the card's name)."""
    rows = []
    for space in range(5):
        card = r.planning_at(s, space)
        rows.append(("planning", space, f"{cp.PLANNING_SPACE_NAMES[space]}, {cp.PLANNING_AP[space]} AP", card))
    for space in range(8):
        if space < 3 and not r.deck_active(s, space):
            continue
        rows.append(
            (
                "contract",
                space,
                f"{cp.CONTRACT_SPACE_NAMES[space]}, {cp.CONTRACT_AP[space]} AP",
                r.contract_at(s, space),
            )
        )
    return [
        (
            kind,
            space,
            where,
            "-" if card < 0 else cp.planning_name(card) if kind == "planning" else cp.contract_name(card),
        )
        for kind, space, where, card in rows
    ]


def _draw_cards(d: Drawing, s: State, choices: dict[int, str], y: float) -> float:
    """The card rows, two lines each (where and what); a card one may take or build is clickable."""
    width = 1000 - PANEL_X - 4
    for heading in ("planning", "contract"):
        y = d.lines(PANEL_X, y, [(f"{heading} cards on offer", None, True)], size=14)
        for kind, space, where, name in _cards(s):
            if kind != heading:
                continue
            top = y + 5
            d.rect(PANEL_X, top, width, 38, fill="#fdfefe", stroke="#aab7b8", rx=4)
            space_name = (cp.PLANNING_SPACE_NAMES if kind == "planning" else cp.CONTRACT_SPACE_NAMES)[space]
            d.text(PANEL_X + 6, top + 15, space_name, size=13, bold=True, fill=MUTED)
            d.text(PANEL_X + width - 6, top + 15, where.split(", ")[1], size=13, anchor="end", fill=MUTED)
            d.text(PANEL_X + 6, top + 32, name, size=13, bold=True)
            action = (r.TAKE_PLANNING if kind == "planning" else r.BUILD) + space
            if action in choices:
                d.choice(action, choices[action], _box(PANEL_X, top, width, 38))
            y = top + 38
        y += 4
    return y


def _seat_rows(s: State) -> list[tuple[str, int | None, bool]]:
    rows: list[tuple[str, int | None, bool]] = []
    for seat in range(s.n):
        mark = " (active)" if seat == s.active and s.decision != r.GAME_OVER else ""
        rows.append((f"seat {seat}{mark}: wealth {s.wealth[seat]}, prestige {s.prestige[seat]}", seat, True))
        offices = ", ".join(cp.OFFICE_NAMES[o] for o in range(6) if s.offices[o] == seat)
        extra = "Extra Favor" if s.extra_favor == seat else ""
        details = [
            "offices " + (", ".join(filter(None, (offices, extra))) or "-"),
            "hand " + (" ".join(f"P{c:02d}" for c in s.hands[seat]) or "-"),
            "Favors " + (", ".join(cp.contract_name(c) for c in s.favors[seat]) or "-"),
            "vocations "
            + (", ".join(f"{cp.VOCATION_NAMES[v].lower()} {k}" for v, k in enumerate(s.vocations[seat]) if k) or "-"),
        ]
        for detail in details:
            rows += [(line, None, False) for line in textwrap.wrap(detail, PANEL_CHARS, subsequent_indent="   ")]
    return rows


def _status(s: State) -> list[tuple[str, int | None, bool]]:
    rows: list[tuple[str, int | None, bool]] = [(f"Urban Sprawl, {s.n} players, turn {s.turns + 1}", None, True)]
    if s.decision == r.GAME_OVER:
        note = " (max_turns)" if s.truncated else ""
        rows.append((f"game over{note}", None, True))
        rows.append(("winners: " + ", ".join(f"seat {w}" for w in s.winners), None, True))
    else:
        rows.append((f"seat {s.active} active, {s.ap} AP left", s.active, False))
        rows.append((f"seat {s.decider} to choose", s.decider, True))
    decks = ", ".join(f"{cp.DECK_NAMES[k]} {len(s.decks[k])}" for k in range(3))
    rows.append((f"decks: planning {len(s.planning_deck)},", None, False))
    rows.append((f"   {decks}", None, False))
    sports = f"Airport {'yes' if s.airport else 'no'}, Sports Team {'yes' if s.sports else 'no'}"
    rows.append((f"election pawn: {cp.OFFICE_NAMES[s.pawn]}", None, False))
    rows.append((sports, None, False))
    return rows


def _choices(d: Drawing, s: State, choices: dict[int, str]) -> None:
    """Placements of the building being built, lots (buildings to pick or buy, parks) and grey circles."""
    for action, text in sorted(choices.items()):
        if r.LOT <= action < r.CIRCLE:
            lot = action - r.LOT
            if s.decision == r.Decision.PLACE and s.build is not None:
                size = cp.CONTRACT_SIZE[s.build["card"]]
                d.choice(action, text, placement_shape(lot // 4, size, lot % 4, lot_xy, LOT))
            else:
                x, y = lot_xy(lot)
                d.choice(action, text, _box(x + 2, y + 2, LOT - 4, LOT - 4))
        elif r.CIRCLE <= action < r.PLAYER:
            x, y = circle_centre(action - r.CIRCLE)
            d.choice(action, text, _box(x - 15, y - 15, 30, 30))


def render_svg(s: State, choices: dict[int, str]) -> str:
    d = Drawing(1000, TOP + CITY + 40, f"Urban Sprawl: the city, the cards on offer and each seat, turn {s.turns + 1}")
    _draw_city(d, s)
    _choices(d, s, choices)
    items: list[tuple[str, str | int]] = [(f"seat {seat}", seat) for seat in range(s.n)]
    items += [(f"{name} building", tint) for name, tint in zip(cp.ZONE_NAMES, ZONE_TINTS, strict=True)]
    items += [("water", WATER), ("forest", FOREST), ("wealth marker", WEALTH_MARK), ("prestige marker", PRESTIGE_MARK)]
    legend_end = d.legend(LEFT, TOP + CITY + 40, items, columns=4, column_width=(PANEL_X - LEFT) / 4)
    notes = ["badge: the block's value; W / P: the wealth and prestige rows", "dashed: the Contractor's building"]
    d.text_block(LEFT, legend_end + 12, notes, size=13, fill=MUTED)
    y = d.lines(PANEL_X, 0, _status(s), size=13.5)
    y = _draw_cards(d, s, choices, y + 4)
    y = d.lines(PANEL_X, y, _seat_rows(s), size=13, gap=1.3)
    d.height = max(legend_end + 44, y + 10)
    return d.document()
