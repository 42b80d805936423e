"""Big City's memos of derived data give what deriving it afresh gives: an observation built on the
board block of an earlier board (a piece or tram laid since, in this match or in a copy that shares the
memo) equals one built from an empty memo, and so do the tile anchors, the park and factory placements
(filtered from an earlier board's) and the geometry tables (updated from the last city's by a new tile)."""

from __future__ import annotations

import numpy as np
import pytest

from city_envs import make_game
from city_envs.big_city import rules, view


def _fresh(s: rules.State) -> rules.State:
    twin = view.copy_state(s)
    twin.memo, twin.geo = {}, {}
    return twin


def _check(s: rules.State, rng: np.random.Generator) -> int:
    checked = 0
    for seat in range(s.n):
        if rng.random() < 0.5:
            assert view.observation(s, seat).tobytes() == view.observation(_fresh(s), seat).tobytes()
            checked += 1
    for width, height in ((3, 3), (4, 2), (2, 4)):
        assert rules.rectangle_options(s, width, height) == rules.rectangle_options(_fresh(s), width, height)
    fresh = _fresh(s)  # the tables a new tile updates in place of deriving them afresh
    assert rules.neighbour_table(s) == rules.neighbour_table(fresh)
    assert rules.key_table(s) == rules.key_table(fresh)
    assert rules.street_edges(s) == rules.street_edges(fresh)
    assert rules._touch_map(s) == rules._touch_map(fresh)
    for kind in rules.FLAT_FACILITY_SHAPES:  # asked in either order: each leaves its own memo for the next board
        fresh = rules.facility_placements(_fresh(s), kind)
        if rng.random() < 0.5:
            assert rules.facility_possible(s, kind) == bool(fresh)
        assert rules.facility_placements(s, kind) == fresh
    return checked


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_memoized_observations_equal_fresh_ones_in_random_play_and_its_copies(players):
    checked = 0
    for seed in range(3):
        game = make_game("big_city", players, seed=seed)
        rng = np.random.default_rng(seed)
        while not game.is_over():
            if rng.random() < 0.2:  # observed now and then, so that several pieces are added at once
                checked += _check(game.state, rng)
            if rng.random() < 0.05:  # a copy shares the memos, then goes its own way
                twin = game.clone()
                for _ in range(int(rng.integers(1, 12))):
                    if twin.is_over():
                        break
                    twin.apply(int(rng.choice(np.flatnonzero(twin.legal_actions()))))
                checked += _check(twin.state, rng)
            game.apply(int(rng.choice(np.flatnonzero(game.legal_actions()))))
    assert checked > 10
