"""Blue Moon City components: peoples and cards, the 21 building tiles, the grid, the obelisk.

Transcribed from the published rules (summarized in docs/games/blue_moon_city.md). Figures marked
RECONSTRUCTED (R) (filled in where no official figure exists) are data here so they can be replaced
without touching the rules: the card split per colour (`CARD_COPIES`) and the tile values/rewards
flagged in `RECONSTRUCTED_TILE_FIELDS`.
"""

from __future__ import annotations

# ----- peoples (2.1) ---------------------------------------------------------------------------
BLACK, RED, BLUE, GREY, BROWN, WHITE, YELLOW, GREEN = range(8)
COLOUR_NAMES = ("black", "red", "blue", "grey", "brown", "white", "yellow", "green")
PEOPLE_NAMES = ("Vulca", "Terrah", "Aqua", "Flit", "Mimix", "Hoax", "Pillar", "Khind")
ANY = 8  # a palace section accepts any one colour
NUM_COLOURS = 7  # colours a section or a payment can be (green is only ever wild)

# ----- people cards (2.2): type = 3 * colour + (value - 1) for colours 0-6, type 21 = green 1 ----
NUM_TYPES = 22
GREEN_CARD = 21
CARD_COLOUR = tuple([c for c in range(7) for _ in range(3)] + [GREEN])
CARD_VALUE = tuple([v for _ in range(7) for v in (1, 2, 3)] + [1])
# Copies per type: 4 x value 1, 3 x value 2, 3 x value 3 per colour (RECONSTRUCTED split), 10 green.
CARD_COPIES = tuple([4, 3, 3] * 7 + [10])
DECK_SIZE = sum(CARD_COPIES)  # 80
STARTING_HAND = 8
BASE_DRAW = 2
MAX_DISCARDS = 2


def card_type(colour: int, value: int) -> int:
    return GREEN_CARD if colour == GREEN else 3 * colour + value - 1


# card types with a power
DRAGON_FLY_CARD = (card_type(BLACK, 1), card_type(RED, 1), card_type(BLUE, 1))  # per dragon
DRAGON_WALK_CARD = (card_type(BLACK, 2), card_type(RED, 2), card_type(BLUE, 2))
GREY_TELEPORT = card_type(GREY, 1)
GREY_BOOST = card_type(GREY, 2)
BROWN_1, BROWN_2 = card_type(BROWN, 1), card_type(BROWN, 2)
WHITE_1, WHITE_2 = card_type(WHITE, 1), card_type(WHITE, 2)
YELLOW_1, YELLOW_2 = card_type(YELLOW, 1), card_type(YELLOW, 2)
POWER_CARDS = frozenset(
    (
        *DRAGON_FLY_CARD,
        *DRAGON_WALK_CARD,
        GREY_TELEPORT,
        GREY_BOOST,
        BROWN_1,
        BROWN_2,
        WHITE_1,
        WHITE_2,
        YELLOW_1,
        YELLOW_2,
        GREEN_CARD,
    )
)
MIMIX_PAIRS = ((BROWN_1, BROWN_1), (BROWN_1, BROWN_2), (BROWN_2, BROWN_2))
MIMIX_VALUE = 3
HOAX1_CAPACITY = 4
BOOST_STEPS = 2
DRAGON_WALK_STEPS = 3

# ----- dragons (2.1) ---------------------------------------------------------------------------
FIRE, EARTH, WATER = range(3)
DRAGON_NAMES = ("Fire", "Earth", "Water")
OFF_BOARD = 21

# ----- grid (2.5): 5x5 without corners, positions row-major over the 21 cells ------------------
CELLS = tuple((r, c) for r in range(5) for c in range(5) if not (r in (0, 4) and c in (0, 4)))
NUM_POSITIONS = 21
COURTYARD_POSITION = 10
ADJ = tuple(tuple(j for j, (r2, c2) in enumerate(CELLS) if abs(r - r2) + abs(c - c2) == 1) for (r, c) in CELLS)
DISTANCE = tuple(tuple(abs(r - r2) + abs(c - c2) for (r2, c2) in CELLS) for (r, c) in CELLS)
START_ALLOWANCE = 2
# Neighbour order for rewards: north, east, south, west (5.10).
NESW = ((-1, 0), (0, 1), (1, 0), (0, -1))
NEIGHBOURS_NESW = tuple(
    tuple(CELLS.index((r + dr, c + dc)) for dr, dc in NESW if (r + dr, c + dc) in CELLS) for (r, c) in CELLS
)

