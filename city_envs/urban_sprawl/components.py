"""Urban Sprawl components: the city grid, starting buildings, card spaces, the four decks, politicians.

Transcribed from the published rules (see docs/games/urban_sprawl.md); most card data is RECONSTRUCTED; every
card is one row of data here (`PERMITS`, `PLANNING_EVENTS`, `CONTRACTS`, `CONTRACT_EVENTS`), written
with a small vocabulary of effect templates, restrictions and event kinds that rules.py implements
once, so the real card list can replace these rows without touching the rules.
"""

from __future__ import annotations

from typing import Any, NamedTuple

# ----- zones (2.4, 2.8) ------------------------------------------------------------------------
CIV, COM, IND, RES, PARK = range(5)
ZONE_NAMES = ("CIV", "COM", "IND", "RES", "PARK")
CONTRACT_ZONES = (CIV, COM, IND, RES)

# ----- the city grid (2.2, 2.3) ------------------------------------------------------------------
BLOCKS = 36
LOTS = 144
GRID = 12
PRESTIGE_BAND = (3, 3, 1, 1, 2, 2)  # PB value per block row
WEALTH_COLUMN = (1, 4, 5, 6, 3, 2)  # WC value per block column
BAND_ROWS = {3: (0, 1), 1: (2, 3), 2: (4, 5)}  # prestige icon 1..3 -> block rows of its band
COLUMN_OF_WEALTH = {v: c for c, v in enumerate(WEALTH_COLUMN)}  # wealth icon 1..6 -> block column
# grey circles: T0..T2 along the top (two block columns each), R0..R5 along the right (one block row)
CIRCLES = 9
CIRCLE_NAMES = ("T0", "T1", "T2", "R0", "R1", "R2", "R3", "R4", "R5")
WEALTH_MARKERS = (7, 8, 9, 10, 11, 12)
PRESTIGE_MARKERS = (4, 5, 6)
MARKERS = (4, 5, 6, 7, 8, 9, 10, 11, 12)


