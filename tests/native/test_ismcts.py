"""The native ISMCTS (native/core/ismcts.hpp) against agents/ismcts.py's search on the same native match:
the same move, the same iterations and root values, and the agent's generator left in the same state,
for every option; its budgets; blind to what the seat cannot see; every bad argument refused.

Each position is searched by two agents seeded alike: one running the Python search (`native=False`;
its heuristic picks, determinizations and random playouts are the native engine's, already proven equal
to Python's), one whose Python search fails, so that its move must come from C++.
"""

from __future__ import annotations

import ctypes
import itertools
import math
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest

from city_envs.agents.ismcts import ISMCTSAgent
from city_envs.agents.registry import heuristic_class
from city_envs.core.infoset import InfoSet
from city_envs.core.native import NativeGame
from city_envs.core.registry import game_class
from tests.native.parity import mixed_positions, native_games, pair, random_positions

pytestmark = pytest.mark.skipif(not native_games(), reason="the native engine is not built")

GAMES = native_games()
# one larger player count per game
LARGER = {"citadels": 5, "metropolys": 4, "blue_moon_city": 3, "big_city": 4, "urban_sprawl": 4}
# every combination of the options that change what the search draws or computes
OPTIONS = [
    {"rollout": rollout, "opponents": opponents, "bias": bias, "max_rollout": max_rollout}
    for rollout, opponents, bias, max_rollout in itertools.product(
        ("random", "heuristic"), ("search", "heuristic"), (0.0, 1.0), (None, 6)
    )
]
# the default run's: each value of each option at least once, the agent's defaults among them
FAST_OPTIONS = [
    {"rollout": "heuristic", "opponents": "heuristic", "bias": 1.0, "max_rollout": 40},
    {"rollout": "random", "opponents": "search", "bias": 0.0, "max_rollout": None},
    {"rollout": "heuristic", "opponents": "search", "bias": 1.0, "max_rollout": 4},
]


class PythonOnly(ISMCTSAgent):
    """The Python search, whatever the match."""

    def __init__(self, seed: Any, **options: Any) -> None:
        super().__init__(seed, native=False, **options)


class NativeOnly(ISMCTSAgent):
    """The native search: its Python search fails if asked."""

    def _iterate(self, *args: Any) -> None:
        raise AssertionError("the native engine did not search")


def with_choice(position: NativeGame) -> bool:
    return len(position.legal_action_ids()) >= 2


def positions(name: str, num_players: int, seed: int, count: int) -> list[NativeGame]:
    """`count` positions with a choice: half along a random match, half along a heuristic-and-random one."""
    along_random = random_positions(name, num_players, seed, with_choice)
    along_mixed = mixed_positions(name, heuristic_class(name), num_players, seed, every=3)
    chooser = np.random.default_rng(seed)
    half = count // 2
    picked = [along_random[i] for i in sorted(chooser.choice(len(along_random), half, replace=False))]
    return picked + [along_mixed[i] for i in sorted(chooser.choice(len(along_mixed), count - half, replace=False))]


def assert_searches_as_python(
    positions: Sequence[NativeGame], options: Sequence[dict[str, Any]], iters: int, where: object
) -> None:
    """At each position and for each options, the native search's move, iterations, root values and
    generator state equal the Python search's."""
    for k, position in enumerate(positions):
        seat = position.current_player()
        for settings in options:
            seed = 100 * k + len(settings)
            python, native = PythonOnly(seed, iters=iters, **settings), NativeOnly(seed, iters=iters, **settings)
            here = (where, k, settings, position.to_dict()["history"])
            assert native.act(InfoSet(position, seat)) == python.act(InfoSet(position, seat)), here
            assert native.rng.bit_generator.state == python.rng.bit_generator.state, here
            assert (native.last_iterations, native.last_values) == (python.last_iterations, python.last_values), here
            assert list(native.last_values) == list(python.last_values), here  # tried in the same order


@pytest.mark.parametrize("name", GAMES)
def test_the_search_decides_as_python(name: str) -> None:
    assert_searches_as_python(positions(name, 2, 3, 2), FAST_OPTIONS, 12, name)


@pytest.mark.parametrize("name", GAMES)
def test_every_option_at_two_and_more_players(name: str) -> None:
    """Every option combination once, at 2 players and the larger count, short budgets."""
    for num_players in (2, LARGER[name]):
        position = positions(name, num_players, 7, 2)[num_players % 2]
        assert_searches_as_python([position], OPTIONS, 5, (name, num_players))


@pytest.mark.slow
@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("larger", [False, True])
def test_broad_sweep_searches_as_python(name: str, larger: bool) -> None:
    num_players = LARGER[name] if larger else 2
    for seed in range(3):
        assert_searches_as_python(positions(name, num_players, 50 + seed, 4), OPTIONS, 25, (name, num_players, seed))


