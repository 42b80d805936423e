"""The agent contract and a plain match loop used by the CLI, the benchmarks and the tests."""

from __future__ import annotations

import abc
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Protocol, TypeVar

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


Choice = TypeVar("Choice")

TIE_TOLERANCE = 1e-9  # scores closer than this to the best count as tied (float sums differ in the last bits)


class HeuristicAgent(abc.ABC):
    """What the per-game rule-of-thumb agents share: a seeded generator that breaks ties, and no
    thinking (and no draw from the generator) when only one action is legal. On a native match whose
    game has its heuristic in C++ (`native=True`, the default), the pick is computed there: the same
    pick, with the same draws from the generator."""

    def __init__(self, seed: int | np.random.Generator | None = None, native: bool = True) -> None:
        self.rng = make_rng(seed)
        self.native = native

    def act(self, info_set: InfoSet) -> int:
        legal = info_set.legal_action_ids()
        if not legal:
            raise ValueError(f"seat {info_set.player} has no decision to make now")
        if len(legal) == 1:
            return legal[0]
        if self.native:  # the same pick computed by the native engine, where it has this heuristic
            action = info_set.heuristic_action(self.rng)
            if action is not None:
                return action
        return self._choose(info_set, legal)

    @abc.abstractmethod
    def _choose(self, info_set: InfoSet, legal: list[int]) -> int:
        """The game's own pick among two or more legal action ids."""

    def _best(self, options: Iterable[Choice], score: Callable[[Choice], float]) -> Choice:
        """The option with the highest score; ties broken by the agent's generator."""
        options = list(options)
        values = [score(o) for o in options]
        top = max(values)
        tied = [o for o, x in zip(options, values, strict=True) if x >= top - TIE_TOLERANCE]
        return tied[int(self.rng.integers(len(tied)))] if len(tied) > 1 else tied[0]

    def _best_index(self, scores: np.ndarray) -> int:
        """`_best` over options scored at once: the index of the highest score, ties broken alike."""
        tied = np.flatnonzero(scores >= scores.max() - TIE_TOLERANCE)
        return int(tied[int(self.rng.integers(len(tied)))]) if len(tied) > 1 else int(tied[0])
