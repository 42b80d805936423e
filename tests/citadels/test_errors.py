"""Bad input to Citadels: illegal actions, bad player counts and options, `illegal_action="lose"`."""

from __future__ import annotations

import functools
import json

import numpy as np
import pytest

import city_envs
from city_envs import citadels_v0
from city_envs.citadels.game import Citadels
from city_envs.core.game import IllegalActionError

from .citadels_testlib import harvest, harvest_kind, play_out, random_action

OUT_OF_RANGE = [-1, 376, 3.5, "x", None, 10**9, np.int64(376), [1]]


def snapshot(game: Citadels) -> str:
    return json.dumps(game.to_dict(), sort_keys=True)


@functools.cache
def _states() -> tuple[Citadels, ...]:
    found = harvest(2, range(3)) + harvest(5, range(3)) + harvest_kind(4, "GRAVEYARD", 1, seed0=900)
    assert {g.decision_name() for g in found} >= {
        "SELECT_CHARACTER", "SELECT_DISCARD", "MAIN", "KEEP_DRAWN", "MAGICIAN_DISCARD", "GRAVEYARD"
    }
    return tuple(found)


def states() -> list[Citadels]:
    """Mid-game states of every decision kind (fresh clones: tests may advance them)."""
    return [game.clone() for game in _states()]


def assert_rejected(game: Citadels, action) -> IllegalActionError:
    before, history = snapshot(game), list(game.history)
    mask = game.legal_actions().copy()
    decision = game.decision_name()
    with pytest.raises(IllegalActionError) as info:
        game.apply(action)
    error = info.value
    assert isinstance(error, ValueError)
    message = str(error)
    assert repr(action) in message, message
    assert decision in message, message
    assert error.action is action or error.action == action
    assert error.decision == decision
    assert snapshot(game) == before and game.history == history
    assert np.array_equal(game.legal_actions(), mask)
    return error


def test_illegal_actions_raise_and_change_nothing():
    rng = np.random.default_rng(0)
    for game in states():
        illegal = np.flatnonzero(~game.legal_actions())
        for action in rng.choice(illegal, size=min(15, len(illegal)), replace=False).tolist():
            assert_rejected(game, action)
        # the game still accepts a legal action afterwards
        game.apply(random_action(game, rng))


@pytest.mark.parametrize("action", OUT_OF_RANGE, ids=repr)
def test_out_of_range_actions_raise_and_change_nothing(action):
    for game in states()[:8]:
        assert_rejected(game, action)


def test_error_names_the_pending_decision():
    game = harvest_kind(4, "KEEP_DRAWN", 1)[0]
    error = assert_rejected(game, 16)  # GATHER_GOLD while a drawn card must be kept
    assert "16" in str(error) and "KEEP_DRAWN" in str(error)


def test_numpy_integer_actions_are_accepted():
    game = Citadels(3, seed=0)
    action = np.flatnonzero(game.legal_actions())[0]  # np.int64
    game.apply(action)
    assert game.history == [int(action)] and type(game.history[0]) is int


def test_actions_after_the_end_raise():
    game = play_out(Citadels(2, seed=1), np.random.default_rng(1))
    before = snapshot(game)
    for action in (0, 16, 373, -1):
        with pytest.raises(IllegalActionError, match="over"):
            game.apply(action)
    assert snapshot(game) == before


# ----- construction ---------------------------------------------------------------------------
MAKERS = {
    "Citadels": lambda n, **kw: Citadels(n, **kw),
    "make_game": lambda n, **kw: city_envs.make_game("citadels", n, **kw),
    "make_env": lambda n, **kw: city_envs.make_env("citadels", n, **kw),
    "citadels_v0.env": lambda n, **kw: citadels_v0.env(num_players=n, **kw),
    "citadels_v0.raw_env": lambda n, **kw: citadels_v0.raw_env(num_players=n, **kw),
}


