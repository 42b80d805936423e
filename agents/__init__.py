"""Bots that play any city-envs game through its information-set handle."""

from city_envs.agents.base import Agent, play_game
from city_envs.agents.random_agent import RandomAgent
from city_envs.agents.registry import make_agent, make_opponents

__all__ = ["Agent", "RandomAgent", "make_agent", "make_opponents", "play_game"]
