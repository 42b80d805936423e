"""Every game's `copy_state` covers every field of its `State`, and the copy shares nothing mutable.

`copy_state` is written field by field for speed (a deep copy is several times slower), so a field
added to a `State` and forgotten there would silently keep its default in every clone, or a field
copied by reference would let a search's simulations write into the real match. This test reads the
fields from the dataclass itself, so it needs no update when a game's state grows.
"""

from __future__ import annotations

import copy
import dataclasses
import importlib

import numpy as np
import pytest

from city_envs.core.registry import GAMES, game_class

MUTABLE = (list, dict, set, bytearray, np.ndarray)


def positions(name: str, num_players: int, seed: int = 0, every: int = 7) -> list:
    """States met along a random match (its start and end included), so that most fields hold
    something other than their defaults at some point."""
    rng = np.random.default_rng(seed)
    game = game_class(name, "python")(num_players, seed=seed)
    states = [game.clone().state]
    while not game.is_over():
        legal = game.legal_action_ids()
        game.apply(int(legal[rng.integers(len(legal))]))
        if len(game.history) % every == 0:
            states.append(game.clone().state)
    return [*states, game.state]


def view_module(name: str):
    return importlib.import_module(f"city_envs.{name}.view")


def equal(a, b) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and np.array_equal(a, b)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(equal(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def shared_mutables(a, b, path: str, allowed: frozenset = frozenset()) -> list[str]:
    """Where the copy `b` holds the very same mutable object as the original `a` (a dataclass's fields
    named in `allowed` left out)."""
    if isinstance(a, MUTABLE) and a is b:
        return [path]
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return [p for i, (x, y) in enumerate(zip(a, b, strict=False)) for p in shared_mutables(x, y, f"{path}[{i}]")]
    if isinstance(a, dict) and isinstance(b, dict):
        return [p for k in a.keys() & b.keys() for p in shared_mutables(a[k], b[k], f"{path}[{k!r}]")]
    if dataclasses.is_dataclass(a) and not isinstance(a, type) and type(a) is type(b):
        return [
            p
            for f in dataclasses.fields(a)
            if f.name not in allowed
            for p in shared_mutables(getattr(a, f.name), getattr(b, f.name), f"{path}.{f.name}")
        ]
    return []


def compared_fields(state) -> list[str]:
    """The fields that make up the position (a game's derived memos are declared `compare=False`)."""
    return [f.name for f in dataclasses.fields(state) if f.compare]


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("num_players", [2, 4])
def test_copy_state_copies_every_field_and_shares_only_what_it_declares(name, num_players):
    view = view_module(name)
    shared = getattr(view, "SHARED_BY_COPIES", frozenset())
    states = positions(name, num_players)
    assert shared <= {f.name for f in dataclasses.fields(states[0])}, f"{name}: SHARED_BY_COPIES names no field"
    for state in states:
        copy = view.copy_state(state)
        assert type(copy) is type(state)
        differ = [f.name for f in dataclasses.fields(state) if not equal(getattr(state, f.name), getattr(copy, f.name))]
        assert not differ, f"{name}: copy_state does not copy {differ}"
        leaks = shared_mutables(state, copy, "state", shared)
        assert not leaks, f"{name}: the copy shares {leaks} (copy them, or declare them in SHARED_BY_COPIES)"


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("num_players", [2, 4])
def test_playing_a_copy_to_the_end_never_changes_its_original(name, num_players):
    """What the declared sharing promises: whatever a search does with a copy, the match it came from
    holds the same position (every compared field, the shared ones included)."""
    view = view_module(name)
    rng = np.random.default_rng(1)
    for state in positions(name, num_players, seed=1, every=11):
        before = copy.deepcopy(state)
        game = game_class(name, "python")(num_players, seed=0)
        game.state = view.copy_state(state)
        while not game.is_over():
            legal = game.legal_action_ids()
            game.apply(int(legal[rng.integers(len(legal))]))
        changed = [f for f in compared_fields(state) if not equal(getattr(state, f), getattr(before, f))]
        assert not changed, f"{name}: playing a copy changed the original's {changed}"
