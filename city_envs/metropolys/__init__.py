"""Metropolys, family and expert versions, 2-4 players."""

from city_envs.metropolys.game import Metropolys

__all__ = ["Metropolys"]