# ----- building tiles (2.6): (name, sections [(colour, value)], star, each, neighbour) -----------
# rewards are (crystals, cards, scales)
TILES = (
    ("Courtyard", (), (0, 0, 0), (0, 0, 0), (0, 0, 0)),
    ("Royal Palace", ((ANY, 5), (ANY, 4), (ANY, 4), (ANY, 3)), (2, 0, 0), (1, 1, 1), (1, 1, 1)),
    ("Fire Temple", ((BLACK, 5), (BLACK, 4), (BLACK, 3)), (2, 0, 0), (2, 0, 0), (3, 0, 0)),
    ("Earth Temple", ((RED, 5), (RED, 4), (RED, 3)), (2, 0, 0), (2, 0, 0), (0, 2, 0)),
    ("Water Temple", ((BLUE, 5), (BLUE, 4), (BLUE, 3)), (2, 0, 0), (2, 0, 0), (0, 0, 2)),
    ("Aqueduct", ((BLUE, 3),), (0, 0, 1), (1, 0, 0), (1, 0, 0)),
    ("Hospice", ((RED, 3),), (0, 0, 1), (1, 0, 0), (1, 0, 0)),
    ("Citadel", ((BLACK, 3),), (0, 0, 1), (1, 0, 0), (1, 0, 0)),
    ("Watchtower", ((GREY, 4), (GREY, 3)), (0, 2, 0), (1, 0, 0), (1, 0, 0)),
    ("Great Hall", ((BROWN, 5), (BROWN, 2)), (0, 0, 1), (1, 0, 0), (1, 0, 0)),
    ("University", ((WHITE, 5), (WHITE, 2)), (0, 0, 1), (1, 0, 0), (1, 0, 0)),
    ("Market Hall", ((YELLOW, 4), (YELLOW, 3), (YELLOW, 3)), (2, 0, 0), (1, 0, 0), (0, 2, 0)),
    ("Library", ((WHITE, 4), (WHITE, 3), (WHITE, 3)), (2, 0, 0), (1, 0, 0), (3, 0, 0)),
    ("Trading House", ((YELLOW, 4), (YELLOW, 3)), (0, 2, 0), (1, 0, 0), (1, 0, 0)),
    ("Flight Tower", ((GREY, 4), (GREY, 3), (GREY, 3)), (2, 0, 0), (1, 0, 0), (2, 0, 0)),
    ("City Residence", ((BROWN, 4), (BROWN, 3), (BROWN, 3)), (2, 0, 0), (1, 0, 0), (2, 0, 0)),
    ("Monastery Tower", ((GREY, 4), (GREY, 3), (GREY, 2)), (0, 0, 1), (1, 0, 0), (0, 0, 1)),
    ("Caravanserai", ((YELLOW, 4), (YELLOW, 3), (YELLOW, 2)), (0, 0, 1), (1, 0, 0), (1, 0, 0)),
    ("Thermae", ((BLUE, 3), (BLUE, 2), (BLUE, 2)), (0, 2, 0), (1, 0, 0), (1, 0, 0)),
    ("Iron Foundry", ((BLACK, 3), (BLACK, 2), (BLACK, 2)), (0, 2, 0), (1, 0, 0), (1, 0, 0)),
    ("Mill", ((RED, 3), (RED, 2), (RED, 2)), (0, 2, 0), (1, 0, 0), (1, 0, 0)),
)
NUM_TILES = len(TILES)
COURTYARD, ROYAL_PALACE = 0, 1
TILE_NAMES = tuple(t[0] for t in TILES)
SECTIONS = tuple(t[1] for t in TILES)
STAR_REWARD = tuple(t[2] for t in TILES)
EACH_REWARD = tuple(t[3] for t in TILES)
NEIGHBOUR_REWARD = tuple(t[4] for t in TILES)
MAX_SECTIONS = 4
# What is marked RECONSTRUCTED, per tile (documentation; the values above are the data).
RECONSTRUCTED_TILE_FIELDS = {
    "Fire Temple": "star, each",
    "Earth Temple": "star, each",
    "Water Temple": "star, each",
    "Aqueduct": "section value, each",
    "Hospice": "section value, each",
    "Citadel": "section value, each",
    "Watchtower": "section values, each",
    "Great Hall": "section values, each",
    "Market Hall": "section values, star, each",
    "Library": "section values, star, each",
    "Trading House": "section values, each",
    "Flight Tower": "section values, star, each",
    "City Residence": "section values, star, each",
    "Monastery Tower": "section values, each",
    "Caravanserai": "section values, each",
    "Iron Foundry": "each",
    "Mill": "section values, each",
}
# Fixed centre (2.5): position -> tile; the other tiles are shuffled onto the remaining positions.
FIXED_CENTRE = {10: COURTYARD, 5: 2, 11: ROYAL_PALACE, 15: 3, 9: 4}
SHUFFLED_POSITIONS = (0, 1, 2, 3, 4, 6, 7, 8, 12, 13, 14, 16, 17, 18, 19, 20)

