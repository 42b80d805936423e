"""What every game must do alike: the PettingZoo contract, rejected input, round trips, descriptions.

One test per property, parametrized over `city_envs.GAMES` (test ids are the game names). What differs
between games (player counts, variants, the texts their errors list, where to sample positions) is in
`CASES` below; each game's own folder keeps the tests of its rules and of what only it has. Tests
over player counts run each game's smallest and largest count in the default suite (and every option
once at least); the counts between run with `-m slow`.
"""

from __future__ import annotations

import copy
import functools
import importlib
import json
import pickle
from collections.abc import Callable
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from gymnasium import spaces
from pettingzoo.test import api_test, render_test, seed_test

import city_envs
from city_envs.blue_moon_city.components import COURTYARD_POSITION
from city_envs.core.game import Game, IllegalActionError

from .aec_helpers import run_episode
from .big_city import helpers as big_city_helpers
from .blue_moon_city import helpers as blue_moon_city_helpers
from .citadels import helpers as citadels_helpers
from .game_helpers import (
    assert_rejected,
    assert_same_game,
    json_round_trip,
    play_out,
    random_action,
    same_for,
    snapshot,
)
from .metropolys import helpers as metropolys_helpers
from .urban_sprawl import helpers as urban_sprawl_helpers

# PettingZoo's api_test warns that Dict observation spaces are unusual; they are the contract.
pytestmark = pytest.mark.filterwarnings(
    "ignore:Observation space for each agent:UserWarning", "ignore:Observation is not a NumPy array:UserWarning"
)

Config = tuple[int, dict[str, Any]]  # (num_players, options)


@dataclass(frozen=True)
class Case:
    """One game's parameters for the generic tests."""

    counts: tuple[int, ...]  # the player counts, in the order errors list them
    env_configs: tuple[Config, ...]  # for PettingZoo's api_test and seed_test
    observation_size: int
    num_actions: int
    first_decision: str  # pending at the start of a 2-player game
    bad_options: tuple[tuple[int, dict[str, Any], str], ...]  # (num_players, options, what the error lists)
    illegal_states: Callable[[], list[Game]]  # positions for the illegal-action tests
    illegal_kinds: frozenset[str]  # decisions those positions must include
    after_end_actions: tuple[int, ...]
    round_trip_states: Callable[[int, dict[str, Any]], list[Game]]  # mid-game positions for a config
    check_state: Callable[[Game], Any]  # the game's invariants
    description_states: Callable[[], list[Game]]
    information_states: Callable[[int], list[Game]]  # mid-game positions for n players
    hidden_from: Callable[[Game, int], Any]  # what determinize(p) resamples (it must, now and then)
    image_shape: tuple[int, int, int] | None  # of render_image(); None: it grows with the player count
    image_progress: Callable[[Game], bool]  # the game has moved on visibly since its start
    seat_label: str  # how the ansi text names a seat, with {seat}
    ansi_words: tuple[str, ...]  # more that the ansi text of a new 3-player game shows
    check_determinized: Callable[[Game, Game, int], None] | None = None  # the game's own checks of a twin
    legal_actions_are_public: bool = False  # whether every seat may know the acting seat's legal actions
    seed_test_cycles: int = 500
    reward_options: tuple[dict[str, Any], ...] = ({},)  # with every player count
    score_episodes: int = 1  # reward="score" episodes per player count
    end_options: dict[str, Any] = field(default_factory=dict)  # for a quick random game to its end
    ends_truncated: bool = False  # whether that quick game ends by its safety valve
    lose_prefix: int = 60  # at most this many random decisions before an illegal one (the game must go on)
    round_trip_options: tuple[dict[str, Any], ...] = ({},)  # with every player count
    replay_options: tuple[dict[str, Any], ...] = ({},)  # with every player count
    replay_seeds: tuple[int, ...] = (7,)
    description_kinds: frozenset[str] = frozenset()  # decisions the description positions must include


