"""SuperSuit recipe: every game runs as a SuperSuit vector env of several matches, with masked random play;
finished matches reset on their own and pay zero-sum win rewards; worker processes work too."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("supersuit")

import city_envs  # noqa: E402
from city_envs.integrations.supersuit import vector_env  # noqa: E402

SHORT = {"citadels": {"max_rounds": 2}, "blue_moon_city": {"max_rounds": 2}, "urban_sprawl": {"max_turns": 10}}


def masked_random(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return np.array([rng.choice(np.flatnonzero(mask)) if mask.any() else 0 for mask in masks])


def play(vec, num_players: int, steps: int, seed: int) -> int:
    """Masked random play; checks every step's rows and returns the number of finished matches."""
    rng = np.random.default_rng(seed)
    observations, _ = vec.reset(seed=seed)
    finished = 0
    for _ in range(steps):
        masks = observations["action_mask"]
        acting = masks.any(axis=1).reshape(-1, num_players)
        assert (acting.sum(axis=1) == 1).all(), "one seat per match has legal actions"
        observations, rewards, terminations, truncations, infos = vec.step(masked_random(masks, rng))
        ended = (terminations | truncations).reshape(-1, num_players)
        assert (ended.all(axis=1) == ended.any(axis=1)).all(), "a match ends for all its seats at once"
        for match in np.flatnonzero(ended.all(axis=1)):
            match_rewards = rewards.reshape(-1, num_players)[match]
            assert match_rewards.sum() == pytest.approx(0.0) and np.abs(match_rewards).max() <= 1.0
            finished += 1
    return finished


@pytest.mark.parametrize("name", city_envs.GAMES)
def test_vector_env_of_matches(name):
    vec = vector_env(name, 2, num_envs=3, **SHORT.get(name, {}))
    assert vec.num_envs == 6
    assert vec.observation_space["observation"].shape == (city_envs.make_game(name, 2).observation_shape[0],)
    assert play(vec, 2, steps=300, seed=0) >= 1
    vec.close()


def test_worker_processes():
    vec = vector_env("metropolys", 3, num_envs=2, num_cpus=2)
    assert play(vec, 3, steps=200, seed=1) >= 1
    vec.close()


def test_bad_num_envs():
    with pytest.raises(ValueError, match="num_envs"):
        vector_env("big_city", 2, num_envs=0)
