"""The adapter's `observation_key` option names the observation tensor for frameworks that expect another
name (RLlib's action-masking module reads "observations"); nothing else changes."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test

import city_envs

pytestmark = pytest.mark.filterwarnings(
    "ignore:Observation space for each agent:UserWarning", "ignore:Observation is not a NumPy array:UserWarning"
)


@pytest.mark.parametrize("name", city_envs.GAMES)
def test_renamed_key_carries_the_same_observation(name):
    plain = city_envs.make_env(name, 3)
    renamed = city_envs.make_env(name, 3, observation_key="observations")
    assert set(renamed.observation_space("player_0").spaces) == {"observations", "action_mask"}
    plain.reset(seed=5)
    renamed.reset(seed=5)
    rng = np.random.default_rng(5)
    for _ in range(30):
        agent = plain.agent_selection
        assert renamed.agent_selection == agent
        for other in plain.possible_agents:
            a, b = plain.observe(other), renamed.observe(other)
            assert np.array_equal(a["observation"], b["observations"])
            assert np.array_equal(a["action_mask"], b["action_mask"])
        action = int(rng.choice(np.flatnonzero(plain.observe(agent)["action_mask"])))
        plain.step(action)
        renamed.step(action)
    api_test(city_envs.make_env(name, 3, observation_key="observations"), num_cycles=200)
