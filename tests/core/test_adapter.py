"""The generic PettingZoo AEC adapter (`city_envs.core.aec`).

First on a toy game (tests/core/nim_toy.py), so that the adapter is tested without any real
game; then on Citadels through its entry module `city_envs.citadels_v0` (what every game does alike
through its entry module is in tests/test_every_game.py).
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest
from gymnasium import spaces
from pettingzoo.test import api_test, seed_test

import city_envs
from city_envs import citadels_v0
from city_envs.core.aec import CityAECEnv, wrapped_env
from city_envs.core.game import IllegalActionError

from ..aec_helpers import run_episode
from .nim_toy import Nim

# PettingZoo's api_test warns that Dict observation spaces are unusual; they are the contract.
pytestmark = pytest.mark.filterwarnings(
    "ignore:Observation space for each agent:UserWarning", "ignore:Observation is not a NumPy array:UserWarning"
)

IMAGE_MODULE = Path(city_envs.__file__).parent / "citadels" / "image.py"


def nim_env(n: int = 2, wrapped: bool = True, **kwargs):
    return wrapped_env(Nim, n, **kwargs) if wrapped else CityAECEnv(Nim, n, **kwargs)


# ===== toy game ================================================================================
NIM_CONFIGS = {
    "2p": dict(n=2),
    "3p": dict(n=3),
    "gusts": dict(n=2, gusts=True, heap=12),
    "repeat": dict(n=3, repeat_on_one=True),
    "truncated": dict(n=2, heap=40, max_turns=5),
    "score": dict(n=3, reward="score"),
    "raw": dict(n=2, wrapped=False),
}


@pytest.mark.parametrize("config", NIM_CONFIGS.values(), ids=NIM_CONFIGS.keys())
def test_toy_api_test(config):
    api_test(nim_env(**config), num_cycles=200)


@pytest.mark.parametrize("config", NIM_CONFIGS.values(), ids=NIM_CONFIGS.keys())
def test_toy_seed_test(config):
    seed_test(lambda: nim_env(**config), num_cycles=200)


def test_toy_spaces_and_metadata():
    env = nim_env(3, render_mode="ansi")
    assert env.possible_agents == ["player_0", "player_1", "player_2"]
    raw = env.unwrapped
    assert raw.metadata["name"] == "nim_v0" and set(raw.metadata["render_modes"]) >= {"ansi", "rgb_array"}
    for agent in env.possible_agents:
        space = env.observation_space(agent)
        assert isinstance(space, spaces.Dict)
        assert space["observation"].shape == Nim.observation_shape
        assert space["observation"].dtype == np.float32
        assert space["action_mask"].shape == (3,) and space["action_mask"].dtype == np.int8
        assert env.action_space(agent) == spaces.Discrete(3)


def test_toy_observe_masks_only_for_the_seat_to_act():
    env = nim_env(3, heap=2)
    env.reset(seed=0)
    game = env.unwrapped.game
    assert env.agent_selection == "player_0"
    for agent in env.possible_agents:
        observation = env.observe(agent)
        assert observation["observation"].dtype == np.float32
        assert observation["action_mask"].dtype == np.int8
        expected = [1, 1, 0] if agent == "player_0" else [0, 0, 0]
        assert observation["action_mask"].tolist() == expected
        assert np.array_equal(observation["observation"], game.observation(env.possible_agents.index(agent)))
    # the returned mask is a copy: writing to it cannot corrupt the game
    env.observe("player_0")["action_mask"][:] = 0
    assert game.legal_actions().tolist() == [True, True, False]


def test_toy_same_seat_acts_again():
    env = nim_env(2, heap=9, repeat_on_one=True)
    env.reset(seed=0)
    env.step(0)  # took one stone: player_0 again
    assert env.agent_selection == "player_0"
    env.step(1)
    assert env.agent_selection == "player_1"


def test_toy_terminal_rewards():
    env = nim_env(3, heap=4)
    env.reset(seed=0)
    env.step(0)  # player_0 takes 1
    env.step(2)  # player_1 takes 3 and wins
    assert all(env.terminations.values()) and not any(env.truncations.values())
    assert env.rewards == pytest.approx({"player_0": -0.5, "player_1": 1.0, "player_2": -0.5})
    totals = {}
    for agent in env.agent_iter():
        totals[agent] = env.last()[1]
        env.step(None)
    assert totals == pytest.approx({"player_0": -0.5, "player_1": 1.0, "player_2": -0.5})


def test_toy_truncation():
    env = nim_env(2, heap=40, max_turns=3)
    env.reset(seed=0)
    for _ in range(3):
        env.step(0)
    assert all(env.truncations.values()) and not any(env.terminations.values())


@pytest.mark.parametrize("n", [2, 3])
def test_toy_random_episodes_are_zero_sum(n):
    rng = np.random.default_rng(n)
    for seed in range(40):
        totals = run_episode(nim_env(n, gusts=True, max_turns=12), rng, seed=seed)
        assert sum(totals.values()) == pytest.approx(0.0, abs=1e-9)


def test_toy_score_rewards_sum_to_score_plus_return():
    rng = np.random.default_rng(0)
    for seed in range(30):
        env = nim_env(3, reward="score", gusts=True)
        totals = run_episode(env, rng, seed=seed)
        game = env.unwrapped.game
        for seat, agent in enumerate(env.possible_agents):
            assert totals[agent] == pytest.approx(game.scores()[seat] + game.returns()[seat])


def test_toy_reset_seeding():
    env = nim_env(2)
    env.reset(seed=5)
    first = env.unwrapped.game.to_dict()
    env.reset(seed=5)
    assert env.unwrapped.game.to_dict() == first
    heaps = set()
    for _ in range(20):
        env.reset()
        heaps.add(env.unwrapped.game.heap)
    assert len(heaps) > 1


@pytest.mark.parametrize("n", [2, 3])
def test_toy_illegal_action_lose(n):
    env = nim_env(n, heap=2, illegal_action="lose")
    env.reset(seed=0)
    env.step(2)  # take 3 of 2 stones
    assert env.unwrapped.game.history == []
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        _, reward, termination, truncation, info = env.last()
        assert termination and not truncation
        totals[agent] += reward
        env.step(None)
    assert totals["player_0"] == -1.0
    assert all(totals[a] == pytest.approx(1.0 / (n - 1)) for a in env.possible_agents[1:])
    assert sum(totals.values()) == pytest.approx(0.0)


def test_toy_illegal_action_raise():
    env = nim_env(2, heap=2)
    env.reset(seed=0)
    with pytest.raises(IllegalActionError, match="TAKE"):
        env.step(2)
    with pytest.raises(IllegalActionError):
        env.step(7)
    env.step(1)  # still usable
    assert all(env.terminations.values())


def test_toy_render_modes():
    env = nim_env(2, render_mode="ansi", heap=6)
    env.reset(seed=0)
    assert isinstance(env.render(), str) and "heap 6" in env.render()
    env = nim_env(2, render_mode="rgb_array")
    env.reset(seed=0)
    image = env.render()
    assert isinstance(image, np.ndarray) and image.dtype == np.uint8
    assert image.ndim == 3 and image.shape[2] == 3
    env = nim_env(2)
    env.reset(seed=0)
    assert env.render() is None


@pytest.mark.parametrize(
    ("kwargs", "allowed"),
    [
        ({"render_mode": "human3d"}, "ansi, rgb_array"),
        ({"render_mode": "ANSI"}, "ansi, rgb_array"),
        ({"reward": "dense"}, "win, score"),
        ({"illegal_action": "ignore"}, "raise, lose"),
        ({"gusts": 3}, "False, True"),
        ({"speed": 3}, "gusts, heap, max_turns, repeat_on_one"),
    ],
)
@pytest.mark.parametrize("wrapped", [True, False])
def test_toy_bad_adapter_arguments(kwargs, allowed, wrapped):
    with pytest.raises(ValueError) as info:
        nim_env(2, wrapped=wrapped, **kwargs)
    assert allowed in str(info.value), str(info.value)


def test_toy_bad_player_count():
    with pytest.raises(ValueError, match="2, 3"):
        nim_env(4)


# ===== Citadels through its entry module ========================================================
def test_citadels_graveyard_decision_selects_the_owner():
    """A decision owned by another seat mid-turn (GRAVEYARD) selects that agent, then hands back."""
    rng = np.random.default_rng(0)
    for seed in range(300):
        env = citadels_v0.env(num_players=5)
        env.reset(seed=seed)
        game = env.unwrapped.game
        while not game.is_over():
            if game.decision_name() == "GRAVEYARD":
                owner, warlord = game.current_player(), game.state.turn_seat
                assert env.agent_selection == f"player_{owner}" and owner != warlord
                assert env.observe(f"player_{warlord}")["action_mask"].sum() == 0
                env.step(375)  # decline
                assert env.agent_selection == f"player_{warlord}"
                return
            env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
    pytest.fail("no GRAVEYARD decision in 300 random games")


@pytest.mark.skipif(not IMAGE_MODULE.exists(), reason="city_envs/citadels/image.py not written yet")
@pytest.mark.parametrize("n", [2, 7])
def test_citadels_render_rgb_array(n):
    env = citadels_v0.env(num_players=n, render_mode="rgb_array")
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(60):
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        image = env.render()
    assert isinstance(image, np.ndarray) and image.dtype == np.uint8
    assert image.ndim == 3 and image.shape[2] == 3 and image.shape[0] >= 100 and image.shape[1] >= 100
    assert image.std() > 0  # not a blank frame