CASES = {
    "citadels": Case(
        counts=(2, 3, 4, 5, 6, 7),
        env_configs=tuple((n, {"classic_variant": False}) for n in range(2, 8))
        + tuple((n, {"classic_variant": True}) for n in range(4, 8)),
        observation_size=621,
        num_actions=376,
        first_decision="SELECT_CHARACTER",
        bad_options=(
            (4, {"classic_variant": "yes"}, "False, True"),
            (4, {"classic_variant": None}, "False, True"),
            (4, {"max_rounds": 0}, "integer >= 1"),
            (4, {"max_rounds": -5}, "integer >= 1"),
            (4, {"max_rounds": 2.5}, "integer >= 1"),
            (4, {"max_rounds": True}, "integer >= 1"),
            (4, {"max_rounds": "10"}, "integer >= 1"),
            (4, {"colour": "red"}, "classic_variant, max_rounds"),
            (4, {"classic": True}, "classic_variant, max_rounds"),
        ),
        illegal_states=lambda: (
            citadels_helpers.harvest(2, range(3))
            + citadels_helpers.harvest(5, range(3))
            + citadels_helpers.harvest_kind(4, "GRAVEYARD", 1, seed0=900)
        ),
        illegal_kinds=frozenset(
            {"SELECT_CHARACTER", "SELECT_DISCARD", "MAIN", "KEEP_DRAWN", "MAGICIAN_DISCARD", "GRAVEYARD"}
        ),
        after_end_actions=(0, 16, 373, -1),
        round_trip_states=lambda n, options: citadels_helpers.mid_game_states(n, **options),
        check_state=citadels_helpers.check_state,
        description_states=lambda: citadels_helpers.harvest(4, range(2)),
        score_episodes=3,
        replay_seeds=(0, 1, 2),
        information_states=lambda n: citadels_helpers.harvest(n, range(100 * n, 100 * n + 3)),
        hidden_from=lambda game, p: [hand.tolist() for q, hand in enumerate(game.state.hands) if q != p],
        image_shape=None,
        image_progress=lambda game: game.decision_name() == "MAIN",
        seat_label="seat {seat}:",
        ansi_words=("SELECT_CHARACTER", "choosing characters"),
    ),
    "metropolys": Case(
        counts=(2, 3, 4),
        env_configs=tuple((n, {"version": version}) for n in (2, 3, 4) for version in ("family", "expert")),
        observation_size=2164,
        num_actions=69,
        first_decision="NBHD",
        bad_options=(
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
        ),
        illegal_states=lambda: metropolys_helpers.mid_game_states(3, range(2), "family", per_game=4),
        illegal_kinds=frozenset({"NBHD"}),
        after_end_actions=(0,),
        round_trip_states=lambda n, options: metropolys_helpers.mid_game_states(n, range(3), per_game=2, **options),
        check_state=metropolys_helpers.check_state,
        description_states=lambda: metropolys_helpers.mid_game_states(4, range(3), "expert", per_game=4),
        lose_prefix=40,
        reward_options=({"version": "family"}, {"version": "expert"}),
        round_trip_options=({"version": "family"}, {"version": "expert"}),
        replay_options=({"version": "family"}, {"version": "expert"}),
        information_states=lambda n: (
            metropolys_helpers.mid_game_states(n, range(20 * n, 20 * n + 3), "family")
            + metropolys_helpers.mid_game_states(n, range(20 * n, 20 * n + 3), "expert")
        ),
        hidden_from=lambda game, p: [
            metropolys_helpers.secret_cards(game, q) for q in range(game.num_players) if q != p
        ],
        legal_actions_are_public=True,
        image_shape=(640, 1000, 3),
        image_progress=lambda game: bool(game.state.bids),
        seat_label="seat {seat}:",
        ansi_words=("centre:", "north:"),
    ),
    "blue_moon_city": Case(
        counts=(2, 3, 4),
        env_configs=((2, {"center": "fixed"}), (3, {"center": "random"}), (4, {"center": "fixed"})),
        observation_size=2200,
        num_actions=220,
        first_decision="MOVE",
        bad_options=(
            (3, {"center": "open"}, "'fixed', 'random'"),
            (3, {"center": None}, "'fixed', 'random'"),
            (3, {"max_rounds": 0}, "integer >= 1"),
            (3, {"max_rounds": 2.5}, "integer >= 1"),
            (3, {"centre": "fixed"}, "center, max_rounds"),
        ),
        illegal_states=lambda: blue_moon_city_helpers.mid_game_states(3, range(6), per_game=5),
        illegal_kinds=frozenset({"MOVE", "DISCARD"}),
        after_end_actions=(128,),
        round_trip_states=lambda n, options: blue_moon_city_helpers.mid_game_states(n, range(3), per_game=3, **options),
        check_state=blue_moon_city_helpers.check_state,
        description_states=lambda: blue_moon_city_helpers.mid_game_states(4, range(4), per_game=4),
        reward_options=({"max_rounds": 40},),
        end_options={"max_rounds": 3},
        ends_truncated=True,
        round_trip_options=({"max_rounds": 40},),
        replay_options=({"center": "random", "max_rounds": 30},),
        information_states=lambda n: blue_moon_city_helpers.mid_game_states(n, range(30 * n, 30 * n + 8), per_game=3),
        hidden_from=blue_moon_city_helpers.hidden_from,
        check_determinized=blue_moon_city_helpers.check_determinized,
        image_shape=(640, 1000, 3),
        image_progress=lambda game: game.state.figures[0] != COURTYARD_POSITION or game.is_over(),
        seat_label="seat {seat}:",
        ansi_words=("Courtyard",),
    ),
    "big_city": Case(
        counts=(2, 3, 4, 5),
        env_configs=tuple((n, {}) for n in (2, 3, 4, 5)),
        observation_size=3787,
        num_actions=389,
        first_decision="SETUP_TILE",
        bad_options=(
            (3, {"max_rounds": 10}, "allowed: none"),
            (3, {"variant": "x"}, "allowed: none"),
        ),
        illegal_states=lambda: big_city_helpers.mid_game_states(3, range(8), per_game=5),
        illegal_kinds=frozenset({"MAIN", "DRAW"}),
        after_end_actions=(94,),
        round_trip_states=lambda n, options: big_city_helpers.mid_game_states(n, range(4), per_game=3, **options),
        check_state=big_city_helpers.check_state,
        description_states=lambda: big_city_helpers.mid_game_states(4, range(6), per_game=4),
        lose_prefix=40,
        information_states=lambda n: big_city_helpers.mid_game_states(n, range(30 * n, 30 * n + 10), per_game=4),
        hidden_from=big_city_helpers.hidden_from,
        check_determinized=big_city_helpers.check_determinized,
        image_shape=(640, 1000, 3),
        image_progress=lambda game: game.decision_name() == "MAIN",
        seat_label="seat {seat}:",
        ansi_words=("11", "SETUP_TILE"),
    ),
    "urban_sprawl": Case(
        counts=(2, 3, 4),
        env_configs=tuple((n, {"variant": variant}) for n in (2, 3, 4) for variant in ("standard", "long", "short")),
        observation_size=5219,
        num_actions=219,
        first_decision="START_BUY",
        bad_options=(
            (3, {"variant": "medium"}, "'standard', 'long', 'short'"),
            (3, {"variant": None}, "'standard', 'long', 'short'"),
            (3, {"auto_single": 1}, "True, False"),
            (3, {"max_turns": 0}, "integer >= 1"),
            (3, {"lenght": "long"}, "auto_single, max_turns, variant"),
        ),
        illegal_states=lambda: urban_sprawl_helpers.mid_game_states(3, range(6), per_game=5),
        illegal_kinds=frozenset({"MAIN", "INVEST"}),
        after_end_actions=(36,),
        round_trip_states=lambda n, options: urban_sprawl_helpers.mid_game_states(n, range(3), per_game=3, **options),
        check_state=urban_sprawl_helpers.check_state,
        description_states=lambda: urban_sprawl_helpers.mid_game_states(4, range(6), per_game=5),
        seed_test_cycles=300,
        reward_options=({"max_turns": 40},),
        end_options={"max_turns": 3},
        ends_truncated=True,
        round_trip_options=({"max_turns": 60},),
        replay_options=({"variant": "standard"}, {"variant": "long"}, {"variant": "short"}),
        description_kinds=frozenset({"MAIN", "INVEST"}),
        information_states=lambda n: urban_sprawl_helpers.mid_game_states(n, range(30 * n, 30 * n + 8), per_game=3),
        hidden_from=urban_sprawl_helpers.hidden_from,
        check_determinized=urban_sprawl_helpers.check_determinized,
        legal_actions_are_public=True,
        image_shape=(640, 1120, 3),
        image_progress=lambda game: len(game.history) >= 1,  # a starting building bought
        seat_label="seat {seat}:",
        ansi_words=("values", "contract space 1 (1 AP)"),
    ),
}
assert set(CASES) == set(city_envs.GAMES), "every registered game needs a row in CASES"

