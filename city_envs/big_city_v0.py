"""PettingZoo entry module for Big City: `env()` (wrapped) and `raw_env()` (bare)."""

from __future__ import annotations

from typing import Any

from city_envs.big_city.game import BigCity
from city_envs.core.aec import CityAECEnv, wrapped_env


def env(num_players: int = 4, render_mode: str | None = None, **options: Any):
    return wrapped_env(BigCity, num_players, render_mode=render_mode, **options)


def raw_env(num_players: int = 4, render_mode: str | None = None, **options: Any) -> CityAECEnv:
    return CityAECEnv(BigCity, num_players, render_mode=render_mode, **options)
