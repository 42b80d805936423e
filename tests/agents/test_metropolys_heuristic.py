"""What only the Metropolys heuristic does: it remembers what it derived from a board across its
decisions (what every game's heuristic does alike is in tests/agents/test_every_heuristic.py)."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import pytest

from city_envs.agents import metropolys_heuristic
from city_envs.agents.base import play_game
from city_envs.agents.metropolys_heuristic import MetropolysHeuristicAgent
from city_envs.core.memo import BoundedMemo
from city_envs.metropolys.game import Metropolys


def _moves(n: int, version: str, seed: int, one_agent: bool) -> list[int]:
    """Heuristic self-play; `one_agent`: a single agent (so a single memo) plays every seat."""
    if one_agent:
        agents = [MetropolysHeuristicAgent(seed)] * n
    else:
        agents = [MetropolysHeuristicAgent(seed * 10 + seat) for seat in range(n)]
    return play_game(Metropolys(n, seed=seed, version=version), agents).history


@pytest.mark.parametrize("version", ["family", "expert"])
@pytest.mark.parametrize("n", [2, 3, 4])
def test_remembered_board_answers_change_no_move(monkeypatch, n, version):
    """With the memos (per agent, or one agent for every seat) the moves are those of an agent that
    derives everything afresh at each decision: their keys miss nothing the answers depend on."""
    remembered = [_moves(n, version, seed, one) for seed in range(2) for one in (False, True)]

    class Forgetful(BoundedMemo):
        def get(self, key: Hashable) -> Any:
            return None

    monkeypatch.setattr(metropolys_heuristic, "BoundedMemo", Forgetful)
    assert [_moves(n, version, seed, one) for seed in range(2) for one in (False, True)] == remembered
