"""Metropolys components: the 55-neighbourhood board, buildings, tokens and secret cards.

All tables are transcribed from the published rules (summarized in docs/games/metropolys.md); the first-game token
layout (2.5) is RECONSTRUCTED there and kept here as data so it can be replaced without touching rules.
"""

from __future__ import annotations

# ----- districts (2.3) -------------------------------------------------------------------------
CENTRE, NORTH, EAST, SOUTH, WEST = range(5)
DISTRICT_NAMES = ("centre", "north", "east", "south", "west")
PERIPHERAL = (NORTH, EAST, SOUTH, WEST)
# 2 players remove two districts that are adjacent around the ring N-E-S-W-N (2.5).
ADJACENT_PAIRS = ((NORTH, EAST), (EAST, SOUTH), (SOUTH, WEST), (WEST, NORTH))

NUM_NBHDS = 55
_DISTRICT_LETTERS = "CCCCCCCCCCCCCCCNNNNNNNNNNEEEEEEEEEESSSSSSSSSSWWWWWWWWWW"
DISTRICT = tuple("CNESW".index(letter) for letter in _DISTRICT_LETTERS)

# ----- colours (2.3): every rule uses the colour; the type names are flavour (UNVERIFIED) -------
GRAY, ORANGE, GREEN, RED, BLUE = range(5)
COLOUR_NAMES = ("gray", "orange", "green", "red", "blue")
TYPE_NAMES = ("industry", "park", "housing", "commerce", "administration")
_TYPE_LETTERS = "IHCAIPAPHPCICAHIAIPPHCCAHIHCHPAICAPPIHCPHAICACAHIIHPAPC"
COLOUR = tuple("IPHCA".index(letter) for letter in _TYPE_LETTERS)

# ----- adjacency (2.3): orthogonal neighbours, bridges included --------------------------------
ADJ: tuple[tuple[int, ...], ...] = (
    (2, 3, 19, 22),
    (2, 7, 49),
    (0, 1, 3),
    (0, 2, 4, 9),
    (3, 5, 9),
    (4, 6, 10, 30),
    (5, 24, 25),
    (1, 8, 12, 52),
    (7, 9),
    (3, 4, 8, 10),
    (5, 9, 11, 13, 14),
    (10,),
    (7, 13, 36),
    (10, 12, 14, 38),
    (10, 13, 33, 39),
    (16, 19, 45),
    (15, 17, 20),
    (16, 18, 22, 23),
    (17, 23, 26),
    (0, 15, 20, 47),
    (16, 19, 21, 22),
    (20,),
    (0, 17, 20),
    (17, 18, 24, 25),
    (6, 23),
    (6, 23, 26, 27),
    (18, 25, 29),
    (25, 28, 29, 30),
    (27,),
    (26, 27, 31),
    (5, 27, 31, 32),
    (29, 30, 32),
    (30, 31, 33, 34),
    (14, 32, 34, 39, 43),
    (32, 33, 44),
    (36,),
    (12, 35, 37, 41, 52, 54),
    (36, 38, 41),
    (13, 37, 39, 42),
    (14, 33, 38, 42),
    (41, 53),
    (36, 37, 40, 42),
    (38, 39, 41, 43),
    (33, 42, 44),
    (34, 43),
    (15, 46, 47),
    (45, 47, 48),
    (19, 45, 46, 48, 49),
    (46, 47, 51),
    (1, 47, 52),
    (51, 53),
    (48, 50, 52, 54),
    (7, 36, 49, 51, 54),
    (40, 50, 54),
    (36, 51, 52, 53),
)
# Bridges are exactly the cross-district adjacencies (2.4).
BRIDGES = tuple(sorted((a, b) for a in range(NUM_NBHDS) for b in ADJ[a] if a < b and DISTRICT[a] != DISTRICT[b]))

