"""Bad input to Blue Moon City: illegal actions, bad player counts and options, `illegal_action="lose"`."""

from __future__ import annotations

import json

import numpy as np
import pytest

from city_envs import blue_moon_city_v0
from city_envs.blue_moon_city.game import BlueMoonCity
from city_envs.core.game import IllegalActionError

from ..game_helpers import play_out
from .bmc_testlib import mid_game_states

OUT_OF_RANGE = [-1, 220, 3.5, "x", None, np.int64(220), [1], True]


def snapshot(game: BlueMoonCity) -> str:
    return json.dumps(game.to_dict(), sort_keys=True)


def test_illegal_actions_raise_name_the_decision_and_change_nothing():
    kinds = set()
    for game in mid_game_states(3, range(6), per_game=5):
        decision = game.decision_name()
        kinds.add(decision)
        before = snapshot(game)
        for action in np.flatnonzero(~game.legal_actions()).tolist()[:: 17]:
            with pytest.raises(IllegalActionError) as info:
                game.apply(action)
            assert repr(action) in str(info.value) and decision in str(info.value)
            assert snapshot(game) == before
    assert {"MOVE", "DISCARD"} <= kinds


@pytest.mark.parametrize("action", OUT_OF_RANGE, ids=repr)
def test_out_of_range_actions_raise(action):
    game = BlueMoonCity(2, seed=0)
    before = snapshot(game)
    with pytest.raises(IllegalActionError, match="MOVE"):
        game.apply(action)
    assert snapshot(game) == before


def test_actions_after_the_end_raise():
    game = play_out(BlueMoonCity(2, seed=0, max_rounds=3), np.random.default_rng(0))
    with pytest.raises(IllegalActionError, match="game is over"):
        game.apply(128)


@pytest.mark.parametrize("count", [0, 1, 5, True, "3", None])
def test_invalid_player_counts(count):
    for make in (lambda: BlueMoonCity(count), lambda: blue_moon_city_v0.env(num_players=count)):
        with pytest.raises(ValueError, match="2, 3, 4"):
            make()


@pytest.mark.parametrize(
    ("options", "allowed"),
    [
        ({"center": "open"}, "'fixed', 'random'"),
        ({"center": None}, "'fixed', 'random'"),
        ({"max_rounds": 0}, "integer >= 1"),
        ({"max_rounds": 2.5}, "integer >= 1"),
        ({"centre": "fixed"}, "center, max_rounds"),
    ],
)
def test_invalid_options(options, allowed):
    for make in (lambda: BlueMoonCity(3, **options), lambda: blue_moon_city_v0.env(num_players=3, **options)):
        with pytest.raises(ValueError) as info:
            make()
        assert allowed in str(info.value) and next(iter(options)) in str(info.value)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_illegal_action_lose_mode(n):
    env = blue_moon_city_v0.env(num_players=n, illegal_action="lose")
    env.reset(seed=n)
    rng = np.random.default_rng(n)
    for _ in range(int(rng.integers(3, 60))):
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
