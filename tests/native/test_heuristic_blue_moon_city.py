"""Blue Moon City's heuristic agent in the native engine (native/blue_moon_city/heuristic.hpp) against
agents/blue_moon_city_heuristic.py: the same pick with the same draws after every decision, from what
the seat may know, and a clear error at a finished match."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from city_envs.agents.blue_moon_city_heuristic import BlueMoonCityHeuristicAgent
from city_envs.agents.random_agent import RandomAgent
from city_envs.blue_moon_city import rules as r
from city_envs.core.infoset import InfoSet
from tests.native.parity import mixed_positions, native_games, native_only, pair

pytestmark = pytest.mark.skipif("blue_moon_city" not in native_games(), reason="the native engine is not built")

GAME = "blue_moon_city"
# the line-ups of the default run: every seat the heuristic, and heuristic seats among random ones
LINEUPS = {2: ("hh", "hr", "rh"), 3: ("hhh", "hrh", "rhr"), 4: ("hhhh", "hrhr", "rhrh")}
SEEDS = range(5)


NativeOnly = native_only(BlueMoonCityHeuristicAgent)


def branches(python_state: r.State, action: int, drew: bool) -> list[str]:
    """What a decision with a choice exercised: its type, and the branches of the agent it went through."""
    name = r.Decision.name_of(python_state.decision)
    seen = [name]
    if drew:
        seen.append(f"tie drawn in {name}")
    if name == "PAY" and python_state.payment is not None and python_state.payment.colour < 0:
        seen.append("palace colour")
    if name == "MOVE" and action in (r.FLIT_BOOST, r.FLIT_TELEPORT):
        seen.append("grey card")
    if name == "MOVE" and action < r.FLIT_BOOST:
        seen.append("dragon flown")
    if name == "DISCARD":
        seen.append("turn ended" if action == r.END_TURN else "card discarded")
    return seen


def play_twins(num_players: int, seed: int, lineup: str, **options) -> tuple[str | None, Counter[str]]:
    """A match on both engines where each 'h' seat is two heuristic agents seeded alike (Python on the
    Python engine, native on the native one) and each 'r' seat one random agent whose pick both engines
    play: the first difference in pick or generator state (None if none), and the branches exercised."""
    python, native = pair(GAME, num_players, seed, **options)
    twins: list[tuple[BlueMoonCityHeuristicAgent, BlueMoonCityHeuristicAgent] | None] = [
        (BlueMoonCityHeuristicAgent(seed * 10 + seat, native=False), NativeOnly(seed * 10 + seat))
        if kind == "h"
        else None
        for seat, kind in enumerate(lineup)
    ]
    randoms = [RandomAgent(seed * 10 + seat) for seat in range(num_players)]
    exercised: Counter[str] = Counter()
    decisions = 0
    while not python.is_over():
        seat = python.current_player()
        duo = twins[seat]
        if duo is None:
            action = randoms[seat].act(InfoSet(python, seat))
        else:
            mine, theirs = duo
            before = mine.rng.bit_generator.state
            action = mine.act(InfoSet(python, seat))
            picked = theirs.act(InfoSet(native, seat))
            where = f"seed {seed}, {lineup}, decision {decisions} ({python.decision_name()})"
            if picked != action:
                return f"{where}: python picks {action}, native {picked}", exercised
            if theirs.rng.bit_generator.state != mine.rng.bit_generator.state:
                return f"{where}: the generators differ after the pick {action}", exercised
            if python.legal_actions().sum() >= 2:
                exercised.update(branches(python.state, action, mine.rng.bit_generator.state != before))
        python.apply(action)
        native.apply(action)
        decisions += 1
    return None, exercised


@pytest.fixture(scope="module")
def default_matches() -> list[tuple[str | None, Counter[str]]]:
    """The default run's matches: every line-up and seed, the fixed centre and a random one."""
    return [
        play_twins(num_players, seed, lineup, center="random" if seed % 2 else "fixed")
        for num_players, lineups in LINEUPS.items()
        for lineup in lineups
        for seed in SEEDS
    ]


def test_the_native_pick_and_draws_are_the_python_ones(default_matches):
    differences = [found for found, _ in default_matches if found is not None]
    assert not differences, differences


def test_the_matches_exercise_every_decision_and_branch(default_matches):
    exercised = sum((seen for _, seen in default_matches), Counter())
    expected = {
        *("MOVE", "BUILD", "PAY", "OFFER", "DISCARD"),
        *("tie drawn in PAY", "palace colour", "grey card", "dragon flown", "turn ended", "card discarded"),
    }
    assert expected <= set(exercised), expected - set(exercised)


@pytest.mark.slow
@pytest.mark.parametrize("num_players", [2, 3, 4])
@pytest.mark.parametrize("center", ["fixed", "random"])
def test_a_broad_sweep_decides_alike(num_players, center):
    for seed in range(2, 40):
        lineup = "h" * num_players if seed % 3 else ("hr" * 2)[:num_players]
        found, _ = play_twins(num_players, seed, lineup, center=center)
        assert found is None, found


def positions(num_players: int, seed: int, every: int) -> list:
    return mixed_positions(GAME, BlueMoonCityHeuristicAgent, num_players, seed, every)


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_the_pick_reads_nothing_the_seat_cannot_see(num_players):
    """The same generator state gives the same pick on the position and on redeals of what the seat
    to move cannot see (the other hands, the pending reward cards, the deck order)."""
    checked = 0
    for position in positions(num_players, 5 + num_players, every=7):
        seat = position.current_player()
        for redeal in range(2):
            state = np.random.default_rng([redeal, checked]).bit_generator.state
            mine, theirs = np.random.default_rng(), np.random.default_rng()
            mine.bit_generator.state = theirs.bit_generator.state = state
            twin = position.determinize(seat, np.random.default_rng([redeal, checked, 1]))
            pick = position.heuristic_action(mine)
            assert pick is not None
            assert twin.heuristic_action(theirs) == pick, (position.history, redeal)
            assert theirs.bit_generator.state == mine.bit_generator.state
        checked += 1
    assert checked >= 20


def test_a_finished_match_is_a_value_error():
    _, native = pair(GAME, 2, 3)
    rng = np.random.default_rng(3)
    while not native.is_over():
        native.apply(int(rng.choice(np.flatnonzero(native.legal_actions()))))
    with pytest.raises(ValueError, match="over"):
        native.heuristic_action(np.random.default_rng(0))