GAMES = pytest.mark.parametrize("name", city_envs.GAMES)


def ends(case: Case) -> tuple[int, int]:
    """The game's smallest and largest player counts: those the default suite plays."""
    return min(case.counts), max(case.counts)


def slow_unless(default: bool) -> tuple:
    return () if default else (pytest.mark.slow,)


EVERY_COUNT = [
    pytest.param(name, n, id=f"{name}-{n}p", marks=slow_unless(n in ends(case)))
    for name, case in CASES.items()
    for n in case.counts
]


def configs(attribute: str, per_count: bool = True) -> list:
    """pytest params (name, num_players, options) of every game; ids like `metropolys-3p-version=expert`.
    The default suite plays those at the game's smallest and largest counts, and every option at least
    once; the others are `slow`."""
    params = []
    for name, case in CASES.items():
        value = getattr(case, attribute)
        pairs = [(n, options) for n in case.counts for options in value] if per_count else list(value)
        at_ends = [options for n, options in pairs if n in ends(case)]
        for n, options in pairs:
            label = "-".join([name, f"{n}p", *(f"{k}={v}" for k, v in options.items())])
            default = n in ends(case) or options not in at_ends
            params.append(pytest.param(name, n, options, id=label, marks=slow_unless(default)))
    return params


def entry_module(name: str) -> ModuleType:
    """The game's PettingZoo entry module `city_envs.<name>_v0`."""
    return importlib.import_module(f"city_envs.{name}_v0")


