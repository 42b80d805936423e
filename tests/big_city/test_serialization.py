"""Big City round trips: JSON `to_dict`/`from_dict`, replay of `history`, clone independence."""

from __future__ import annotations

import json

import numpy as np
import pytest

from city_envs.big_city.game import BigCity

from ..game_helpers import play_out, random_action
from .bc_testlib import COUNTS, check_state, mid_game_states


def assert_same_game(a: BigCity, b: BigCity) -> None:
    assert a.to_dict() == b.to_dict()
    assert a.current_player() == b.current_player() and a.decision_name() == b.decision_name()
    assert np.array_equal(a.legal_actions(), b.legal_actions())
    for p in range(a.num_players):
        assert np.array_equal(a.observation(p), b.observation(p)) and a.view(p) == b.view(p)


@pytest.mark.parametrize("n", COUNTS)
def test_json_round_trip_mid_game_and_continuation(n):
    rng = np.random.default_rng(n)
    states = mid_game_states(n, range(4), per_game=3)
    assert states
    for game in states:
        loaded = BigCity.from_dict(json.loads(json.dumps(game.to_dict())))
        assert_same_game(game, loaded)
        check_state(loaded)
        while not game.is_over():
            action = random_action(game, rng)
            game.apply(action)
            loaded.apply(action)
        assert_same_game(game, loaded)
        assert game.winners() == loaded.winners()


def test_round_trip_in_every_decision_kind():
    seen = set()
    for game in mid_game_states(4, range(40), per_game=6):
        name = game.decision_name()
        if name in seen:
            continue
        seen.add(name)
        loaded = BigCity.from_dict(json.loads(json.dumps(game.to_dict())))
        assert_same_game(game, loaded)
    assert {"MAIN", "DRAW", "BUILD_SELECT", "TILE_EDGE", "TRAM_EDGE"} <= seen


@pytest.mark.parametrize("n", COUNTS)
def test_replay_reproduces_the_final_state(n):
    game = play_out(BigCity(n, seed=7), np.random.default_rng(n))
    again = BigCity.replay(n, 7, game.history)
    assert again.to_dict() == game.to_dict()


def test_same_seed_same_setup():
    setups = [json.dumps(BigCity(3, seed=seed).to_dict()["state"]) for seed in (1, 1, 2)]
    assert setups[0] == setups[1] != setups[2]


@pytest.mark.parametrize("n", COUNTS)
def test_clone_is_independent(n):
    rng = np.random.default_rng(n)
    for game in mid_game_states(n, range(3), per_game=2):
        before = json.dumps(game.to_dict(), sort_keys=True)
        observations = [game.observation(p) for p in range(n)]
        play_out(game.clone(), rng)
        assert json.dumps(game.to_dict(), sort_keys=True) == before
        assert all(np.array_equal(o, game.observation(p)) for p, o in enumerate(observations))
        check_state(game)
