"""What only the Big City heuristic does: its self-play games build a city (what every game's heuristic
does alike is in tests/agents/test_every_heuristic.py)."""

from __future__ import annotations

import pytest

from city_envs.agents.big_city_heuristic import BigCityHeuristicAgent

from .handles import heuristic_self_play


@pytest.mark.parametrize("n", [2, 5])
def test_self_play_builds_the_city_and_ends(n):
    for seed in range(2):
        game = heuristic_self_play(BigCityHeuristicAgent, "big_city", n, seed, seed * 5)
        s = game.state
        assert not game.is_truncated() and s.occupant[4] >= 0 and s.trams
        assert sum(t is not None for t in s.tiles) >= 7 and max(s.scores) >= 40
