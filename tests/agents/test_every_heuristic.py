"""What every game's heuristic agent must do alike: be built by the registry, answer legally from its seat's
view alone, ignore what its seat cannot see, repeat itself given a seed, and beat random play.

One test per property, parametrized over `city_envs.GAMES` (test ids are the game names); what differs
between games is in `CASES` below. tests/agents/test_<game>_heuristic.py keep what only that game's
heuristic does (how its self-play games end). The full strength measurements are marked slow
(`pytest -m slow`).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

import city_envs
from city_envs import make_game
from city_envs.agents.big_city_heuristic import BigCityHeuristicAgent
from city_envs.agents.blue_moon_city_heuristic import BlueMoonCityHeuristicAgent
from city_envs.agents.citadels_heuristic import CitadelsHeuristicAgent
from city_envs.agents.metropolys_heuristic import MetropolysHeuristicAgent
from city_envs.agents.registry import make_agent
from city_envs.agents.urban_sprawl_heuristic import UrbanSprawlHeuristicAgent
from city_envs.core.game import Game
from city_envs.core.infoset import InfoSet
from city_envs.evaluation import evaluate

from .handles import SeatOnly, heuristic_self_play, mixed_games

Config = tuple[int, dict[str, Any]]  # (num_players, options)


def decision(game: Game, action: int) -> Hashable:
    return game.decision_name()


@dataclass(frozen=True)
class Case:
    """One game's heuristic and its parameters for the generic tests."""

    agent: type
    legal_configs: tuple[Config, ...]  # tables on which every answer must be legal
    legal_seeds: range
    required: Callable[[int], set]  # situations (see `situation`) those games must include, per player count
    hidden_configs: tuple[Config, ...]  # tables on which a determinized twin must get the same answer
    hidden_stride: int  # compare at every this-many-th decision
    deterministic_configs: tuple[Config, ...]
    two_player_games: int  # heuristic against random, seats rotated
    min_two_player_win_rate: float
    situation: Callable[[Game, int], Hashable] = decision  # what the always-legal test collects
    hidden_seeds: range = range(2)
    determinize_may_give_up: bool = False  # the game's rejection sampler may fail or settle for another view
    two_player_options: tuple[dict[str, Any], ...] = ({},)
    # pytest -m slow: 400 two-player games (win rate >= 0.75), then full tables (CI above 2 / n)
    full_table_configs: tuple[Config, ...] = ()
    full_table_min_win_rate: float | None = None
    checks_truncation: bool = False  # whether the strength measurements also require no truncated game


CASES = {
    "citadels": Case(
        agent=CitadelsHeuristicAgent,
        legal_configs=tuple((n, {}) for n in range(2, 8)),
        legal_seeds=range(6),
        required=lambda n: {"SELECT_CHARACTER", "MAIN", "KEEP_DRAWN"} | ({"SELECT_DISCARD"} if n == 2 else set()),
        hidden_configs=((2, {}), (4, {}), (7, {})),
        hidden_stride=5,
        hidden_seeds=range(3),
        determinize_may_give_up=True,
        deterministic_configs=((2, {}), (5, {})),
        two_player_games=100,
        min_two_player_win_rate=0.70,
        full_table_configs=((4, {}), (6, {})),
        full_table_min_win_rate=0.6,
        checks_truncation=True,
    ),
    "metropolys": Case(
        agent=MetropolysHeuristicAgent,
        legal_configs=tuple((n, {"version": version}) for n in (2, 3, 4) for version in ("family", "expert")),
        legal_seeds=range(3),
        situation=lambda game, action: (game.decision_name(), action == 68, bool(game.state.bids)),
        required=lambda n: {("NBHD", False, False), ("NBHD", False, True), ("VALUE", False, False)},
        hidden_configs=tuple((n, {"version": version}) for n in (2, 3, 4) for version in ("family", "expert")),
        hidden_stride=4,
        deterministic_configs=((3, {"version": "expert"}),),
        two_player_games=60,
        min_two_player_win_rate=0.8,
        two_player_options=({"version": "family"}, {"version": "expert"}),
        full_table_configs=((3, {"version": "family"}), (4, {"version": "family"}), (4, {"version": "expert"})),
    ),
    "blue_moon_city": Case(
        agent=BlueMoonCityHeuristicAgent,
        legal_configs=tuple((n, {"max_rounds": 40}) for n in (2, 3, 4)),
        legal_seeds=range(3),
        required=lambda n: {"MOVE", "BUILD", "PAY", "DISCARD"},
        hidden_configs=((2, {"max_rounds": 40}), (4, {"max_rounds": 40})),
        hidden_stride=7,
        deterministic_configs=((3, {}),),
        two_player_games=40,
        min_two_player_win_rate=0.8,
        full_table_configs=((3, {}), (4, {})),
    ),
    "big_city": Case(
        agent=BigCityHeuristicAgent,
        legal_configs=tuple((n, {}) for n in (2, 3, 4, 5)),
        legal_seeds=range(2),
        required=lambda n: {"SETUP_TILE", "TILE_CELL", "MAIN", "BUILD_SELECT", "DRAW"},
        hidden_configs=((2, {}), (4, {})),
        hidden_stride=5,
        deterministic_configs=((3, {}),),
        two_player_games=30,
        min_two_player_win_rate=0.8,
        full_table_configs=((3, {}), (4, {}), (5, {})),
    ),
    "urban_sprawl": Case(
        agent=UrbanSprawlHeuristicAgent,
        legal_configs=tuple((n, {"variant": "short"}) for n in (2, 3, 4)),
        legal_seeds=range(3),
        required=lambda n: {"START_BUY", "INVEST", "MAIN", "PAY_PERMIT", "PLACE", "VOC_PAYOUT"},
        hidden_configs=((2, {"max_turns": 40}), (4, {"max_turns": 40})),
        hidden_stride=9,
        deterministic_configs=((3, {"variant": "short"}),),
        two_player_games=30,
        min_two_player_win_rate=0.8,
        full_table_configs=((3, {}), (4, {})),
    ),
}
assert set(CASES) == set(city_envs.GAMES), "every registered game needs a row in CASES"