# ----- obelisk (2.4), scales, markers, targets (§3) ----------------------------------------------
OBELISK_COSTS = {
    2: (7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12),
    3: (7, 7, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12),
    4: (7, 7, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12),
}
OFFERINGS_TO_WIN = {2: 6, 3: 5, 4: 4}
SCALES_IN_PLAY = {2: 9, 3: 12, 4: 15}
MARKERS = 10
SCALE_LEADER_CRYSTALS = 6
SCALE_TIED_LEADER_CRYSTALS = 3
SCALE_OTHERS_CRYSTALS = 3
SCALE_OTHERS_MINIMUM = 3
EXTRA_OFFER_SURCHARGE = {YELLOW_1: 1, YELLOW_2: 2}
ROUNDS_AFTER_CITY_COMPLETE = 10

# What each card does when discarded for its power, and what the dragons do, in words for a person
# (the web app's tooltips and legend; 2.2, §4, 5.9).
CARD_POWER_TEXT = {
    DRAGON_FLY_CARD[FIRE]: "discard it to fly the Fire dragon to any tile",
    DRAGON_FLY_CARD[EARTH]: "discard it to fly the Earth dragon to any tile",
    DRAGON_FLY_CARD[WATER]: "discard it to fly the Water dragon to any tile",
    DRAGON_WALK_CARD[FIRE]: f"discard it to walk the Fire dragon 1-{DRAGON_WALK_STEPS} steps (once it is on the board)",
    DRAGON_WALK_CARD[
        EARTH
    ]: f"discard it to walk the Earth dragon 1-{DRAGON_WALK_STEPS} steps (once it is on the board)",
    DRAGON_WALK_CARD[
        WATER
    ]: f"discard it to walk the Water dragon 1-{DRAGON_WALK_STEPS} steps (once it is on the board)",
    GREY_TELEPORT: "discard it: this turn your figure may move to any tile",
    GREY_BOOST: f"discard it: your figure may move {BOOST_STEPS} more steps this turn",
    BROWN_1: f"two brown 1s or 2s played together pay as one wild {MIMIX_VALUE}",
    BROWN_2: f"two brown 1s or 2s played together pay as one wild {MIMIX_VALUE}",
    WHITE_1: f"in one payment, up to {HOAX1_CAPACITY} cards of one colour count as the colour needed",
    WHITE_2: "in one payment, one card counts as the colour needed",
    YELLOW_1: f"one more offering this turn, costing {EXTRA_OFFER_SURCHARGE[YELLOW_1]} crystal more",
    YELLOW_2: f"one more offering this turn, costing {EXTRA_OFFER_SURCHARGE[YELLOW_2]} crystals more",
    GREEN_CARD: "pays as a 1 of any colour",
}
DRAGON_TEXT = (
    "A dragon on a tile gives one golden scale to the first player each turn who pays a section there "
    "(one scale per dragon on the tile). When the scale supply runs out, the player with the most scales "
    f"gains {SCALE_LEADER_CRYSTALS} crystals (tied leaders {SCALE_TIED_LEADER_CRYSTALS} each), every other "
    f"player with at least {SCALE_OTHERS_MINIMUM} scales gains {SCALE_OTHERS_CRYSTALS}."
)
DRAGON_CARD_COLOUR = {FIRE: BLACK, EARTH: RED, WATER: BLUE}  # the people whose 1s and 2s move each dragon
