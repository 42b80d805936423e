"""Randomized full Big City games: invariants after every step, for every player count.

60 games per count (the first two already reach every decision kind): the default run plays 2 and 5
players, the slow job 3 and 4 too and 1,000 more per count. Random play ends most games by passes.
"""

from __future__ import annotations

import numpy as np
import pytest

from city_envs.big_city.game import BigCity

from ..game_helpers import end_counts_first, play_out
from .helpers import COUNTS, check_state

ALL_DECISIONS = {
    "SETUP_TILE",
    "TILE_ROTATION",
    "TILE_EDGE",
    "TILE_CELL",
    "DEAD_DISCARD",
    "MAIN",
    "BUILD_SELECT",
    "PIECE_SELECT",
    "TRAM_EDGE",
    "TRAM_EDGE_OPT",
    "EXCHANGE_SELECT",
    "DRAW",
    "GAME_OVER",
}


def run_games(n: int, seeds) -> set[str]:
    decisions = set()
    for seed in seeds:
        game = BigCity(n, seed=seed)
        check_state(game)

        def check(g: BigCity) -> None:
            check_state(g)
            decisions.add(g.decision_name())

        play_out(game, np.random.default_rng(seed + 7), check)
        assert game.is_over() and not game.is_truncated()
    return decisions


@pytest.mark.parametrize("n", end_counts_first(COUNTS))
def test_random_games_keep_every_invariant(n):
    assert run_games(n, range(60)) == ALL_DECISIONS


@pytest.mark.slow
@pytest.mark.parametrize("n", COUNTS)
def test_many_random_games_keep_every_invariant(n):
    run_games(n, range(1000, 2000))