# Approximate centre of each neighbourhood on the board, % of width and height (x right, y down);
# used only to draw the board image (2.3).
POSITION: tuple[tuple[float, float], ...] = (
    (42.4, 28.0),
    (29.6, 42.2),
    (35.7, 37.5),
    (48.2, 36.4),
    (59.1, 39.5),
    (70.1, 42.2),
    (71.8, 34.1),
    (36.1, 56.4),
    (45.8, 52.1),
    (53.0, 47.8),
    (61.9, 54.2),
    (73.0, 55.3),
    (42.4, 69.3),
    (53.6, 65.7),
    (66.2, 64.6),
    (29.6, 6.6),
    (45.8, 5.2),
    (58.9, 7.9),
    (78.0, 7.2),
    (30.9, 18.9),
    (43.8, 14.4),
    (38.9, 12.0),
    (52.6, 17.8),
    (69.7, 18.3),
    (62.9, 26.9),
    (79.7, 23.9),
    (91.3, 15.1),
    (84.5, 30.3),
    (88.9, 34.8),
    (94.6, 27.3),
    (83.5, 44.9),
    (94.3, 43.4),
    (89.2, 58.9),
    (80.3, 72.4),
    (92.6, 75.6),
    (22.8, 85.1),
    (30.2, 80.1),
    (43.5, 81.9),
    (54.3, 78.8),
    (65.0, 76.5),
    (17.9, 92.3),
    (37.2, 93.4),
    (61.5, 88.5),
    (76.6, 91.6),
    (87.0, 91.9),
    (16.2, 11.0),
    (7.4, 23.2),
    (16.4, 29.4),
    (6.2, 42.5),
    (18.6, 46.3),
    (4.0, 64.6),
    (11.1, 59.8),
    (22.9, 61.6),
    (5.9, 80.3),
    (15.1, 74.3),
)

# ----- lakes and statues (2.4) -----------------------------------------------------------------
LAKES: tuple[tuple[int, ...], ...] = (
    (1, 2, 3, 7, 8, 9),  # L1
    (7, 8, 9, 10, 12, 13),  # L2
    (15, 16, 19, 20, 21),  # L3
    (27, 28, 29, 30, 31),  # L4
    (37, 38, 41, 42),  # L5
    (47, 48, 49, 51, 52),  # L6
)
STATUES: tuple[tuple[int, int, int], ...] = (
    (0, 2, 3),
    (3, 4, 9),
    (10, 13, 14),
    (17, 18, 23),
    (30, 31, 32),
    (32, 33, 34),
    (36, 37, 41),
    (38, 39, 42),
    (45, 46, 47),
    (46, 47, 48),
    (51, 52, 54),
)
BORDER = frozenset((15, 16, 17, 18, 26, 29, 31, 32, 34, 40, 41, 42, 43, 44, 45, 46, 48, 50, 51, 53))
BRIDGE_END = frozenset(n for bridge in BRIDGES for n in bridge)
LAKE_SIDE = frozenset(n for lake in LAKES for n in lake)
STATUE_SIDE = frozenset(n for statue in STATUES for n in statue)
DEAD_END = frozenset(n for n in range(NUM_NBHDS) if len(ADJ[n]) == 1)  # 11, 21, 28, 35
TOKEN_OK = frozenset(n for n in range(NUM_NBHDS) if n not in DEAD_END)  # static for every count (8.1)

# ----- buildings (2.2) -------------------------------------------------------------------------
VALUES = tuple(range(1, 14))
NUM_BUILDINGS = 13
HEIGHT_CLASS = {v: 0 if v <= 5 else 1 if v <= 9 else 2 for v in VALUES}  # small, medium, tall
PLAYER_COLOURS = ("blue", "red", "white", "grey")

# ----- tokens (2.5) ----------------------------------------------------------------------------
NO_TOKEN, TRENDY, SUBWAY, ARCH = range(4)
TOKEN_NAMES = ("none", "trendy", "subway", "archaeological")
TOKEN_POINTS = {TRENDY: 3, SUBWAY: 1, ARCH: -1}
SUBWAY_CARD_POINTS = 3
ARCH_CARD_POINTS = -2
TOKENS_PER_COUNT = {
    4: {TRENDY: 9, SUBWAY: 9, ARCH: 9},
    3: {TRENDY: 8, SUBWAY: 7, ARCH: 7},
    2: {TRENDY: 5, SUBWAY: 6, ARCH: 6},
}
TOKEN_SPOTS = {CENTRE: 7, NORTH: 5, EAST: 5, SOUTH: 5, WEST: 5}  # tokens per district in play

