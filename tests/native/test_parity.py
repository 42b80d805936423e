"""Two engines, one truth: every native game plays the same match as the Python engine for the same
seed, decision by decision, and takes hostile input at every door with a clear error.

The default suite plays one match per game and line-up at the game's smallest player count, and one
of the mixed line-up at its largest; `-m slow` plays every count and many more matches (set
CITY_ENVS_PARITY_MATCHES for the count per line-up). Determinization and clones are checked at each
game's smallest count, hostile states at its smallest and largest; `-m slow` checks every count.
"""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

from city_envs.core.game import IllegalActionError, first_difference
from city_envs.core.native import rng_words
from city_envs.core.registry import GAMES, game_class
from tests.native.parity import difference, native_games, pair, play_pair

CASES = [(name, n) for name in native_games() for n in game_class(name, "python").allowed_player_counts()]
IDS = [f"{name}-{n}p" for name, n in CASES]


def default_cases(largest: bool) -> list:
    """`CASES` as pytest params: each game's smallest player count (and its largest with `largest`) in
    the default suite, the other counts behind `slow`."""
    params = []
    for (name, n), case_id in zip(CASES, IDS, strict=True):
        counts = game_class(name, "python").allowed_player_counts()
        default = n == min(counts) or (largest and n == max(counts))
        params.append(pytest.param(name, n, id=case_id, marks=() if default else pytest.mark.slow))
    return params


LINEUPS = {"random": "random", "heuristic": "heuristic", "mixed": None}


def seats(lineup: str, num_players: int) -> list[str]:
    if LINEUPS[lineup] is not None:
        return [lineup] * num_players
    return ["heuristic" if seat % 2 else "random" for seat in range(num_players)]


def one_match_cases() -> list:
    """Every line-up at every game and player count: the default suite plays each game at its smallest
    count with every line-up, and at its largest with the mixed one; the other cases are `slow`."""
    cases = []
    for lineup in LINEUPS:
        for (name, n), case_id in zip(CASES, IDS, strict=True):
            counts = game_class(name, "python").allowed_player_counts()
            default = n == min(counts) or (lineup == "mixed" and n == max(counts))
            cases.append(
                pytest.param(name, n, lineup, id=f"{lineup}-{case_id}", marks=() if default else pytest.mark.slow)
            )
    return cases


@pytest.mark.parametrize(("name", "num_players", "lineup"), one_match_cases())
def test_the_same_match_for_the_same_seed(name, num_players, lineup):
    outcome = play_pair(name, num_players, 0, seats(lineup, num_players))  # `-m slow` plays many more
    assert outcome.difference is None, outcome.difference


@pytest.mark.slow
@pytest.mark.parametrize(("name", "num_players"), CASES, ids=IDS)
@pytest.mark.parametrize("lineup", list(LINEUPS))
def test_many_matches_alike(name, num_players, lineup):
    matches = int(os.environ.get("CITY_ENVS_PARITY_MATCHES", "50"))
    for seed in range(1000, 1000 + matches):
        outcome = play_pair(name, num_players, seed, seats(lineup, num_players), full_every=25)
        assert outcome.difference is None, f"seed {seed}: {outcome.difference}"


def positions(name: str, num_players: int, seed: int, every: int = 7):
    """Pairs of matches (Python, native) at several points of one random match."""
    python, native = pair(name, num_players, seed)
    rng = np.random.default_rng(seed)
    step = 0
    while not python.is_over():
        if step % every == 0:
            yield python, native
        action = int(rng.choice(np.flatnonzero(python.legal_actions())))
        python.apply(action)
        native.apply(action)
        step += 1
    yield python, native


@pytest.mark.parametrize(("name", "num_players"), default_cases(largest=False))
def test_determinize_samples_alike(name, num_players):
    for python, native in positions(name, num_players, seed=3):
        for seat in range(num_players):
            mine, theirs = np.random.default_rng(seat), np.random.default_rng(seat)
            sampled, native_sampled = python.determinize(seat, mine), native.determinize(seat, theirs)
            assert mine.bit_generator.state == theirs.bit_generator.state, "the caller's generator was drawn alike"
            assert native_sampled.seed is None and native_sampled.history == []
            assert difference(sampled, native_sampled) is None


@pytest.mark.parametrize(("name", "num_players"), default_cases(largest=False))
def test_clones_are_independent_and_states_round_trip(name, num_players):
    for python, native in positions(name, num_players, seed=5, every=11):
        twin = native.clone()
        before = native.to_dict()
        legal = np.flatnonzero(twin.legal_actions())
        if len(legal):
            twin.apply(int(legal[-1]))
        assert native.to_dict() == before, "playing a clone changed its original"
        again = type(native).from_dict(python.to_dict())
        assert first_difference(again.to_dict(), before) is None
        assert difference(python, again) is None


@pytest.mark.parametrize(("name", "num_players"), CASES, ids=IDS)
def test_illegal_actions_are_refused_alike(name, num_players):
    python, native = pair(name, num_players, seed=1)
    illegal = np.flatnonzero(~python.legal_actions())
    for action in [int(illegal[0]), -1, python.num_actions, 2**70, 1.0, True, "3", None]:
        with pytest.raises(IllegalActionError) as expected:
            python.apply(action)
        with pytest.raises(IllegalActionError) as got:
            native.apply(action)
        assert str(got.value) == str(expected.value)
    assert difference(python, native) is None
    while not python.is_over():
        action = int(np.flatnonzero(python.legal_actions())[0])
        python.apply(action)
        native.apply(action)
    with pytest.raises(IllegalActionError, match="game is over"):
        native.apply(0)


