"""The public Metropolys board as SVG: the 55 neighbourhoods as discs tinted by their colour, each with
its number (the buttons name neighbourhoods by number), streets and bridges, lakes and statues; a
building as the builder's ring with its value on a badge, a bid as a dashed ring with its value, the top
bid ringed in black; tokens as lettered dots; each seat's public state and a legend naming every tint.
Secret cards appear only once the game is over.
"""

from __future__ import annotations

import math

from city_envs.core.svg import Drawing, Point
from city_envs.metropolys import components as cp
from city_envs.metropolys import rules as r
from city_envs.metropolys.image import LAKE_XY, STATUE_XY, TOKEN_XY, XY
from city_envs.metropolys.rules import State
from city_envs.metropolys.view import secret_cards

SCALE, ORIGIN = 6.8, (4.0, 5.0)  # board units to SVG units; the board's top left corner
BOARD = 20 + 91 * SCALE
PANEL_X = BOARD + 32
RADIUS = 17.0
# pale tints of the five neighbourhood colours (gray, orange, green, red, blue): a seat's ring stands out
# on them, and the legend names them
TINTS = ("#d5d8dc", "#fad7a0", "#abebc6", "#f5b7b1", "#aed6f1")
OUT_OF_PLAY = "#f4f6f6"
STREET, BRIDGE, TOKEN, TOP_BID = "#c8c8c8", "#7b7d7d", "#34495e", "#111111"
LAKE, LAKE_INK, STATUE = "#d6eaf8", "#1b4f72", "#909497"
TOKEN_LETTER = {cp.TRENDY: "T", cp.SUBWAY: "S", cp.ARCH: "A"}
EDGES = tuple((a, b) for a in range(cp.NUM_NBHDS) for b in cp.ADJ[a] if a < b)


def at(x: float, y: float) -> Point:
    return 20 + (x - ORIGIN[0]) * SCALE, 20 + (y - ORIGIN[1]) * SCALE


def disc(nb: int) -> tuple[Point, ...]:
    """Neighbourhood `nb`'s disc as a polygon (a clickable place)."""
    x, y = at(*XY[nb])
    return tuple(
        (x + (RADIUS + 2) * math.cos(k * math.pi / 8), y + (RADIUS + 2) * math.sin(k * math.pi / 8)) for k in range(16)
    )


def _draw_board(d: Drawing, s: State) -> None:
    for a, b in EDGES:
        bridge = cp.DISTRICT[a] != cp.DISTRICT[b]
        live = s.in_play[a] and s.in_play[b]
        colour = (BRIDGE if bridge else STREET) if live else "#eeeeee"
        d.line(at(*XY[a]), at(*XY[b]), colour, width=2.5 if bridge else 1.5, dash="6 4" if bridge else "")
    for index, (x, y) in enumerate(LAKE_XY, start=1):
        cx, cy = at(x, y)
        d.rect(cx - 14, cy - 10, 28, 20, fill=LAKE, stroke="#aed6f1", rx=6)
        d.text(cx, cy + 0.5, f"L{index}", size=13, anchor="middle", middle=True, fill=LAKE_INK)
    for x, y in STATUE_XY:
        cx, cy = at(x, y)
        d.polygon(_star(cx, cy, 7.0), fill=STATUE, stroke="#555555", stroke_width=0.8)
    top = s.bids[-1][1] if s.bids else -1
    for nb in range(cp.NUM_NBHDS):
        x, y = at(*XY[nb])
        live = s.in_play[nb]
        if nb == top:
            d.circle(x, y, RADIUS + 6, fill=None, stroke=TOP_BID, stroke_width=3)
        d.circle(
            x, y, RADIUS, fill=TINTS[cp.COLOUR[nb]] if live else OUT_OF_PLAY, stroke="#555555" if live else "#d5d8dc"
        )
        owner = s.owner[nb] if s.owner[nb] >= 0 else s.bid_owner[nb]
        if owner >= 0:  # a building (solid ring) or a bid (dashed ring), in the seat's colour, value on a badge
            built = s.owner[nb] >= 0
            value = s.built_value[nb] if built else s.bid_value[nb]
            d.circle(x, y, RADIUS - 2.5, fill=None, seat=owner, stroke_width=5)
            if not built:
                d.circle(x, y, RADIUS - 2.5, fill=None, stroke="#ffffff", stroke_width=5, dash="4 4")
            d.circle(x + 14, y - 14, 9.5, seat=owner, seat_as="fill")
            d.text(x + 14, y - 13.5, value, size=13, anchor="middle", middle=True, bold=True, fill="#ffffff")
        d.text(
            x,
            y + 0.5,
            nb,
            size=14 if live else 13,
            anchor="middle",
            middle=True,
            bold=live,
            fill="#1b2631" if live else "#aab7b8",
        )
        if s.token[nb] != cp.NO_TOKEN:
            tx, ty = at(*TOKEN_XY[nb])
            d.circle(tx, ty, 9, fill=TOKEN, stroke="#ffffff")
            d.text(tx, ty + 0.5, TOKEN_LETTER[s.token[nb]], size=13, anchor="middle", middle=True, fill="#ffffff")


