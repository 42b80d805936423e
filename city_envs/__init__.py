"""city-envs: PettingZoo environments for city-building board games."""

import os

# An editable install (scikit-build-core's redirect finder) lists the repository's root among this
# package's search locations, because it maps agents/ and training/ in from there; keep only the
# package's own folders, so that nothing else at the root (tests/, native/) imports as city_envs.<name>.
__path__ = [entry for entry in __path__ if os.path.basename(entry) == "city_envs"]

from city_envs.core import GAMES, Game, IllegalActionError, InfoSet, game_class, make_env, make_game
from city_envs.core.registry import register_with_pettingzoo
from city_envs.single_agent import SingleAgentEnv

__version__ = "0.1.0"
__all__ = ["GAMES", "Game", "IllegalActionError", "InfoSet", "SingleAgentEnv", "game_class", "make_env", "make_game"]

register_with_pettingzoo()
