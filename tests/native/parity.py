"""Play one match on both engines and compare them after every decision.

`play_pair` drives a Python-engine match and its native twin with the same seats (random or
heuristic agents, each seeded alike on both sides) and returns the first difference it finds, in
words, or None when the two engines agree on everything: the pending decision, the legal actions,
every seat's observation, scores, winners, standings, and the whole JSON state with the match
generator and the history.

The per-game tests that drive the binding's raw matches (`city_envs._native.<Game>`, without the
`NativeGame` wrapper) seed them with `words(generator)` and compare them with `assert_same_raw`.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

from city_envs.agents.base import Agent, HeuristicAgent
from city_envs.agents.random_agent import RandomAgent
from city_envs.agents.registry import make_agent
from city_envs.core.game import Game, first_difference
from city_envs.core.infoset import InfoSet
from city_envs.core.native import NativeGame, native_class, rng_words
from city_envs.core.registry import GAMES, game_class


def diagonal(options: Sequence[Any], counts: Sequence[int], ids: Sequence[str]) -> list:
    """pytest params (num_players, options) of every option at every player count, with ids
    `<option id>-<count>`: the default suite plays each option once and each count at least once (the
    pairs taken in turn), the other pairs behind `slow`."""
    chosen = {(i % len(options), i % len(counts)) for i in range(max(len(options), len(counts)))}
    return [
        pytest.param(n, option, id=f"{ids[i]}-{n}", marks=() if (i, j) in chosen else pytest.mark.slow)
        for i, option in enumerate(options)
        for j, n in enumerate(counts)
    ]


def native_games() -> list[str]:
    """The games whose native engine is built in this installation."""
    return [name for name in GAMES if native_class(game_class(name, "python")) is not None]


def pair(name: str, num_players: int, seed: int, **options) -> tuple[Game, NativeGame]:
    python = game_class(name, "python")(num_players, seed=seed, **options)
    native = game_class(name, "native")(num_players, seed=seed, **options)
    assert isinstance(native, NativeGame)
    return python, native


def difference(python: Game, native: Game, full: bool = True) -> str | None:
    """The first way the two matches differ, or None. `full` also compares every seat's observation
    and the whole JSON state (else the actor's observation only)."""
    checks = [
        ("current_player", python.current_player(), native.current_player()),
        ("is_over", python.is_over(), native.is_over()),
        ("is_truncated", python.is_truncated(), native.is_truncated()),
        ("decision_name", python.decision_name(), native.decision_name()),
        ("scores", [float(x) for x in python.scores()], native.scores()),
    ]
    for what, mine, theirs in checks:
        if mine != theirs:
            return f"{what}: python {mine!r}, native {theirs!r}"
    if not np.array_equal(python.legal_actions(), native.legal_actions()):
        only_python = np.flatnonzero(python.legal_actions() & ~native.legal_actions()).tolist()
        only_native = np.flatnonzero(native.legal_actions() & ~python.legal_actions()).tolist()
        return f"legal actions: only python {only_python}, only native {only_native}"
    seats = range(python.num_players) if full else [max(python.current_player(), 0)]
    for seat in seats:
        mine, theirs = python.observation(seat), native.observation(seat)
        if mine.dtype != theirs.dtype or mine.shape != theirs.shape or not np.array_equal(mine, theirs):
            where = np.flatnonzero(mine != theirs)[:5].tolist() if mine.shape == theirs.shape else "shape"
            names = [python.feature_names()[i] for i in where] if isinstance(where, list) else where
            return f"observation of seat {seat} differs at {where} {names}"
    if python.is_over():
        if python.winners() != native.winners():
            return f"winners: python {python.winners()}, native {native.winners()}"
        standings = [tuple(float(k) for k in row) for row in python.standings()]
        if standings != native.standings():
            return f"standings: python {standings}, native {native.standings()}"
    if full or python.is_over():
        where = first_difference(_plain(python.to_dict()), _plain(native.to_dict()))
        if where is not None:
            return f"state differs at {where}"
    return None


def _plain(value):
    return json.loads(json.dumps(value, default=lambda item: item.item() if hasattr(item, "item") else list(item)))


def words(generator: np.random.Generator) -> tuple[int, int, int, int, bool, int]:
    """`generator`'s PCG64 state as the six words a raw native match is built or loaded with."""
    return rng_words(generator.bit_generator.state)


def assert_same_raw(python: Game, native_match: Any, where: object = "") -> None:
    """Assert that a Python-engine match and a raw native match (`city_envs._native.<Game>`) agree on
    everything: legal actions, current player, over and truncated, decision name, JSON state, every
    seat's observation bit for bit, scores, winners, standings and the match generator's state.
    `where` (the seed, the step...) goes into each failure's message."""
    mask = np.frombuffer(native_match.legal_actions(), dtype=bool)
    assert np.array_equal(mask, python.legal_actions()), where
    assert native_match.current_player() == python.current_player(), where
    assert native_match.is_over() == python.is_over(), where
    assert native_match.is_truncated() == python.is_truncated(), where
    assert native_match.decision_name() == python.decision_name(), where
    data = python.to_dict()
    assert json.loads(native_match.state_json()) == data["state"], where
    observation = np.zeros(type(native_match).observation_size, dtype=np.float32)
    for seat in range(python.num_players):
        native_match.observation(seat, observation)
        assert observation.tobytes() == python.observation(seat).tobytes(), (where, seat)
    assert list(native_match.scores()) == python.scores(), where
    assert list(native_match.winners()) == python.winners(), where
    standings = [tuple(float(x) for x in row) for row in python.standings()]
    assert [tuple(row) for row in native_match.standings()] == standings, where
    assert tuple(native_match.rng_words()) == rng_words(data["rng"]), where


@dataclass
class Outcome:
    decisions: int
    difference: str | None


def play_pair(name: str, num_players: int, seed: int, seats: Sequence[str], full_every: int = 1, **options) -> Outcome:
    """Play `seats` (agent kinds, one per seat) on both engines from `seed`; stop at the first difference."""
    python, native = pair(name, num_players, seed, **options)
    agents = [make_agent(kind, name, seed * 100 + seat) for seat, kind in enumerate(seats)]
    handles = [InfoSet(python, seat) for seat in range(num_players)]
    decisions = 0
    found = difference(python, native)
    while found is None and not python.is_over():
        seat = python.current_player()
        action = agents[seat].act(handles[seat])
        python.apply(action)
        native.apply(action)
        decisions += 1
        found = difference(python, native, full=decisions % full_every == 0)
        if found is not None:
            found = f"after decision {decisions} ({action}): {found}"
    return Outcome(decisions, found)


# ----- the native heuristics (tests/native/test_heuristic_<game>.py) ------------------------------
@functools.cache
def native_only(agent_class: type[HeuristicAgent]) -> type[HeuristicAgent]:
    """`agent_class` made to take the native engine's pick: its Python `_choose` is never asked."""

    def _choose(self, info_set: InfoSet, legal: list[int]) -> int:
        raise AssertionError("the native engine gave no heuristic pick")

    return type(f"NativeOnly{agent_class.__name__}", (agent_class,), {"_choose": _choose})


def twin_agents(
    agent_class: type[HeuristicAgent], num_players: int, seed: int, heuristic: Sequence[bool]
) -> tuple[list[Agent], list[Agent]]:
    """Per seat, the Python-engine agent and its native twin, seeded alike (`heuristic[seat]`: the
    heuristic, else random)."""
    python: list[Agent] = []
    native: list[Agent] = []
    for seat in range(num_players):
        own = 1000 * seed + seat
        if heuristic[seat]:
            python.append(agent_class(own, native=False))
            native.append(native_only(agent_class)(own))
        else:
            python.append(RandomAgent(own))
            native.append(RandomAgent(own))
    return python, native


def random_positions(
    name: str, num_players: int, seed: int, keep: Callable[[NativeGame], bool], **options: Any
) -> list[NativeGame]:
    """The positions `keep` accepts of a native match between random seats (unusual positions included)."""
    _, native = pair(name, num_players, seed, **options)
    chooser = np.random.default_rng(seed)
    positions = []
    while not native.is_over():
        if keep(native):
            positions.append(native.clone())
        native.apply(int(chooser.choice(np.flatnonzero(native.legal_actions()))))
    return positions


def mixed_positions(
    name: str, agent_class: type[HeuristicAgent], num_players: int, seed: int, every: int
) -> list[NativeGame]:
    """Native positions with a choice of a match between heuristic (odd) and random (even) seats, one
    decision in `every`."""
    _, native = pair(name, num_players, seed)
    agents: list[Agent] = [
        agent_class(seed + seat) if seat % 2 else RandomAgent(seed + seat) for seat in range(num_players)
    ]
    sampled = []
    while not native.is_over():
        seat = native.current_player()
        if native.legal_actions().sum() >= 2 and len(native.history) % every == 0:
            sampled.append(native.clone())
        native.apply(agents[seat].act(InfoSet(native, seat)))
    return sampled


def assert_picks_as_python(agent_class: type[HeuristicAgent], positions: Sequence[NativeGame]) -> None:
    """At each position, the native pick with a given generator equals the Python agent's, with the
    same draws."""
    for position in positions:
        seat = position.current_player()
        python = position.reference()
        for draw in range(2):
            mine = agent_class(draw, native=False)
            theirs = native_only(agent_class)(draw)
            assert theirs.act(InfoSet(position, seat)) == mine.act(InfoSet(python, seat)), position.to_dict()
            assert theirs.rng.bit_generator.state == mine.rng.bit_generator.state
