"""Benchmarks (pytest-benchmark) of the operations `city-envs bench --all` reports, for every game at
2 and 4 players. Timings only with `--benchmark-enable`; never asserted (speed is compared in review,
as ratios: `pytest tests/bench --benchmark-enable --benchmark-compare`)."""

from __future__ import annotations

import numpy as np
import pytest

import city_envs
from city_envs import bench
from city_envs.core.infoset import InfoSet
from city_envs.core.registry import GAMES

CASES = [(game, players) for game in GAMES for players in (2, 4)]
IDS = [f"{game}-{players}p" for game, players in CASES]


@pytest.fixture(scope="module", params=CASES, ids=IDS)
def case(request):
    """A game, a player count and positions from its random matches."""
    game, players = request.param
    return game, players, bench.sample_states(game, players, 30, seed=0)


def test_random_decisions(benchmark, case):
    game_name, players, _ = case

    def play_one_game():
        game = city_envs.make_game(game_name, players, seed=1)
        rng = np.random.default_rng(0)
        while not game.is_over():
            legal = np.flatnonzero(game.legal_actions())
            game.apply(int(legal[rng.integers(len(legal))]))
        return game

    assert benchmark(play_one_game).is_over()


def test_observation(benchmark, case):
    positions = case[2]
    benchmark.pedantic(
        lambda fresh: [g.observation(g.current_player()) for g in fresh],
        setup=lambda: (([g.clone() for g in positions],), {}),
        rounds=20,
    )


def test_legal_actions_uncached(benchmark, case):
    positions = case[2]
    benchmark.pedantic(
        lambda fresh: [g._legal_actions() for g in fresh],
        setup=lambda: (([g.clone() for g in positions],), {}),
        rounds=20,
    )


def test_clone(benchmark, case):
    benchmark(lambda: [g.clone() for g in case[2]])


def test_determinize(benchmark, case):
    rng = np.random.default_rng(0)
    benchmark(lambda: [g.determinize(g.current_player(), rng) for g in case[2]])


def test_aec_loop(benchmark, case):
    env = city_envs.make_env(case[0], case[1])
    assert benchmark(lambda: bench.aec_speed(env, seconds=0.2)) > 0


def test_heuristic_self_play(benchmark, case):
    assert benchmark(lambda: bench.heuristic_speed(case[0], case[1], seconds=0.2)) > 0


def test_search_iteration(benchmark, case):
    """One decision of the default ISMCTS agent (10 iterations: determinize, clone, tree and rollout moves)."""
    from city_envs.agents.ismcts import ISMCTSAgent

    position = next(g for g in case[2] if len(g.legal_action_ids()) > 1)
    agent = ISMCTSAgent(0, iters=10)
    benchmark(lambda: agent.act(InfoSet(position.clone(), position.current_player())))
