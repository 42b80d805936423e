"""Randomized full games of Citadels with the invariants checked after every step.

GAME_DONE.md "Tests": cards conserved, no negative resources, masks never empty before the end
and limited to the pending decision, the game always ends, returns sum to 0, scores equal an
independent recount, winners follow the tie-break. The default run plays the smallest and largest player counts; the
counts between them run with `-m slow`.
"""

from __future__ import annotations

import numpy as np
import pytest

from city_envs.citadels import components as cp
from city_envs.citadels.game import Citadels

from ..game_helpers import end_counts_first
from .helpers import (
    SPEC_COPIES,
    SPEC_COST,
    SPEC_DISTRICTS,
    SPEC_TYPE,
    check_state,
    completion_size,
    random_action,
    spec_returns,
    spec_score,
    spec_winners,
)

GAMES_PER_COUNT = 60
CLASSIC_GAMES_PER_COUNT = 50
SLOW_GAMES_PER_COUNT = 3000
DECISION_LIMIT = 20_000


def play_checked(n: int, seed: int, classic_variant: bool = False) -> Citadels:
    """One random game with every invariant checked after every step; returns the final game."""
    game = Citadels(n, seed=seed, classic_variant=classic_variant)
    rng = np.random.default_rng(seed)
    assert len(game.state.deck) == 68 - 4 * n
    assert game.state.hands.sum(axis=1).tolist() == [4] * n
    assert game.state.gold == [2] * n
    assert game.state.completion == completion_size(n, classic_variant)
    completed: set[int] = set()
    for _ in range(DECISION_LIMIT):
        ids = check_state(game)
        s = game.state
        # a completed city can never shrink (Warlord immunity)
        assert all(s.city_size[seat] >= s.completion for seat in completed)
        completed.update(seat for seat in range(n) if s.city_size[seat] >= s.completion)
        if game.is_over():
            break
        round_before = s.round
        game.apply(ids[rng.integers(len(ids))])
        assert game.state.round in (round_before, round_before + 1)
    else:
        raise AssertionError(f"n={n} seed={seed}: no end within {DECISION_LIMIT} decisions")
    check_final(game)
    return game


def check_final(game: Citadels) -> None:
    n = game.num_players
    s = game.state
    scores = game.scores()
    recount = [spec_score(game, seat) for seat in range(n)]
    assert scores == recount, f"scores {scores} != recount {recount}"
    winners = spec_winners(game)
    assert sorted(game.winners()) == winners
    returns = game.returns()
    assert returns == pytest.approx(spec_returns(n, winners))
    assert sum(returns) == pytest.approx(0.0, abs=1e-9)
    if not game.is_truncated():
        assert s.game_ending and max(s.city_size) >= s.completion
        assert s.city_size[s.first_completer] >= s.completion
    else:
        assert s.round == s.max_rounds and not s.game_ending


def run_batch(n: int, count: int, seed0: int, classic_variant: bool = False) -> dict:
    truncated, rounds, decisions = 0, [], []
    for seed in range(seed0, seed0 + count):
        game = play_checked(n, seed, classic_variant)
        truncated += game.is_truncated()
        rounds.append(game.state.round)
        decisions.append(len(game.history))
    return {"truncated": truncated, "max_rounds": max(rounds), "mean_decisions": np.mean(decisions)}


def test_spec_component_totals():
    """The rulebook's table (as copied here) and components.py agree, and match the rulebook's totals."""
    assert int(SPEC_COPIES.sum()) == 68
    per_type = [int(sum(SPEC_COPIES[k] for k in range(30) if SPEC_TYPE[k] == t)) for t in range(5)]
    assert per_type == [12, 11, 20, 11, 14]
    assert int(sum(SPEC_COPIES[k] * SPEC_COST[k] for k in range(30))) == 219
    assert [d.name for d in cp.DISTRICTS] == [d[0] for d in SPEC_DISTRICTS]
    assert cp.COPIES.tolist() == SPEC_COPIES.tolist()
    assert cp.COST.tolist() == SPEC_COST and cp.TYPE_OF.tolist() == SPEC_TYPE


@pytest.mark.parametrize("n", end_counts_first(range(2, 8)))
def test_random_games(n):
    stats = run_batch(n, GAMES_PER_COUNT, seed0=1000 * n)
    # random play must finish by the completion rule, well before the max_rounds safety valve
    assert stats["truncated"] == 0, stats
    assert stats["max_rounds"] < 50, stats


@pytest.mark.parametrize("n", end_counts_first(range(4, 8)))
def test_random_games_classic_variant(n):
    stats = run_batch(n, CLASSIC_GAMES_PER_COUNT, seed0=50_000 + 1000 * n, classic_variant=True)
    assert stats["truncated"] == 0, stats


@pytest.mark.parametrize("n", [2, 3])
def test_classic_variant_changes_nothing_with_two_or_three_players(n):
    for seed in range(5):
        plain = Citadels(n, seed=seed)
        variant = Citadels(n, seed=seed, classic_variant=True)
        rng = np.random.default_rng(seed)
        while not plain.is_over():
            assert np.array_equal(plain.legal_actions(), variant.legal_actions())
            action = random_action(plain, rng)
            plain.apply(action)
            variant.apply(action)
        assert variant.is_over() and plain.scores() == variant.scores()


def test_truncation_at_max_rounds():
    """The safety valve: a short max_rounds stops the game as a truncation, still zero-sum."""
    for n in range(2, 8):
        game = Citadels(n, seed=n, max_rounds=1)
        rng = np.random.default_rng(n)
        while not game.is_over():
            game.apply(random_action(game, rng))
            check_state(game)
        assert game.state.round == 1 and game.is_truncated()  # no city completes in one round
        check_final(game)


def test_invariant_checks_can_fail():
    """The checker (validate() first) notices a lost card, negative gold and a double district."""
    game = Citadels(4, seed=0)
    check_state(game)
    for corrupt in (
        lambda s: s.deck.pop(),
        lambda s: s.gold.__setitem__(1, -1),
        lambda s: s.cities.__setitem__((2, 5), 2),
    ):
        bad = game.clone()
        corrupt(bad.state)
        with pytest.raises(ValueError):
            check_state(bad)


@pytest.mark.slow
@pytest.mark.parametrize("n", range(2, 8))
@pytest.mark.parametrize("classic_variant", [False, True])
def test_random_games_slow(n, classic_variant):
    stats = run_batch(n, SLOW_GAMES_PER_COUNT, seed0=1_000_000 + 100_000 * n, classic_variant=classic_variant)
    assert stats["truncated"] == 0, stats