# First-game layout (RECONSTRUCTED): district -> {token: neighbourhoods}.
FIRST_GAME_LAYOUT = {
    CENTRE: {TRENDY: (0, 3, 7, 10, 13), SUBWAY: (5,), ARCH: (9,)},
    NORTH: {TRENDY: (17,), SUBWAY: (19, 23), ARCH: (15, 22)},
    EAST: {TRENDY: (30,), SUBWAY: (26, 33), ARCH: (25, 31)},
    SOUTH: {TRENDY: (38,), SUBWAY: (36, 42), ARCH: (40, 44)},
    WEST: {TRENDY: (52,), SUBWAY: (45, 51), ARCH: (47, 53)},
}
# With 2 players the Centre's tokens on 0 and 13 change kind so the counts come out right.
FIRST_GAME_TWO_PLAYER_CHANGES = {0: SUBWAY, 13: ARCH}

# ----- secret cards (2.6, 2.7) -----------------------------------------------------------------
FAMILY_BRIDGES, FAMILY_LAKES, FAMILY_STATUES, FAMILY_BORDERS = range(4)
FAMILY_CARD_NAMES = ("bridges", "lakes", "statues", "borders")
FAMILY_QUALIFYING = (BRIDGE_END, LAKE_SIDE, STATUE_SIDE, BORDER)
FAMILY_POINTS_PER_BUILDING = 3
NEIGHBOURHOOD_POINTS_PER_BUILDING = 2  # expert Neighbourhood card, one per colour

EXPERT_BRIDGES, EXPERT_CHAINS, EXPERT_LAKES, EXPERT_DISTRICTS, EXPERT_STATUES = range(5)
EXPERT_AREA_NAMES = ("bridges", "chains", "lakes", "districts", "statues")
EXPERT_AREA_POINTS = (4, 4, 5, 4, 7)  # per set
DISTRICT_SET_SIZE = 3  # buildings in one district that make a Districts set
HIGHEST_BUILDING_POINTS = 5

# ----- texts for a person (the web app's tooltips and legend), from the tables above --------------
TOKEN_TEXT = {
    TRENDY: f"{TOKEN_POINTS[TRENDY]:+d} prestige to whoever builds there",
    SUBWAY: f"{TOKEN_POINTS[SUBWAY]:+d} prestige; the most subway tokens also win the Subway card "
    f"({SUBWAY_CARD_POINTS:+d})",
    ARCH: f"{TOKEN_POINTS[ARCH]:+d} prestige; the last one to take one holds the "
    f"Archaeological-site card ({ARCH_CARD_POINTS:+d})",
}
SUBWAY_CARD_TEXT = (
    f"{SUBWAY_CARD_POINTS:+d} prestige at the end; it goes to a player who takes a subway token "
    "while nobody holds it, or who then has more subway tokens than its holder"
)
ARCH_CARD_TEXT = (
    f"{ARCH_CARD_POINTS:+d} prestige at the end; it goes to the last player who took an archaeological token"
)
FAMILY_CARD_TEXT = (
    f"{FAMILY_POINTS_PER_BUILDING} prestige per building of yours at the end of a bridge",
    f"{FAMILY_POINTS_PER_BUILDING} prestige per building of yours beside a lake",
    f"{FAMILY_POINTS_PER_BUILDING} prestige per building of yours beside a statue",
    f"{FAMILY_POINTS_PER_BUILDING} prestige per building of yours on the city's border",
)
COLOUR_CARD_TEXT = f"{NEIGHBOURHOOD_POINTS_PER_BUILDING} prestige per building of yours on a {{colour}} neighbourhood"
EXPERT_AREA_TEXT = (
    f"{EXPERT_AREA_POINTS[EXPERT_BRIDGES]} prestige per bridge with your buildings at both ends",
    f"{EXPERT_AREA_POINTS[EXPERT_CHAINS]} prestige per chain of 3 connected buildings of yours "
    "(no building counted twice)",
    f"{EXPERT_AREA_POINTS[EXPERT_LAKES]} prestige per 3 of your buildings beside the same lake",
    f"{EXPERT_AREA_POINTS[EXPERT_DISTRICTS]} prestige per district holding at least {DISTRICT_SET_SIZE} of your "
    "buildings",
    f"{EXPERT_AREA_POINTS[EXPERT_STATUES]} prestige per statue with your buildings on all three sides",
)
