"""Each game's heuristic agent, by game name: `heuristic_class("citadels")(seed)`."""

from __future__ import annotations

import importlib

# game name -> "module:Class" of its HeuristicAgent
HEURISTICS: dict[str, str] = {
    "citadels": "city_envs.agents.citadels_heuristic:CitadelsHeuristicAgent",
    "metropolys": "city_envs.agents.metropolys_heuristic:MetropolysHeuristicAgent",
    "blue_moon_city": "city_envs.agents.blue_moon_city_heuristic:BlueMoonCityHeuristicAgent",
    "big_city": "city_envs.agents.big_city_heuristic:BigCityHeuristicAgent",
    "urban_sprawl": "city_envs.agents.urban_sprawl_heuristic:UrbanSprawlHeuristicAgent",
}


def heuristic_class(game_name: str) -> type:
    """The heuristic agent class of `game_name`; ValueError for a game without one."""
    if game_name not in HEURISTICS:
        raise ValueError(f"no heuristic agent for {game_name!r}; games with one: {', '.join(HEURISTICS)}")
    module_name, class_name = HEURISTICS[game_name].split(":")
    return getattr(importlib.import_module(module_name), class_name)
