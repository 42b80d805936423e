"""Randomized full Blue Moon City games: invariants after every step, for every player count.

120 games per count (both centre layouts): the default run plays 2 and 4 players, the slow job 3 too
and 1,000 more per count.
Random play rarely offers, so many of these games end by the `max_rounds` valve; a smaller cap
keeps them short while still reaching every decision kind and building completions.
"""

from __future__ import annotations

import numpy as np
import pytest

from city_envs.blue_moon_city.game import BlueMoonCity

from ..game_helpers import end_counts_first, play_out
from .helpers import COUNTS, check_state


def run_games(n: int, seeds, max_rounds: int) -> set[str]:
    decisions = set()
    for seed in seeds:
        game = BlueMoonCity(n, seed=seed, center="random" if seed % 2 else "fixed", max_rounds=max_rounds)
        check_state(game)

        def check(g: BlueMoonCity) -> None:
            check_state(g)
            decisions.add(g.decision_name())

        play_out(game, np.random.default_rng(seed + 7), check)
        assert game.state.turns <= max_rounds * n
    return decisions


@pytest.mark.parametrize("n", end_counts_first(COUNTS))
def test_random_games_keep_every_invariant(n):
    decisions = run_games(n, range(120), max_rounds=8)
    assert decisions >= {"MOVE", "BUILD", "PAY", "DISCARD", "GAME_OVER"}


@pytest.mark.parametrize("n", end_counts_first(COUNTS))
def test_full_length_random_games_end(n):
    """Full games under the default cap reach the Courtyard offerings too."""
    decisions = run_games(n, range(500, 506), max_rounds=100)
    assert "OFFER" in decisions


@pytest.mark.slow
@pytest.mark.parametrize("n", COUNTS)
def test_many_full_random_games_keep_every_invariant(n):
    run_games(n, range(1000, 2000), max_rounds=100)
