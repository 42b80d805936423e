"""The Big City heuristic agent: legal, information-safe, deterministic, stronger than random.

Fast tests run by default; the full strength measurement is marked slow (`pytest -m slow`).
"""

from __future__ import annotations

import numpy as np
import pytest

from agents.big_city_heuristic import BigCityHeuristicAgent
from agents.random_agent import RandomAgent
from agents.registry import make_agent
from city_envs import make_game
from city_envs.core.infoset import InfoSet
from training.arena import evaluate

from .handles import SeatOnly


def mixed_games(n: int, seeds):
    """Yield (game, seat) at every decision of games where heuristics and randoms share the table."""
    for seed in seeds:
        game = make_game("big_city", n, seed=seed)
        agents = [BigCityHeuristicAgent(seed * 10 + s) if (s + seed) % 2 else RandomAgent(seed * 10 + s)
                  for s in range(n)]
        while not game.is_over():
            seat = game.current_player()
            yield game, seat
            game.apply(agents[seat].act(InfoSet(game, seat)))


def test_registry_builds_the_heuristic():
    assert isinstance(make_agent("heuristic", "big_city", 3), BigCityHeuristicAgent)


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_always_legal_from_the_seat_view_only(n):
    probe = BigCityHeuristicAgent(1)
    seen = set()
    for game, seat in mixed_games(n, range(2)):
        action = probe.act(SeatOnly(InfoSet(game, seat)))
        assert isinstance(action, int) and game.legal_actions()[action], game.describe_action(action)
        seen.add(game.decision_name())
    assert {"SETUP_TILE", "TILE_CELL", "MAIN", "BUILD_SELECT", "DRAW"} <= seen


@pytest.mark.parametrize("n", [2, 4])
def test_hidden_cards_do_not_change_the_choice(n):
    """A determinized twin (other hands and pile order redealt) gets the same action."""
    rng = np.random.default_rng(n)
    compared = 0
    for i, (game, seat) in enumerate(mixed_games(n, range(2))):
        if i % 5:
            continue
        twin = game.determinize(seat, rng)
        a = BigCityHeuristicAgent(7).act(InfoSet(game, seat))
        assert a == BigCityHeuristicAgent(7).act(InfoSet(twin, seat))
        compared += 1
    assert compared >= 20


def test_deterministic_given_seed():
    def play(seed: int) -> list[int]:
        game = make_game("big_city", 3, seed=11)
        agents = [BigCityHeuristicAgent(seed + s) for s in range(3)]
        while not game.is_over():
            seat = game.current_player()
            game.apply(agents[seat].act(InfoSet(game, seat)))
        return game.history

    assert play(3) == play(3)


@pytest.mark.parametrize("n", [2, 5])
def test_self_play_builds_the_city_and_ends(n):
    for seed in range(2):
        game = make_game("big_city", n, seed=seed)
        agents = [BigCityHeuristicAgent(seed * 5 + s) for s in range(n)]
        while not game.is_over():
            seat = game.current_player()
            game.apply(agents[seat].act(InfoSet(game, seat)))
        s = game.state
        assert not game.is_truncated() and s.occupant[4] >= 0 and s.trams
        assert sum(t is not None for t in s.tiles) >= 7 and max(s.scores) >= 40


def test_beats_random_in_two_player_games():
    results = evaluate("big_city", 2, ["heuristic", "random"], games=30, seed=2024)
    assert results["agents"]["heuristic"]["win_rate"] >= 0.8


@pytest.mark.slow
def test_beats_random_in_400_two_player_games():
    results = evaluate("big_city", 2, ["heuristic", "random"], games=400, seed=1)
    assert results["agents"]["heuristic"]["win_rate"] >= 0.75


@pytest.mark.slow
@pytest.mark.parametrize("n", [3, 4, 5])
def test_beats_randoms_at_a_full_table(n):
    results = evaluate("big_city", n, ["heuristic"] + ["random"] * (n - 1), games=200, seed=n)
    assert results["agents"]["heuristic"]["ci_low"] > 2.0 / n
