"""Metropolys through PettingZoo: the official api_test and seed_test, spaces, rewards, forced passes."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium import spaces
from pettingzoo.test import api_test, seed_test

import city_envs
from city_envs import metropolys_v0

from ..aec_helpers import run_episode
from .metropolys_testlib import COUNTS, VERSIONS

# PettingZoo's api_test warns that Dict observation spaces are unusual; they are the contract.
pytestmark = pytest.mark.filterwarnings("ignore:Observation space for each agent:UserWarning",
                                        "ignore:Observation is not a NumPy array:UserWarning")

CONFIGS = [(n, version) for n in COUNTS for version in VERSIONS]


@pytest.mark.parametrize(("n", "version"), CONFIGS)
@pytest.mark.parametrize("entry", [metropolys_v0.env, metropolys_v0.raw_env], ids=["env", "raw_env"])
def test_api_test(entry, n, version):
    api_test(entry(num_players=n, version=version), num_cycles=1000)


@pytest.mark.parametrize(("n", "version"), CONFIGS)
def test_seed_test(n, version):
    seed_test(lambda: metropolys_v0.env(num_players=n, version=version), num_cycles=500)


def test_defaults_and_spaces():
    env = metropolys_v0.env()
    assert env.unwrapped.num_players == 4 and env.unwrapped.game_cls.name == "metropolys"
    env.reset(seed=0)
    observation = env.observe(env.agent_selection)
    assert observation["observation"].shape == (2164,) and observation["action_mask"].shape == (69,)
    assert env.action_space("player_0") == spaces.Discrete(69)
    assert city_envs.make_env("metropolys", 2, layout="first_game").unwrapped.game_cls.name == "metropolys"


@pytest.mark.parametrize(("n", "version"), CONFIGS)
def test_rewards(n, version):
    """Win rewards are the zero-sum returns; score rewards add up to final score plus return."""
    rng = np.random.default_rng(n)
    env = metropolys_v0.env(num_players=n, version=version)
    totals = run_episode(env, rng, seed=n)
    game = env.unwrapped.game
    assert [totals[a] for a in env.possible_agents] == pytest.approx(game.returns())
    env = metropolys_v0.env(num_players=n, version=version, reward="score")
    totals = run_episode(env, rng, seed=n + 1)
    game = env.unwrapped.game
    for seat, agent in enumerate(env.possible_agents):
        assert totals[agent] == pytest.approx(game.scores()[seat] + game.returns()[seat])


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
