"""Citadels (Classic edition), 2-7 players."""

from city_envs.citadels.game import Citadels

__all__ = ["Citadels"]
