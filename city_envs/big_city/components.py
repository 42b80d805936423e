"""Big City components: neighbourhood tiles, plots, cards, pieces, trams, the building rules table.

Transcribed from the published rules (summarized in docs/games/big_city.md). Every value marked
RECONSTRUCTED (filled in where no official figure exists) is data here: the special buildings'
prerequisites and values live in `BUILDING_RULES` (one table, replaceable without touching the
engine), the facility shapes in `FACILITY_SHAPES`, the plot numbering inside a tile in `LAYOUTS`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple


class Size(NamedTuple):
    """A rectangle of plots."""

    width: int
    height: int


class Layout(NamedTuple):
    """A tile at one rotation: its rectangle, and the local cell (column, row) of each plot ordinal k - 1."""

    width: int
    height: int
    cells: tuple[tuple[int, int], ...]


class OutskirtsLimit(NamedTuple):
    """How many of a park's or factory's plots may lie on the outskirts."""

    low: int
    high: int


# ----- neighbourhood tiles and plots (2.2, 2.3) -------------------------------------------------
NUM_TILES = 8
TILE_NAMES = ("Midtown", "Downtown", "tile 3", "tile 4", "tile 5", "tile 6", "tile 7", "tile 8")
TILE_SIZE = {n: (Size(3, 3) if n % 2 else Size(4, 2)) for n in range(1, 9)}  # at rotation 0
OFFSET = {1: 0, 2: 9, 3: 17, 4: 26, 5: 34, 6: 43, 7: 51, 8: 60}
NUM_PLOTS = 68
PLOT_TILE = tuple(n for n in range(1, 9) for _ in range(TILE_SIZE[n].width * TILE_SIZE[n].height))
PLOT_ORDINAL = tuple(k for n in range(1, 9) for k in range(1, TILE_SIZE[n].width * TILE_SIZE[n].height + 1))
PLOT_NUMBER = tuple(10 * n + k for n, k in zip(PLOT_TILE, PLOT_ORDINAL, strict=True))  # 11..88
TILE_PLOTS = {n: tuple(range(OFFSET[n], OFFSET[n] + TILE_SIZE[n].width * TILE_SIZE[n].height)) for n in range(1, 9)}
CITY_HALL_PLOT = 4  # plot 15, the centre of Midtown


def plot_index(number: int) -> int:
    """idx(10n + k) = OFFSET[n] + k - 1."""
    return OFFSET[number // 10] + number % 10 - 1


def rotate_cells(cells: tuple[tuple[int, int], ...], width: int, height: int) -> tuple[tuple, int, int]:
    """One clockwise quarter turn: (c, w) in a W x H frame goes to (H - 1 - w, c) in an H x W frame."""
    return tuple((height - 1 - w, c) for c, w in cells), height, width


def _layouts() -> dict[int, tuple[Layout, ...]]:
    """LAYOUTS[n][r]: tile n turned r quarter turns; its plots row-major at rotation 0 (RECONSTRUCTED
    numbering order)."""
    out = {}
    for n in range(1, 9):
        width, height = TILE_SIZE[n]
        cells = tuple(((k % width), (k // width)) for k in range(width * height))
        rotations = []
        for _ in range(4):
            rotations.append(Layout(width, height, cells))
            cells, width, height = rotate_cells(cells, width, height)
        out[n] = tuple(rotations)
    return out


LAYOUTS = _layouts()
START_TILE, START_ANCHOR = 1, (25, 25)  # tile 1 at rotation 0, plot 11 on (25, 25)
GRID = 53  # cells (x, y) with 0 <= x, y <= 52 hold every legal city (2.7)

# ----- sides: N, E, S, W ------------------------------------------------------------------------
N, E, S, W = range(4)
SIDE_NAMES = "NESW"
DIRS = ((0, -1), (1, 0), (0, 1), (-1, 0))
OPPOSITE = (S, W, N, E)

# ----- cards (2.4) ------------------------------------------------------------------------------
NUM_CARDS = 72
PARK2_CARD, PARK3_CARD, FACTORY_L_CARD, FACTORY_4_CARD = 68, 69, 70, 71
SPECIAL_CARDS = (PARK2_CARD, PARK3_CARD, FACTORY_L_CARD, FACTORY_4_CARD)
SPECIAL_CARD_PILE = {PARK2_CARD: 2, PARK3_CARD: 4, FACTORY_L_CARD: 6, FACTORY_4_CARD: 8}
CARD_PILE = tuple(list(PLOT_TILE) + [SPECIAL_CARD_PILE[c] for c in SPECIAL_CARDS])  # pile 1..8 per card
PILE_CARDS = {i: tuple(c for c in range(NUM_CARDS) if CARD_PILE[c] == i) for i in range(1, 9)}


def card_name(card: int) -> str:
    return str(PLOT_NUMBER[card]) if card < NUM_PLOTS else FACILITY_NAMES[card - PARK2_CARD]


# ----- pieces (2.5) -----------------------------------------------------------------------------
RES1, RES2, RES3, BUS1, BUS2, BUS3, CITY_HALL, CHURCH, CINEMA, POST_OFFICE, BANK, SHOPPING_CENTER = range(12)
NUM_KINDS = 12
KIND_NAMES = (
    "residence 1",
    "residence 2",
    "residence 3",
    "business 1",
    "business 2",
    "business 3",
    "City Hall",
    "church",
    "cinema",
    "post office",
    "bank",
    "shopping center",
)
KIND_COUNT = (8, 6, 3, 8, 6, 3, 1, 2, 4, 2, 3, 2)  # 52 pieces
KIND_SIZE = (1, 2, 3, 1, 2, 3, 1, 1, 1, 1, 1, 2)  # SHOPPING_CENTER size 2: RECONSTRUCTED
RESIDENCES = frozenset((RES1, RES2, RES3))
BUSINESSES = frozenset((BUS1, BUS2, BUS3))
SPECIAL_BUILDINGS = frozenset((CHURCH, CINEMA, POST_OFFICE, BANK, SHOPPING_CENTER))
# facilities (parks and factories) are piece kinds 12-15, one each, placed with their card
PARK2, PARK3, FACTORY_L, FACTORY_4 = 12, 13, 14, 15
FACILITY_NAMES = ("park 2", "park 3", "L factory", "factory 4")
FACILITY_OF_CARD = {PARK2_CARD: PARK2, PARK3_CARD: PARK3, FACTORY_L_CARD: FACTORY_L, FACTORY_4_CARD: FACTORY_4}
PARKS = frozenset((PARK2, PARK3))
FACTORIES = frozenset((FACTORY_L, FACTORY_4))
NUM_TRAMS = 17
BASE_VALUE = {1: 2, 2: 6, 3: 10}  # residences and businesses, by size

LINE = {1: ((0, 0),), 2: ((0, 0), (1, 0)), 3: ((0, 0), (1, 0), (2, 0))}
FACILITY_SHAPES = {  # at rotation 0; PARK3, FACTORY_L and FACTORY_4 shapes are RECONSTRUCTED
    PARK2: LINE[2],
    PARK3: LINE[3],
    FACTORY_L: ((0, 0), (0, 1), (1, 1)),
    FACTORY_4: ((0, 0), (1, 0), (0, 1), (1, 1)),
}
# outskirts rule (RECONSTRUCTED reading of a garbled sentence): (min, max) plots on the outskirts
FACILITY_OUTSKIRTS = {
    PARK2: OutskirtsLimit(0, 1),
    PARK3: OutskirtsLimit(0, 1),
    FACTORY_L: OutskirtsLimit(2, 4),
    FACTORY_4: OutskirtsLimit(2, 4),
}


def orientations(shape: tuple[tuple[int, int], ...]) -> tuple[frozenset, ...]:
    """Every distinct rotation of a shape, translated so that its smallest cell (by y, then x) is (0, 0)."""
    seen = []
    cells = tuple(shape)
    width = max(c for c, _ in cells) + 1
    height = max(w for _, w in cells) + 1
    for _ in range(4):
        ox, oy = min(cells, key=lambda cell: (cell[1], cell[0]))
        normal = frozenset((c - ox, w - oy) for c, w in cells)
        if normal not in seen:
            seen.append(normal)
        cells, width, height = rotate_cells(cells, width, height)
    return tuple(seen)


SHAPE_ORIENTATIONS = {size: orientations(LINE[size]) for size in LINE}
FACILITY_ORIENTATIONS = {kind: orientations(shape) for kind, shape in FACILITY_SHAPES.items()}


# ----- the building rules table (2.6): special buildings, values RECONSTRUCTED ------------------
@dataclass(frozen=True)
class SpecialRule:
    """Prerequisites and value of a special building, all evaluated at placement.

    value = (base + per_res * R + per_bus * B + per_special * S) * (tram_mult if TRAM) * (cha_mult if CHA),
    where R, B, S count distinct adjacent residence, business and special-building pieces.
    """

    min_res: int = 0
    min_bus: int = 0
    min_special: int = 0
    last_free_plot: bool = False  # its plot is the last free plot of its neighbourhood
    base: int = 0
    per_res: int = 0
    per_bus: int = 0
    per_special: int = 0
    tram_mult: int = 1
    cha_mult: int = 1


BUILDING_RULES = {
    CHURCH: SpecialRule(last_free_plot=True, base=10),
    CINEMA: SpecialRule(min_res=2, per_res=3, tram_mult=2),
    BANK: SpecialRule(min_bus=2, per_bus=3, cha_mult=2),
    POST_OFFICE: SpecialRule(min_res=1, min_bus=1, per_res=2, per_bus=2, tram_mult=2),
    SHOPPING_CENTER: SpecialRule(min_special=1, base=10, per_special=5, tram_mult=2),
}

# ----- setup (§3) -------------------------------------------------------------------------------
HAND_LIMIT = {2: 5, 3: 5, 4: 5, 5: 6}
INITIAL_TILES = {2: (2, 3, 4, 5), 3: (2, 3, 4), 4: (2, 3, 4, 5), 5: (2, 3, 4, 5, 6)}
INITIAL_ORDER = {2: (0, 1, 0, 1), 3: (0, 1, 2), 4: (0, 1, 2, 3), 5: (0, 1, 2, 3, 4)}
MAX_DRAWS_PER_PILE = 2
MAX_TURNS = 600  # env safety cap (§6), reported as truncation


# ----- texts for a person (the web app's tooltips and legend), written from the tables above -------
def _special_text(kind: int) -> str:
    rule = BUILDING_RULES[kind]
    needs = ["City Hall built"]
    if rule.last_free_plot:
        needs.append("the last free plot of its neighbourhood")
    for count, what in (
        (rule.min_res, "residence"),
        (rule.min_bus, "business"),
        (rule.min_special, "special building"),
    ):
        if count:
            needs.append(
                f"at least {count} {what}{'es' if what == 'business' else 's'} next to it"
                if count > 1
                else f"at least 1 {what} next to it"
            )
    points = [f"{rule.base}"] if rule.base else []
    for per, what in ((rule.per_res, "residence"), (rule.per_bus, "business"), (rule.per_special, "special building")):
        if per:
            points.append(f"{per} per {what} next to it")
    text = f"{KIND_SIZE[kind]} plot{'s' if KIND_SIZE[kind] > 1 else ''}; needs {', '.join(needs)}; scores "
    text += " + ".join(points)
    if rule.tram_mult > 1:
        text += f", x{rule.tram_mult} next to a tram"
    if rule.cha_mult > 1:
        text += f", x{rule.cha_mult} next to City Hall"
    return text


SPECIAL_BUILDING_TEXT = {kind: _special_text(kind) for kind in sorted(BUILDING_RULES)}
SPECIAL_BUILDING_TEXT[CITY_HALL] = (
    "only on plot 15 (card 15); scores 0, and unlocks the special buildings, parks, factories, trams "
    "and new neighbourhoods"
)
_PARK_MAX = FACILITY_OUTSKIRTS[PARK2].high
_FACTORY_MIN = FACILITY_OUTSKIRTS[FACTORY_L].low
SPECIAL_CARD_TEXT = {
    PARK2_CARD: f"a park on 2 plots in a line (at most {_PARK_MAX} on the outskirts): +1 to residences and "
    "businesses next to it; the cards of the plots it covers become dead",
    PARK3_CARD: f"a park on 3 plots in a line (at most {_PARK_MAX} on the outskirts): +1 to residences and "
    "businesses next to it; the cards of the plots it covers become dead",
    FACTORY_L_CARD: f"a factory on 3 plots in an L (at least {_FACTORY_MIN} on the outskirts): -2 to residences "
    "and businesses next to it; the cards of the plots it covers become dead",
    FACTORY_4_CARD: f"a factory on 2 x 2 plots (at least {_FACTORY_MIN} on the outskirts): -2 to residences and "
    "businesses next to it; the cards of the plots it covers become dead",
}
