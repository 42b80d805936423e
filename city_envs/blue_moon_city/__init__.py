"""Blue Moon City, 2-4 players."""

from city_envs.blue_moon_city.game import BlueMoonCity

__all__ = ["BlueMoonCity"]
