"""What only the Urban Sprawl heuristic does: its self-play games reach the Olympic Games (what every
game's heuristic does alike is in tests/agents/test_every_heuristic.py)."""

from __future__ import annotations

from city_envs.agents.urban_sprawl_heuristic import UrbanSprawlHeuristicAgent

from .handles import heuristic_self_play


def test_self_play_reaches_the_olympic_games():
    for seed, variant in enumerate(("standard", "long", "short")):
        game = heuristic_self_play(UrbanSprawlHeuristicAgent, "urban_sprawl", 4, seed, seed * 4, variant=variant)
        assert not game.is_truncated() and 10 in game.state.events_done
