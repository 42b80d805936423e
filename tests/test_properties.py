"""Property-based tests (hypothesis) of the two doors every game shares: actions and stored states.

- Any Python or numpy value thrown at `Game.apply` or `env.step` is either an integer naming a
  legal action, or refused by type or legality with nothing changed.
- Any one value of a stored state replaced by another is either refused by `from_dict` with a
  `ValueError`/`TypeError`, or loads a match that still observes, renders and plays on.
- Interleavings of apply / clone / to_dict / from_dict / determinize keep every copy equal to what
  it should be and isolated from the others (a stateful machine per game).
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from hypothesis.stateful import Bundle, RuleBasedStateMachine, invariant, rule

import city_envs
from city_envs.core.game import Game, IllegalActionError
from city_envs.core.registry import game_class, make_raw_env

from .game_helpers import mid_game_states, random_action, snapshot

GAMES = pytest.mark.parametrize("name", city_envs.GAMES)
SLOW = settings(max_examples=400)


@cache
def sample_states(name: str) -> tuple[Game, ...]:
    """A few mid-game positions of `name` at its smallest and largest player counts, and a finished one."""
    cls = game_class(name)
    found = []
    for n in (cls.min_players, cls.max_players):
        found += mid_game_states(cls, n, range(2), per_game=2, horizon=120)
    finished = cls(cls.min_players, seed=3)
    rng = np.random.default_rng(3)
    while not finished.is_over():
        finished.apply(random_action(finished, rng))
    return (*found, finished)


# ----- actions ---------------------------------------------------------------------------------
INTEGER_DTYPES = [np.dtype(t) for t in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")]
OTHER_DTYPES = [np.dtype(t) for t in ("float16", "float32", "float64", "bool", "complex64")]

action_values = st.one_of(
    st.integers(-(2**70), 2**70),
    st.integers(0, 400),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.none(),
    st.text(max_size=4),
    st.complex_numbers(),
    st.lists(st.integers(0, 400), max_size=2),
    st.sampled_from(INTEGER_DTYPES + OTHER_DTYPES).flatmap(hnp.from_dtype),
    st.sampled_from(INTEGER_DTYPES + OTHER_DTYPES).flatmap(lambda dtype: hnp.arrays(dtype, shape=())),
    st.sampled_from(INTEGER_DTYPES).flatmap(lambda dtype: hnp.arrays(dtype, shape=st.sampled_from([(1,), (1, 1)]))),
)


def is_integer_action(value: Any) -> bool:
    if isinstance(value, np.ndarray):
        return value.ndim == 0 and value.dtype.kind in "iu"
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def check_action(game: Game, value: Any) -> None:
    """Accepted exactly when an integer names a legal action; refused without any change otherwise."""
    before = snapshot(game)
    legal = (
        not game.is_over()
        and is_integer_action(value)
        and 0 <= int(value) < game.num_actions
        and bool(game.legal_actions()[int(value)])
    )
    if legal:
        game.apply(value)
        assert game.history[-1] == int(value) and type(game.history[-1]) is int
        return
    with pytest.raises(IllegalActionError) as refused:
        game.apply(value)
    if not is_integer_action(value) and not game.is_over():
        assert type(value).__name__ in str(refused.value) and game.decision_name() in str(refused.value)
    assert snapshot(game) == before


@GAMES
@given(data=st.data())
def test_any_value_thrown_at_apply(name, data):
    game = data.draw(st.sampled_from(sample_states(name))).clone()
    check_action(game, data.draw(action_values))


@pytest.mark.slow
@GAMES
@SLOW
@given(data=st.data())
def test_any_value_thrown_at_apply_many(name, data):
    game = data.draw(st.sampled_from(sample_states(name))).clone()
    check_action(game, data.draw(action_values))


def env_fields(env) -> str:
    return json.dumps(
        [
            env.rewards,
            env._cumulative_rewards,
            env.terminations,
            env.truncations,
            {a: repr(i) for a, i in env.infos.items()},
            env.agent_selection,
            env.agents,
            env.game.to_dict(),
        ],
        sort_keys=True,
    )


@GAMES
@given(data=st.data())
def test_any_value_thrown_at_env_step(name, data):
    """`illegal_action="raise"`: a refused step changes nothing; `"lose"`: it ends the game, never escapes."""
    mode = data.draw(st.sampled_from(["raise", "lose"]))
    env = make_raw_env(name, game_class(name).min_players, illegal_action=mode, reward="score")
    env.reset(seed=data.draw(st.integers(0, 3)))
    rng = np.random.default_rng(0)
    for _ in range(data.draw(st.integers(0, 30))):
        if env.game.is_over():
            break
        env.step(random_action(env.game, rng))
    if env.game.is_over():
        return
    value = data.draw(action_values)
    agent = env.agent_selection
    mask = env.game.legal_actions()
    legal = is_integer_action(value) and 0 <= int(value) < env.num_actions and bool(mask[int(value)])
    before = env_fields(env)
    if legal:
        env.step(value)
    elif mode == "raise":
        with pytest.raises(IllegalActionError):
            env.step(value)
        assert env_fields(env) == before
    else:
        env.step(value)
        assert env.terminations[agent] and env._cumulative_rewards[agent] == -1.0
        assert "illegal_action" in env.infos[agent]


# ----- mutated states --------------------------------------------------------------------------
def leaves(value: Any, path: tuple = ()) -> list[tuple]:
    """Paths to every scalar (and every empty container) of a to_dict() tree."""
    if isinstance(value, dict) and value:
        return [p for key, item in value.items() for p in leaves(item, (*path, key))]
    if isinstance(value, list) and value:
        return [p for i, item in enumerate(value) for p in leaves(item, (*path, i))]
    return [path]


def replaced(data: Any, path: tuple, new: Any) -> Any:
    if not path:
        return new
    head, *rest = path
    data[head] = replaced(data[head], tuple(rest), new)
    return data


replacement_values = st.one_of(
    st.integers(-5, 5),
    st.integers(-3, 150),
    st.integers(-(2**40), 2**40),
    st.booleans(),
    st.none(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=3),
    st.lists(st.integers(-2, 120), max_size=3),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)


def check_mutated_load(game: Game, path: tuple, new: Any) -> None:
    """Refused with ValueError/TypeError, or loaded as a match that observes, renders and plays on."""
    data = replaced(game.to_dict(), path, new)
    try:
        loaded = type(game).from_dict(data)
    except (ValueError, TypeError):
        return
    loaded.validate()
    for seat in range(loaded.num_players):
        assert loaded.observation(seat).shape == loaded.observation_shape
        loaded.view(seat)
    loaded.render_text()
    assert snapshot(type(loaded).from_dict(loaded.to_dict())) == snapshot(loaded)
    rng = np.random.default_rng(0)
    for _ in range(40):
        if loaded.is_over():
            break
        loaded.apply(random_action(loaded, rng))
        loaded.validate()


@GAMES
@given(data=st.data())
def test_mutated_states_are_refused_or_play_on(name, data):
    game = data.draw(st.sampled_from(sample_states(name)))
    path = data.draw(st.sampled_from(leaves(game.to_dict())))
    check_mutated_load(game, path, data.draw(replacement_values))


@pytest.mark.slow
@GAMES
@SLOW
@given(data=st.data())
def test_mutated_states_are_refused_or_play_on_many(name, data):
    game = data.draw(st.sampled_from(sample_states(name)))
    path = data.draw(st.sampled_from(leaves(game.to_dict())))
    check_mutated_load(game, path, data.draw(replacement_values))


# ----- interleavings ---------------------------------------------------------------------------
class MatchMachine(RuleBasedStateMachine):
    """Copies of one match made every way; each must keep exactly the state its own moves gave it."""

    game_name = "citadels"
    matches = Bundle("matches")

    def __init__(self) -> None:
        super().__init__()
        self.expected: dict[int, tuple[Game, str]] = {}

    def remember(self, game: Game) -> Game:
        self.expected[id(game)] = (game, snapshot(game))
        return game

    @rule(target=matches, seed=st.integers(0, 5), small=st.booleans())
    def new_match(self, seed, small):
        cls = game_class(self.game_name)
        return self.remember(cls(cls.min_players if small else cls.max_players, seed=seed))

    @rule(game=matches, choice=st.integers(0, 10**6), steps=st.integers(1, 12))
    def play(self, game, choice, steps):
        rng = np.random.default_rng(choice)
        for _ in range(steps):
            if game.is_over():
                break
            game.apply(random_action(game, rng))
        self.remember(game)

    @rule(target=matches, game=matches)
    def clone(self, game):
        twin = game.clone()
        assert snapshot(twin) == snapshot(game)
        return self.remember(twin)

    @rule(target=matches, game=matches, through_json=st.booleans())
    def round_trip(self, game, through_json):
        data = game.to_dict()
        if through_json:
            data = json.loads(json.dumps(data))
        loaded = type(game).from_dict(data)
        assert snapshot(loaded) == snapshot(game)
        assert np.array_equal(loaded.legal_actions(), game.legal_actions())
        return self.remember(loaded)

    @rule(target=matches, game=matches, seat=st.integers(0, 6), seed=st.integers(0, 10**6))
    def determinize(self, game, seat, seed):
        seat %= game.num_players
        twin = game.determinize(seat, np.random.default_rng(seed))
        twin.validate()
        assert twin.history == [] and twin.seed is None
        assert twin.is_over() == game.is_over() and twin.current_player() == game.current_player()
        assert np.array_equal(twin.observation(seat), game.observation(seat))
        return self.remember(twin)

    @rule(game=matches)
    def verify_history(self, game):
        if game.seed is not None:
            type(game).from_dict(game.to_dict(), verify_history=True)

    @invariant()
    def every_copy_keeps_its_own_state(self):
        for game, frozen in self.expected.values():
            assert snapshot(game) == frozen, f"a {game.name} copy changed without a move of its own"
            game.validate()


def machine_for(name: str, slow: bool = False) -> type:
    machine = type(f"{name}_machine", (MatchMachine,), {"game_name": name})
    case = machine.TestCase
    case.settings = (
        settings(max_examples=150, stateful_step_count=40) if slow else settings(max_examples=8, stateful_step_count=12)
    )
    return pytest.mark.slow(case) if slow else case


TestCitadelsInterleavings = machine_for("citadels")
TestMetropolysInterleavings = machine_for("metropolys")
TestBlueMoonCityInterleavings = machine_for("blue_moon_city")
TestBigCityInterleavings = machine_for("big_city")
TestUrbanSprawlInterleavings = machine_for("urban_sprawl")
TestCitadelsInterleavingsMany = machine_for("citadels", slow=True)
TestMetropolysInterleavingsMany = machine_for("metropolys", slow=True)
TestBlueMoonCityInterleavingsMany = machine_for("blue_moon_city", slow=True)
TestBigCityInterleavingsMany = machine_for("big_city", slow=True)
TestUrbanSprawlInterleavingsMany = machine_for("urban_sprawl", slow=True)
