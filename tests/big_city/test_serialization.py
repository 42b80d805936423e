"""Big City round trips beyond what every game does alike (tests/test_every_game.py)."""

from __future__ import annotations

from ..game_helpers import assert_same_game, json_round_trip
from .helpers import mid_game_states


def test_round_trip_in_every_decision_kind():
    seen = set()
    for game in mid_game_states(4, range(40), per_game=6):
        name = game.decision_name()
        if name in seen:
            continue
        seen.add(name)
        assert_same_game(game, json_round_trip(game))
    assert {"MAIN", "DRAW", "BUILD_SELECT", "TILE_EDGE", "TRAM_EDGE"} <= seen
