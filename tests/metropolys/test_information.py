"""What a Metropolys seat may know: only the secret cards are hidden.

1. For random mid-game states of every count and version and every seat p, `determinize(p, rng)`
   leaves p's observation, view and legal actions unchanged, keeps p's own cards, draws the others'
   from the cards p has not seen, and really varies them.
2. Two states that differ only in another seat's secret card give p identical observations (and
   the same determinization); the changed seat's own observation does change, so the check can fail.
3. At the end every card is revealed to everyone; nothing is left to resample.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

from city_envs.metropolys import components as cp
from city_envs.metropolys.game import Metropolys

from ..game_helpers import play_out
from .helpers import COUNTS, VERSIONS, check_state, mid_game_states, secret_cards


@functools.cache
def states_for(n: int, version: str) -> tuple[Metropolys, ...]:
    states = tuple(mid_game_states(n, range(20 * n, 20 * n + 6), version))
    assert {g.decision_name() for g in states} == {"NBHD", "VALUE"}
    return states


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("n", COUNTS)
def test_determinize_keeps_what_the_seat_knows(n, version):
    rng = np.random.default_rng(n)
    for game in states_for(n, version):
        for p in range(n):
            varied = set()
            for _ in range(12):
                twin = game.determinize(p, rng)
                assert np.array_equal(game.observation(p), twin.observation(p))
                assert game.view(p) == twin.view(p)
                assert np.array_equal(game.legal_actions(), twin.legal_actions())
                assert secret_cards(twin, p) == secret_cards(game, p)
                check_state(twin)
                others = tuple(secret_cards(twin, q) for q in range(n) if q != p)
                varied.add(others)
                dealt = [c for q in range(n) for c in secret_cards(twin, q) if c >= 0]
                if version == "expert":
                    assert sorted(twin.state.colour_card) == sorted(set(twin.state.colour_card))
                    assert sorted(twin.state.area_card) == sorted(set(twin.state.area_card))
                else:
                    assert len(set(dealt)) == n
                    assert n > 2 or cp.FAMILY_BORDERS not in dealt
            assert len(varied) > 1, "the other seats' cards are really resampled"
            play_out(twin, rng)


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("n", COUNTS)
def test_another_seats_secret_card_never_shows(n, version):
    for game in states_for(n, version):
        s = game.state
        for p in range(n):
            q = (p + 1) % n
            other = game.clone()
            t = other.state
            if version == "family":
                deck = [c for c in range(4) if not (n == 2 and c == cp.FAMILY_BORDERS)]
                spare = [c for c in deck if c not in s.family_card]
                if not spare:  # 4 players: swap two other seats' cards instead
                    if n < 3:
                        continue
                    r_ = (p + 2) % n
                    t.family_card[q], t.family_card[r_] = t.family_card[r_], t.family_card[q]
                else:
                    t.family_card[q] = spare[0]
            else:
                t.colour_card[q] = next(c for c in range(5) if c not in s.colour_card)
                t.area_card[q] = next(c for c in range(5) if c not in s.area_card)
            assert np.array_equal(game.observation(p), other.observation(p))
            assert game.view(p) == other.view(p)
            assert not np.array_equal(game.observation(q), other.observation(q))
            det_a = game.determinize(p, np.random.default_rng(3))
            det_b = other.determinize(p, np.random.default_rng(3))
            assert det_a.to_dict()["state"] == det_b.to_dict()["state"]


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("n", COUNTS)
def test_the_view_memo_holds_nothing_hidden(n, version):
    """The board fields of the view memoized on the state (`view_memo`, shared by copies) serve every
    seat: p's view is the same whichever seat filled the memo, and the same as in a determinization for
    p whose memo p filled itself."""
    rng = np.random.default_rng(n + 7)
    for game in states_for(n, version):
        for p in range(n):
            twin = game.determinize(p, rng)
            twin.state.view_memo = None
            mine = twin.view(p)
            for q in range(n):
                filled = game.clone()
                filled.state.view_memo = None
                filled.view(q)
                assert filled.state.view_memo is not None
                assert filled.view(p) == mine


@pytest.mark.parametrize("version", VERSIONS)
def test_cards_are_revealed_at_the_end(version):
    game = play_out(Metropolys(3, seed=5, version=version), np.random.default_rng(5))
    for p in range(3):
        view = game.view(p)
        assert view["revealed_cards"] == [game.view(q)["my_cards"] for q in range(3)]
        assert view["scores"] == game.scores()
    twin = game.determinize(0, np.random.default_rng(0))
    assert twin.to_dict()["state"] == game.to_dict()["state"]


def test_views_before_the_end_hide_other_cards():
    game = Metropolys(4, seed=1, version="expert")
    for p in range(4):
        view = game.view(p)
        assert view["revealed_cards"] is None and view["scores"] is None
        text = repr(view)
        for q in range(4):
            if q != p:
                mine = game.view(q)["my_cards"]
                if mine != view["my_cards"]:
                    assert repr(mine) not in text
