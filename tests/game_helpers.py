"""Helpers shared by the tests of every game: random play, position sampling, state comparisons.

Citadels keeps its own random play and sampler (tests/citadels/helpers.py).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

import numpy as np
import pytest

from city_envs.core.game import Game, IllegalActionError

G = TypeVar("G", bound=Game)


def end_counts_first(counts: Iterable[int]) -> list:
    """pytest params of the player `counts`: the smallest and the largest run in the default suite, the
    counts between them behind `slow`."""
    counts = list(counts)
    return [pytest.param(n, marks=() if n in (min(counts), max(counts)) else pytest.mark.slow) for n in counts]


def legal(game: Game) -> set[int]:
    return set(np.flatnonzero(game.legal_actions()).tolist())


def random_action(game: Game, rng: np.random.Generator) -> int:
    return int(rng.choice(np.flatnonzero(game.legal_actions())))


def play_out(game: G, rng: np.random.Generator, check: Callable[[G], Any] | None = None) -> G:
    """Random legal play to the end, calling `check` after every step."""
    while not game.is_over():
        game.apply(random_action(game, rng))
        if check is not None:
            check(game)
    return game


def mid_game_states(
    game_cls: type[G], n: int, seeds: Iterable[int], per_game: int, horizon: int, **options: Any
) -> list[G]:
    """Clones taken at `per_game` random steps below `horizon` of one random game per seed."""
    found = []
    for seed in seeds:
        rng = np.random.default_rng(seed)
        game = game_cls(n, seed=seed, **options)
        stops = set(rng.integers(1, horizon, size=per_game).tolist())
        step = 0
        while not game.is_over() and step <= max(stops):
            if step in stops:
                found.append(game.clone())
            game.apply(random_action(game, rng))
            step += 1
    return found


def snapshot(game: Game) -> str:
    """The whole match frozen as text (immune to any aliasing between `to_dict()` and the game)."""
    return json.dumps(game.to_dict(), sort_keys=True)


def json_round_trip(game: G) -> G:
    """`from_dict` of `to_dict` through JSON text (no `default=`: the data must be plain JSON already)."""
    return type(game).from_dict(json.loads(json.dumps(game.to_dict())))


def assert_same_game(a: Game, b: Game) -> None:
    """Same data, same pending decision and mask, and the same observation and view for every seat."""
    assert a.to_dict() == b.to_dict()
    assert a.current_player() == b.current_player() and a.decision_name() == b.decision_name()
    assert a.is_over() == b.is_over()
    assert np.array_equal(a.legal_actions(), b.legal_actions())
    for p in range(a.num_players):
        assert np.array_equal(a.observation(p), b.observation(p))
        assert a.view(p) == b.view(p)


def assert_rejected(game: Game, action: Any) -> IllegalActionError:
    """`action` raises an `IllegalActionError` naming it and the pending decision, and changes nothing."""
    before, history = snapshot(game), list(game.history)
    mask = game.legal_actions().copy()
    decision = game.decision_name()
    with pytest.raises(IllegalActionError) as info:
        game.apply(action)
    error = info.value
    assert isinstance(error, ValueError)
    message = str(error)
    assert repr(action) in message, message
    assert decision in message, message
    assert error.action is action or error.action == action
    assert error.decision == decision
    assert snapshot(game) == before and game.history == history
    assert np.array_equal(game.legal_actions(), mask)
    return error


def same_for(a: Game, b: Game, p: int) -> bool:
    """Whether seat `p` observes and views the two games alike."""
    return np.array_equal(a.observation(p), b.observation(p)) and a.view(p) == b.view(p)


VALIDATE_STRIDE = 10  # Game.validate() costs several times a step; the randomized tests call it this often


def validate_now(game) -> bool:
    """Whether a per-step invariant check should also run `game.validate()` now: every tenth decision,
    and at the end (the slow suite's thousands of games still reach every kind of position)."""
    return game.is_over() or len(game.history) % VALIDATE_STRIDE == 0
