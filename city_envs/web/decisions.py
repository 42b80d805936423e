"""Each decision a seat can face, in words for the page's banner and choice headings, as each game
words it (`Game.decision_words`, from its package's `present.py`): the games name their decisions for
code (`Game.decision_name()`: "NBHD", "EXCHANGE_SELECT"), which a person cannot read."""

from __future__ import annotations

from city_envs.core.game import Game
from city_envs.core.registry import GAMES, game_class

# every game's decisions in words, by decision id (`Game.decision_texts`)
DECISION_WORDS: dict[str, dict[int, str]] = {name: game_class(name, "python").decision_texts() for name in GAMES}


def decision_words(game: Game) -> str:
    """The pending decision of `game` in words (its code name, made readable, for one not listed)."""
    return game.decision_words()
