"""city-envs: PettingZoo environments for city-building board games."""

from city_envs.core import GAMES, Game, IllegalActionError, InfoSet, game_class, make_env, make_game
from city_envs.core.registry import register_with_pettingzoo
from city_envs.single_agent import SingleAgentEnv

__version__ = "0.1.0"
__all__ = ["GAMES", "Game", "IllegalActionError", "InfoSet", "SingleAgentEnv", "game_class", "make_env", "make_game"]

register_with_pettingzoo()
