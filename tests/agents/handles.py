"""Agent-test helpers: an information-set stand-in that holds nothing but the view, the seat's State
(where the game offers one) and the legal ids, and tables of heuristics (mixed with randoms, or alone)
to play them on."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

import numpy as np

from city_envs import make_game
from city_envs.agents.base import Agent, play_game
from city_envs.agents.random_agent import RandomAgent
from city_envs.core.game import Game
from city_envs.core.infoset import InfoSet


class SeatOnly:
    """Exposes nothing but what the brief allows an agent to use: the view, the seat's State (a copy of
    what the view says: tests/big_city/test_seat_state.py) and the legal ids."""

    __slots__ = ("_view", "_seat_state", "_legal", "player", "num_players")

    def __init__(self, info_set: InfoSet) -> None:
        self._view = info_set.view()
        try:
            self._seat_state: Any = info_set.seat_state()
        except NotImplementedError:
            self._seat_state = None
        self._legal = info_set.legal_actions().copy()
        self.player = info_set.player
        self.num_players = info_set.num_players

    def view(self) -> dict:
        return self._view

    def seat_state(self) -> Any:
        if self._seat_state is None:
            raise NotImplementedError("this game offers no seat state")
        return self._seat_state

    def legal_actions(self) -> np.ndarray:
        return self._legal

    def legal_action_ids(self) -> list[int]:
        return np.flatnonzero(self._legal).tolist()

    def heuristic_action(self, rng: np.random.Generator) -> None:
        """No native pick (the engine would read the match): a heuristic decides in Python from the above."""
        return None


def mixed_games(
    heuristic: Callable[[int], Agent], name: str, n: int, seeds: Iterable[int], **options: Any
) -> Iterator[tuple[Game, int]]:
    """Yield (game, seat) at every decision of games where heuristics and randoms share the table."""
    for seed in seeds:
        game = make_game(name, n, seed=seed, **options)
        agents = [heuristic(seed * 10 + s) if (s + seed) % 2 else RandomAgent(seed * 10 + s) for s in range(n)]
        while not game.is_over():
            seat = game.current_player()
            yield game, seat
            game.apply(agents[seat].act(InfoSet(game, seat)))


def heuristic_self_play(
    heuristic: Callable[[int], Agent], name: str, n: int, seed: int, first_agent_seed: int, **options: Any
) -> Game:
    """A finished game of `n` heuristics seeded `first_agent_seed`, `first_agent_seed + 1`, ..."""
    return play_game(make_game(name, n, seed=seed, **options), [heuristic(first_agent_seed + s) for s in range(n)])