@functools.cache
def _illegal_states(name: str) -> tuple[Game, ...]:
    states = tuple(CASES[name].illegal_states())
    assert CASES[name].illegal_kinds <= {game.decision_name() for game in states}
    return states


def illegal_states(name: str) -> list[Game]:
    """Mid-game positions of the decision kinds the game's case names (fresh clones: tests advance them)."""
    return [game.clone() for game in _illegal_states(name)]


# ===== PettingZoo ===============================================================================
@pytest.mark.parametrize(("name", "n", "options"), configs("env_configs", per_count=False))
@pytest.mark.parametrize("entry", ["env", "raw_env"])
def test_api_test(entry, name, n, options):
    api_test(getattr(entry_module(name), entry)(num_players=n, **options), num_cycles=1000)


@pytest.mark.parametrize(("name", "n", "options"), configs("env_configs", per_count=False))
def test_seed_test(name, n, options):
    seed_test(lambda: entry_module(name).env(num_players=n, **options), num_cycles=CASES[name].seed_test_cycles)


@GAMES
def test_env_defaults_and_spaces(name):
    case = CASES[name]
    env = entry_module(name).env()
    assert env.unwrapped.num_players == 4 and env.unwrapped.game_cls.name == name
    env.reset(seed=0)
    observation = env.observe(env.agent_selection)
    assert observation["observation"].shape == (case.observation_size,)
    assert observation["action_mask"].shape == (case.num_actions,)
    assert env.action_space("player_0") == spaces.Discrete(case.num_actions)


@pytest.mark.parametrize(("name", "n", "options"), configs("reward_options"))
def test_rewards(name, n, options):
    """Win rewards are the zero-sum returns; score rewards add up to the final scores plus the returns."""
    rng = np.random.default_rng(n)
    env = entry_module(name).env(num_players=n, **options)
    totals = run_episode(env, rng, seed=n)
    game = env.unwrapped.game
    assert [totals[a] for a in env.possible_agents] == pytest.approx(game.returns())
    assert sum(totals.values()) == pytest.approx(0.0, abs=1e-9)
    for seed in range(n + 1, n + 1 + CASES[name].score_episodes):
        env = entry_module(name).env(num_players=n, reward="score", **options)
        totals = run_episode(env, rng, seed=seed)
        game = env.unwrapped.game
        assert game.is_over()
        for seat, agent in enumerate(env.possible_agents):
            assert totals[agent] == pytest.approx(game.scores()[seat] + game.returns()[seat])


