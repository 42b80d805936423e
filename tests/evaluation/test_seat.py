"""The candidate's process (`evaluation/seat.py`) reads the referee's sample of its match on the default
engine: the native one where it is built, so a search candidate searches in C++."""

from __future__ import annotations

import numpy as np
import pytest

from city_envs.core.native import _native
from city_envs.core.registry import game_class, make_game
from city_envs.evaluation.seat import _answer, wire_form

pytestmark = pytest.mark.skipif(_native is None, reason="the native engine is not built")


class Recorder:
    """An agent that keeps the match it was given and plays its first legal move."""

    def act(self, info_set):
        self.game = info_set._InfoSet__game  # type: ignore[attr-defined]
        return info_set.legal_action_ids()[0]


@pytest.mark.parametrize("engine", ["python", "native"])
def test_the_candidate_reads_its_sample_on_the_native_engine(engine):
    referee = make_game("metropolys", 3, seed=4, engine=engine)
    for _ in range(3):
        referee.apply(referee.legal_action_ids()[0])
    sample = referee.determinize(referee.current_player(), np.random.default_rng(9))
    agent = Recorder()
    reply = _answer({"act": {"state": wire_form(sample), "seat": sample.current_player()}}, {"agent": agent})
    assert reply == {"action": sample.legal_action_ids()[0]}
    assert type(agent.game) is game_class("metropolys", "native")
    assert agent.game.to_dict() == sample.to_dict()
