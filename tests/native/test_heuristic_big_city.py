"""Big City's heuristic agent in the native engine (native/big_city/heuristic.hpp): decision for decision the
Python agent (agents/big_city_heuristic.py), the same picks with the same draws from the agent's generator.

Each seat of a match is played twice, by a Python agent (`native=False`) on the Python engine and by an agent
seeded alike on the native twin whose `_choose` refuses to run (so every pick of two or more legal ids comes
from C++); after every decision both agents must have picked the same id and hold the same generator state.
Line-ups: every seat the heuristic, and mixed with random seats (so that unusual positions occur); positions of
random play are checked one by one too. The pick reads only what the seat knows (a determinization of the
position picks the same), and a finished match is refused.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

import numpy as np
import pytest

from city_envs.agents.base import Agent
from city_envs.agents.big_city_heuristic import BigCityHeuristicAgent
from city_envs.agents.random_agent import RandomAgent
from city_envs.big_city import rules
from city_envs.core.infoset import InfoSet
from city_envs.core.native import NativeGame
from tests.native.parity import assert_picks_as_python, native_only, pair, random_positions, twin_agents

pytest.importorskip("city_envs._native")

PLAYER_COUNTS = (2, 3, 4, 5)


NativeOnly = native_only(BigCityHeuristicAgent)


def _agents(num_players: int, seed: int, heuristic: list[bool]) -> tuple[list[Agent], list[Agent]]:
    return twin_agents(BigCityHeuristicAgent, num_players, seed, heuristic)


def play_twins(num_players: int, seed: int, heuristic: list[bool]) -> Counter[str]:
    """Play the match on both engines, checking every decision; the decisions (of two or more legal ids)
    that the heuristic made, by name."""
    python, native = pair("big_city", num_players, seed)
    python_agents, native_agents = _agents(num_players, seed, heuristic)
    made: Counter[str] = Counter()
    while not python.is_over():
        seat = python.current_player()
        name = python.decision_name()
        several = len(InfoSet(python, seat).legal_action_ids()) > 1
        mine = python_agents[seat].act(InfoSet(python, seat))
        theirs = native_agents[seat].act(InfoSet(native, seat))
        where = f"{num_players} players, seed {seed}, decision {len(python.history)} ({name}, seat {seat})"
        assert theirs == mine, f"{where}: python picked {mine}, native {theirs}"
        if heuristic[seat]:
            python_rng = python_agents[seat].rng.bit_generator.state  # type: ignore[attr-defined]
            native_rng = native_agents[seat].rng.bit_generator.state  # type: ignore[attr-defined]
            assert native_rng == python_rng, f"{where}: the generators differ after the pick"
            made[name] += several
        python.apply(mine)
        native.apply(theirs)
    assert native.is_over()
    return made


def _mixed(num_players: int, seed: int) -> list[bool]:
    """Seat 0 the heuristic, the others the heuristic or random by the seed's bits."""
    return [seat == 0 or bool(seed >> seat & 1) for seat in range(num_players)]


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_self_play_decision_for_decision(num_players: int) -> None:
    for seed in range(4):
        play_twins(num_players, seed, [True] * num_players)


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_mixed_line_ups_decision_for_decision(num_players: int) -> None:
    for seed in range(4):
        play_twins(num_players, 100 + seed, _mixed(num_players, seed))


def test_every_decision_type_is_exercised() -> None:
    """Heuristic and mixed matches at every player count reach every kind of decision with a real choice."""
    made: Counter[str] = Counter()
    for num_players in PLAYER_COUNTS:
        for seed in range(3):
            made += play_twins(num_players, 200 + seed, [True] * num_players)
            made += play_twins(num_players, 300 + seed, _mixed(num_players, seed + 1))
    assert set(made) == set(rules.Decision.names), made


@pytest.mark.slow
@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_broad_sweep_decision_for_decision(num_players: int) -> None:
    for seed in range(1000, 1060):
        play_twins(num_players, seed, [True] * num_players)
        play_twins(num_players, seed, _mixed(num_players, seed))


def _random_positions(num_players: int, seed: int, keep: Callable[[NativeGame], bool]) -> list[NativeGame]:
    return random_positions("big_city", num_players, seed, keep)


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_positions_of_random_play_pick_as_python(num_players: int) -> None:
    assert_picks_as_python(
        BigCityHeuristicAgent, _random_positions(num_players, num_players, lambda game: len(game.history) % 3 == 0)
    )


def test_trams_of_random_play_pick_as_python() -> None:
    """Random seats lay trams where the heuristic would not (between two plots it holds, far from them)."""
    for seed in range(6):
        for num_players in PLAYER_COUNTS:
            kept = _random_positions(num_players, seed, lambda game: game.decision_name().startswith("TRAM_EDGE"))
            assert_picks_as_python(BigCityHeuristicAgent, kept)


def _sampled_positions() -> list[NativeGame]:
    """Positions of heuristic and mixed matches at every player count (every 5th decision)."""
    out = []
    for num_players in PLAYER_COUNTS:
        _, native = pair("big_city", num_players, 7)
        heuristic = _mixed(num_players, 5)
        agents = [BigCityHeuristicAgent(seat) if heuristic[seat] else RandomAgent(seat) for seat in range(num_players)]
        while not native.is_over():
            if len(native.history) % 5 == 0:
                out.append(native.clone())
            seat = native.current_player()
            native.apply(agents[seat].act(InfoSet(native, seat)))
    return out


def test_the_pick_reads_only_what_the_seat_knows() -> None:
    """A determinization for the seat to move (the others' hands and the piles resampled) picks the same
    action with the same draws."""
    checked = changed = 0
    for k, position in enumerate(_sampled_positions()):
        seat = position.current_player()
        if int(position.legal_actions().sum()) < 2:
            continue
        sampled = position.determinize(seat, np.random.default_rng(k))
        hands, sampled_hands = _hands(position), _hands(sampled)
        assert sampled_hands[seat] == hands[seat]
        changed += sampled_hands != hands
        for draw in range(3):
            here, there = np.random.default_rng([k, draw]), np.random.default_rng([k, draw])
            pick = position.heuristic_action(here)
            assert pick is not None and position.legal_actions()[pick]
            assert sampled.heuristic_action(there) == pick, position.decision_name()
            assert here.bit_generator.state == there.bit_generator.state
        checked += 1
    assert checked > 50 and changed > checked // 2


def _hands(game: NativeGame) -> list[list[int]]:
    return [sorted(hand) for hand in game.to_dict()["state"]["hands"]]


def test_a_finished_match_is_refused() -> None:
    _, native = pair("big_city", 2, 3)
    agents = [BigCityHeuristicAgent(0), BigCityHeuristicAgent(1)]
    while not native.is_over():
        seat = native.current_player()
        native.apply(agents[seat].act(InfoSet(native, seat)))
    with pytest.raises(ValueError, match="over"):
        native.heuristic_action(np.random.default_rng(0))
