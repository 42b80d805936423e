"""The native match's legal set is computed once per state and carried by clones: no read may find a
stale one. Each test fills it first (`legal_actions()`), then changes the state (apply, determinize, a
clone's apply, a playout) and compares what every reader of the set answers with the Python engine.
"""

from __future__ import annotations

import numpy as np
import pytest

from city_envs.agents.registry import heuristic_class
from city_envs.core.infoset import InfoSet
from city_envs.core.registry import game_class
from tests.native.parity import difference, native_games, pair

CASES = [
    (name, n)
    for name in native_games()
    for n in sorted({game_class(name, "python").min_players, game_class(name, "python").max_players})
]
IDS = [f"{name}-{n}p" for name, n in CASES]


def fill(game) -> np.ndarray:
    """The position's legal mask, read through the native match (so its legal set is known)."""
    return np.frombuffer(game._match.legal_actions(), dtype=bool)


def walk(name: str, num_players: int, seed: int, every: int = 9):
    """(Python, native, a random legal action) at every `every`-th position of one random match, the
    native match's legal set filled; the pair then advances by that action."""
    python, native = pair(name, num_players, seed)
    chooser = np.random.default_rng(seed)
    step = 0
    while not python.is_over():
        fill(native)
        action = int(chooser.choice(np.flatnonzero(python.legal_actions())))
        if step % every == 0:
            yield python, native, action
        python.apply(action)
        native.apply(action)
        step += 1


@pytest.mark.parametrize(("name", "num_players"), CASES, ids=IDS)
def test_after_apply_every_reader_sees_the_new_position(name, num_players):
    python, native = pair(name, num_players, seed=2)
    chooser = np.random.default_rng(2)
    while not python.is_over():
        assert np.array_equal(fill(native), python.legal_actions())
        legal = np.flatnonzero(python.legal_actions())
        assert all(native._match.is_legal(int(a)) == bool(python.legal_actions()[a]) for a in range(python.num_actions))
        action = int(legal[chooser.integers(len(legal))])
        python.apply(action)
        native.apply(action)
    assert not fill(native).any() and not native._match.apply(0), "a finished match has no legal action"


@pytest.mark.parametrize(("name", "num_players"), CASES, ids=IDS)
def test_a_determinization_has_its_own_legal_set(name, num_players):
    for python, native, _ in walk(name, num_players, seed=3, every=13):
        for seat in range(num_players):
            mine, theirs = np.random.default_rng(seat), np.random.default_rng(seat)
            sampled, native_sampled = python.determinize(seat, mine), native.determinize(seat, theirs)
            assert np.array_equal(fill(native_sampled), sampled.legal_actions()), (seat, native.history)
            assert difference(sampled, native_sampled, full=False) is None


@pytest.mark.parametrize(("name", "num_players"), CASES, ids=IDS)
def test_a_clone_carries_the_legal_set_and_forgets_it_when_played_on(name, num_players):
    for python, native, action in walk(name, num_players, seed=4, every=13):
        assert np.array_equal(fill(native.clone()), python.legal_actions())
        twin = native.clone()
        twin.apply(action)
        after = python.clone()
        after.apply(action)
        assert np.array_equal(fill(twin), after.legal_actions())
        assert np.array_equal(fill(native), python.legal_actions()), "playing a clone changed its original"
        assert difference(after, twin, full=False) is None and difference(python, native, full=False) is None


@pytest.mark.parametrize(("name", "num_players"), CASES, ids=IDS)
def test_a_playout_starts_and_ends_on_the_right_legal_set(name, num_players):
    for python, native, _ in walk(name, num_players, seed=5, every=23):
        mine, theirs = np.random.default_rng(1), np.random.default_rng(1)
        played, copy = python.clone(), native.clone()
        assert played.playout(mine, max_decisions=3) == copy.playout(theirs, max_decisions=3)
        assert np.array_equal(fill(copy), played.legal_actions())
        assert difference(played, copy, full=False) is None


@pytest.mark.parametrize(("name", "num_players"), CASES, ids=IDS)
def test_the_heuristic_picks_from_the_position_it_is_asked_about(name, num_players):
    """Asked of a clone that carries the legal set, and of a clone played on from a filled position."""
    if not hasattr(game_class(name, "native").native_type, "heuristic_action"):
        pytest.skip(f"{name} has no native heuristic")
    agent_class = heuristic_class(name)
    for python, native, action in walk(name, num_players, seed=6, every=3):
        seat = python.current_player()
        mine, theirs = agent_class(7, native=False), np.random.default_rng(7)
        assert native.clone().heuristic_action(theirs) == mine.act(InfoSet(python, seat)), native.history
        assert theirs.bit_generator.state == mine.rng.bit_generator.state
        twin = native.clone()
        twin.apply(action)
        after = python.clone()
        after.apply(action)
        if after.is_over():
            continue
        seat = after.current_player()
        mine, theirs = agent_class(8, native=False), np.random.default_rng(8)
        assert twin.heuristic_action(theirs) == mine.act(InfoSet(after, seat)), twin.history
        assert theirs.bit_generator.state == mine.rng.bit_generator.state
