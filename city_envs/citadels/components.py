"""Citadels (Classic edition) component data, from the published rules (summarized in docs/games/citadels.md).

Everything a rule needs to look up lives here as data; rules.py holds no card numbers.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# District types (2.2), fixed order used in every vector.
NOBLE, RELIGIOUS, TRADE, MILITARY, UNIQUE = range(5)
TYPE_NAMES = ("noble", "religious", "trade", "military", "unique")
NUM_TYPES = 5


@dataclass(frozen=True)
class District:
    kind: int
    name: str
    type: int
    cost: int
    copies: int
    points: int
    effect: str = ""


# 2.4: 68 cards in 30 kinds. Observatory cost 4 and Imperial Treasury cost 5 are the
# single-source (‡) values; change them here only.
DISTRICTS: tuple[District, ...] = (
    District(0, "Manor", NOBLE, 3, 5, 3),
    District(1, "Castle", NOBLE, 4, 4, 4),
    District(2, "Palace", NOBLE, 5, 3, 5),
    District(3, "Temple", RELIGIOUS, 1, 3, 1),
    District(4, "Church", RELIGIOUS, 2, 3, 2),
    District(5, "Monastery", RELIGIOUS, 3, 3, 3),
    District(6, "Cathedral", RELIGIOUS, 5, 2, 5),
    District(7, "Tavern", TRADE, 1, 5, 1),
    District(8, "Market", TRADE, 2, 4, 2),
    District(9, "Trading Post", TRADE, 2, 3, 2),
    District(10, "Docks", TRADE, 3, 3, 3),
    District(11, "Harbor", TRADE, 4, 3, 4),
    District(12, "Town Hall", TRADE, 5, 2, 5),
    District(13, "Watchtower", MILITARY, 1, 3, 1),
    District(14, "Prison", MILITARY, 2, 3, 2),
    District(15, "Barracks", MILITARY, 3, 3, 3),
    District(16, "Fortress", MILITARY, 5, 2, 5),
    District(17, "Haunted Quarter", UNIQUE, 2, 1, 2, "counts as any one type at game end"),
    District(18, "Keep", UNIQUE, 3, 2, 3, "the Warlord cannot destroy it"),
    District(19, "Laboratory", UNIQUE, 5, 1, 5, "once per turn: discard a card for 2 gold"),
    District(20, "Smithy", UNIQUE, 5, 1, 5, "once per turn: pay 2 gold to draw 3 cards"),
    District(21, "Observatory", UNIQUE, 4, 1, 4, "gathering cards draws 3"),
    District(22, "Graveyard", UNIQUE, 5, 1, 5, "pay 1 gold to take a destroyed district"),
    District(23, "Imperial Treasury", UNIQUE, 5, 1, 5, "game end: +1 point per gold"),
    District(24, "Map Room", UNIQUE, 5, 1, 5, "game end: +1 point per card in hand"),
    District(25, "Library", UNIQUE, 6, 1, 6, "gathering cards keeps all drawn cards"),
    District(26, "School of Magic", UNIQUE, 6, 1, 6, "counts as the income type"),
    District(27, "Great Wall", UNIQUE, 6, 1, 6, "the Warlord pays 1 more for your other districts"),
    District(28, "University", UNIQUE, 6, 1, 8, "scores 8"),
    District(29, "Dragon Gate", UNIQUE, 6, 1, 8, "scores 8"),
)
NUM_KINDS = len(DISTRICTS)
DECK_SIZE = sum(d.copies for d in DISTRICTS)

KIND_BY_NAME = {d.name: d.kind for d in DISTRICTS}
HAUNTED_QUARTER = KIND_BY_NAME["Haunted Quarter"]
KEEP = KIND_BY_NAME["Keep"]
LABORATORY = KIND_BY_NAME["Laboratory"]
SMITHY = KIND_BY_NAME["Smithy"]
OBSERVATORY = KIND_BY_NAME["Observatory"]
GRAVEYARD = KIND_BY_NAME["Graveyard"]
IMPERIAL_TREASURY = KIND_BY_NAME["Imperial Treasury"]
MAP_ROOM = KIND_BY_NAME["Map Room"]
LIBRARY = KIND_BY_NAME["Library"]
SCHOOL_OF_MAGIC = KIND_BY_NAME["School of Magic"]
GREAT_WALL = KIND_BY_NAME["Great Wall"]

COST = np.array([d.cost for d in DISTRICTS], dtype=np.int16)
POINTS = np.array([d.points for d in DISTRICTS], dtype=np.int16)
COPIES = np.array([d.copies for d in DISTRICTS], dtype=np.int16)
TYPE_OF = np.array([d.type for d in DISTRICTS], dtype=np.int8)
COST_LIST = COST.tolist()
POINTS_LIST = POINTS.tolist()
TYPE_LIST = TYPE_OF.tolist()


@dataclass(frozen=True)
class Character:
    rank: int
    name: str
    income_type: int | None


# 2.3: ranks 1..8, each character keyed by its rank (CHARACTERS[rank]), in rank order.
CHARACTERS: dict[int, Character] = {
    c.rank: c
    for c in (
        Character(1, "Assassin", None),
        Character(2, "Thief", None),
        Character(3, "Magician", None),
        Character(4, "King", NOBLE),
        Character(5, "Bishop", RELIGIOUS),
        Character(6, "Merchant", TRADE),
        Character(7, "Architect", None),
        Character(8, "Warlord", MILITARY),
    )
}
NUM_CHARACTERS = 8
RANKS = tuple(range(1, NUM_CHARACTERS + 1))
ASSASSIN, THIEF, MAGICIAN, KING, BISHOP, MERCHANT, ARCHITECT, WARLORD = RANKS
INCOME_TYPE = {c.rank: c.income_type for c in CHARACTERS.values() if c.income_type is not None}

# Character-specific amounts (§5).
MERCHANT_BONUS_GOLD = 1
ARCHITECT_BONUS_CARDS = 2
ARCHITECT_BUILD_LIMIT = 3
BUILD_LIMIT = 1
LABORATORY_GOLD = 2
SMITHY_PRICE = 2
SMITHY_CARDS = 3
GRAVEYARD_PRICE = 1
GREAT_WALL_SURCHARGE = 1
GATHER_GOLD_AMOUNT = 2
DRAW_COUNT = 2
OBSERVATORY_DRAW_COUNT = 3

# Setup and per-count table (§3).
PLAYER_COUNTS = (2, 3, 4, 5, 6, 7)
STARTING_GOLD = 2
STARTING_HAND = 4
FACE_UP_DISCARDS = {2: 0, 3: 0, 4: 2, 5: 1, 6: 0, 7: 0}
CHARACTERS_PER_SEAT = {2: 2, 3: 2, 4: 1, 5: 1, 6: 1, 7: 1}
COMPLETION_SIZE = 7
LONG_COMPLETION_SIZE = 8  # 2-3 players always; 4-7 players with classic_variant

# Scoring bonuses (6.2).
FIVE_TYPES_BONUS = 3
FIRST_COMPLETE_BONUS = 4
COMPLETE_BONUS = 2

# The same, in two short lines for the board's character row.
CHARACTER_SHORT = {
    ASSASSIN: ("names a victim:", "it loses its turn"),
    THIEF: ("names a target:", "takes its gold"),
    MAGICIAN: ("swaps hands, or", "redraws cards"),
    KING: ("takes the crown;", "+1 per noble"),
    BISHOP: ("Warlord-proof;", "+1 per religious"),
    MERCHANT: (f"+{MERCHANT_BONUS_GOLD} gold;", "+1 per trade"),
    ARCHITECT: (f"+{ARCHITECT_BONUS_CARDS} cards;", f"builds up to {ARCHITECT_BUILD_LIMIT}"),
    WARLORD: ("may destroy;", "+1 per military"),
}

# What each character does, in words for a person (the web app's tooltips and legend; §5).
CHARACTER_TEXT = {
    ASSASSIN: "names a character, which then misses its whole turn",
    THIEF: "names a character (not the Assassin or the killed one); when it is called, its gold goes to the Thief",
    MAGICIAN: "swaps the whole hand with another player, or puts any cards under the deck and draws as many",
    KING: "takes the crown (first pick next round); +1 gold per noble district",
    BISHOP: "the Warlord cannot destroy this player's districts this round; +1 gold per religious district",
    MERCHANT: f"+{MERCHANT_BONUS_GOLD} gold; +1 gold per trade district",
    ARCHITECT: f"draws {ARCHITECT_BONUS_CARDS} more cards; may build up to {ARCHITECT_BUILD_LIMIT} districts",
    WARLORD: "+1 gold per military district; may destroy a district of an incomplete city for its cost minus 1",
}
