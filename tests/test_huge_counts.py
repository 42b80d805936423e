"""Every count and size a saved game holds is bounded before anything is allocated: a huge or negative
integer in any field of any game's state is refused (or accepted) by `from_dict` at once, never a
MemoryError, an OverflowError, a RecursionError or seconds of work (a 2 KB file must not exhaust memory).
"""

from __future__ import annotations

import contextlib
import copy
import os
import resource
import time
from collections.abc import Iterator
from functools import cache

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

import city_envs
from city_envs.core.registry import game_class, make_game

from .game_helpers import random_action

HUGE = [2**31, 2**40, 2**63, 10**30, -1, -(2**40)]
SECONDS = 2.0  # a refusal takes milliseconds; building the list of 2**40 cards took 10 s to fail
HEADROOM = 1 << 28  # address space a refusal may add before the cap stops a runaway allocation


@contextlib.contextmanager
def memory_cap() -> Iterator[None]:
    """The process may grow by at most HEADROOM bytes of address space inside the block (a bomb ends in
    MemoryError there instead of taking the machine's memory)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    with open("/proc/self/statm") as handle:
        size = int(handle.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    resource.setrlimit(resource.RLIMIT_AS, (size + HEADROOM, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def integer_paths(value: object, path: tuple = ()) -> Iterator[tuple]:
    """The path of every integer (not bool) inside nested dicts and lists."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from integer_paths(item, (*path, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from integer_paths(item, (*path, i))
    elif isinstance(value, int) and not isinstance(value, bool):
        yield path


@cache
def positions(name: str) -> list[dict]:
    """Real positions of `name` at its fewest and most seats: the start, and mid-game states."""
    cls = game_class(name)
    found = []
    for n in (cls.allowed_player_counts()[0], cls.allowed_player_counts()[-1]):
        game = make_game(name, n, seed=3)
        rng = np.random.default_rng(3)
        for step in range(120):
            if game.is_over():
                break
            if step in (0, 25, 60, 119):
                found.append(game.to_dict())
            game.apply(random_action(game, rng))
    return found


def load_with(name: str, data: dict, path: tuple, value: int) -> str:
    data = copy.deepcopy(data)
    target = data["state"]
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    started = time.perf_counter()
    with memory_cap():
        try:
            game_class(name).from_dict(data)
            outcome = "accepted"
        except ValueError:
            outcome = "refused"
    assert time.perf_counter() - started < SECONDS, f"{name} state{list(path)} = {value}: too slow"
    return outcome


@pytest.mark.parametrize("name", city_envs.GAMES)
@settings(  # a bomb fails the test at once: no shrinking (it would set off the bomb again and again)
    max_examples=150, deadline=None, phases=[Phase.generate], suppress_health_check=[HealthCheck.too_slow]
)
@given(data=st.data())
def test_a_huge_integer_in_any_field_is_refused_at_once(name, data):
    states = positions(name)
    state = data.draw(st.sampled_from(states), label="position")
    fields: dict[tuple, list[tuple]] = {}  # each field equally likely, however many entries its lists hold
    for found in integer_paths(state["state"]):
        fields.setdefault(tuple("#" if isinstance(key, int) else key for key in found), []).append(found)
    field = data.draw(st.sampled_from(sorted(fields, key=str)), label="field")
    path = data.draw(st.sampled_from(fields[field]), label="entry")
    load_with(name, state, path, data.draw(st.sampled_from(HUGE), label="value"))


@pytest.mark.parametrize(
    "path", [("discard", 0), ("hands", 0, 0), ("hands", 1, 21)], ids=["discard", "hands", "hands_last"]
)
def test_blue_moon_city_card_counts_are_bounded_before_cards_are_made(path):
    state = positions("blue_moon_city")[1]
    for value in (2**40, 11):
        with pytest.raises(ValueError, match=rf"{path[0]}.*outside 0\.\.10"):
            data = copy.deepcopy(state)
            target = data["state"]
            for key in path[:-1]:
                target = target[key]
            target[path[-1]] = value
            started = time.perf_counter()
            with memory_cap():
                game_class("blue_moon_city").from_dict(data)
        assert time.perf_counter() - started < SECONDS


def test_blue_moon_city_committed_payment_is_bounded():
    game = make_game("blue_moon_city", 2, seed=0)
    rng = np.random.default_rng(0)
    while game.decision_name() != "PAY":
        game.apply(random_action(game, rng))
        assert not game.is_over(), "no payment in this match: pick another seed"
    data = game.to_dict()
    data["state"]["payment"]["committed"][0] = 2**40
    with memory_cap(), pytest.raises(ValueError, match=r"payment\.committed\[0\].*outside 0\.\.10"):
        game_class("blue_moon_city").from_dict(data)


@pytest.mark.parametrize("value", [2**31, 10**30])
def test_urban_sprawl_decision_is_checked_before_its_context_names_it(value):
    data = copy.deepcopy(positions("urban_sprawl")[1])
    data["state"]["decision"] = value
    with pytest.raises(ValueError, match=r"'decision'.*outside"):
        game_class("urban_sprawl").from_dict(data)
