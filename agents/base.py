"""The agent contract and a plain match loop used by the CLI, the benchmarks and the tests."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np

from city_envs.core.game import Game
from city_envs.core.infoset import InfoSet


class Agent(Protocol):
    """Anything with `act(info_set) -> action id`. It sees only its own seat's information."""

    def act(self, info_set: InfoSet) -> int: ...


def play_game(game: Game, agents: Sequence[Agent], max_decisions: int = 1_000_000) -> Game:
    """Let `agents[seat]` decide for each seat until the match ends; returns the finished game."""
    if len(agents) != game.num_players:
        raise ValueError(f"{len(agents)} agents for a {game.num_players}-player game")
    handles = [InfoSet(game, seat) for seat in range(game.num_players)]
    for _ in range(max_decisions):
        if game.is_over():
            return game
        seat = game.current_player()
        game.apply(agents[seat].act(handles[seat]))
    raise RuntimeError(f"{game.name} did not end within {max_decisions} decisions")


def make_rng(seed: Any = None) -> np.random.Generator:
    return seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
