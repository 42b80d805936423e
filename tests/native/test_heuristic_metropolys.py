"""Metropolys's heuristic agent in the native engine (native/metropolys/heuristic.hpp): decision for decision
the Python agent (agents/metropolys_heuristic.py), the same picks with the same draws from the agent's generator.

Each seat of a match is played twice, by a Python agent (`native=False`) on the Python engine and by an agent
seeded alike on the native twin whose `_choose` refuses to run (so every pick of two or more legal ids comes
from C++); after every decision both agents must have picked the same id and hold the same generator state.
Line-ups: every seat the heuristic, and mixed with random seats (so that unusual positions occur), in both
versions, on random and first-game layouts; positions of random play are checked one by one too. The pick
reads only what the seat knows (a determinization of the position picks the same), and a finished match is
refused.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

import numpy as np
import pytest

from city_envs.agents.base import Agent
from city_envs.agents.metropolys_heuristic import MetropolysHeuristicAgent
from city_envs.agents.random_agent import RandomAgent
from city_envs.core.game import Game
from city_envs.core.infoset import InfoSet
from city_envs.core.native import NativeGame
from tests.native.parity import assert_picks_as_python, native_only, pair, random_positions, twin_agents

pytest.importorskip("city_envs._native")

PLAYER_COUNTS = (2, 3, 4)
VERSIONS = ("family", "expert")
# the kinds of decision the agent makes: an opening bid, an outbid or pass, a value, a bid that may end the game
KINDS = {"open", "outbid", "pass", "value", "endgame"}


NativeOnly = native_only(MetropolysHeuristicAgent)


def _agents(num_players: int, seed: int, heuristic: list[bool]) -> tuple[list[Agent], list[Agent]]:
    return twin_agents(MetropolysHeuristicAgent, num_players, seed, heuristic)


def _kinds(game: Game, action: int) -> list[str]:
    """The kinds of the decision that `action` answers (see KINDS)."""
    view = game.view(game.current_player())  # type: ignore[attr-defined]
    kinds = ["value" if view["decision"] == "VALUE" else "outbid" if view["bids"] else "open"]
    if action == 68:  # rules.PASS
        kinds.append("pass")
    if max(view["built"]) == 12:
        kinds.append("endgame")
    return kinds


def play_twins(num_players: int, seed: int, heuristic: list[bool], version: str, **options: object) -> Counter[str]:
    """Play the match on both engines, checking every decision; the kinds of decision (of two or more legal
    ids) that the heuristic made."""
    python, native = pair("metropolys", num_players, seed, version=version, **options)
    python_agents, native_agents = _agents(num_players, seed, heuristic)
    made: Counter[str] = Counter()
    while not python.is_over():
        seat = python.current_player()
        several = len(InfoSet(python, seat).legal_action_ids()) > 1
        mine = python_agents[seat].act(InfoSet(python, seat))
        theirs = native_agents[seat].act(InfoSet(native, seat))
        where = f"{num_players} players, {version}, seed {seed}, decision {len(python.history)} (seat {seat})"
        assert theirs == mine, f"{where}: python picked {mine}, native {theirs}"
        if heuristic[seat]:
            python_rng = python_agents[seat].rng.bit_generator.state  # type: ignore[attr-defined]
            native_rng = native_agents[seat].rng.bit_generator.state  # type: ignore[attr-defined]
            assert native_rng == python_rng, f"{where}: the generators differ after the pick"
            if several:
                made.update(_kinds(python, mine))
        python.apply(mine)
        native.apply(theirs)
    assert native.is_over()
    return made


def _mixed(num_players: int, seed: int) -> list[bool]:
    """Seat 0 the heuristic, the others the heuristic or random by the seed's bits."""
    return [seat == 0 or bool(seed >> seat & 1) for seat in range(num_players)]


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_self_play_decision_for_decision(num_players: int, version: str) -> None:
    for seed in range(3):
        play_twins(num_players, seed, [True] * num_players, version)


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_mixed_line_ups_decision_for_decision(num_players: int, version: str) -> None:
    for seed in range(3):
        play_twins(num_players, 100 + seed, _mixed(num_players, seed + 1), version)


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_first_game_layout_and_other_start_players(num_players: int, version: str) -> None:
    for seed in range(2):
        options = {"layout": "first_game", "start_player": (seed + 1) % num_players}
        play_twins(num_players, 400 + seed, [True] * num_players, version, **options)
        play_twins(num_players, 500 + seed, _mixed(num_players, seed + 1), version, **options)