@pytest.mark.parametrize(
    ("kwargs", "allowed"),
    [
        ({"render_mode": "human3d"}, "ansi, rgb_array"),
        ({"reward": "points"}, "win, score"),
        ({"illegal_action": "skip"}, "raise, lose"),
        ({"observation_key": ""}, "other than 'action_mask'"),
        ({"observation_key": "action_mask"}, "other than 'action_mask'"),
        ({"observation_key": 3}, "other than 'action_mask'"),
    ],
    ids=[
        "render_mode",
        "reward",
        "illegal_action",
        "observation_key-empty",
        "observation_key-mask",
        "observation_key-int",
    ],
)
@pytest.mark.parametrize("entry", ["env", "raw_env"])
@GAMES
def test_bad_adapter_arguments(name, entry, kwargs, allowed):
    with pytest.raises(ValueError) as info:
        getattr(entry_module(name), entry)(num_players=4, **kwargs)
    assert allowed in str(info.value), str(info.value)


# ===== rejected input ===========================================================================
def makers(name: str) -> dict[str, Callable[..., Any]]:
    """Every public way to start a match or an env."""
    module = entry_module(name)
    return {
        "Game": lambda n, **kw: city_envs.game_class(name)(n, **kw),
        "make_game": lambda n, **kw: city_envs.make_game(name, n, **kw),
        "make_env": lambda n, **kw: city_envs.make_env(name, n, **kw),
        "env": lambda n, **kw: module.env(num_players=n, **kw),
        "raw_env": lambda n, **kw: module.raw_env(num_players=n, **kw),
    }