def exercise(match, num_players: int) -> None:
    """Ask an accepted (perhaps odd) match everything, and play it a little: no crash may follow."""
    out = np.zeros(match.observation_size, dtype=np.float32)
    for _ in range(20):
        match.scores(), match.standings(), match.current_player(), match.decision_name(), match.state_json()
        for seat in range(num_players):
            match.observation(seat, out)
        if match.is_over():
            match.winners()
            return
        legal = np.flatnonzero(np.frombuffer(match.legal_actions(), dtype=bool))
        if len(legal) == 0:
            return
        match.apply(int(legal[0]))


def mutations(value, rng: np.random.Generator, depth: int = 0):
    """`value` with one part replaced by something hostile (huge, negative, wrong type, long)."""
    if isinstance(value, dict) and value:
        key = list(value)[int(rng.integers(len(value)))]
        return {**value, key: mutations(value[key], rng, depth + 1)}
    if isinstance(value, list) and value and rng.random() < 0.7:
        index = int(rng.integers(len(value)))
        return [*value[:index], mutations(value[index], rng, depth + 1), *value[index + 1 :]]
    hostile = [2**40, -1, -(2**40), 10**30, 1.5, "x", None, True, [], {}, [0] * 10_000, list(range(300))]
    if isinstance(value, list) and value:
        hostile += [value * 50, value[:-1], [value]]
    return hostile[int(rng.integers(len(hostile)))]


@pytest.mark.parametrize(("name", "num_players"), default_cases(largest=True))
def test_hostile_states_get_a_value_error_never_a_crash(name, num_players):
    """The C++ door itself (not only the Python validation in front of it) takes broken states."""
    native_type = game_class(name, "native").native_type
    rng = np.random.default_rng(0)
    for python, _ in positions(name, num_players, seed=7, every=15):
        data = python.to_dict()
        options, state = json.dumps(data["options"]), data["state"]
        words = rng_words(data["rng"])
        for _ in range(40):
            try:
                match = native_type.from_json(num_players, options, json.dumps(mutations(state, rng)), words, [])
            except ValueError:
                continue
            exercise(match, num_players)
        for text in ["", "{", "[" * 10_000, '{"a": 1e999}', "null", json.dumps(state)[:-1]]:
            with pytest.raises(ValueError):
                native_type.from_json(num_players, options, text, words, [])


def test_the_command_line_names_the_engine(capsys, monkeypatch):
    from city_envs.cli import main

    monkeypatch.delenv("CITY_ENVS_ENGINE", raising=False)
    assert main(["--engine", "python", "list"]) == 0
    assert all("engine: python" in line for line in capsys.readouterr().out.splitlines() if "(env " in line)
    assert "CITY_ENVS_ENGINE" not in os.environ
    assert main(["list"]) == 0
    listed = capsys.readouterr().out
    for name in native_games():
        assert f"{name}  (env" in listed and "engine: native" in listed.split(f"{name}  (env")[1].splitlines()[0]


def test_an_engine_named_must_exist():
    with pytest.raises(ValueError, match="allowed: native, python"):
        game_class("citadels", "fast")
    for name in GAMES:
        if name not in native_games():
            with pytest.raises(ValueError, match="not available"):
                game_class(name, "native")
        assert game_class(name, "python").__module__.startswith(f"city_envs.{name}")


@pytest.mark.parametrize(("name", "num_players"), CASES, ids=IDS)
def test_a_native_playout_plays_the_moves_a_python_loop_picks(name, num_players):
    python, native = pair(name, num_players, seed=4)
    mine, theirs = np.random.default_rng(8), np.random.default_rng(8)
    assert native.playout(theirs, max_decisions=5) == 5
    for _ in range(5):
        legal = np.flatnonzero(python.legal_actions())
        python.apply(int(legal[mine.integers(len(legal))]))
    assert difference(python, native) is None
    played = native.playout(theirs)
    while not python.is_over():
        legal = np.flatnonzero(python.legal_actions())
        python.apply(int(legal[mine.integers(len(legal))]))
    assert played == len(python.history) - 5 and native.is_over()
    assert mine.bit_generator.state == theirs.bit_generator.state
    assert difference(python, native) is None


@pytest.mark.parametrize(("name", "num_players"), CASES, ids=IDS)
def test_both_engines_playouts_play_the_same_moves(name, num_players):
    """`Game.playout` (Python) and `NativeGame.playout` (C++): the same moves with the same draws."""
    python, native = pair(name, num_players, seed=6)
    mine, theirs = np.random.default_rng(3), np.random.default_rng(3)
    assert python.playout(mine, max_decisions=7) == native.playout(theirs, max_decisions=7) == 7
    assert python.playout(mine, max_decisions=0) == native.playout(theirs, max_decisions=0) == 0
    assert python.playout(mine) == native.playout(theirs) and native.is_over()
    assert mine.bit_generator.state == theirs.bit_generator.state
    assert difference(python, native) is None


@pytest.mark.parametrize(("name", "num_players"), CASES, ids=IDS)
def test_matches_copy_and_pickle_whole(name, num_players):
    import copy
    import pickle

    for _, native in positions(name, num_players, seed=6, every=40):
        for twin in (copy.deepcopy(native), copy.copy(native), pickle.loads(pickle.dumps(native))):
            assert type(twin) is type(native) and twin.to_dict() == native.to_dict()
    assert pickle.loads(pickle.dumps(type(native))) is type(native)