@pytest.mark.slow
@pytest.mark.parametrize("name", GAMES)
def test_the_default_agent_along_a_match(name: str) -> None:
    """The default agent (200 iterations) at every fifth decision of a mixed match, at 2 and 4-ish players."""
    for num_players in (2, LARGER[name]):
        sampled = mixed_positions(name, heuristic_class(name), num_players, 11, every=5)
        assert_searches_as_python(sampled[:: max(1, len(sampled) // 6)], [{}], 200, (name, num_players))


def test_the_defaults_reach_the_native_search() -> None:
    """A default agent (as the registry makes it) searches natively: the same move and state as Python's."""
    position = positions(GAMES[0], 2, 1, 1)[0]
    seat = position.current_player()
    mine, theirs = NativeOnly(5, iters=10), PythonOnly(5, iters=10)
    assert mine.act(InfoSet(position, seat)) == theirs.act(InfoSet(position, seat))
    assert mine.rng.bit_generator.state == theirs.rng.bit_generator.state and mine.last_iterations == 10


def test_a_forced_move_is_played_without_a_search_or_a_draw() -> None:
    name = GAMES[0]
    _, native = pair(name, 2, 0)
    chooser = np.random.default_rng(0)
    while len(native.legal_action_ids()) != 1:
        native.apply(int(chooser.choice(native.legal_action_ids())))
    rng = np.random.default_rng(1)
    before = rng.bit_generator.state
    found = native.ismcts_action(native.current_player(), rng, True, iters=5)
    assert found == (native.legal_action_ids()[0], 0, []) and rng.bit_generator.state == before


# the games whose determinization deals the hidden cards afresh from what the seat knows (the others
# shuffle them from where they lie: the same distribution, not the same deal for a seed)
DEALT_AFRESH = [name for name in ("citadels", "metropolys") if name in GAMES]


@pytest.mark.parametrize("name", DEALT_AFRESH)
def test_the_search_ignores_what_the_seat_cannot_see(name: str) -> None:
    """The same move, values and draws on a match and on a determinization of it for the searching seat."""
    for k, position in enumerate(positions(name, 3, 21, 2)):
        seat = position.current_player()
        twin = position.determinize(seat, np.random.default_rng(k))
        assert np.array_equal(position.observation(seat), twin.observation(seat))
        mine, theirs = NativeOnly(k, iters=15), NativeOnly(k, iters=15)
        assert mine.act(InfoSet(position, seat)) == theirs.act(InfoSet(twin, seat)), (name, k)
        assert mine.last_values == theirs.last_values and mine.rng.bit_generator.state == theirs.rng.bit_generator.state


def test_a_time_budget_and_the_time_limit() -> None:
    position = positions(GAMES[0], 2, 4, 1)[0]
    seat = position.current_player()
    timed = NativeOnly(0, iters=None, seconds=0.02)
    assert timed.act(InfoSet(position, seat)) in position.legal_action_ids() and timed.last_iterations >= 1
    capped = NativeOnly(0, iters=10**30, time_limit=0.02)  # a budget past 64 bits, stopped by the limit
    assert capped.act(InfoSet(position, seat)) in position.legal_action_ids() and capped.last_iterations >= 1


def test_searches_in_threads_decide_as_one_after_another() -> None:
    """The search runs without the GIL: two threads searching at once get what each gets alone."""
    found = positions(GAMES[0], 2, 9, 2)

    def search(k: int, out: list) -> None:
        agent = NativeOnly(k, iters=60)
        out.append((agent.act(InfoSet(found[k], found[k].current_player())), agent.rng.bit_generator.state))

    alone: list[list] = [[], []]
    for k in range(2):
        search(k, alone[k])
    together: list[list] = [[], []]
    threads = [threading.Thread(target=search, args=(k, together[k])) for k in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert together == alone


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"bias": math.nan}, "bias"),
        ({"bias": math.inf}, "bias"),
        ({"exploration": math.nan}, "exploration"),
        ({"exploration": -math.inf}, "exploration"),
        ({"iters": None, "seconds": math.nan}, "positive"),
    ],
)
def test_the_agent_refuses_what_the_native_search_cannot_take(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        ISMCTSAgent(seed=0, **kwargs)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"player": 5}, "not a seat"),
        ({"other_seat": True}, "no decision"),
        ({"iters": None}, "exactly one budget"),
        ({"seconds": 1.0}, "exactly one budget"),
        ({"iters": 0}, "positive"),
        ({"iters": None, "seconds": -1.0}, "positive"),
        ({"iters": None, "seconds": math.nan}, "positive"),
        ({"time_limit": 0.0}, "time_limit"),
        ({"time_limit": math.nan}, "time_limit"),
        ({"max_rollout": -1}, "max_rollout"),
        ({"rollout": "greedy"}, "allowed: random, heuristic"),
        ({"opponents": "oracle"}, "allowed: search, heuristic"),
        ({"bias": -1.0}, "bias"),
        ({"bias": math.nan}, "bias"),
        ({"exploration": math.inf}, "exploration"),
    ],
)
def test_the_binding_refuses_bad_arguments(kwargs: dict, message: str) -> None:
    _, native = pair(GAMES[0], 2, 0)
    chooser = np.random.default_rng(0)
    while len(native.legal_action_ids()) < 2:
        native.apply(int(chooser.choice(native.legal_action_ids())))
    seat = native.current_player()
    settings = {"player": seat, "iters": 5, **kwargs}
    if settings.pop("other_seat", False):
        settings["player"] = 1 - seat
    player = settings.pop("player")
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match=message):
        native._match.ismcts_action(player, rng.bit_generator.capsule, **settings)


def test_the_binding_refuses_a_finished_match_and_a_foreign_capsule() -> None:
    _, native = pair(GAMES[0], 2, 0)
    native.playout(np.random.default_rng(0))
    with pytest.raises(ValueError, match="no decision"):
        native._match.ismcts_action(0, np.random.default_rng(0).bit_generator.capsule, iters=5)
    _, native = pair(GAMES[0], 2, 0)
    make_capsule = ctypes.pythonapi.PyCapsule_New
    make_capsule.restype, make_capsule.argtypes = ctypes.py_object, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
    with pytest.raises(ValueError, match="bit generator"):
        native._match.ismcts_action(native.current_player(), make_capsule(8, b"other", None), iters=5)
    python = game_class(GAMES[0], "python")(2, seed=0)
    assert InfoSet(python, python.current_player()).ismcts_action(np.random.default_rng(0), True, iters=5) is None