@GAMES
def test_illegal_actions_raise_name_the_decision_and_change_nothing(name):
    for game in illegal_states(name):
        illegal = np.flatnonzero(~game.legal_actions())
        for action in illegal[:: max(1, len(illegal) // 30)].tolist():
            assert_rejected(game, action)
        game.apply(random_action(game, np.random.default_rng(0)))  # still accepts a legal action


OUT_OF_RANGE = {
    "-1": lambda size: -1,
    "num_actions": lambda size: size,
    "numpy_num_actions": lambda size: np.int64(size),
    "10**9": lambda size: 10**9,
    "3.5": lambda size: 3.5,
    "'x'": lambda size: "x",
    "None": lambda size: None,
    "[1]": lambda size: [1],
    "True": lambda size: True,
}


@pytest.mark.parametrize("make_action", OUT_OF_RANGE.values(), ids=OUT_OF_RANGE.keys())
@GAMES
def test_out_of_range_actions_raise_and_change_nothing(name, make_action):
    game = city_envs.game_class(name)(2, seed=0)
    assert game.decision_name() == CASES[name].first_decision
    for position in [game, *illegal_states(name)[:8]]:
        assert_rejected(position, make_action(position.num_actions))


@pytest.mark.parametrize("make_action", OUT_OF_RANGE.values(), ids=OUT_OF_RANGE.keys())
@GAMES
def test_out_of_range_actions_are_not_described(name, make_action):
    """Describing an id out of range refuses it (a negative id once described the action counted from the end)."""
    for position in [city_envs.game_class(name)(2, seed=0), *illegal_states(name)[:4]]:
        action = make_action(position.num_actions)
        for describe in (position.describe_action, position.describe_public_action):
            with pytest.raises(IllegalActionError, match="out of range|not an action"):
                describe(action)


@GAMES
def test_numpy_integer_actions_are_accepted(name):
    game = city_envs.game_class(name)(3, seed=0)
    action = np.flatnonzero(game.legal_actions())[0]  # np.int64
    game.apply(action)
    assert game.history == [int(action)] and type(game.history[0]) is int


@GAMES
def test_actions_after_the_end_raise(name):
    case = CASES[name]
    game = play_out(city_envs.game_class(name)(2, seed=0, **case.end_options), np.random.default_rng(0))
    assert game.is_truncated() == case.ends_truncated
    before = snapshot(game)
    for action in case.after_end_actions:
        with pytest.raises(IllegalActionError, match="game is over"):
            game.apply(action)
    assert snapshot(game) == before


@pytest.mark.parametrize("count", [0, 1, "max+1", "max+3", True, False, "3", "4", None, -3])
@GAMES
def test_invalid_player_counts(name, count):
    case = CASES[name]
    count = {"max+1": max(case.counts) + 1, "max+3": max(case.counts) + 3}.get(count, count)
    for maker in makers(name).values():
        with pytest.raises(ValueError) as info:
            maker(count)
        assert ", ".join(map(str, case.counts)) in str(info.value), str(info.value)


BAD_OPTIONS = [
    pytest.param(name, n, options, allowed, id=f"{name}-{n}p-" + ",".join(f"{k}={v!r}" for k, v in options.items()))
    for name, case in CASES.items()
    for n, options, allowed in case.bad_options
]


@pytest.mark.parametrize(("name", "n", "options", "allowed"), BAD_OPTIONS)
def test_invalid_options(name, n, options, allowed):
    for maker in makers(name).values():
        with pytest.raises(ValueError) as info:
            maker(n, **options)
        message = str(info.value)
        assert allowed in message and next(iter(options)) in message, message


def drain(env) -> dict[str, float]:
    """Run the AEC loop of a terminated game to its end, stepping None; total reward per agent."""
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        _, reward, termination, truncation, _ = env.last()
        totals[agent] += reward
        assert termination and not truncation
        env.step(None)
    return totals


@pytest.mark.parametrize("bad", ["masked", "num_actions", "-1"])
@pytest.mark.parametrize(("name", "n"), EVERY_COUNT)
def test_illegal_action_lose_mode(name, n, bad):
    """The offender gets -1, the others share +1, the game ends as a termination and stays untouched."""
    env = entry_module(name).env(num_players=n, illegal_action="lose")
    env.reset(seed=n)
    rng = np.random.default_rng(n)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for _ in range(int(rng.integers(3, CASES[name].lose_prefix))):  # some legal play first
        agent = env.agent_selection
        observation, reward, _, _, _ = env.last()
        totals[agent] += reward
        env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    offender = env.agent_selection
    game = env.unwrapped.game
    assert not game.is_over()
    before = snapshot(game)
    mask = env.observe(offender)["action_mask"]
    action = {"masked": int(np.flatnonzero(mask == 0)[0]), "num_actions": game.num_actions, "-1": -1}[bad]
    env.step(action)
    assert snapshot(game) == before, "the illegal action must not be applied"
    assert all(env.terminations.values()) and not any(env.truncations.values())
    assert not env.observe(offender)["action_mask"].any(), "the offender has lost: nothing is left to choose"
    for agent, total in drain(env).items():
        totals[agent] += total
    assert totals[offender] == pytest.approx(-1.0)
    for agent in env.possible_agents:
        if agent != offender:
            assert totals[agent] == pytest.approx(1.0 / (n - 1))
    assert sum(totals.values()) == pytest.approx(0.0, abs=1e-9)
    assert env.agents == []


@GAMES
def test_illegal_action_raise_mode_is_the_default(name):
    env = entry_module(name).env(num_players=4)
    env.reset(seed=0)
    game = env.unwrapped.game
    before = snapshot(game)
    mask = env.observe(env.agent_selection)["action_mask"]
    with pytest.raises(IllegalActionError):
        env.step(int(np.flatnonzero(mask == 0)[0]))
    assert snapshot(game) == before
    env.step(int(np.flatnonzero(mask)[0]))  # the env is still usable after the error
    assert len(game.history) == 1


# ===== round trips ==============================================================================
@pytest.mark.parametrize(("name", "n", "options"), configs("round_trip_options"))
def test_json_round_trip_mid_game_and_continuation(name, n, options):
    """A loaded position equals its source, and both stay equal to the end (future chance included)."""
    case = CASES[name]
    rng = np.random.default_rng(n)
    states = case.round_trip_states(n, options)
    assert states
    for game in states:
        loaded = json_round_trip(game)
        assert_same_game(game, loaded)
        case.check_state(loaded)
        while not game.is_over():
            action = random_action(game, rng)
            game.apply(action)
            loaded.apply(action)
        assert_same_game(game, loaded)
        assert game.scores() == loaded.scores() and game.winners() == loaded.winners()
        assert game.returns() == loaded.returns()


@pytest.mark.parametrize(("name", "n", "options"), configs("replay_options"))
def test_replay_reproduces_the_final_state(name, n, options):
    game_cls = city_envs.game_class(name)
    for seed in CASES[name].replay_seeds:
        game = play_out(game_cls(n, seed=seed, **options), np.random.default_rng(n))
        again = game_cls.replay(n, seed, game.history, **options)
        assert again.to_dict() == game.to_dict() and again.history == game.history


@GAMES
def test_same_seed_same_setup(name):
    setups = [json.dumps(city_envs.game_class(name)(3, seed=seed).to_dict()["state"]) for seed in (1, 1, 2)]
    assert setups[0] == setups[1] != setups[2]


@pytest.mark.parametrize(("name", "n", "options"), configs("round_trip_options"))
def test_clone_is_independent(name, n, options):
    """Playing a clone to the end leaves the original alone, and advancing the original leaves a clone alone."""
    case = CASES[name]
    rng = np.random.default_rng(n)
    for game in case.round_trip_states(n, options)[:4]:
        before = snapshot(game)
        observations = [game.observation(p) for p in range(n)]
        play_out(game.clone(), rng)
        assert snapshot(game) == before
        assert all(np.array_equal(o, game.observation(p)) for p, o in enumerate(observations))
        case.check_state(game)
        mirror = game.clone()
        game.apply(random_action(game, rng))
        assert snapshot(mirror) == before
        case.check_state(mirror)


COPIERS = {"deepcopy": copy.deepcopy, "pickle": lambda thing: pickle.loads(pickle.dumps(thing))}


@pytest.mark.parametrize("copier", COPIERS.values(), ids=COPIERS.keys())
@pytest.mark.parametrize(("name", "n", "options"), configs("round_trip_options"))
def test_deepcopy_and_pickle_round_trip_and_play_on_alike(name, n, options, copier):
    """A copied match equals its source, shares nothing with it, and both play on to the same end
    (the copy keeps the generator, so future chance agrees too)."""
    case = CASES[name]
    rng = np.random.default_rng(n)
    for game in [city_envs.game_class(name, "python")(n, seed=n, **options), *case.round_trip_states(n, options)[:3]]:
        twin = copier(game)
        assert type(twin) is type(game) and twin.chance._game is twin
        assert_same_game(game, twin)
        case.check_state(twin)
        before = snapshot(twin)
        game.apply(random_action(game, rng))
        assert snapshot(twin) == before
        twin.apply(game.history[-1])
        while not game.is_over():
            action = random_action(game, rng)
            game.apply(action)
            twin.apply(action)
        assert_same_game(game, twin)
        assert game.returns() == twin.returns()


@pytest.mark.parametrize("copier", COPIERS.values(), ids=COPIERS.keys())
@GAMES
def test_env_deepcopy_and_pickle_after_reset_and_mid_game(name, copier):
    rng = np.random.default_rng(1)
    env = city_envs.make_env(name, 3)
    env.reset(seed=5)
    for _ in range(2):
        twin = copier(env)
        assert twin.agent_selection == env.agent_selection
        assert all(np.array_equal(twin.observe(a)["observation"], env.observe(a)["observation"]) for a in env.agents)
        for _ in range(30):  # both play the same actions to the same place; the second copy is mid-game
            observation, *_ = env.last()
            action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
            env.step(action)
            twin.step(action)
            if env.unwrapped.game.is_over():
                break
        assert twin.unwrapped.game.to_dict() == env.unwrapped.game.to_dict()
        assert twin.rewards == env.rewards and twin.agent_selection == env.agent_selection


# ===== information ==============================================================================
@pytest.mark.parametrize(("name", "n"), EVERY_COUNT)
def test_determinize_keeps_what_the_seat_knows(name, n):
    """A determinized twin looks the same to its seat, keeps the game's invariants and plays on, really
    resamples what the seat cannot see, and leaves the original alone."""
    case = CASES[name]
    rng = np.random.default_rng(n)
    states = case.information_states(n)
    resampled = 0
    for game in states:
        before = snapshot(game)
        for p in range(n):
            twin = game.determinize(p, rng)
            assert same_for(game, twin, p)
            assert twin.current_player() == game.current_player() and twin.decision_name() == game.decision_name()
            if case.legal_actions_are_public or game.current_player() == p:
                assert np.array_equal(game.legal_actions(), twin.legal_actions())
            case.check_state(twin)
            if case.check_determinized is not None:
                case.check_determinized(game, twin, p)
            resampled += case.hidden_from(twin, p) != case.hidden_from(game, p)
            for _ in range(40):  # the twin plays on
                if twin.is_over():
                    break
                twin.apply(random_action(twin, rng))
            case.check_state(twin)
        assert snapshot(game) == before
    assert resampled > len(states)


# ===== people ===================================================================================
@pytest.mark.parametrize(("name", "n"), EVERY_COUNT)
def test_image_is_a_fixed_size_rgb_frame_that_follows_the_game(name, n):
    case = CASES[name]
    game = city_envs.game_class(name)(n, seed=n)
    first = game.render_image()
    assert first.dtype == np.uint8 and first.ndim == 3 and first.shape[2] == 3
    assert case.image_shape is None or first.shape == case.image_shape
    rng = np.random.default_rng(0)
    while not case.image_progress(game):
        game.apply(random_action(game, rng))
    image = game.render_image()
    assert image.shape == first.shape and not np.array_equal(first, image)


@GAMES
def test_pettingzoo_render_test_and_human_mode_prints_the_text(name, capsys):
    render_test(lambda render_mode=None: city_envs.make_env(name, 3, render_mode=render_mode))
    env = city_envs.make_env(name, 3, render_mode="human")
    env.reset(seed=0)
    capsys.readouterr()
    assert env.render() is None
    assert capsys.readouterr().out == env.unwrapped.game.render_text() + "\n"


@GAMES
def test_env_render_modes(name):
    case = CASES[name]
    env = city_envs.make_env(name, 3, render_mode="rgb_array")
    env.reset(seed=0)
    frame = env.render()
    assert isinstance(frame, np.ndarray) and frame.dtype == np.uint8
    assert case.image_shape is None or frame.shape == case.image_shape
    env = city_envs.make_env(name, 3, render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert all(case.seat_label.format(seat=seat) in text for seat in range(3)), text
    assert all(word in text for word in case.ansi_words), text


@GAMES
def test_every_legal_action_has_a_distinct_description(name):
    kinds = set()
    for game in CASES[name].description_states():
        texts = [game.describe_action(a) for a in np.flatnonzero(game.legal_actions()).tolist()]
        assert all(texts) and len(set(texts)) == len(texts), texts
        kinds.add(game.decision_name())
    assert CASES[name].description_kinds <= kinds


@pytest.mark.parametrize(("name", "n"), EVERY_COUNT)
def test_standings_rank_as_the_winners_are_chosen(name, n):
    """`standings()` is one key per seat, led by the score, and a match decided by points (not a
    draw for everyone) is won by exactly the seats with the best key."""
    game_cls = city_envs.game_class(name)
    for seed in range(3):
        game = game_cls(n, seed=seed)

        def check(g: Game) -> None:
            keys = g.standings()
            assert len(keys) == n and all(key[0] == score for key, score in zip(keys, g.scores(), strict=True))

        play_out(game, np.random.default_rng(seed), check)
        keys = game.standings()
        if len(game.winners()) < n:
            assert game.winners() == [seat for seat in range(n) if keys[seat] == max(keys)]


@GAMES
@pytest.mark.parametrize("n", [2, 4])
def test_score_parts_add_up_to_the_scores_and_the_result_names_the_winners(name, n):
    names = [f"Seat{seat}" for seat in range(n)]
    for seed in range(3):
        game = play_out(city_envs.game_class(name)(n, seed=seed), np.random.default_rng(seed))
        parts = game.score_parts()
        assert [sum(points for _, points in seat) for seat in parts] == pytest.approx(game.scores())
        assert all(what and isinstance(what, str) for seat in parts for what, _ in seat)
        result = game.describe_result(names)
        winners = " and ".join(names[seat] for seat in game.winners())
        assert result.startswith(winners) or (" tie on " in result and f"; {winners} wins on " in result)


@pytest.mark.parametrize(
    ("winners", "standings", "expected"),
    [
        ([0], [(12, 0), (10, 3), (8, 9)], "A wins with 12 prestige, against 10 for B."),
        ([1], [(10, 5), (10, 7), (8, 9)], "B and A tie on 10 prestige; B wins on buildings built: 7, against 5 for A."),
        ([0, 1], [(10, 7), (10, 7), (8, 9)], "A and B share the victory with 10 prestige, 7 buildings built each."),
        ([2], [(10, 0), (9, 0), (8, 0)], "C wins with 8 prestige."),  # an end the standings do not decide
    ],
)
def test_the_result_says_who_won_and_why(winners, standings, expected):
    game = city_envs.game_class("metropolys")(3, seed=0)
    game.winners, game.standings = (lambda: winners), (lambda: standings)
    assert game.describe_result(["A", "B", "C"]) == expected
