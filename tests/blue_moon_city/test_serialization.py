"""Blue Moon City round trips beyond what every game does alike (tests/test_every_game.py)."""

from __future__ import annotations

import pytest

from ..game_helpers import assert_same_game, json_round_trip
from .helpers import COUNTS, mid_game_states


@pytest.mark.parametrize("n", COUNTS)
def test_every_count_reaches_a_payment(n):
    assert "PAY" in {g.decision_name() for g in mid_game_states(n, range(10), per_game=8)}


def test_round_trip_during_a_payment():
    for game in mid_game_states(3, range(40), per_game=8):
        if game.decision_name() == "PAY":
            loaded = json_round_trip(game)
            assert_same_game(game, loaded)
            assert loaded.state.payment == game.state.payment and loaded.state.payment is not game.state.payment
            return
    pytest.fail("no PAY decision found")
