"""The Urban Sprawl heuristic agent: legal, information-safe, deterministic, stronger than random.

Fast tests run by default; the full strength measurement is marked slow (`pytest -m slow`).
"""

from __future__ import annotations

import numpy as np
import pytest

from agents.random_agent import RandomAgent
from agents.registry import make_agent
from agents.urban_sprawl_heuristic import UrbanSprawlHeuristicAgent
from city_envs import make_game
from city_envs.core.infoset import InfoSet
from training.arena import evaluate

from .handles import SeatOnly


def mixed_games(n: int, seeds, **options):
    """Yield (game, seat) at every decision of games where heuristics and randoms share the table."""
    for seed in seeds:
        game = make_game("urban_sprawl", n, seed=seed, **options)
        agents = [UrbanSprawlHeuristicAgent(seed * 10 + s) if (s + seed) % 2 else RandomAgent(seed * 10 + s)
                  for s in range(n)]
        while not game.is_over():
            seat = game.current_player()
            yield game, seat
            game.apply(agents[seat].act(InfoSet(game, seat)))


def test_registry_builds_the_heuristic():
    assert isinstance(make_agent("heuristic", "urban_sprawl", 3), UrbanSprawlHeuristicAgent)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_always_legal_from_the_seat_view_only(n):
    probe = UrbanSprawlHeuristicAgent(1)
    seen = set()
    for game, seat in mixed_games(n, range(3), variant="short"):
        action = probe.act(SeatOnly(InfoSet(game, seat)))
        assert isinstance(action, int) and game.legal_actions()[action], game.describe_action(action)
        seen.add(game.decision_name())
    assert {"START_BUY", "INVEST", "MAIN", "PAY_PERMIT", "PLACE", "VOC_PAYOUT"} <= seen


@pytest.mark.parametrize("n", [2, 4])
def test_deck_order_does_not_change_the_choice(n):
    rng = np.random.default_rng(n)
    compared = 0
    for i, (game, seat) in enumerate(mixed_games(n, range(2), max_turns=40)):
        if i % 9:
            continue
        twin = game.determinize(seat, rng)
        assert UrbanSprawlHeuristicAgent(7).act(InfoSet(game, seat)) == UrbanSprawlHeuristicAgent(7).act(
            InfoSet(twin, seat))
        compared += 1
    assert compared >= 20


def test_deterministic_given_seed():
    def play(seed: int) -> list[int]:
        game = make_game("urban_sprawl", 3, seed=11, variant="short")
        agents = [UrbanSprawlHeuristicAgent(seed + s) for s in range(3)]
        while not game.is_over():
            seat = game.current_player()
            game.apply(agents[seat].act(InfoSet(game, seat)))
        return game.history

    assert play(3) == play(3)


def test_self_play_reaches_the_olympic_games():
    for seed, variant in enumerate(("standard", "long", "short")):
        game = make_game("urban_sprawl", 4, seed=seed, variant=variant)
        agents = [UrbanSprawlHeuristicAgent(seed * 4 + s) for s in range(4)]
        while not game.is_over():
            seat = game.current_player()
            game.apply(agents[seat].act(InfoSet(game, seat)))
        assert not game.is_truncated() and 10 in game.state.events_done


def test_beats_random_in_two_player_games():
    results = evaluate("urban_sprawl", 2, ["heuristic", "random"], games=30, seed=2024)
    assert results["agents"]["heuristic"]["win_rate"] >= 0.8


@pytest.mark.slow
def test_beats_random_in_400_two_player_games():
    results = evaluate("urban_sprawl", 2, ["heuristic", "random"], games=400, seed=1)
    assert results["agents"]["heuristic"]["win_rate"] >= 0.75


@pytest.mark.slow
@pytest.mark.parametrize("n", [3, 4])
def test_beats_randoms_at_a_full_table(n):
    results = evaluate("urban_sprawl", n, ["heuristic"] + ["random"] * (n - 1), games=200, seed=n)
    assert results["agents"]["heuristic"]["ci_low"] > 2.0 / n
