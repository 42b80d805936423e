"""Random play shared by the tests of every game (Citadels keeps its own faster sampler)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, TypeVar

import numpy as np

from city_envs.core.game import Game

G = TypeVar("G", bound=Game)


def legal(game: Game) -> set[int]:
    return set(np.flatnonzero(game.legal_actions()).tolist())


def random_action(game: Game, rng: np.random.Generator) -> int:
    return int(rng.choice(np.flatnonzero(game.legal_actions())))


def play_out(game: G, rng: np.random.Generator, check: Callable[[G], Any] | None = None) -> G:
    """Random legal play to the end, calling `check` after every step."""
    while not game.is_over():
        game.apply(random_action(game, rng))
        if check is not None:
            check(game)
    return game


def mid_game_states(game_cls: type[G], n: int, seeds: Iterable[int], per_game: int, horizon: int,
                    **options: Any) -> list[G]:
    """Clones taken at `per_game` random steps below `horizon` of one random game per seed."""
    found = []
    for seed in seeds:
        rng = np.random.default_rng(seed)
        game = game_cls(n, seed=seed, **options)
        stops = set(rng.integers(1, horizon, size=per_game).tolist())
        step = 0
        while not game.is_over() and step <= max(stops):
            if step in stops:
                found.append(game.clone())
            game.apply(random_action(game, rng))
            step += 1
    return found
