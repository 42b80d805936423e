"""Big City through PettingZoo: the official api_test and seed_test, spaces, rewards."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium import spaces
from pettingzoo.test import api_test, seed_test

from city_envs import big_city_v0

from ..aec_helpers import run_episode

pytestmark = pytest.mark.filterwarnings("ignore:Observation space for each agent:UserWarning",
                                        "ignore:Observation is not a NumPy array:UserWarning")

COUNTS = [2, 3, 4, 5]


@pytest.mark.parametrize("n", COUNTS)
@pytest.mark.parametrize("entry", [big_city_v0.env, big_city_v0.raw_env], ids=["env", "raw_env"])
def test_api_test(entry, n):
    api_test(entry(num_players=n), num_cycles=1000)


@pytest.mark.parametrize("n", COUNTS)
def test_seed_test(n):
    seed_test(lambda: big_city_v0.env(num_players=n), num_cycles=500)


def test_defaults_and_spaces():
    env = big_city_v0.env()
    assert env.unwrapped.num_players == 4 and env.unwrapped.game_cls.name == "big_city"
    env.reset(seed=0)
    observation = env.observe(env.agent_selection)
    assert observation["observation"].shape == (3787,) and observation["action_mask"].shape == (389,)
    assert env.action_space("player_0") == spaces.Discrete(389)


@pytest.mark.parametrize("n", COUNTS)
def test_rewards(n):
    """Win rewards are the zero-sum returns; score rewards add up to the points plus the return."""
    rng = np.random.default_rng(n)
    env = big_city_v0.env(num_players=n)
    totals = run_episode(env, rng, seed=n)
    game = env.unwrapped.game
    assert [totals[a] for a in env.possible_agents] == pytest.approx(game.returns())
    env = big_city_v0.env(num_players=n, reward="score")
    totals = run_episode(env, rng, seed=n + 1)
    game = env.unwrapped.game
    for seat, agent in enumerate(env.possible_agents):
        assert totals[agent] == pytest.approx(game.scores()[seat] + game.returns()[seat])
