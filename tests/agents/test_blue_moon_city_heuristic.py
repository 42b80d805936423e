"""What only the Blue Moon City heuristic does: its self-play games end by offerings (what every game's
heuristic does alike is in tests/agents/test_every_heuristic.py)."""

from __future__ import annotations

from city_envs.agents.blue_moon_city_heuristic import BlueMoonCityHeuristicAgent

from .handles import heuristic_self_play


def test_self_play_ends_by_offerings():
    for seed in range(3):
        game = heuristic_self_play(BlueMoonCityHeuristicAgent, "blue_moon_city", 4, seed, seed * 4)
        assert not game.is_truncated() and max(game.state.offerings) == 4
