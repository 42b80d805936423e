"""Shared machinery: the Game API, the PettingZoo adapter, the registry, the agent handle."""

from city_envs.core.game import Game, IllegalActionError, Option
from city_envs.core.infoset import InfoSet
from city_envs.core.registry import GAMES, game_class, make_env, make_game
from city_envs.core.validation import InvalidStateError

__all__ = [
    "GAMES",
    "Game",
    "IllegalActionError",
    "InfoSet",
    "InvalidStateError",
    "Option",
    "game_class",
    "make_env",
    "make_game",
]
