"""Each decision a seat can face, in words for the page's banner and choice headings: the games name
their decisions for code (`Game.decision_name()`: "NBHD", "EXCHANGE_SELECT"), which a person cannot read."""

from __future__ import annotations

from city_envs.big_city.rules import Decision as BigCity
from city_envs.blue_moon_city.rules import Decision as BlueMoonCity
from city_envs.citadels.rules import Decision as Citadels
from city_envs.core.decisions import DecisionTable
from city_envs.core.game import Game
from city_envs.metropolys.rules import Decision as Metropolys
from city_envs.urban_sprawl.rules import Decision as UrbanSprawl

# Keyed by each game's `Decision` ids, named, so a renamed or removed decision fails at import.
DECISION_WORDS: dict[str, dict[int, str]] = {
    "citadels": {
        Citadels.SELECT_CHARACTER: "choose a character",
        Citadels.SELECT_DISCARD: "discard a character face down",
        Citadels.MAIN: "take your turn",
        Citadels.KEEP_DRAWN: "keep one of the cards drawn",
        Citadels.MAGICIAN_DISCARD: "choose the cards to exchange (Magician)",
        Citadels.GRAVEYARD: "take the destroyed district into your hand? (Graveyard)",
    },
    "metropolys": {
        Metropolys.NBHD: "choose a neighbourhood to bid on",
        Metropolys.VALUE: "choose the building of your bid",
    },
    "blue_moon_city": {
        BlueMoonCity.MOVE: "move a dragon or your figure",
        BlueMoonCity.BUILD: "choose a section to build",
        BlueMoonCity.PAY: "pay for the section",
        BlueMoonCity.OFFER: "make an offering at the obelisk?",
        BlueMoonCity.DISCARD: "discard cards, then end the turn",
    },
    "big_city": {
        BigCity.SETUP_TILE: "choose a neighbourhood tile",
        BigCity.TILE_ROTATION: "turn the new neighbourhood",
        BigCity.TILE_EDGE: "choose where the new neighbourhood joins the city",
        BigCity.TILE_CELL: "choose which plot of it touches the city",
        BigCity.DEAD_DISCARD: "discard dead cards",
        BigCity.MAIN: "take your turn",
        BigCity.BUILD_SELECT: "choose a plot to build on",
        BigCity.PIECE_SELECT: "choose the building",
        BigCity.TRAM_EDGE: "lay a tram segment",
        BigCity.TRAM_EDGE_OPT: "lay a second tram segment?",
        BigCity.EXCHANGE_SELECT: "choose the cards to exchange",
        BigCity.DRAW: "draw from a pile",
    },
    "urban_sprawl": {
        UrbanSprawl.INVEST: "invest permits for wealth, or end the investments",
        UrbanSprawl.MAIN: "spend your action points",
        UrbanSprawl.PAY_PERMIT: "pay permits for the building",
        UrbanSprawl.PLACE: "place the building on a block",
        UrbanSprawl.VOC_SOURCE: "choose the player whose building pays the vocation",
        UrbanSprawl.VOC_PAYOUT: "take the vocation's payout in wealth or prestige",
        UrbanSprawl.MARKER_PLACE: "place a marker on a grey circle",
        UrbanSprawl.MARKER_MOVE_SRC: "choose a marker to move",
        UrbanSprawl.MARKER_MOVE_DST: "choose the marker's new grey circle",
        UrbanSprawl.PARK_LOT: "choose a lot for the park",
        UrbanSprawl.TRIBUTE_PAY: "pay the tribute in wealth or prestige",
        UrbanSprawl.ELECTION_TIE: "break the tie of the election",
        UrbanSprawl.MAYOR_PARK: "place the Mayor's park",
        UrbanSprawl.AUCTION: "buy at the auction?",
        UrbanSprawl.PICK_BUILDING: "choose a building",
        UrbanSprawl.DISASTER_CHOICE: "pay to keep your building, or let it be demolished",
        UrbanSprawl.BLIGHT_CHOICE: "pay prestige to keep your building, or let it go",
        UrbanSprawl.START_BUY: "buy a starting building",
        UrbanSprawl.MEDIA_TIE: "break the tie for the media",
    },
}

DECISION_TABLES: dict[str, type[DecisionTable]] = {
    "citadels": Citadels,
    "metropolys": Metropolys,
    "blue_moon_city": BlueMoonCity,
    "big_city": BigCity,
    "urban_sprawl": UrbanSprawl,
}
# what `decision_words` reads: a game reports its pending decision by name
WORDS_BY_NAME = {
    game: {DECISION_TABLES[game].names[decision]: text for decision, text in words.items()}
    for game, words in DECISION_WORDS.items()
}


def decision_words(game: Game) -> str:
    """The pending decision of `game` in words (its code name, made readable, for one not listed)."""
    name = game.decision_name()
    return WORDS_BY_NAME.get(game.name, {}).get(name, name.replace("_", " ").lower())
