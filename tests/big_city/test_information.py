"""What a Big City seat may know: hands, exchange choices and pile order.

1. `determinize(p, rng)` keeps p's observation, view and (when p acts) legal actions, conserves the
   cards and each seat's cards per pile, keeps p's hand and p's returned cards in place, really
   redeals, and the twin can be played on: tests/test_every_game.py, with `check_determinized` and
   `hidden_from` of tests/big_city/helpers.py.
2. Pairs of states that differ only in a hidden item give p identical observations: a card swapped
   between another seat's hand and a pile (same pile), the pile order, and the active seat's exchange
   choice. The seat that can see the change does see it, so the checks can fail.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

from city_envs.big_city import components as cp
from city_envs.big_city.game import BigCity

from ..game_helpers import same_for
from .helpers import COUNTS, mid_game_states, position


@functools.cache
def states_for(n: int) -> tuple[BigCity, ...]:
    return tuple(mid_game_states(n, range(30 * n, 30 * n + 10), per_game=4))


def swap_hand_card_with_pile(game: BigCity, seat: int) -> BigCity | None:
    """A twin where one card of `seat`'s hand swapped with a different card of the same pile."""
    twin = game.clone()
    s = twin.state
    for j, card in enumerate(s.hands[seat]):
        i = cp.CARD_PILE[card] - 1
        for k, other in enumerate(s.piles[i]):
            if s.pile_known[i][k] < 0 and other != card:
                s.hands[seat][j], s.piles[i][k] = other, card
                twin._mask = None
                return twin
    return None


@pytest.mark.parametrize("n", COUNTS)
def test_hidden_items_never_show(n):
    compared = 0
    for game in states_for(n):
        for p in range(n):
            q = (p + 1) % n
            twin = swap_hand_card_with_pile(game, q)
            if twin is not None:
                assert same_for(game, twin, p)
                assert not same_for(game, twin, q)
                compared += 1
            shuffled = game.clone()
            for i in range(8):
                unknown = [k for k, seat in enumerate(shuffled.state.pile_known[i]) if seat != p]
                cards = [shuffled.state.piles[i][k] for k in unknown][::-1]
                for k, c in zip(unknown, cards, strict=True):
                    shuffled.state.piles[i][k] = c
            assert same_for(game, shuffled, p)
    assert compared >= 10 * n


def test_exchange_choice_is_hidden_from_the_others():
    game = position(n=3, hands={0: [11, 12, 21, 31, 41]})
    game.apply(93)
    twin = game.clone()
    game.apply(0)  # card 11
    twin.apply(1)  # card 12, the same pile
    for p in (1, 2):
        assert same_for(game, twin, p)
    assert not same_for(game, twin, 0)
    game.apply(95)
    twin.apply(95)
    for p in (1, 2):  # which card went to the bottom of pile 1 stays hidden; seat 0 knows it
        assert same_for(game, twin, p)
    assert game.view(0)["known_in_piles"] == [0] and twin.view(0)["known_in_piles"] == [1]
    assert game.view(1)["known_in_piles"] == []


def test_returned_cards_stay_where_their_owner_put_them():
    game = position(n=2, hands={0: [11, 12, 21, 31, 41]})
    for action in (93, 0, 95):
        game.apply(action)
    rng = np.random.default_rng(0)
    moved = 0
    for _ in range(20):
        twin = game.determinize(0, rng)
        assert twin.state.piles[0][0] == 0
        other = game.determinize(1, rng)  # seat 1 cannot tell which card went back
        assert len(other.state.piles[0]) == len(game.state.piles[0])
        assert other.state.hands[1] == game.state.hands[1]
        moved += other.state.piles[0][0] != 0
    assert moved > 0
