"""Urban Sprawl round trips beyond what every game does alike (tests/test_every_game.py)."""

from __future__ import annotations

import re

import pytest

from city_envs.core.validation import InvalidStateError
from city_envs.urban_sprawl.game import UrbanSprawl

from ..game_helpers import assert_same_game, json_round_trip
from .helpers import mid_game_states


def test_round_trip_inside_a_procedure():
    """A decision owned by another seat in the middle of the end of turn keeps its pending tasks."""
    for game in mid_game_states(4, range(40), per_game=8):
        if game.state.tasks and game.current_player() != game.state.active:
            loaded = json_round_trip(game)
            assert_same_game(game, loaded)
            assert loaded.state.tasks == game.state.tasks
            return
    pytest.fail("no interrupted procedure found")


def _pending(decision: str):
    for game in mid_game_states(3, range(60), per_game=20):
        if game.decision_name() == decision:
            return game
    pytest.fail(f"no {decision} decision found")


@pytest.mark.parametrize(
    ("decision", "ctx", "field"),
    [
        ("INVEST", {"voc": 1}, "ctx"),
        ("MARKER_PLACE", {}, "ctx"),
        ("MARKER_PLACE", {"marker": 3}, "ctx['marker']"),
        ("MARKER_PLACE", {"marker": "7"}, "ctx['marker']"),
        ("MARKER_PLACE", {"marker": 7, "extra": 1}, "ctx"),
    ],
)
def test_from_dict_checks_the_pending_decisions_context(decision, ctx, field):
    """A saved match whose `ctx` the pending decision cannot read is refused on load, naming the field,
    not later in the rule that reads it."""
    data = _pending(decision).to_dict()
    data["state"]["ctx"] = ctx
    with pytest.raises(InvalidStateError, match=re.escape(field)):
        UrbanSprawl.from_dict(data)
