"""Urban Sprawl round trips beyond what every game does alike (tests/test_every_game.py)."""

from __future__ import annotations

import pytest

from ..game_helpers import assert_same_game, json_round_trip
from .us_testlib import mid_game_states


def test_round_trip_inside_a_procedure():
    """A decision owned by another seat in the middle of the end of turn keeps its pending tasks."""
    for game in mid_game_states(4, range(40), per_game=8):
        if game.state.tasks and game.current_player() != game.state.active:
            loaded = json_round_trip(game)
            assert_same_game(game, loaded)
            assert loaded.state.tasks == game.state.tasks
            return
    pytest.fail("no interrupted procedure found")
