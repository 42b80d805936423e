"""PettingZoo entry module for Urban Sprawl: `env()` (wrapped) and `raw_env()` (bare)."""

from __future__ import annotations

from typing import Any

from city_envs.core.aec import CityAECEnv, wrapped_env
from city_envs.urban_sprawl.game import UrbanSprawl


def env(num_players: int = 4, render_mode: str | None = None, **options: Any):
    return wrapped_env(UrbanSprawl, num_players, render_mode=render_mode, **options)


def raw_env(num_players: int = 4, render_mode: str | None = None, **options: Any) -> CityAECEnv:
    return CityAECEnv(UrbanSprawl, num_players, render_mode=render_mode, **options)
