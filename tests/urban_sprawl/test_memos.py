"""What a match keeps between steps to answer fast (the observation frame and its patches, the lot planes and
their partial refills, the placements memo, the mask kept from playing a single choice) always gives what a
fresh copy of the state, which keeps nothing, computes from scratch."""

from __future__ import annotations

import numpy as np
import pytest

from city_envs.urban_sprawl import rules, view
from city_envs.urban_sprawl.game import UrbanSprawl

from .helpers import COUNTS


def fresh_answers(game: UrbanSprawl) -> tuple[list[np.ndarray], np.ndarray]:
    """Every seat's observation and the legal mask, from a copy of the state without any memo."""
    variant = game.options["variant"]
    observations = [view.observation(view.copy_state(game.state), p, variant) for p in range(game.num_players)]
    return observations, rules.legal_actions(view.copy_state(game.state))


@pytest.mark.parametrize("n", COUNTS)
@pytest.mark.parametrize("seed", [0, 1])
def test_kept_answers_equal_fresh_ones_at_every_step(n, seed):
    """Observed at random steps (so a patch may cover several steps' changes), by every seat."""
    rng = np.random.default_rng(seed)
    game = UrbanSprawl(n, seed=seed, variant=view.VARIANTS[seed % 3], max_turns=60 if seed else 1000)
    steps = 0
    while not game.is_over():
        if rng.random() < 0.5:
            observations, mask = fresh_answers(game)
            for p in range(n):
                assert np.array_equal(game.observation(p).view(np.uint32), observations[p].view(np.uint32))
            assert np.array_equal(game.legal_actions(), mask)
        legal = np.flatnonzero(game.legal_actions())
        game.apply(int(legal[rng.integers(len(legal))]))
        steps += 1
    assert steps > 200
