"""What only the Citadels heuristic does: it meets the rare decisions, and its games end before the
round cap (what every game's heuristic does alike is in tests/agents/test_every_heuristic.py)."""

from __future__ import annotations

import pytest

from city_envs.agents.citadels_heuristic import CitadelsHeuristicAgent
from city_envs.core.infoset import InfoSet

from .handles import heuristic_self_play, mixed_games

DECISIONS = {"SELECT_CHARACTER", "MAIN", "KEEP_DRAWN", "MAGICIAN_DISCARD", "GRAVEYARD"}


def test_rare_decisions_are_covered():
    """Magician discards and Graveyard choices happen somewhere in these games, and stay legal."""
    probe = CitadelsHeuristicAgent(2)
    seen = set()
    for n in (3, 4, 6):
        for game, seat in mixed_games(CitadelsHeuristicAgent, "citadels", n, range(100, 110)):
            action = probe.act(InfoSet(game, seat))
            assert game.legal_actions()[action]
            seen.add(game.decision_name())
    assert seen >= DECISIONS


@pytest.mark.parametrize("n", range(2, 8))
def test_games_end_without_truncation(n):
    """Section 6.4: heuristic play never reaches the round cap."""
    for seed in range(3):
        game = heuristic_self_play(CitadelsHeuristicAgent, "citadels", n, seed, seed * 7)
        assert not game.is_truncated() and game.state.round < 30
