"""Randomized Urban Sprawl games: invariants after every step, for every player count and variant.

150 games per player count (the default run: 2 and 4 players; the slow job: 3 too), cut at 24 turns
by the `max_turns` valve (they reach every decision kind, the Airport and elections), plus full-length
games to the Olympic Games in every variant; 300 more full-length games per count in the slow job.
"""

from __future__ import annotations

import numpy as np
import pytest

from city_envs.urban_sprawl import rules
from city_envs.urban_sprawl.game import UrbanSprawl

from ..game_helpers import end_counts_first, play_out
from .helpers import COUNTS, VARIANTS, check_state, expected_final_prestige


def run_games(n: int, seeds, **options) -> tuple[set[str], int]:
    decisions: set[str] = set()
    olympics = 0
    for seed in seeds:
        game = UrbanSprawl(n, seed=seed, variant=VARIANTS[seed % 3], **options)
        check_state(game)

        def check(g: UrbanSprawl) -> None:
            check_state(g)
            decisions.add(g.decision_name())

        play_out(game, np.random.default_rng(seed + 11), check)
        olympics += 10 in game.state.events_done
    return decisions, olympics


@pytest.mark.parametrize("n", end_counts_first(COUNTS))
def test_short_random_games_keep_every_invariant(n):
    decisions, _ = run_games(n, range(150), max_turns=24)
    assert decisions >= {"START_BUY", "INVEST", "MAIN", "PAY_PERMIT", "PLACE", "VOC_PAYOUT", "MAYOR_PARK", "GAME_OVER"}


@pytest.mark.parametrize("n", end_counts_first(COUNTS))
def test_full_random_games_end_with_the_olympic_games(n, monkeypatch):
    """Every game reaches the Olympic Games; the final prestige equals an independent recount."""
    before: list[list[int]] = []
    scoring = rules.final_scoring

    def recorded(s):
        before.append(list(s.prestige))
        scoring(s)
        assert s.prestige == expected_final_prestige(s, before[-1])

    monkeypatch.setattr(rules, "final_scoring", recorded)
    decisions, olympics = run_games(n, range(1000, 1012))
    assert olympics == 12 and len(before) == 12
    assert decisions >= {
        "VOC_SOURCE",
        "ELECTION_TIE",
        "AUCTION",
        "PICK_BUILDING",
        "BLIGHT_CHOICE",
        "MARKER_PLACE",
        "MARKER_MOVE_SRC",
        "MARKER_MOVE_DST",
    }


@pytest.mark.slow
@pytest.mark.parametrize("n", COUNTS)
def test_many_full_random_games_keep_every_invariant(n):
    _, olympics = run_games(n, range(2000, 2300))
    assert olympics == 300
