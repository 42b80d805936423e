"""Bad input to Big City: illegal actions, bad player counts and options, `illegal_action="lose"`."""

from __future__ import annotations

import json

import numpy as np
import pytest

from city_envs import big_city_v0
from city_envs.big_city.game import BigCity
from city_envs.core.game import IllegalActionError

from ..game_helpers import play_out
from .bc_testlib import mid_game_states

OUT_OF_RANGE = [-1, 389, 3.5, "x", None, np.int64(389), [1], True]


def snapshot(game: BigCity) -> str:
    return json.dumps(game.to_dict(), sort_keys=True)


def test_illegal_actions_raise_name_the_decision_and_change_nothing():
    kinds = set()
    for game in mid_game_states(3, range(8), per_game=5):
        decision = game.decision_name()
        kinds.add(decision)
        before = snapshot(game)
        for action in np.flatnonzero(~game.legal_actions()).tolist()[::13]:
            with pytest.raises(IllegalActionError) as info:
                game.apply(action)
            assert repr(action) in str(info.value) and decision in str(info.value)
            assert snapshot(game) == before
    assert {"MAIN", "DRAW"} <= kinds


@pytest.mark.parametrize("action", OUT_OF_RANGE, ids=repr)
def test_out_of_range_actions_raise(action):
    game = BigCity(2, seed=0)
    before = snapshot(game)
    with pytest.raises(IllegalActionError, match="SETUP_TILE"):
        game.apply(action)
    assert snapshot(game) == before


def test_tile_one_is_never_legal():
    game = BigCity(4, seed=0)
    with pytest.raises(IllegalActionError, match="SETUP_TILE"):
        game.apply(85)


def test_actions_after_the_end_raise():
    game = play_out(BigCity(2, seed=0), np.random.default_rng(0))
    with pytest.raises(IllegalActionError, match="game is over"):
        game.apply(94)


@pytest.mark.parametrize("count", [0, 1, 6, True, "3", None])
def test_invalid_player_counts(count):
    for make in (lambda: BigCity(count), lambda: big_city_v0.env(num_players=count)):
        with pytest.raises(ValueError, match="2, 3, 4, 5"):
            make()


@pytest.mark.parametrize("options", [{"max_rounds": 10}, {"variant": "x"}])
def test_unknown_options_are_rejected(options):
    for make in (lambda: BigCity(3, **options), lambda: big_city_v0.env(num_players=3, **options)):
        with pytest.raises(ValueError) as info:
            make()
        assert next(iter(options)) in str(info.value) and "allowed: none" in str(info.value)


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_illegal_action_lose_mode(n):
    env = big_city_v0.env(num_players=n, illegal_action="lose")
    env.reset(seed=n)
    rng = np.random.default_rng(n)
    for _ in range(int(rng.integers(3, 40))):
        observation, *_ = env.last()
        env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    offender = env.agent_selection
    game = env.unwrapped.game
    before = snapshot(game)
    env.step(int(np.flatnonzero(env.observe(offender)["action_mask"] == 0)[0]))
    assert snapshot(game) == before
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        _, reward, termination, _, _ = env.last()
        totals[agent] += reward
        assert termination
        env.step(None)
    assert totals[offender] == pytest.approx(-1.0) and sum(totals.values()) == pytest.approx(0.0, abs=1e-9)
