"""Metropolys state round trips: JSON `to_dict`/`from_dict`, replay of `history`, clone independence."""

from __future__ import annotations

import json

import numpy as np
import pytest

from city_envs.metropolys.game import Metropolys

from ..game_helpers import play_out, random_action
from .metropolys_testlib import COUNTS, VERSIONS, check_state, mid_game_states


def assert_same_game(a: Metropolys, b: Metropolys) -> None:
    assert a.to_dict() == b.to_dict()
    assert a.current_player() == b.current_player() and a.decision_name() == b.decision_name()
    assert np.array_equal(a.legal_actions(), b.legal_actions())
    for p in range(a.num_players):
        assert np.array_equal(a.observation(p), b.observation(p))
        assert a.view(p) == b.view(p)


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("n", COUNTS)
def test_json_round_trip_mid_game(n, version):
    rng = np.random.default_rng(n)
    for game in mid_game_states(n, range(3), version, per_game=2):
        loaded = Metropolys.from_dict(json.loads(json.dumps(game.to_dict())))
        assert_same_game(game, loaded)
        check_state(loaded)
        while not game.is_over():
            action = random_action(game, rng)
            game.apply(action)
            loaded.apply(action)
        assert_same_game(game, loaded)
        assert game.scores() == loaded.scores() and game.winners() == loaded.winners()


def test_round_trip_keeps_options_and_a_finished_game():
    game = Metropolys(2, seed=4, version="expert", layout="first_game", removed_districts="east,south", start_player=1)
    play_out(game, np.random.default_rng(0))
    loaded = Metropolys.from_dict(json.loads(json.dumps(game.to_dict())))
    assert_same_game(game, loaded)
    assert loaded.options["removed_districts"] == "east,south" and loaded.is_over()


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("n", COUNTS)
def test_replay_reproduces_the_final_state(n, version):
    game = play_out(Metropolys(n, seed=7, version=version), np.random.default_rng(n))
    again = Metropolys.replay(n, 7, game.history, version=version)
    assert again.to_dict() == game.to_dict()


def test_same_seed_same_setup_and_different_seeds_differ():
    setups = [json.dumps(Metropolys(3, seed=seed).to_dict()["state"]) for seed in (1, 1, 2)]
    assert setups[0] == setups[1] != setups[2]


@pytest.mark.parametrize("n", COUNTS)
def test_clone_is_independent(n):
    rng = np.random.default_rng(n)
    for game in mid_game_states(n, range(2), "expert", per_game=2):
        before = json.dumps(game.to_dict(), sort_keys=True)
        twin = game.clone()
        play_out(twin, rng)
        assert json.dumps(game.to_dict(), sort_keys=True) == before
        check_state(game)
        mirror = game.clone()
        game.apply(random_action(game, rng))
        assert mirror.to_dict()["history"] != game.to_dict()["history"]
        check_state(mirror)


def test_to_dict_is_a_snapshot():
    game = Metropolys(2, seed=0)
    data = game.to_dict()
    game.apply(int(np.flatnonzero(game.legal_actions())[0]))
    assert data["history"] == [] and data["state"]["decision"] == 0 and data["state"]["chosen"] == -1
