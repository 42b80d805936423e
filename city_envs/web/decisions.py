"""Each decision a seat can face, in words for the page's banner and choice headings: the games name
their decisions for code (`Game.decision_name()`: "NBHD", "EXCHANGE_SELECT"), which a person cannot read."""

from __future__ import annotations

from city_envs.core.game import Game

DECISION_WORDS: dict[str, dict[str, str]] = {
    "citadels": {
        "SELECT_CHARACTER": "choose a character",
        "SELECT_DISCARD": "discard a character face down",
        "MAIN": "take your turn",
        "KEEP_DRAWN": "keep one of the cards drawn",
        "MAGICIAN_DISCARD": "choose the cards to exchange (Magician)",
        "GRAVEYARD": "take the destroyed district into your hand? (Graveyard)",
    },
    "metropolys": {
        "NBHD": "choose a neighbourhood to bid on",
        "VALUE": "choose the building of your bid",
    },
    "blue_moon_city": {
        "MOVE": "move a dragon or your figure",
        "BUILD": "choose a section to build",
        "PAY": "pay for the section",
        "OFFER": "make an offering at the obelisk?",
        "DISCARD": "discard cards, then end the turn",
    },
    "big_city": {
        "SETUP_TILE": "choose a neighbourhood tile",
        "TILE_ROTATION": "turn the new neighbourhood",
        "TILE_EDGE": "choose where the new neighbourhood joins the city",
        "TILE_CELL": "choose which plot of it touches the city",
        "DEAD_DISCARD": "discard dead cards",
        "MAIN": "take your turn",
        "BUILD_SELECT": "choose a plot to build on",
        "PIECE_SELECT": "choose the building",
        "TRAM_EDGE": "lay a tram segment",
        "TRAM_EDGE_OPT": "lay a second tram segment?",
        "EXCHANGE_SELECT": "choose the cards to exchange",
        "DRAW": "draw from a pile",
    },
    "urban_sprawl": {
        "INVEST": "invest permits for wealth, or end the investments",
        "MAIN": "spend your action points",
        "PAY_PERMIT": "pay permits for the building",
        "PLACE": "place the building on a block",
        "VOC_SOURCE": "choose the player whose building pays the vocation",
        "VOC_PAYOUT": "take the vocation's payout in wealth or prestige",
        "MARKER_PLACE": "place a marker on a grey circle",
        "MARKER_MOVE_SRC": "choose a marker to move",
        "MARKER_MOVE_DST": "choose the marker's new grey circle",
        "PARK_LOT": "choose a lot for the park",
        "TRIBUTE_PAY": "pay the tribute in wealth or prestige",
        "ELECTION_TIE": "break the tie of the election",
        "MAYOR_PARK": "place the Mayor's park",
        "AUCTION": "buy at the auction?",
        "PICK_BUILDING": "choose a building",
        "DISASTER_CHOICE": "pay to keep your building, or let it be demolished",
        "BLIGHT_CHOICE": "pay prestige to keep your building, or let it go",
        "START_BUY": "buy a starting building",
        "MEDIA_TIE": "break the tie for the media",
    },
}


def decision_words(game: Game) -> str:
    """The pending decision of `game` in words (its code name, made readable, for one not listed)."""
    name = game.decision_name()
    return DECISION_WORDS.get(game.name, {}).get(name, name.replace("_", " ").lower())