@pytest.mark.parametrize("maker", MAKERS.values(), ids=MAKERS.keys())
@pytest.mark.parametrize("count", [0, 1, 8, True, False, "4", None, -3])
def test_invalid_player_counts(maker, count):
    with pytest.raises(ValueError) as info:
        maker(count)
    assert "2, 3, 4, 5, 6, 7" in str(info.value), str(info.value)


@pytest.mark.parametrize("maker", MAKERS.values(), ids=MAKERS.keys())
@pytest.mark.parametrize(
    ("options", "allowed"),
    [
        ({"classic_variant": "yes"}, "False, True"),
        ({"classic_variant": None}, "False, True"),
        ({"max_rounds": 0}, "integer >= 1"),
        ({"max_rounds": -5}, "integer >= 1"),
        ({"max_rounds": 2.5}, "integer >= 1"),
        ({"max_rounds": True}, "integer >= 1"),
        ({"max_rounds": "10"}, "integer >= 1"),
        ({"colour": "red"}, "classic_variant, max_rounds"),
        ({"classic": True}, "classic_variant, max_rounds"),
    ],
)
def test_invalid_options(maker, options, allowed):
    with pytest.raises(ValueError) as info:
        maker(4, **options)
    message = str(info.value)
    assert allowed in message, message
    assert next(iter(options)) in message, message


def test_valid_options_are_accepted():
    for n in range(2, 8):
        for classic in (False, True):
            game = Citadels(n, seed=0, classic_variant=classic, max_rounds=1)
            assert game.options == {"classic_variant": classic, "max_rounds": 1}
    assert Citadels(4, max_rounds=np.int64(7)).state.max_rounds == 7


# ----- the adapter's "lose" mode ---------------------------------------------------------------
def drain(env) -> dict[str, float]:
    """Run the AEC loop to its end, stepping None for finished agents; total reward per agent."""
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        _, reward, termination, truncation, _ = env.last()
        totals[agent] += reward
        assert termination or truncation
        env.step(None)
    return totals


@pytest.mark.parametrize("n", [2, 3, 5, 7])
@pytest.mark.parametrize("bad", ["illegal", 376, -1])
def test_illegal_action_lose_mode(n, bad):
    env = citadels_v0.env(num_players=n, illegal_action="lose")
    env.reset(seed=n)
    rng = np.random.default_rng(n)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for _ in range(int(rng.integers(5, 60))):  # some legal play first
        agent = env.agent_selection
        observation, reward, _, _, _ = env.last()
        totals[agent] += reward
        legal = np.flatnonzero(observation["action_mask"])
        env.step(int(rng.choice(legal)))
    offender = env.agent_selection
    game = env.unwrapped.game
    before = snapshot(game)
    mask = env.observe(offender)["action_mask"]
    action = int(np.flatnonzero(mask == 0)[0]) if bad == "illegal" else bad
    env.step(action)
    assert snapshot(game) == before, "the illegal action must not be applied"
    assert all(env.terminations.values()) and not any(env.truncations.values())
    for agent, total in drain(env).items():
        totals[agent] += total
    assert totals[offender] == pytest.approx(-1.0)
    for agent in env.possible_agents:
        if agent != offender:
            assert totals[agent] == pytest.approx(1.0 / (n - 1))
    assert sum(totals.values()) == pytest.approx(0.0, abs=1e-9)
    assert env.agents == []


def test_illegal_action_raise_mode_is_the_default():
    env = citadels_v0.env(num_players=4)
    env.reset(seed=0)
    game = env.unwrapped.game
    before = snapshot(game)
    mask = env.observe(env.agent_selection)["action_mask"]
    with pytest.raises(IllegalActionError):
        env.step(int(np.flatnonzero(mask == 0)[0]))
    assert snapshot(game) == before
    # the env is still usable after the error
    env.step(int(np.flatnonzero(mask)[0]))
    assert len(game.history) == 1
