"""Big City, 2-5 players."""

from city_envs.big_city.game import BigCity

__all__ = ["BigCity"]
