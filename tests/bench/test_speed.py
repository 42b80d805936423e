"""Benchmarks (pytest-benchmark). Timings only with `--benchmark-enable`; never asserted."""

from __future__ import annotations

import numpy as np
import pytest

import city_envs
from city_envs import bench


@pytest.fixture(scope="module")
def positions():
    return bench.sample_states("citadels", 4, 100, seed=0)


def test_random_decisions(benchmark):
    def play_one_game():
        game = city_envs.make_game("citadels", 4, seed=1)
        rng = np.random.default_rng(0)
        while not game.is_over():
            legal = np.flatnonzero(game.legal_actions())
            game.apply(int(legal[rng.integers(len(legal))]))
        return game

    assert benchmark(play_one_game).is_over()


def test_observation(benchmark, positions):
    benchmark(lambda: [g.observation(g.current_player()) for g in positions])


def test_legal_actions_uncached(benchmark, positions):
    benchmark(lambda: [g._legal_actions() for g in positions])


def test_clone(benchmark, positions):
    benchmark(lambda: [g.clone() for g in positions])


def test_aec_loop(benchmark):
    env = city_envs.make_env("citadels", 4)
    assert benchmark(lambda: bench.aec_speed(env, seconds=0.2)) > 0
