"""Randomized full Metropolys games: invariants after every step, for every count and version.

300 games per player count (150 per version, alternating layouts), 2 and 4 players in the default
run; the slow job plays 3 players too and 2,000 per count.
"""

from __future__ import annotations

import numpy as np
import pytest

from city_envs.metropolys.game import Metropolys

from ..game_helpers import end_counts_first, play_out
from .helpers import COUNTS, VERSIONS, check_state


def run_games(n: int, version: str, seeds) -> dict:
    decisions = set()
    for seed in seeds:
        layout = "first_game" if seed % 2 else "random"
        game = Metropolys(n, seed=seed, version=version, layout=layout)
        check_state(game)
        rng = np.random.default_rng(seed + 10_000)

        def check(g: Metropolys) -> None:
            check_state(g)
            decisions.add(g.decision_name())

        play_out(game, rng, check)
        calls = game.state.calls
        assert 13 <= calls <= n * 12 + 1  # one building per call; ends at someone's 13th
        assert len(game.history) >= 2 * calls  # every call has at least the opener's two decisions
    return {"decisions": decisions}


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("n", end_counts_first(COUNTS))
def test_random_games_keep_every_invariant(n, version):
    result = run_games(n, version, range(150))
    assert result["decisions"] == {"NBHD", "VALUE", "GAME_OVER"}


@pytest.mark.slow
@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("n", COUNTS)
def test_many_random_games_keep_every_invariant(n, version):
    run_games(n, version, range(1000, 2000))
