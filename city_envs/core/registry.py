"""Name → game class registry: each game of `catalog` on the engine asked for, as a match or an environment."""

from __future__ import annotations

from typing import Any

from city_envs.core.catalog import GAMES, python_class
from city_envs.core.game import Game
from city_envs.core.native import select_engine


def game_class(name: str, engine: str | None = None) -> type[Game]:
    """The class of `name`'s matches on `engine` ("native", "python"; None: see `select_engine`)."""
    return select_engine(python_class(name), engine)


def make_game(name: str, num_players: int, seed: int | None = None, engine: str | None = None, **options: Any) -> Game:
    """A new match of `name`, set up and ready for its first decision, on `engine` (see `select_engine`)."""
    return game_class(name, engine)(num_players, seed=seed, **options)


def make_env(name: str, num_players: int, render_mode: str | None = None, **options: Any):
    """The wrapped PettingZoo AEC environment of `name` (same as `city_envs.<name>_v0.env`)."""
    from city_envs.core.aec import wrapped_env

    return wrapped_env(game_class(name), num_players, render_mode=render_mode, **options)


def make_raw_env(name: str, num_players: int, render_mode: str | None = None, **options: Any):
    from city_envs.core.aec import CityAECEnv

    return CityAECEnv(game_class(name), num_players, render_mode=render_mode, **options)


def register_with_pettingzoo() -> None:
    """Add every game to PettingZoo's own registry (PettingZoo >= 1.27) as `city_envs/<name>_v0`."""
    try:
        from pettingzoo import aec_registry, register
    except ImportError:  # older PettingZoo: no registry to join
        return
    from city_envs.core.aec import ENV_VERSION

    for name in GAMES:
        env_id = f"city_envs/{name}_v{ENV_VERSION}"
        if env_id.replace("_v", "-v") not in aec_registry:  # PettingZoo stores ids as name-vN
            register("aec", env_id, entry_point=f"city_envs.{name}_v{ENV_VERSION}:env")
