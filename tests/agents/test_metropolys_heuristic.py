"""The Metropolys heuristic agent: legal, information-safe, deterministic, and stronger than random.

Fast tests run by default; the full strength measurement is marked slow (`pytest -m slow`).
"""

from __future__ import annotations

import numpy as np
import pytest

from agents.metropolys_heuristic import MetropolysHeuristicAgent
from agents.random_agent import RandomAgent
from agents.registry import make_agent
from city_envs import make_game
from city_envs.core.infoset import InfoSet
from training.arena import evaluate

from .handles import SeatOnly

CONFIGS = [(n, version) for n in (2, 3, 4) for version in ("family", "expert")]


def mixed_games(n: int, version: str, seeds):
    """Yield (game, seat) at every decision of games where heuristics and randoms share the table."""
    for seed in seeds:
        game = make_game("metropolys", n, seed=seed, version=version)
        agents = [MetropolysHeuristicAgent(seed * 10 + s) if (s + seed) % 2 else RandomAgent(seed * 10 + s)
                  for s in range(n)]
        while not game.is_over():
            seat = game.current_player()
            yield game, seat
            game.apply(agents[seat].act(InfoSet(game, seat)))


def test_registry_builds_the_heuristic():
    assert isinstance(make_agent("heuristic", "metropolys", 3), MetropolysHeuristicAgent)


@pytest.mark.parametrize(("n", "version"), CONFIGS)
def test_always_legal_from_the_seat_view_only(n, version):
    probe = MetropolysHeuristicAgent(1)
    seen = set()
    for game, seat in mixed_games(n, version, range(3)):
        action = probe.act(SeatOnly(InfoSet(game, seat)))
        assert isinstance(action, int) and game.legal_actions()[action], game.describe_action(action)
        seen.add((game.decision_name(), action == 68, bool(game.state.bids)))
    assert {("NBHD", False, False), ("NBHD", False, True), ("VALUE", False, False)} <= seen


@pytest.mark.parametrize(("n", "version"), CONFIGS)
def test_hidden_cards_do_not_change_the_choice(n, version):
    """A determinized twin (other seats' secret cards redealt) gets the same action."""
    rng = np.random.default_rng(n)
    compared = 0
    for i, (game, seat) in enumerate(mixed_games(n, version, range(2))):
        if i % 4:
            continue
        twin = game.determinize(seat, rng)
        assert MetropolysHeuristicAgent(7).act(InfoSet(game, seat)) == MetropolysHeuristicAgent(7).act(
            InfoSet(twin, seat))
        compared += 1
    assert compared >= 20


def test_deterministic_given_seed():
    def play(seed: int) -> list[int]:
        game = make_game("metropolys", 3, seed=11, version="expert")
        agents = [MetropolysHeuristicAgent(seed + s) for s in range(3)]
        while not game.is_over():
            seat = game.current_player()
            game.apply(agents[seat].act(InfoSet(game, seat)))
        return game.history

    assert play(3) == play(3)


def test_refuses_when_not_its_turn():
    game = make_game("metropolys", 3, seed=0)
    with pytest.raises(ValueError):
        MetropolysHeuristicAgent(0).act(InfoSet(game, 1))


@pytest.mark.parametrize("version", ["family", "expert"])
def test_beats_random_in_two_player_games(version):
    results = evaluate("metropolys", 2, ["heuristic", "random"], games=60, seed=2024, version=version)
    assert results["agents"]["heuristic"]["win_rate"] >= 0.8


@pytest.mark.slow
@pytest.mark.parametrize("version", ["family", "expert"])
def test_beats_random_in_400_two_player_games(version):
    results = evaluate("metropolys", 2, ["heuristic", "random"], games=400, seed=1, version=version)
    assert results["agents"]["heuristic"]["win_rate"] >= 0.75


@pytest.mark.slow
@pytest.mark.parametrize(("n", "version"), [(3, "family"), (4, "family"), (4, "expert")])
def test_beats_randoms_at_a_full_table(n, version):
    results = evaluate("metropolys", n, ["heuristic"] + ["random"] * (n - 1), games=200, seed=n, version=version)
    heuristic = results["agents"]["heuristic"]
    assert heuristic["ci_low"] > 2.0 / n
