"""Blue Moon City's native engine under the options the shared parity test leaves at their defaults:
a random centre and a round cap that truncates the match."""

from __future__ import annotations

import numpy as np
import pytest

from tests.native.parity import difference, native_games, pair, play_pair

pytestmark = pytest.mark.skipif("blue_moon_city" not in native_games(), reason="the native engine is not built")


@pytest.mark.parametrize("num_players", [2, 3, 4])
@pytest.mark.parametrize(("center", "max_rounds"), [("random", 100), ("fixed", 3), ("random", 5)])
def test_options_play_the_same_match(num_players, center, max_rounds):
    seats = ["random", "heuristic", "random", "heuristic"][:num_players]
    outcome = play_pair("blue_moon_city", num_players, 11, seats, center=center, max_rounds=max_rounds)
    assert outcome.difference is None, outcome.difference


def test_a_round_cap_truncates_alike():
    python, native = pair("blue_moon_city", 3, 2, center="random", max_rounds=2)
    rng = np.random.default_rng(2)
    while not python.is_over():
        action = int(rng.choice(np.flatnonzero(python.legal_actions())))
        python.apply(action)
        native.apply(action)
        assert difference(python, native) is None
    assert native.is_truncated() and python.is_truncated()


def test_determinize_with_a_random_centre():
    python, native = pair("blue_moon_city", 4, 8, center="random", max_rounds=50)
    rng = np.random.default_rng(8)
    for step in range(400):
        if python.is_over():
            break
        if step % 40 == 0:
            for seat in range(4):
                mine, theirs = np.random.default_rng(step + seat), np.random.default_rng(step + seat)
                assert difference(python.determinize(seat, mine), native.determinize(seat, theirs)) is None
                assert mine.bit_generator.state == theirs.bit_generator.state
        action = int(rng.choice(np.flatnonzero(python.legal_actions())))
        python.apply(action)
        native.apply(action)