def _star(x: float, y: float, radius: float) -> tuple[Point, ...]:
    return tuple(
        (
            x + (radius if k % 2 == 0 else radius * 0.45) * math.sin(k * math.pi / 5),
            y - (radius if k % 2 == 0 else radius * 0.45) * math.cos(k * math.pi / 5),
        )
        for k in range(10)
    )


def _status(s: State) -> list[tuple[str, int | None, bool]]:
    over = s.decision == r.GAME_OVER
    rows: list[tuple[str, int | None, bool]] = [(f"Metropolys ({s.version}), {s.n} players", None, True)]
    rows.append(
        (
            f"{s.calls} calls completed" + ("" if over else f"; call {s.calls + 1} opened by seat {s.opener}"),
            None,
            False,
        )
    )
    if s.removed:
        rows.append(("out of play: " + ", ".join(cp.DISTRICT_NAMES[d] for d in s.removed), None, False))
    if over:
        rows.append(("game over; winner: " + ", ".join(f"seat {w}" for w in r.winners(s)), None, True))
    elif not s.bids:
        rows.append((f"seat {s.actor} to open the call", s.actor, True))
    else:
        seat, nb, value = s.bids[-1]
        verb = "to choose a bid value" if s.decision == r.Decision.VALUE else "to outbid or pass"
        rows.append((f"seat {s.actor} {verb}", s.actor, True))
        rows.append((f"top bid: seat {seat}, {value} on {nb}", None, False))
    rows.append(("", None, False))
    for seat in range(s.n):
        marks = [
            name for name, held in (("Subway card", s.subway_card == seat), ("Arch card", s.arch_card == seat)) if held
        ]
        if s.passed >> seat & 1:
            marks.append("passed")
        if seat == s.actor:
            marks.append("to act")
        rows.append((f"seat {seat}" + (f": {', '.join(marks)}" if marks else ""), seat, True))
        trendy, subway, arch = s.tokens[seat]
        rows.append((f"  built {s.built[seat]} of 13", None, False))
        rows.append((f"  tokens: {trendy} trendy, {subway} subway, {arch} arch.", None, False))
        rows.append((f"  public score {r.token_points(s, seat)}", None, False))
        supply = " ".join(map(str, r.values_of(s.supply[seat]))) or "-"
        rows.append((f"  supply {supply}", None, False))
        if over:
            for kind, name in secret_cards(s, seat).items():
                rows.append((f"  {kind} card: {name}", None, False))
            rows.append((f"  final score {r.score(s, seat)}", None, True))
    return rows


def _choices(d: Drawing, choices: dict[int, str]) -> None:
    """The neighbourhoods one may bid on."""
    for action, text in sorted(choices.items()):
        if action < cp.NUM_NBHDS:
            d.choice(action, text, disc(action))


def render_svg(s: State, choices: dict[int, str]) -> str:
    rows = _status(s)
    d = Drawing(1000, BOARD + 20, f"Metropolys: the city's neighbourhoods and each seat, call {s.calls + 1}")
    _draw_board(d, s)
    _choices(d, choices)
    y = d.lines(PANEL_X, 0, rows, size=13.5, gap=1.35)
    items: list[tuple[str, str | int]] = [(f"seat {seat}", seat) for seat in range(s.n)]
    items += [(f"{cp.COLOUR_NAMES[c]} {cp.TYPE_NAMES[c]}", TINTS[c]) for c in range(5)]
    items += [("token (T, S or A)", TOKEN), ("lake", LAKE)]
    items += [("statue", STATUE), ("out of play", OUT_OF_PLAY), ("top bid (black ring)", TOP_BID)]
    y = d.legend(PANEL_X, y + 6, items)
    notes = ["tokens: T trendy, S subway,", "A archaeological", "ring + badge: a building"]
    notes += ["dashed ring + badge: a bid", "dashed line: a bridge"]
    d.text_block(PANEL_X, y + 10, notes, size=13)
    d.height = max(d.height, y + 20 + 16 * len(notes))  # the panel may run below the board
    return d.document()
