"""Agents by name, as the command line and the arena spell them ("random", "heuristic")."""

from __future__ import annotations

import importlib

import numpy as np

from agents.base import Agent
from agents.random_agent import RandomAgent

# game name -> "module:Class" of its HeuristicAgent
HEURISTICS: dict[str, str] = {
    "citadels": "agents.citadels_heuristic:CitadelsHeuristicAgent",
    "metropolys": "agents.metropolys_heuristic:MetropolysHeuristicAgent",
    "blue_moon_city": "agents.blue_moon_city_heuristic:BlueMoonCityHeuristicAgent",
}
AGENT_KINDS = ("random", "heuristic")


def heuristic_class(game_name: str) -> type:
    if game_name not in HEURISTICS:
        raise ValueError(f"no heuristic agent for {game_name!r}; games with one: {', '.join(HEURISTICS)}")
    module_name, class_name = HEURISTICS[game_name].split(":")
    return getattr(importlib.import_module(module_name), class_name)


def make_agent(kind: str, game_name: str, seed: int | np.random.Generator | None = None) -> Agent:
    """A fresh agent of `kind` for `game_name`."""
    if kind == "random":
        return RandomAgent(seed)
    if kind == "heuristic":
        return heuristic_class(game_name)(seed)
    raise ValueError(f"unknown agent {kind!r}; allowed: {', '.join(AGENT_KINDS)}")
