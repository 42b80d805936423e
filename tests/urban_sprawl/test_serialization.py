"""Urban Sprawl round trips: JSON `to_dict`/`from_dict`, replay of `history`, clone independence."""

from __future__ import annotations

import json

import numpy as np
import pytest

from city_envs.urban_sprawl.game import UrbanSprawl

from ..game_helpers import play_out, random_action
from .us_testlib import COUNTS, check_state, mid_game_states


def assert_same_game(a: UrbanSprawl, b: UrbanSprawl) -> None:
    assert a.to_dict() == b.to_dict()
    assert a.current_player() == b.current_player() and a.decision_name() == b.decision_name()
    assert np.array_equal(a.legal_actions(), b.legal_actions())
    for p in range(a.num_players):
        assert np.array_equal(a.observation(p), b.observation(p)) and a.view(p) == b.view(p)


@pytest.mark.parametrize("n", COUNTS)
def test_json_round_trip_mid_game_and_continuation(n):
    rng = np.random.default_rng(n)
    states = mid_game_states(n, range(3), per_game=3, max_turns=60)
    for game in states:
        loaded = UrbanSprawl.from_dict(json.loads(json.dumps(game.to_dict())))
        assert_same_game(game, loaded)
        check_state(loaded)
        while not game.is_over():  # future reshuffles come from the restored RNG
            action = random_action(game, rng)
            game.apply(action)
            loaded.apply(action)
        assert_same_game(game, loaded)
        assert game.winners() == loaded.winners()


def test_round_trip_inside_a_procedure():
    """A decision owned by another seat in the middle of the end of turn keeps its pending tasks."""
    for game in mid_game_states(4, range(40), per_game=8):
        if game.state.tasks and game.current_player() != game.state.active:
            loaded = UrbanSprawl.from_dict(json.loads(json.dumps(game.to_dict())))
            assert_same_game(game, loaded)
            assert loaded.state.tasks == game.state.tasks
            return
    pytest.fail("no interrupted procedure found")


@pytest.mark.parametrize("n", COUNTS)
@pytest.mark.parametrize("variant", ["standard", "long", "short"])
def test_replay_reproduces_the_final_state(n, variant):
    game = play_out(UrbanSprawl(n, seed=7, variant=variant), np.random.default_rng(n))
    again = UrbanSprawl.replay(n, 7, game.history, variant=variant)
    assert again.to_dict() == game.to_dict()


def test_same_seed_same_setup():
    setups = [json.dumps(UrbanSprawl(3, seed=seed).to_dict()["state"]) for seed in (1, 1, 2)]
    assert setups[0] == setups[1] != setups[2]


@pytest.mark.parametrize("n", COUNTS)
def test_clone_is_independent(n):
    rng = np.random.default_rng(n)
    for game in mid_game_states(n, range(2), per_game=2):
        before = json.dumps(game.to_dict(), sort_keys=True)
        play_out(game.clone(), rng)
        assert json.dumps(game.to_dict(), sort_keys=True) == before
        check_state(game)
