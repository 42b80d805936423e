"""The shipped games by name and where each one's Python engine class lives: a game joins the project
with its package, an entry module and one line here. Classes are imported on first use, so
`import city_envs` stays cheap; `registry` picks each game's engine on top of this table."""

from __future__ import annotations

import importlib

from city_envs.core.game import Game

# name -> "module:Class" of the Python engine
GAME_CLASSES: dict[str, str] = {
    "citadels": "city_envs.citadels.game:Citadels",
    "metropolys": "city_envs.metropolys.game:Metropolys",
    "blue_moon_city": "city_envs.blue_moon_city.game:BlueMoonCity",
    "big_city": "city_envs.big_city.game:BigCity",
    "urban_sprawl": "city_envs.urban_sprawl.game:UrbanSprawl",
}
GAMES: tuple[str, ...] = tuple(GAME_CLASSES)


def python_class(name: str) -> type[Game]:
    """The Python engine's class of the game `name`; ValueError for an unknown game."""
    if name not in GAME_CLASSES:
        raise ValueError(f"unknown game {name!r}; known games: {', '.join(GAMES)}")
    module_name, class_name = GAME_CLASSES[name].split(":")
    return getattr(importlib.import_module(module_name), class_name)
