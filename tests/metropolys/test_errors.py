"""Bad input to Metropolys: illegal actions, bad player counts and options, `illegal_action="lose"`."""

from __future__ import annotations

import json

import numpy as np
import pytest

from city_envs import metropolys_v0
from city_envs.core.game import IllegalActionError
from city_envs.metropolys.game import Metropolys

from ..game_helpers import play_out
from .metropolys_testlib import mid_game_states

OUT_OF_RANGE = [-1, 69, 3.5, "x", None, 10**9, np.int64(69), [1], True]


def snapshot(game: Metropolys) -> str:
    return json.dumps(game.to_dict(), sort_keys=True)


def test_illegal_actions_raise_name_the_decision_and_change_nothing():
    for game in mid_game_states(3, range(2), "family", per_game=4):
        decision = game.decision_name()
        before = snapshot(game)
        for action in np.flatnonzero(~game.legal_actions()).tolist()[:10]:
            with pytest.raises(IllegalActionError) as info:
                game.apply(action)
            message = str(info.value)
            assert repr(action) in message and decision in message, message
            assert snapshot(game) == before


@pytest.mark.parametrize("action", OUT_OF_RANGE, ids=repr)
def test_out_of_range_actions_raise(action):
    game = Metropolys(2, seed=0)
    before = snapshot(game)
    with pytest.raises(IllegalActionError) as info:
        game.apply(action)
    assert "NBHD" in str(info.value)
    assert snapshot(game) == before


def test_opener_cannot_pass_and_actions_after_the_end_raise():
    game = Metropolys(4, seed=0)
    with pytest.raises(IllegalActionError, match="NBHD"):
        game.apply(68)
    play_out(game, np.random.default_rng(0))
    with pytest.raises(IllegalActionError, match="game is over"):
        game.apply(0)


@pytest.mark.parametrize("count", [0, 1, 5, 7, True, "4", None])
def test_invalid_player_counts(count):
    for make in (lambda: Metropolys(count), lambda: metropolys_v0.env(num_players=count)):
        with pytest.raises(ValueError) as info:
            make()
        assert "2, 3, 4" in str(info.value), str(info.value)


@pytest.mark.parametrize(
    ("n", "options", "allowed"),
    [
        (4, {"version": "advanced"}, "'family', 'expert'"),
        (4, {"version": None}, "'family', 'expert'"),
        (4, {"layout": "fixed"}, "'random', 'first_game'"),
        (3, {"removed_districts": "centre"}, "north, east, south, west"),
        (3, {"removed_districts": 3}, "north, east, south, west"),
        (3, {"removed_districts": "north,east"}, "north; east; south; west"),
        (2, {"removed_districts": "north,south"}, "north,east; east,south; south,west; north,west"),
        (2, {"removed_districts": "west"}, "north,east; east,south; south,west; north,west"),
        (4, {"removed_districts": "west"}, "(none)"),
        (2, {"start_player": 2}, "0..1"),
        (4, {"start_player": -1}, "0..num_players-1"),
        (4, {"variant": "expert"}, "layout, removed_districts, start_player, version"),
    ],
)
def test_invalid_options(n, options, allowed):
    for make in (lambda: Metropolys(n, **options), lambda: metropolys_v0.env(num_players=n, **options)):
        with pytest.raises(ValueError) as info:
            make()
        message = str(info.value)
        assert allowed in message and next(iter(options)) in message, message


def test_valid_removals_are_accepted_in_any_order():
    assert Metropolys(2, removed_districts="west,north").state.removed == [1, 4]
    assert Metropolys(2, removed_districts=["south", "east"]).state.removed == [2, 3]
    assert Metropolys(3, removed_districts="east").state.removed == [2]
    assert Metropolys(4, removed_districts="").state.removed == []


@pytest.mark.parametrize("n", [2, 3, 4])
def test_illegal_action_lose_mode(n):
    env = metropolys_v0.env(num_players=n, illegal_action="lose")
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
        _, reward, termination, truncation, _ = env.last()
        totals[agent] += reward
        assert termination and not truncation
        env.step(None)
    assert totals[offender] == pytest.approx(-1.0)
    assert sum(totals.values()) == pytest.approx(0.0, abs=1e-9)
