"""Metropolys through PettingZoo, beyond what every game does alike (tests/test_every_game.py)."""

from __future__ import annotations

import numpy as np

import city_envs
from city_envs import metropolys_v0


def test_make_env_accepts_the_first_game_layout():
    assert city_envs.make_env("metropolys", 2, layout="first_game").unwrapped.game_cls.name == "metropolys"


def test_a_bid_is_two_decisions_by_the_same_agent():
    env = metropolys_v0.env(num_players=3)
    env.reset(seed=1)
    opener = env.agent_selection
    env.step(10)  # neighbourhood 10
    assert env.agent_selection == opener
    mask = env.observe(opener)["action_mask"]
    assert set(np.flatnonzero(mask)) == set(range(55, 68))
    env.step(55)  # value 1
    assert env.agent_selection != opener