GAMES = pytest.mark.parametrize("name", city_envs.GAMES)


def configs(attribute: str) -> list:
    """pytest params (name, num_players, options) of every game; ids like `metropolys-3p-version=expert`."""
    return [
        pytest.param(name, n, options, id="-".join([name, f"{n}p", *(f"{k}={v}" for k, v in options.items())]))
        for name, case in CASES.items()
        for n, options in getattr(case, attribute)
    ]


def two_player_configs() -> list:
    return [
        pytest.param(name, options, id="-".join([name, *(f"{k}={v}" for k, v in options.items())]))
        for name, case in CASES.items()
        for options in case.two_player_options
    ]


@GAMES
def test_registry_builds_the_heuristic(name):
    assert isinstance(make_agent("heuristic", name, 3), CASES[name].agent)


@pytest.mark.parametrize(("name", "n", "options"), configs("legal_configs"))
def test_always_legal_from_the_seat_view_only(name, n, options):
    """Over every decision of mixed games, a fresh heuristic answers legally from view + mask alone."""
    case = CASES[name]
    probe = case.agent(1)
    seen = set()
    for game, seat in mixed_games(case.agent, name, n, case.legal_seeds, **options):
        action = probe.act(SeatOnly(InfoSet(game, seat)))
        assert isinstance(action, int)
        assert game.legal_actions()[action], (game.decision_name(), game.describe_action(action))
        seen.add(case.situation(game, action))
    assert case.required(n) <= seen


@pytest.mark.parametrize(("name", "n", "options"), configs("hidden_configs"))
def test_hidden_information_does_not_change_the_choice(name, n, options):
    """A determinized twin (what the seat cannot see resampled) gets the same action."""
    case = CASES[name]
    rng = np.random.default_rng(n)
    compared = 0
    for i, (game, seat) in enumerate(mixed_games(case.agent, name, n, case.hidden_seeds, **options)):
        if i % case.hidden_stride:
            continue
        try:
            twin = game.determinize(seat, rng)
        except RuntimeError:
            if not case.determinize_may_give_up:
                raise
            continue  # the engine's rejection sampler rarely gives up (Citadels, 7 players); not the agent's fault
        if twin.view(seat) != game.view(seat):
            assert case.determinize_may_give_up, "determinize must keep the seat's view"
            continue
        assert case.agent(7).act(InfoSet(game, seat)) == case.agent(7).act(InfoSet(twin, seat))
        compared += 1
    assert compared >= 20


@pytest.mark.parametrize(("name", "n", "options"), configs("deterministic_configs"))
def test_deterministic_given_seed(name, n, options):
    def play(seed: int) -> tuple[list[int], list[float]]:
        game = heuristic_self_play(CASES[name].agent, name, n, 11, seed, **options)
        return game.history, game.scores()

    assert play(3) == play(3)


@GAMES
def test_refuses_when_not_its_turn(name):
    game = make_game(name, 3, seed=0)
    other = (game.current_player() + 1) % 3
    with pytest.raises(ValueError):
        CASES[name].agent(0).act(InfoSet(game, other))


@pytest.mark.parametrize(("name", "options"), two_player_configs())
def test_beats_random_in_two_player_games(name, options):
    case = CASES[name]
    results = evaluate(name, 2, ["heuristic", "random"], games=case.two_player_games, seed=2024, **options)
    assert results["seat_counts"]["heuristic"] == [case.two_player_games // 2] * 2
    assert results["agents"]["heuristic"]["win_rate"] >= case.min_two_player_win_rate
    if case.checks_truncation:
        assert results["truncated"] == 0


@pytest.mark.slow
@pytest.mark.parametrize(("name", "options"), two_player_configs())
def test_beats_random_in_400_two_player_games(name, options):
    results = evaluate(name, 2, ["heuristic", "random"], games=400, seed=1, **options)
    assert results["agents"]["heuristic"]["win_rate"] >= 0.75
    if CASES[name].checks_truncation:
        assert results["truncated"] == 0


@pytest.mark.slow
@pytest.mark.parametrize(("name", "n", "options"), configs("full_table_configs"))
def test_beats_randoms_at_a_full_table(name, n, options):
    case = CASES[name]
    results = evaluate(name, n, ["heuristic"] + ["random"] * (n - 1), games=200, seed=n, **options)
    heuristic = results["agents"]["heuristic"]
    if case.full_table_min_win_rate is not None:
        assert heuristic["win_rate"] >= case.full_table_min_win_rate  # chance is 1/n
    assert heuristic["ci_low"] > 2.0 / n
    if case.checks_truncation:
        assert results["truncated"] == 0
