"""The native batch's adapters: Gymnasium's `VectorEnv` contract (spaces, same-step autoreset, seeding)
on `CityVectorEnv`, SB3's `VecEnv` contract on `BatchVecEnv`, and MaskablePPO learning on it."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.vector import AutoresetMode, VectorEnv

from city_envs.core.native import _native
from city_envs.core.registry import GAMES
from city_envs.core.vector import CityVectorEnv

pytestmark = pytest.mark.skipif(_native is None, reason="the native engine is not built")


def legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return np.array([rng.choice(np.flatnonzero(mask)) for mask in masks])


@pytest.mark.parametrize("game", GAMES)
def test_the_gymnasium_vector_env_keeps_the_contract(game):
    env = CityVectorEnv(game, 2, 3, seed=1, opponents={"heuristic": 1.0, "random": 1.0})
    assert isinstance(env, VectorEnv) and env.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    assert env.action_space.shape == (3,) and env.observation_space.shape == (3, *env.single_observation_space.shape)
    observations, infos = env.reset()
    assert observations in env.observation_space
    assert infos["action_mask"].shape == (3, env.single_action_space.n)
    rng = np.random.default_rng(0)
    finished = 0
    while finished < 2:
        actions = legal(env.action_masks(), rng)
        assert actions in env.action_space
        observations, rewards, terminated, truncated, infos = env.step(actions)
        assert observations in env.observation_space
        assert rewards.shape == terminated.shape == truncated.shape == (3,)
        assert terminated.dtype == truncated.dtype == np.bool_
        done = terminated | truncated
        if done.any():
            np.testing.assert_array_equal(infos["_final_obs"], done)
            for i in np.flatnonzero(done):
                assert infos["final_obs"][i] in env.single_observation_space
                assert infos["final_info"]["win"][i] in (0.0, 0.5, 1.0)
            assert all(infos["final_obs"][i] is None for i in np.flatnonzero(~done))
            finished += int(done.sum())
        else:
            assert "final_obs" not in infos and (rewards == 0).all()  # a `win` reward comes at the end
    env.close()


def test_reset_with_a_seed_starts_the_batch_over():
    env = CityVectorEnv("metropolys", 3, 2, seed=0)
    first, _ = env.reset(seed=5)
    env.step(legal(env.action_masks(), np.random.default_rng(0)))
    again, _ = env.reset(seed=5)
    np.testing.assert_array_equal(first, again)
    other, _ = env.reset(seed=6)
    assert not np.array_equal(first, other)


def test_returned_arrays_are_copies():
    env = CityVectorEnv("citadels", 2, 2, seed=0, opponents={"random": 1.0})
    observations, _ = env.reset()
    kept = observations.copy()
    env.step(legal(env.action_masks(), np.random.default_rng(0)))
    np.testing.assert_array_equal(observations, kept)


def test_the_vector_env_refuses_bad_actions():
    env = CityVectorEnv("citadels", 2, 2, seed=0)
    env.reset()
    actions = legal(env.action_masks(), np.random.default_rng(0))
    actions[0] = int(np.flatnonzero(~env.action_masks()[0])[0])
    with pytest.raises(ValueError, match="^slot 0: action"):
        env.step(actions)


def test_the_sb3_vec_env_keeps_the_contract():
    pytest.importorskip("stable_baselines3")
    from stable_baselines3.common.vec_env import VecMonitor

    from city_envs.training.batch_env import BatchVecEnv
    from city_envs.training.pool import OpponentPool

    env = VecMonitor(BatchVecEnv("big_city", 2, 4, 0, OpponentPool("big_city", {"self": 0, "heuristic": 1.0})))
    observations = env.reset()
    assert observations.shape == (4, *env.observation_space.shape) and observations.dtype == np.float32
    masks = np.stack(env.env_method("action_masks"))
    assert masks.shape == (4, env.action_space.n) and masks.dtype == np.bool_
    rng = np.random.default_rng(0)
    episodes = 0
    while episodes < 2:
        observations, rewards, dones, infos = env.step(legal(np.stack(env.env_method("action_masks")), rng))
        assert observations.shape[0] == rewards.shape[0] == dones.shape[0] == len(infos) == 4
        for i in np.flatnonzero(dones):
            assert infos[i]["terminal_observation"].shape == env.observation_space.shape
            assert "episode" in infos[i]  # VecMonitor's statistics
            episodes += 1
    assert env.get_attr("render_mode") == [None] * 4 and env.env_is_wrapped(object) == [False] * 4


def test_maskable_ppo_learns_on_the_batch():
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO

    from city_envs.training.batch_env import BatchVecEnv
    from city_envs.training.pool import OpponentPool

    env = BatchVecEnv("citadels", 2, 4, 0, OpponentPool("citadels", {"self": 0, "heuristic": 0.5, "random": 0.5}))
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=64, n_epochs=1, seed=0, device="cpu")
    model.learn(256)
    assert model.num_timesteps >= 256