def test_every_decision_kind_is_exercised() -> None:
    """Heuristic and mixed matches at every player count, in both versions, reach every kind of decision
    with a real choice."""
    made: Counter[str] = Counter()
    for version in VERSIONS:
        for num_players in PLAYER_COUNTS:
            made += play_twins(num_players, 200, [True] * num_players, version)
            made += play_twins(num_players, 300, _mixed(num_players, 3), version)
    assert set(made) == KINDS, made


@pytest.mark.slow
@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_broad_sweep_decision_for_decision(num_players: int, version: str) -> None:
    for seed in range(1000, 1040):
        play_twins(num_players, seed, [True] * num_players, version)
        play_twins(num_players, seed, _mixed(num_players, seed), version)


def _random_positions(
    num_players: int, seed: int, version: str, keep: Callable[[NativeGame], bool]
) -> list[NativeGame]:
    return random_positions("metropolys", num_players, seed, keep, version=version)


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_positions_of_random_play_pick_as_python(num_players: int, version: str) -> None:
    for seed in range(2):
        assert_picks_as_python(
            MetropolysHeuristicAgent,
            _random_positions(num_players, seed, version, lambda game: len(game.history) % 2 == 0),
        )


def _sampled_positions() -> list[NativeGame]:
    """Positions of heuristic and mixed matches at every player count and version (every 4th decision)."""
    out = []
    for version in VERSIONS:
        for num_players in PLAYER_COUNTS:
            _, native = pair("metropolys", num_players, 7, version=version)
            heuristic = _mixed(num_players, 5)
            agents = [
                MetropolysHeuristicAgent(seat) if heuristic[seat] else RandomAgent(seat) for seat in range(num_players)
            ]
            while not native.is_over():
                if len(native.history) % 4 == 0:
                    out.append(native.clone())
                seat = native.current_player()
                native.apply(agents[seat].act(InfoSet(native, seat)))
    return out


def _cards(game: NativeGame) -> list[tuple[int, int, int]]:
    state = game.to_dict()["state"]
    return list(zip(state["family_card"], state["colour_card"], state["area_card"], strict=True))


def test_the_pick_reads_only_what_the_seat_knows() -> None:
    """A determinization for the seat to move (the others' secret cards redealt) picks the same action with the
    same draws."""
    checked = changed = 0
    for k, position in enumerate(_sampled_positions()):
        seat = position.current_player()
        if int(position.legal_actions().sum()) < 2:
            continue
        sampled = position.determinize(seat, np.random.default_rng(k))
        cards, sampled_cards = _cards(position), _cards(sampled)
        assert sampled_cards[seat] == cards[seat]
        changed += sampled_cards != cards
        for draw in range(3):
            here, there = np.random.default_rng([k, draw]), np.random.default_rng([k, draw])
            pick = position.heuristic_action(here)
            assert pick is not None and position.legal_actions()[pick]
            assert sampled.heuristic_action(there) == pick, position.decision_name()
            assert here.bit_generator.state == there.bit_generator.state
        checked += 1
    assert checked > 50 and changed > checked // 2


def test_a_finished_match_is_refused() -> None:
    _, native = pair("metropolys", 2, 3)
    agents = [MetropolysHeuristicAgent(0), MetropolysHeuristicAgent(1)]
    while not native.is_over():
        seat = native.current_player()
        native.apply(agents[seat].act(InfoSet(native, seat)))
    with pytest.raises(ValueError, match="over"):
        native.heuristic_action(np.random.default_rng(0))
