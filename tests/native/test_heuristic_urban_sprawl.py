"""Urban Sprawl's heuristic agent in the native engine (native/urban_sprawl/heuristic.hpp): decision for
decision the Python agent's (agents/urban_sprawl_heuristic.py), with the same draws from the agent's
generator; blind to what its seat cannot see; refused on a finished match.

Each decision is asked of two agents seeded alike: one on the Python engine that computes in Python
(`native=False`), one on the native twin whose `_choose` fails, so that its pick must come from C++.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from city_envs.agents.random_agent import RandomAgent
from city_envs.agents.urban_sprawl_heuristic import UrbanSprawlHeuristicAgent
from city_envs.core.infoset import InfoSet
from city_envs.urban_sprawl.rules import Decision
from tests.native.parity import native_games, native_only, pair

pytestmark = pytest.mark.skipif("urban_sprawl" not in native_games(), reason="the native engine is not built")

VARIANTS = ("standard", "long", "short")
ALL_KINDS = set(Decision.names)


NativeOnly = native_only(UrbanSprawlHeuristicAgent)


def assert_same_pick(python: UrbanSprawlHeuristicAgent, native: UrbanSprawlHeuristicAgent, handles, where) -> int:
    """Both agents' picks for their seat, asserted equal with their generators left in the same state."""
    python_handle, native_handle = handles
    mine, theirs = python.act(python_handle), native.act(native_handle)
    assert theirs == mine, where
    assert native.rng.bit_generator.state == python.rng.bit_generator.state, where
    return mine


def play_twins(num_players: int, seed: int, lineup: str, variant: str = "standard") -> Counter[str]:
    """One match on both engines, seat k played by lineup[k] ("h" heuristic, "r" random); every heuristic
    decision compared. Returns how many decisions of each kind had two or more legal actions."""
    python, native = pair("urban_sprawl", num_players, seed, variant=variant)
    handles = [(InfoSet(python, seat), InfoSet(native, seat)) for seat in range(num_players)]
    agents = [
        (UrbanSprawlHeuristicAgent(seed * 10 + seat, native=False), NativeOnly(seed * 10 + seat))
        if kind == "h"
        else RandomAgent(seed * 10 + seat)
        for seat, kind in enumerate(lineup)
    ]
    asked: Counter[str] = Counter()
    step = 0
    while not python.is_over():
        seat = python.current_player()
        agent = agents[seat]
        if isinstance(agent, tuple):
            if len(python.legal_action_ids()) > 1:
                asked[python.decision_name()] += 1
            action = assert_same_pick(*agent, handles[seat], (num_players, seed, step, python.decision_name()))
        else:
            action = agent.act(handles[seat][0])
        python.apply(action)
        native.apply(action)
        step += 1
    return asked


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_self_play_decision_for_decision(num_players: int) -> None:
    asked: Counter[str] = Counter()
    for seed in range(4):
        asked += play_twins(num_players, seed, "h" * num_players, VARIANTS[seed % 3])
    assert {"START_BUY", "INVEST", "MAIN", "PAY_PERMIT", "PLACE", "VOC_PAYOUT"} <= set(asked)


@pytest.mark.parametrize("lineup", ["hr", "rh", "rhh", "hrh", "hrhr", "rhrh"])
def test_mixed_lineups_decision_for_decision(lineup: str) -> None:
    for seed in range(2):
        play_twins(len(lineup), 100 + seed, lineup, VARIANTS[seed % 3])


def compare_along_random_matches(matches: int) -> Counter[str]:
    """Random matches, and at each decision with a choice both heuristics asked afresh, seeded alike.
    Returns how many decisions of each kind were compared."""
    asked: Counter[str] = Counter()
    for match in range(matches):
        num_players = 2 + match % 3
        python, native = pair("urban_sprawl", num_players, match, variant=VARIANTS[match // 3 % 3])
        pick = np.random.default_rng(match)
        while not python.is_over():
            legal, seat = python.legal_action_ids(), python.current_player()
            if len(legal) > 1:
                asked[python.decision_name()] += 1
                k = sum(asked.values())
                agents = (UrbanSprawlHeuristicAgent(k, native=False), NativeOnly(k))
                handles = (InfoSet(python, seat), InfoSet(native, seat))
                assert_same_pick(*agents, handles, (match, k, python.decision_name()))
            action = int(pick.choice(legal))
            python.apply(action)
            native.apply(action)
    return asked


def test_every_decision_kind_along_random_matches() -> None:
    """Random play reaches what self-play seldom does (a MEDIA_TIE, crowded or odd cities)."""
    assert set(compare_along_random_matches(9)) == ALL_KINDS


@pytest.mark.slow
def test_broad_sweep_decision_for_decision() -> None:
    asked: Counter[str] = Counter()
    for seed in range(40):
        for num_players in (2, 3, 4):
            asked += play_twins(num_players, 1000 + seed, "h" * num_players, VARIANTS[seed % 3])
            play_twins(num_players, 2000 + seed, "hr" * 2 if num_players == 4 else "rhh"[:num_players])
    assert set(asked) | set(compare_along_random_matches(60)) == ALL_KINDS


def test_the_pick_ignores_what_the_seat_cannot_see() -> None:
    """At positions along a heuristic match, the pick (and the draws) with one generator state equal those on
    `determinize(seat)`: the decks reordered, nothing the seat sees changed."""
    for num_players in (2, 3, 4):
        _, native = pair("urban_sprawl", num_players, 7 * num_players)
        players = [UrbanSprawlHeuristicAgent(seat) for seat in range(num_players)]
        handles = [InfoSet(native, seat) for seat in range(num_players)]
        step = reordered = 0
        while not native.is_over():
            seat = native.current_player()
            if step % 5 == 0 and len(native.legal_action_ids()) > 1:
                twin = native.determinize(seat, np.random.default_rng(step))
                reordered += twin.to_dict()["state"] != native.to_dict()["state"]
                here, there = np.random.default_rng(step + 1), np.random.default_rng(step + 1)
                pick = native.heuristic_action(here)
                assert pick is not None and twin.heuristic_action(there) == pick, (num_players, step)
                assert here.bit_generator.state == there.bit_generator.state, (num_players, step)
            native.apply(players[seat].act(handles[seat]))
            step += 1
        assert reordered > 0


def test_a_finished_match_has_no_pick() -> None:
    _, native = pair("urban_sprawl", 2, 3, max_turns=1)
    players = [RandomAgent(seat) for seat in range(2)]
    while not native.is_over():
        native.apply(players[native.current_player()].act(InfoSet(native, native.current_player())))
    with pytest.raises(ValueError, match="over"):
        native.heuristic_action(np.random.default_rng(0))