def lot_index(i: int, j: int) -> int:
    """Action/observation index of lot L(i, j): 4 * block + sub-lot."""
    return 4 * (6 * (i // 2) + j // 2) + 2 * (i % 2) + j % 2


def lot_coords(lot: int) -> tuple[int, int]:
    block, sub = divmod(lot, 4)
    return 2 * (block // 6) + sub // 2, 2 * (block % 6) + sub % 2


def circle_blocks(circle: int) -> tuple[int, ...]:
    """Blocks lying in the row a grey circle addresses."""
    if circle < 3:
        return tuple(6 * r + c for r in range(6) for c in (2 * circle, 2 * circle + 1))
    return tuple(6 * (circle - 3) + c for c in range(6))


def block_circles(block: int) -> tuple[int, int]:
    """The two grey circles whose rows contain `block`: its top circle and its right circle."""
    r, c = divmod(block, 6)
    return c // 2, 3 + r


BASE_VALUE = tuple(PRESTIGE_BAND[b // 6] + WEALTH_COLUMN[b % 6] for b in range(BLOCKS))
CIRCLE_BLOCKS = tuple(circle_blocks(g) for g in range(CIRCLES))
BLOCK_CIRCLES = tuple(block_circles(b) for b in range(BLOCKS))
LOT_COORDS = tuple(lot_coords(x) for x in range(LOTS))
# what people call lot L(i, j): column j as a letter (a..l from the left), then row i + 1 (1..12 from the
# top), as on a map grid; lower case, so a lot never reads like a card space (C5) or a circle (T0)
LOT_FILES = "abcdefghijkl"
ADJACENT_LOTS = tuple(
    tuple(
        sorted(
            lot_index(i2, j2)
            for i2 in range(i - 1, i + 2)
            for j2 in range(j - 1, j + 2)
            if (i2, j2) != (i, j) and 0 <= i2 < GRID and 0 <= j2 < GRID
        )
    )
    for (i, j) in LOT_COORDS
)
LOT_WATER = tuple(i == 0 or j == GRID - 1 for (i, j) in LOT_COORDS)
LOT_FOREST = tuple(j == 0 or i == GRID - 1 for (i, j) in LOT_COORDS)

# ----- footprints (2.8): sub-lots covered per size and variant ---------------------------------
FOOTPRINTS = {
    1: ((0,), (1,), (2,), (3,)),
    2: ((0, 1), (2, 3), (0, 2), (1, 3)),
    3: ((1, 2, 3), (0, 2, 3), (0, 1, 3), (0, 1, 2)),  # variant = the sub-lot left uncovered
    4: ((0, 1, 2, 3),),
}


def _placement(block: int, subs: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[int, ...], bool, bool]:
    lots = tuple(4 * block + s for s in subs)
    around = tuple(sorted({y for x in lots for y in ADJACENT_LOTS[x]} - set(lots)))
    return lots, around, any(LOT_WATER[x] for x in lots), any(LOT_FOREST[x] for x in lots)


# PLACEMENTS[size] = ((place_id = 4 * block + variant, lots, lots around, touches water, forest), ...)
PLACEMENTS = {
    size: tuple((4 * b + v, *_placement(b, subs)) for b in range(BLOCKS) for v, subs in enumerate(shapes))
    for size, shapes in FOOTPRINTS.items()
}

# ----- starting buildings (2.4): zone, lot ------------------------------------------------------
STARTING_BUILDINGS = (
    (RES, lot_index(1, 1)),
    (RES, lot_index(1, 10)),
    (RES, lot_index(10, 1)),
    (RES, lot_index(10, 10)),
    (IND, lot_index(3, 3)),
    (IND, lot_index(5, 5)),
    (CIV, lot_index(6, 6)),
    (CIV, lot_index(8, 8)),
    (COM, lot_index(3, 8)),
    (COM, lot_index(5, 6)),
    (COM, lot_index(6, 5)),
    (COM, lot_index(8, 3)),
)
MEDIA_TIE_VALUE = 4  # 3.1 step 10: the value of the RES buildings that break a MEDIA tie

# ----- building tiles (2.8): supply per zone and size 1..4 (mix RECONSTRUCTED) -------------------
TILES = (
    (7, 8, 6, 5),  # CIV
    (11, 7, 5, 5),  # COM
    (6, 7, 8, 5),  # IND
    (10, 8, 7, 3),  # RES
    (20, 0, 0, 0),  # PARK
)

# ----- card spaces and AP costs (2.5) ------------------------------------------------------------
# planning spaces: 0 = deck top, 1 = PL4, 2 = PL3, 3 = PL2, 4 = PL1 (named in words: a person reads them)
PLANNING_SPACE_NAMES = ("planning top", "planning space 4", "planning space 3", "planning space 2", "planning space 1")
PLANNING_AP = (5, 4, 3, 2, 1)
# contract spaces: 0 Town top, 1 City top, 2 Metropolis top, 3 C5, 4 C4, 5 C3, 6 C2, 7 C1
CONTRACT_SPACE_NAMES = (
    "Town top",
    "City top",
    "Metropolis top",
    "contract space 5",
    "contract space 4",
    "contract space 3",
    "contract space 2",
    "contract space 1",
)
CONTRACT_AP = (6, 5, 4, 5, 4, 3, 2, 1)
TOWN, CITY, METRO = range(3)
DECK_NAMES = ("Town", "City", "Metropolis")
SLOTS = 5  # C5..C1, slot k = contract space 3 + k
AP_PER_TURN = 6
UNION_BOSS_AP = 8
FAVOR_CAPACITY = 1
EXTRA_FAVOR_CAPACITY = 2

# ----- setup (3.1, 3.2, 3.4) ---------------------------------------------------------------------
STARTING_WEALTH = {2: 39, 3: 27, 4: 21}
# (cards above the special event's group, size of that group without the event): top pile, mixed pile
DECK_STACKING = {"standard": (15, 6), "long": (18, 9), "short": (9, 9)}
PLANNING_TOP_PERMITS = 22  # permits above the events
PLANNING_START_DECK = 50  # the planning deck before its first reshuffle (Urban Renewal in the discard)
CONTRACT_DECK_SIZE = 37
TURN_LIMIT = 600

# ----- vocations (2.7) ---------------------------------------------------------------------------
MEDIA, FINANCE, TRANSPORTATION, EDUCATION, ENERGY, TOURISM, FACTORY, PUBLIC_SERVICE = range(8)
VOCATION_NAMES = ("MEDIA", "FINANCE", "TRANSPORTATION", "EDUCATION", "ENERGY", "TOURISM", "FACTORY", "PUBLIC SERVICE")
VOCATION_MARKERS = (1, 2, 2, 3, 3, 4, 4, 5)  # MEDIA official; the other counts RECONSTRUCTED
VOCATIONS = len(VOCATION_NAMES)

# ----- politicians and Contractor (2.6, 2.11) ----------------------------------------------------
MAYOR, DISTRICT_ATTORNEY, TREASURER, POLICE_CHIEF, UNION_BOSS, CONTRACTOR = range(6)
OFFICE_NAMES = ("Mayor", "District Attorney", "Treasurer", "Police Chief", "Union Boss", "Contractor")
POLITICIANS = 5  # election track positions 0..4 in the order above
# election for office X: the zone whose best building wins it (None: Mayor, by vocations), and the
# office whose holder breaks a surviving tie (5.5)
OFFICE_ZONE = (None, CIV, COM, RES, IND)
TIE_DECIDER = (None, MAYOR, DISTRICT_ATTORNEY, TREASURER, POLICE_CHIEF, UNION_BOSS)  # Mayor: MEDIA holder
# end-game bonus: +1 P per building of this zone in play (Mayor: own non-park buildings next to a park)
OFFICE_BONUS_ZONE = (None, CIV, COM, RES, IND, None)


def payout_table(number: int) -> tuple[int, int, int, int]:
    """Payout per rank for a row numbered `number` (3.3): [N, N//2, N//4, N//8] (row 6 official)."""
    return number, number // 2, number // 4, number // 8


# ----- planning deck (2.9): ids 0..53 ------------------------------------------------------------
# permits: (id, permit value, zones shown, investment, ballot, wealth payout icon) - RECONSTRUCTED
class Permit(NamedTuple):
    """A building permit's face (2.9)."""

    id: str
    value: int  # permit value toward a contract of one of `zones`
    zones: tuple[int, ...]
    investment: int  # wealth gained by investing it
    ballot: bool  # moves the election pawn when revealed
    payout: int  # wealth payout icon (0 = none)


_PERMIT_ROWS: tuple[tuple[Any, ...], ...] = (
    ("P00", 1, (CIV,), 4, False, 1),
    ("P01", 1, (COM,), 4, False, 2),
    ("P02", 1, (IND,), 4, False, 3),
    ("P03", 1, (RES,), 4, False, 4),
    (
        "P04",
        1,
        (
            CIV,
            RES,
        ),
        3,
        True,
        5,
    ),
    (
        "P05",
        1,
        (
            COM,
            IND,
        ),
        3,
        True,
        6,
    ),
    (
        "P06",
        1,
        (
            CIV,
            COM,
            RES,
        ),
        2,
        False,
        7,
    ),
    (
        "P07",
        1,
        (
            CIV,
            IND,
            RES,
        ),
        2,
        False,
        8,
    ),
    (
        "P08",
        1,
        (
            CIV,
            COM,
            IND,
            RES,
        ),
        1,
        True,
        9,
    ),
    ("P09", 2, (CIV,), 7, False, 10),
    ("P10", 2, (COM,), 7, False, 11),
    ("P11", 2, (IND,), 7, False, 12),
    ("P12", 2, (RES,), 7, False, 1),
    (
        "P13",
        2,
        (
            CIV,
            COM,
        ),
        6,
        True,
        2,
    ),
    (
        "P14",
        2,
        (
            IND,
            RES,
        ),
        6,
        True,
        3,
    ),
    (
        "P15",
        2,
        (
            COM,
            IND,
            RES,
        ),
        5,
        False,
        4,
    ),
    (
        "P16",
        2,
        (
            CIV,
            COM,
            IND,
        ),
        5,
        False,
        5,
    ),
    (
        "P17",
        2,
        (
            CIV,
            COM,
            IND,
            RES,
        ),
        4,
        True,
        6,
    ),
    ("P18", 3, (CIV,), 10, False, 7),
    ("P19", 3, (COM,), 10, False, 8),
    ("P20", 3, (IND,), 10, False, 9),
    ("P21", 3, (RES,), 10, False, 10),
    (
        "P22",
        3,
        (
            CIV,
            IND,
        ),
        9,
        True,
        11,
    ),
    (
        "P23",
        3,
        (
            COM,
            RES,
        ),
        9,
        True,
        12,
    ),
    (
        "P24",
        3,
        (
            CIV,
            COM,
            RES,
        ),
        8,
        False,
        1,
    ),
    (
        "P25",
        3,
        (
            CIV,
            IND,
            RES,
        ),
        8,
        False,
        2,
    ),
    (
        "P26",
        3,
        (
            CIV,
            COM,
            IND,
            RES,
        ),
        7,
        True,
        3,
    ),
    ("P27", 4, (CIV,), 13, False, 4),
    ("P28", 4, (COM,), 13, False, 5),
    ("P29", 4, (IND,), 13, False, 6),
    ("P30", 4, (RES,), 13, False, 7),
    (
        "P31",
        4,
        (
            CIV,
            RES,
        ),
        12,
        True,
        8,
    ),
    (
        "P32",
        4,
        (
            COM,
            IND,
        ),
        12,
        True,
        9,
    ),
    (
        "P33",
        4,
        (
            COM,
            IND,
            RES,
        ),
        11,
        False,
        10,
    ),
    (
        "P34",
        4,
        (
            CIV,
            COM,
            IND,
        ),
        11,
        False,
        11,
    ),
    (
        "P35",
        4,
        (
            CIV,
            COM,
            IND,
            RES,
        ),
        10,
        True,
        12,
    ),
)
PERMITS = tuple(Permit(*row) for row in _PERMIT_ROWS)
NUM_PERMITS = len(PERMITS)  # 36
URBAN_RENEWAL = (36, 37, 38, 39)
URBAN_RENEWAL_BALLOT = (True, True, False, False)  # RECONSTRUCTED: P36 and P37 carry a ballot
FIRST_PLANNING_EVENT = 40
PLANNING_CARDS = 54

# planning events (5.6): (id, name, kind, argument) - names of P40-P43 official, the rest RECONSTRUCTED
(
    LUXURY_TAX,
    AUCTION,
    URBAN_BLIGHT,
    LOCAL_HEADLINES,
    SPECIAL_ELECTION,
    HOLD_ELECTION,
    INCOME_PER_ZONE,
    PRESTIGE_PER_PARK,
    TAX_PER_SIZE,
    MOVE_MARKER,
    MEDIA_BONUS,
    DISASTER,
    PLACE_MARKER,
    INCOME_NEAR_FOREST,
    RELOCATION,
    UNION_STRIKE,
    HOLD_ELECTIONS,
    PRESTIGE_PER_BIG_ZONE,
    SCANDAL,
    AIRPORT,
    SPORTS_TEAM,
    OLYMPIC_GAMES,
) = range(22)


class PlanningEvent(NamedTuple):
    """A planning-deck event (5.6): its kind and one argument."""

    id: str
    name: str
    kind: int
    arg: int


PLANNING_EVENTS = tuple(
    PlanningEvent(*row)
    for row in (
        ("P40", "Luxury Tax", LUXURY_TAX, 3),
        ("P41", "Real Estate Auction", AUCTION, 8),
        ("P42", "Urban Blight", URBAN_BLIGHT, 3),
        ("P43", "Local Headlines", LOCAL_HEADLINES, 3),
        ("P44", "Special Election", SPECIAL_ELECTION, 0),
        ("P45", "Mayoral Recall", HOLD_ELECTION, MAYOR),
        ("P46", "Bond Issue", INCOME_PER_ZONE, CIV),
        ("P47", "Retail Boom", INCOME_PER_ZONE, COM),
        ("P48", "Factory Orders", INCOME_PER_ZONE, IND),
        ("P49", "Housing Boom", INCOME_PER_ZONE, RES),
        ("P50", "Beautification", PRESTIGE_PER_PARK, 1),
        ("P51", "Property Tax", TAX_PER_SIZE, 4),
        ("P52", "Zoning Variance", MOVE_MARKER, 0),
        ("P53", "Press Conference", MEDIA_BONUS, 2),
    )
)

# ----- contract decks (2.10) ---------------------------------------------------------------------
# restrictions (5.3): (kind, argument)
ADJ_WATER, ADJ_FOREST, NOT_ADJ, MIN_VALUE, MAX_VALUE, IGNORE_ZONING = range(6)
RESTRICTION_NAMES = ("ADJ_WATER", "ADJ_FOREST", "NOT_ADJ", "MIN_VALUE", "MAX_VALUE", "IGNORE_ZONING")
NO_RESTRICTION = None


class Restriction(NamedTuple):
    """Where a contract may be built (5.3): a kind above and its argument (a zone, a block value, or 0)."""

    kind: int
    argument: int


# effect templates (5.2)
GAIN, PER_BUILDING, ELECTION, WIN_ELECTION, MARKER, PARK_EFFECT, EXTRA_FAVOR, TRIBUTE = range(8)
EFFECT_NAMES = ("GAIN", "PER_BUILDING", "ELECTION", "WIN_ELECTION", "MARKER", "PARK", "EXTRA_FAVOR", "TRIBUTE")

# PER_BUILDING recipients and scopes
ACTIVE_OWN, ACTIVE_ALL, EACH_OWN = range(3)
CITY_SCOPE, ADJACENT, THESE_ROWS = range(3)
PARTIAL, RECONSTRUCTED = "PARTIAL", "RECONSTRUCTED"


# Effect records, one per template; the template comes first, so `effect[0]` tells them apart.
class Gain(NamedTuple):
    """The builder gains wealth and prestige."""

    template: int
    wealth: int
    prestige: int


class PerBuilding(NamedTuple):
    """Wealth and prestige per matching building in `scope` (`size` 0 = any size)."""

    template: int
    recipients: int  # ACTIVE_OWN, ACTIVE_ALL or EACH_OWN
    wealth: int
    prestige: int
    zones: tuple[int, ...]
    size: int
    scope: int  # CITY_SCOPE, ADJACENT or THESE_ROWS


class Election(NamedTuple):
    """An election for `office` is held."""

    template: int
    office: int


class WinElection(NamedTuple):
    """The builder takes `office` (if in play)."""

    template: int
    office: int


class Marker(NamedTuple):
    """The builder puts payout marker `number` on a grey circle."""

    template: int
    number: int


class ParkEffect(NamedTuple):
    """The builder places `parks` parks next to the new building."""

    template: int
    parks: int


class ExtraFavor(NamedTuple):
    """The builder may hold one more Favor."""

    template: int


class Tribute(NamedTuple):
    """Every other seat pays `amount` wealth or prestige per matching building (`size` 0 = any)."""

    template: int
    amount: int
    zones: tuple[int, ...]
    size: int


Effect = Gain | PerBuilding | Election | WinElection | Marker | ParkEffect | ExtraFavor | Tribute
EFFECT_TYPES: tuple[type[Effect], ...] = (
    Gain,
    PerBuilding,
    Election,
    WinElection,
    Marker,
    ParkEffect,
    ExtraFavor,
    Tribute,
)


class Contract(NamedTuple):
    """A contract card (2.10): the building it makes and what building it does."""

    id: str
    name: str
    zone: int
    size: int  # lots
    restriction: Restriction | None
    vocations: tuple[tuple[int, int], ...]  # (vocation, value), ...
    effects: tuple[Effect, ...]
    payout: int  # prestige payout icon (0 = none)
    status: str  # PARTIAL or RECONSTRUCTED


def _contract(row: tuple[Any, ...]) -> Contract:
    """A row below as its record (the restriction and effects as theirs)."""
    ident, name, zone, size, restriction, vocations, effects, payout, status = row
    return Contract(
        ident,
        name,
        zone,
        size,
        None if restriction is None else Restriction(*restriction),
        vocations,
        tuple(EFFECT_TYPES[effect[0]](*effect) for effect in effects),
        payout,
        status,
    )


# contracts: (id, name, zone, lots, restriction, vocations ((vocation, value), ...),
#             effects (template, ...), prestige payout icon (0 = none), status); idx 0..95
# Effect rows: (GAIN, w, p); (PER_BUILDING, recipients, w, p, zones, size (0 = any), scope);
# (ELECTION, office); (WIN_ELECTION, office); (MARKER, n); (PARK, k); (EXTRA_FAVOR,);
# (TRIBUTE, x, zones, size (0 = any)).
_CONTRACT_ROWS: tuple[tuple[Any, ...], ...] = (
    ("T01", "Clinic", CIV, 1, NO_RESTRICTION, ((PUBLIC_SERVICE, 1),), (), 1, PARTIAL),  # 0
    ("T02", "Fire Station", CIV, 1, NO_RESTRICTION, ((PUBLIC_SERVICE, 1),), (), 0, PARTIAL),  # 1
    ("T03", "Courthouse", CIV, 2, NO_RESTRICTION, (), (), 0, PARTIAL),  # 2
    ("T04", "Post Office", CIV, 1, NO_RESTRICTION, ((PUBLIC_SERVICE, 1),), ((GAIN, 2, 0),), 0, RECONSTRUCTED),  # 3
    ("T05", "Schoolhouse", CIV, 1, NO_RESTRICTION, ((EDUCATION, 2),), (), 2, RECONSTRUCTED),  # 4
    ("T06", "Town Hall", CIV, 2, NO_RESTRICTION, (), ((ELECTION, MAYOR),), 3, RECONSTRUCTED),  # 5
    ("T07", "High School", CIV, 2, NO_RESTRICTION, ((EDUCATION, 2),), (), 1, PARTIAL),  # 6
    (
        "T08",
        "Library",
        CIV,
        3,
        NO_RESTRICTION,
        ((EDUCATION, 1),),  # 7
        ((PER_BUILDING, ACTIVE_OWN, 0, 1, (CIV,), 0, CITY_SCOPE),),
        2,
        RECONSTRUCTED,
    ),
    ("T09", "General Store", COM, 1, NO_RESTRICTION, (), ((GAIN, 3, 0),), 1, RECONSTRUCTED),  # 8
    ("T10", "Diner", COM, 1, NO_RESTRICTION, ((TOURISM, 1),), (), 0, RECONSTRUCTED),  # 9
    (
        "T11",
        "Barber Shop",
        COM,
        1,
        NO_RESTRICTION,
        (),  # 10
        ((PER_BUILDING, ACTIVE_ALL, 1, 0, (RES,), 0, ADJACENT),),
        0,
        RECONSTRUCTED,
    ),
    ("T12", "Saloon", COM, 1, NO_RESTRICTION, ((TOURISM, 1),), (), 2, RECONSTRUCTED),  # 11
    ("T13", "Bank", COM, 2, NO_RESTRICTION, ((FINANCE, 2),), (), 3, RECONSTRUCTED),  # 12
    ("T14", "Inn", COM, 2, (ADJ_WATER, 0), ((TOURISM, 2),), (), 1, RECONSTRUCTED),  # 13
    ("T15", "Newspaper", COM, 2, NO_RESTRICTION, ((MEDIA, 3),), (), 1, RECONSTRUCTED),  # 14
    (
        "T16",
        "Town Market",
        COM,
        3,
        NO_RESTRICTION,
        (),  # 15
        ((PER_BUILDING, EACH_OWN, 1, 0, (COM,), 0, CITY_SCOPE),),
        2,
        RECONSTRUCTED,
    ),
    ("T17", "Blacksmith", IND, 1, NO_RESTRICTION, ((FACTORY, 1),), (), 0, RECONSTRUCTED),  # 16
    ("T18", "Sawmill", IND, 1, (ADJ_FOREST, 0), ((FACTORY, 1),), ((GAIN, 2, 0),), 1, RECONSTRUCTED),  # 17
    ("T19", "Oil Well", IND, 1, (ADJ_FOREST, 0), ((ENERGY, 2),), (), 0, RECONSTRUCTED),  # 18
    ("T20", "Lumber Yard", IND, 2, (ADJ_FOREST, 0), ((FACTORY, 2),), (), 2, RECONSTRUCTED),  # 19
    ("T21", "Cannery", IND, 2, (ADJ_WATER, 0), ((FACTORY, 1),), ((GAIN, 3, 0),), 0, RECONSTRUCTED),  # 20
    ("T22", "Rail Depot", IND, 2, NO_RESTRICTION, ((TRANSPORTATION, 2),), (), 1, RECONSTRUCTED),  # 21
    ("T23", "Warehouse", IND, 3, NO_RESTRICTION, (), ((EXTRA_FAVOR,),), 0, PARTIAL),  # 22
    ("T24", "Brickworks", IND, 3, (NOT_ADJ, RES), ((FACTORY, 2),), (), 3, RECONSTRUCTED),  # 23
    ("T25", "Cottage", RES, 1, NO_RESTRICTION, (), ((GAIN, 0, 1),), 0, RECONSTRUCTED),  # 24
    ("T26", "Farmhouse", RES, 1, (ADJ_FOREST, 0), (), ((GAIN, 0, 2),), 1, RECONSTRUCTED),  # 25
    (
        "T27",
        "Boarding House",
        RES,
        1,
        NO_RESTRICTION,
        (),  # 26
        ((PER_BUILDING, ACTIVE_ALL, 1, 0, (IND,), 0, ADJACENT),),
        0,
        RECONSTRUCTED,
    ),
    (
        "T28",
        "Row Houses",
        RES,
        2,
        NO_RESTRICTION,
        (),  # 27
        ((PER_BUILDING, ACTIVE_OWN, 0, 1, (RES,), 0, CITY_SCOPE),),
        2,
        RECONSTRUCTED,
    ),
    ("T29", "Duplex", RES, 2, NO_RESTRICTION, (), ((GAIN, 4, 0),), 0, RECONSTRUCTED),  # 28
    ("T30", "Lakeside Cabins", RES, 2, (ADJ_WATER, 0), (), ((GAIN, 0, 3),), 1, RECONSTRUCTED),  # 29
    ("T31", "Manor", RES, 3, (MIN_VALUE, 6), (), ((GAIN, 0, 4),), 3, RECONSTRUCTED),  # 30
    ("T32", "Subdivision", RES, 3, NO_RESTRICTION, (), ((PARK_EFFECT, 1),), 2, RECONSTRUCTED),  # 31
    (
        "C01",
        "Police Station",
        CIV,
        1,
        NO_RESTRICTION,
        ((PUBLIC_SERVICE, 2),),  # 32
        ((ELECTION, POLICE_CHIEF),),
        0,
        RECONSTRUCTED,
    ),
    ("C02", "Municipal Court", CIV, 2, NO_RESTRICTION, (), ((WIN_ELECTION, DISTRICT_ATTORNEY),), 0, PARTIAL),  # 33
    ("C03", "Central Library", CIV, 2, NO_RESTRICTION, ((EDUCATION, 3),), (), 2, RECONSTRUCTED),  # 34
    ("C04", "Jail", CIV, 2, (NOT_ADJ, RES), ((PUBLIC_SERVICE, 2),), ((GAIN, 3, 0),), 1, RECONSTRUCTED),  # 35
    (
        "C05",
        "Hospital",
        CIV,
        3,
        NO_RESTRICTION,
        ((PUBLIC_SERVICE, 2),),  # 36
        ((PER_BUILDING, ACTIVE_ALL, 0, 1, (RES,), 0, ADJACENT),),
        2,
        RECONSTRUCTED,
    ),
    ("C06", "Museum", CIV, 3, (MIN_VALUE, 8), ((EDUCATION, 3),), (), 3, RECONSTRUCTED),  # 37
    (
        "C07",
        "City Hall",
        CIV,
        4,
        NO_RESTRICTION,
        (),
        (
            (MARKER, 4),
            (ELECTION, MAYOR),
        ),
        1,
        RECONSTRUCTED,
    ),  # 38
    ("C08", "Cathedral", CIV, 4, NO_RESTRICTION, (), ((GAIN, 0, 5),), 2, RECONSTRUCTED),  # 39
    ("C09", "Pawn Shop", COM, 1, NO_RESTRICTION, (), ((GAIN, 4, 0),), 0, RECONSTRUCTED),  # 40
    ("C10", "Cafe", COM, 1, NO_RESTRICTION, ((TOURISM, 2),), (), 1, RECONSTRUCTED),  # 41
    (
        "C11",
        "Department Store",
        COM,
        2,
        NO_RESTRICTION,
        (),  # 42
        ((PER_BUILDING, ACTIVE_ALL, 1, 0, (RES,), 0, THESE_ROWS),),
        2,
        RECONSTRUCTED,
    ),
    ("C12", "Radio Station", COM, 2, NO_RESTRICTION, ((MEDIA, 4),), (), 0, RECONSTRUCTED),  # 43
    ("C13", "Office Block", COM, 3, NO_RESTRICTION, ((FINANCE, 3),), ((MARKER, 9),), 1, RECONSTRUCTED),  # 44
    ("C14", "Theater", COM, 3, NO_RESTRICTION, ((TOURISM, 3),), (), 3, RECONSTRUCTED),  # 45
    (
        "C15",
        "Corporate HQ",
        COM,
        4,
        NO_RESTRICTION,
        ((FINANCE, 6),),  # 46
        (
            (PER_BUILDING, ACTIVE_ALL, 4, 0, (COM,), 4, CITY_SCOPE),
            (PER_BUILDING, EACH_OWN, 3, 0, (COM,), 3, CITY_SCOPE),
        ),
        2,
        PARTIAL,
    ),
    (
        "C16",
        "Shopping Mall",
        COM,
        4,
        NO_RESTRICTION,
        (),  # 47
        ((PER_BUILDING, EACH_OWN, 2, 0, (COM,), 0, CITY_SCOPE),),
        0,
        RECONSTRUCTED,
    ),
    ("C17", "Gas Station", IND, 1, NO_RESTRICTION, ((ENERGY, 2),), (), 0, RECONSTRUCTED),  # 48
    ("C18", "Factory", IND, 2, NO_RESTRICTION, ((FACTORY, 3),), (), 1, RECONSTRUCTED),  # 49
    ("C19", "Rail Yard", IND, 2, NO_RESTRICTION, ((TRANSPORTATION, 3),), (), 1, RECONSTRUCTED),  # 50
    ("C20", "Power Plant", IND, 3, (ADJ_WATER, 0), ((ENERGY, 3),), (), 2, RECONSTRUCTED),  # 51
    ("C21", "Steel Mill", IND, 3, (NOT_ADJ, RES), ((FACTORY, 3),), ((GAIN, 3, 0),), 0, RECONSTRUCTED),  # 52
    ("C22", "Truck Depot", IND, 3, NO_RESTRICTION, ((TRANSPORTATION, 2),), ((MARKER, 8),), 0, RECONSTRUCTED),  # 53
    ("C23", "Assembly Plant", IND, 4, NO_RESTRICTION, ((FACTORY, 4),), (), 3, RECONSTRUCTED),  # 54
    (
        "C24",
        "Refinery",
        IND,
        4,
        (ADJ_WATER, 0),
        ((ENERGY, 4),),  # 55
        ((PER_BUILDING, EACH_OWN, 2, 0, (IND,), 0, CITY_SCOPE),),
        0,
        RECONSTRUCTED,
    ),
    ("C25", "Brownstone", RES, 1, NO_RESTRICTION, (), ((GAIN, 0, 2),), 1, RECONSTRUCTED),  # 56
    ("C26", "Townhouse", RES, 1, (MIN_VALUE, 7), (), ((GAIN, 0, 3),), 0, RECONSTRUCTED),  # 57
    (
        "C27",
        "Apartments",
        RES,
        2,
        NO_RESTRICTION,
        (),  # 58
        ((PER_BUILDING, ACTIVE_ALL, 1, 0, (COM,), 0, ADJACENT),),
        2,
        RECONSTRUCTED,
    ),
    (
        "C28",
        "Tenements",
        RES,
        2,
        (MAX_VALUE, 6),
        (),  # 59
        ((PER_BUILDING, ACTIVE_ALL, 0, 1, (IND,), 0, ADJACENT),),
        0,
        RECONSTRUCTED,
    ),
    ("C29", "Suburb", RES, 2, (ADJ_FOREST, 0), (), ((PARK_EFFECT, 1),), 1, RECONSTRUCTED),  # 60
    ("C30", "Housing Project", RES, 3, NO_RESTRICTION, (), ((ELECTION, POLICE_CHIEF),), 2, RECONSTRUCTED),  # 61
    ("C31", "Condominiums", RES, 3, (MIN_VALUE, 8), (), ((GAIN, 0, 4),), 3, RECONSTRUCTED),  # 62
    ("C32", "Garden Apartments", RES, 3, NO_RESTRICTION, (), ((PARK_EFFECT, 1),), 1, RECONSTRUCTED),  # 63
    ("M01", "Fire Headquarters", CIV, 2, NO_RESTRICTION, ((PUBLIC_SERVICE, 3),), (), 0, RECONSTRUCTED),  # 64
    ("M02", "Temple", CIV, 2, NO_RESTRICTION, (), ((TRIBUTE, 4, (RES,), 0),), 1, PARTIAL),  # 65
    (
        "M03",
        "Convention Center",
        CIV,
        3,
        NO_RESTRICTION,
        (
            (TOURISM, 3),
            (PUBLIC_SERVICE, 2),
        ),  # 66
        (),
        3,
        RECONSTRUCTED,
    ),
    ("M04", "Medical Center", CIV, 3, NO_RESTRICTION, ((PUBLIC_SERVICE, 4),), (), 4, RECONSTRUCTED),  # 67
    ("M05", "Planetarium", CIV, 3, NO_RESTRICTION, ((EDUCATION, 4),), (), 5, RECONSTRUCTED),  # 68
    (
        "M06",
        "University",
        CIV,
        4,
        NO_RESTRICTION,
        ((EDUCATION, 5),),  # 69
        (
            (
                PER_BUILDING,
                EACH_OWN,
                0,
                4,
                (
                    CIV,
                    RES,
                ),
                0,
                CITY_SCOPE,
            ),
        ),
        2,
        PARTIAL,
    ),
    (
        "M07",
        "Capitol",
        CIV,
        4,
        NO_RESTRICTION,
        (),
        (
            (GAIN, 0, 3),
            (ELECTION, MAYOR),
        ),
        6,
        RECONSTRUCTED,
    ),  # 70
    (
        "M08",
        "Stadium",
        CIV,
        4,
        NO_RESTRICTION,
        (),  # 71
        (
            (MARKER, 5),
            (PER_BUILDING, ACTIVE_ALL, 0, 1, (COM,), 0, THESE_ROWS),
        ),
        3,
        RECONSTRUCTED,
    ),
    ("M09", "Boutique", COM, 1, (MIN_VALUE, 9), (), ((GAIN, 6, 0),), 0, RECONSTRUCTED),  # 72
    ("M10", "TV Station", COM, 2, NO_RESTRICTION, ((MEDIA, 6),), (), 1, RECONSTRUCTED),  # 73
    ("M11", "Casino", COM, 2, NO_RESTRICTION, ((TOURISM, 5),), ((GAIN, 5, 0),), 0, RECONSTRUCTED),  # 74
    ("M12", "Financial Center", COM, 3, NO_RESTRICTION, ((FINANCE, 5),), ((MARKER, 10),), 2, RECONSTRUCTED),  # 75
    ("M13", "Resort Hotel", COM, 3, (ADJ_WATER, 0), ((TOURISM, 4),), (), 4, RECONSTRUCTED),  # 76
    ("M14", "Skyscraper", COM, 4, (MIN_VALUE, 10), (), ((GAIN, 0, 6),), 5, RECONSTRUCTED),  # 77
    (
        "M15",
        "Mega Mall",
        COM,
        4,
        NO_RESTRICTION,
        (),  # 78
        ((PER_BUILDING, EACH_OWN, 3, 0, (COM,), 0, CITY_SCOPE),),
        2,
        RECONSTRUCTED,
    ),
    ("M16", "Marina", COM, 4, (IGNORE_ZONING, 0), (), ((TRIBUTE, 4, (RES,), 1),), 0, PARTIAL),  # 79
    ("M17", "Chemical Plant", IND, 2, (NOT_ADJ, RES), ((FACTORY, 5),), (), 0, RECONSTRUCTED),  # 80
    ("M18", "Heliport", IND, 2, NO_RESTRICTION, ((TRANSPORTATION, 5),), (), 1, RECONSTRUCTED),  # 81
    ("M19", "Nuclear Plant", IND, 3, (NOT_ADJ, RES), ((ENERGY, 6),), (), 6, RECONSTRUCTED),  # 82
    (
        "M20",
        "Freight Terminal",
        IND,
        3,
        NO_RESTRICTION,
        ((TRANSPORTATION, 4),),  # 83
        ((MARKER, 11),),
        0,
        RECONSTRUCTED,
    ),
    ("M21", "Auto Plant", IND, 3, NO_RESTRICTION, ((FACTORY, 4),), (), 4, RECONSTRUCTED),  # 84
    (
        "M22",
        "Port",
        IND,
        4,
        (ADJ_WATER, 0),
        ((TRANSPORTATION, 7),),  # 85
        ((PER_BUILDING, EACH_OWN, 4, 4, (IND,), 0, CITY_SCOPE),),
        4,
        PARTIAL,
    ),
    (
        "M23",
        "Industrial Park",
        IND,
        4,
        NO_RESTRICTION,
        (),
        (
            (MARKER, 12),
            (PARK_EFFECT, 1),
        ),
        5,
        RECONSTRUCTED,
    ),  # 86
    ("M24", "Solar Farm", IND, 4, (ADJ_FOREST, 0), ((ENERGY, 5),), (), 3, RECONSTRUCTED),  # 87
    ("M25", "Penthouse", RES, 1, (MIN_VALUE, 10), (), ((GAIN, 0, 5),), 0, RECONSTRUCTED),  # 88
    ("M26", "Luxury Condos", RES, 2, NO_RESTRICTION, (), ((GAIN, 0, 4),), 3, RECONSTRUCTED),  # 89
    (
        "M27",
        "Gated Community",
        RES,
        2,
        (ADJ_FOREST, 0),
        (),
        (
            (PARK_EFFECT, 1),
            (GAIN, 0, 2),
        ),
        1,
        RECONSTRUCTED,
    ),  # 90
    (
        "M28",
        "High-Rise Apartments",
        RES,
        3,
        NO_RESTRICTION,
        (),  # 91
        ((PER_BUILDING, ACTIVE_OWN, 0, 1, (RES,), 0, CITY_SCOPE),),
        1,
        RECONSTRUCTED,
    ),
    ("M29", "Retirement Village", RES, 3, NO_RESTRICTION, (), ((GAIN, 6, 0),), 2, RECONSTRUCTED),  # 92
    ("M30", "Planned Community", RES, 4, NO_RESTRICTION, (), ((PARK_EFFECT, 2),), 6, RECONSTRUCTED),  # 93
    (
        "M31",
        "Luxury Towers",
        RES,
        4,
        NO_RESTRICTION,
        (),
        (
            (MARKER, 6),
            (GAIN, 0, 3),
        ),
        0,
        RECONSTRUCTED,
    ),  # 94
    ("M32", "Waterfront Lofts", RES, 4, (ADJ_WATER, 0), (), ((GAIN, 0, 5),), 4, RECONSTRUCTED),  # 95
)
CONTRACTS = tuple(_contract(row) for row in _CONTRACT_ROWS)
CONTRACTS_PER_DECK = 32
NUM_CONTRACTS = len(CONTRACTS)  # 96


class ContractEvent(NamedTuple):
    """A contract-deck event (5.7): its deck, kind and arguments (a DISASTER's are a `Disaster`)."""

    id: str
    deck: int
    name: str
    kind: int
    args: tuple[int, ...]


class Disaster(NamedTuple):
    """A DISASTER event's arguments: the buildings it hits and what sparing one costs."""

    by_water: bool  # the buildings next to the water; else those of `size` lots
    size: int
    wealth: int
    prestige: int


# contract-deck events (5.7): (id, deck, name, kind, arguments) - ids 0..14
CONTRACT_EVENTS = tuple(
    ContractEvent(*row)
    for row in (
        ("E00", TOWN, "Airport", AIRPORT, ()),
        ("E01", TOWN, "Flood", DISASTER, (True, 0, 4, 0)),  # by water, size, wealth alternative, prestige alternative
        ("E02", TOWN, "Railroad Arrives", PLACE_MARKER, (7,)),
        ("E03", TOWN, "Town Meeting", HOLD_ELECTIONS, (MAYOR,)),
        ("E04", TOWN, "Harvest Festival", INCOME_NEAR_FOREST, (1,)),
        ("E05", CITY, "Sports Team", SPORTS_TEAM, ()),
        ("E06", CITY, "Business Relocation", RELOCATION, (1, 1)),
        ("E07", CITY, "Fire", DISASTER, (False, 1, 3, 0)),
        ("E08", CITY, "Union Strike", UNION_STRIKE, (1,)),
        ("E09", CITY, "City Council Vote", HOLD_ELECTIONS, (TREASURER, DISTRICT_ATTORNEY)),
        ("E10", METRO, "Olympic Games", OLYMPIC_GAMES, ()),
        ("E11", METRO, "Earthquake", DISASTER, (False, 4, 0, 3)),
        ("E12", METRO, "Gentrification", PRESTIGE_PER_BIG_ZONE, (RES, 3, 2)),  # zone, minimum size, prestige each
        ("E13", METRO, "Scandal", SCANDAL, (3,)),
        ("E14", METRO, "Subway Line", MOVE_MARKER, ()),
    )
)
DISASTERS = {
    e: Disaster(bool(row.args[0]), *row.args[1:]) for e, row in enumerate(CONTRACT_EVENTS) if row.kind == DISASTER
}
SPECIAL_EVENT = (0, 5, 10)  # per deck
NUM_CONTRACT_EVENTS = len(CONTRACT_EVENTS)
# deck card ids: contracts 0..95, events 96..110 (event e = 96 + e)
EVENT_BASE = NUM_CONTRACTS


def deck_cards(deck: int) -> tuple[int, ...]:
    """Card ids of one contract deck (its 32 contracts and its 5 events)."""
    contracts = range(CONTRACTS_PER_DECK * deck, CONTRACTS_PER_DECK * (deck + 1))
    events = [EVENT_BASE + e for e, row in enumerate(CONTRACT_EVENTS) if row.deck == deck]
    return (*contracts, *events)


# column views of the contract rows, for speed
CONTRACT_ID = tuple(c.id for c in CONTRACTS)
CONTRACT_NAME = tuple(c.name for c in CONTRACTS)
CONTRACT_ZONE = tuple(c.zone for c in CONTRACTS)
CONTRACT_SIZE = tuple(c.size for c in CONTRACTS)
CONTRACT_RESTRICTION = tuple(c.restriction for c in CONTRACTS)
CONTRACT_VOCATIONS = tuple(c.vocations for c in CONTRACTS)
CONTRACT_EFFECTS = tuple(c.effects for c in CONTRACTS)
CONTRACT_PAYOUT = tuple(c.payout for c in CONTRACTS)
CONTRACT_STATUS = tuple(c.status for c in CONTRACTS)
PERMIT_VALUE = tuple(p.value for p in PERMITS) + (0,) * 18
PERMIT_ZONES = tuple(p.zones for p in PERMITS) + ((),) * 18
INVESTMENT = tuple(p.investment for p in PERMITS) + (0,) * 18
BALLOT = tuple(p.ballot for p in PERMITS) + URBAN_RENEWAL_BALLOT + (False,) * 14
WEALTH_PAYOUT = tuple(p.payout for p in PERMITS) + (0,) * 18


def planning_name(card: int) -> str:
    if card < NUM_PERMITS:
        value, zones = PERMITS[card].value, "/".join(ZONE_NAMES[z] for z in PERMITS[card].zones)
        return f"P{card:02d} permit {value} {zones}"
    if card < FIRST_PLANNING_EVENT:
        return f"P{card:02d} Urban Renewal"
    return f"P{card:02d} {PLANNING_EVENTS[card - FIRST_PLANNING_EVENT].name}"


def contract_name(card: int) -> str:
    if card >= EVENT_BASE:
        event = CONTRACT_EVENTS[card - EVENT_BASE]
        return f"{event.id} {event.name}"
    return f"{CONTRACT_ID[card]} {CONTRACT_NAME[card]} ({ZONE_NAMES[CONTRACT_ZONE[card]]} {CONTRACT_SIZE[card]})"


# ----- texts for a person (the web app's tooltips and legend; 2.9, 5.6, 5.7) ----------------------
def _zones(zones: tuple[int, ...]) -> str:
    return "/".join(ZONE_NAMES[z] for z in zones)


def permit_text(card: int) -> str:
    """A building permit's face: what it pays toward, what investing it gains, its icons."""
    _, value, zones, investment, ballot, payout = PERMITS[card]
    icons = ("; ballot: moves the election pawn when revealed" if ballot else "") + (
        f"; when revealed, wealth row {payout} pays out" if payout else ""
    )
    return (
        f"building permit worth {value} toward a {_zones(zones)} contract, or invest it for {investment} wealth" + icons
    )


URBAN_RENEWAL_TEXT = "Urban Renewal: lets you demolish smaller buildings wholly under a new one (no permit value)"
PLANNING_EVENT_TEXT = {
    "P40": "every player loses {arg} wealth",
    "P41": "from the active player clockwise, each may pay {arg} wealth for a 1-lot park on any empty lot",
    "P42": "the lowest-value building is demolished unless its controller pays {arg} prestige",
    "P43": "the controller of the highest-value building gains {arg} prestige",
    "P44": "the election pawn moves on and that office is elected, as for a ballot",
    "P45": "an election for Mayor is held",
    "P46": "each player gains 1 wealth per CIV building they control",
    "P47": "each player gains 1 wealth per COM building they control",
    "P48": "each player gains 1 wealth per IND building they control",
    "P49": "each player gains 1 wealth per RES building they control",
    "P50": "each player gains {arg} prestige per park they control",
    "P51": "each player loses 1 wealth per {arg}-lot building they control",
    "P52": "the active player may move one placed marker to an empty grey circle",
    "P53": "the MEDIA holder gains {arg} wealth and {arg} prestige",
}
CONTRACT_EVENT_TEXT = {
    "E00": "Airport: the District Attorney, Treasurer, Police Chief and Union Boss come into play, and the City "
    "deck starts feeding the contract row",
    "E01": "Flood: each player loses a building next to the water, unless they pay 4 wealth",
    "E02": "Railroad Arrives: the active player puts wealth marker 7 on a grey circle",
    "E03": "Town Meeting: an election for Mayor is held",
    "E04": "Harvest Festival: each player gains 1 wealth per building of theirs next to the forest",
    "E05": "Sports Team: the Contractor comes into play, and the Metropolis deck starts feeding the contract row",
    "E06": "Business Relocation: the MEDIA holder gains 1 wealth and 1 prestige; the Treasurer takes control "
    "away from one COM building",
    "E07": "Fire: each player loses a 1-lot building, unless they pay 3 wealth",
    "E08": "Union Strike: the Union Boss gains 1 wealth per IND building in play; an election for Union Boss",
    "E09": "City Council Vote: elections for Treasurer, then District Attorney",
    "E10": "Olympic Games: the game ends at once, with the final scoring",
    "E11": "Earthquake: each player loses a 4-lot building, unless they pay 3 prestige",
    "E12": "Gentrification: each player gains 2 prestige per RES building of theirs of 3 or more lots",
    "E13": "Scandal: the Mayor loses 3 prestige; an election for Mayor is held",
    "E14": "Subway Line: the active player may move one placed marker to an empty grey circle",
}


def planning_text(card: int) -> str:
    """What a planning card does, in words."""
    if card < NUM_PERMITS:
        return permit_text(card)
    if card < FIRST_PLANNING_EVENT:
        return URBAN_RENEWAL_TEXT + ("; ballot: moves the election pawn when revealed" if BALLOT[card] else "")
    event_id, name, _, arg = PLANNING_EVENTS[card - FIRST_PLANNING_EVENT]
    return f"{name} (event): " + PLANNING_EVENT_TEXT[event_id].format(arg=arg)
