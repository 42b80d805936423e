"""What a Big City seat may know (spec section 7): hands, exchange choices and pile order.

1. For random mid-game states of every count and every seat p, `determinize(p, rng)` leaves p's
   observation, view and (when p acts) legal actions unchanged, conserves the cards and each seat's
   cards per pile, keeps p's hand and p's returned cards in place, really redeals, and the twin can
   be played on.
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
from city_envs.big_city.view import pile_counts

from .bc_testlib import COUNTS, card_places, check_state, mid_game_states, position


@functools.cache
def states_for(n: int) -> tuple[BigCity, ...]:
    return tuple(mid_game_states(n, range(30 * n, 30 * n + 10), per_game=4))


def same_for(a: BigCity, b: BigCity, p: int) -> bool:
    return np.array_equal(a.observation(p), b.observation(p)) and a.view(p) == b.view(p)


def known_cards(game: BigCity, p: int) -> list[tuple[int, int, int]]:
    s = game.state
    return [(i, j, c) for i in range(8) for j, (c, seat) in enumerate(zip(s.piles[i], s.pile_known[i], strict=True))
            if seat == p]


@pytest.mark.parametrize("n", COUNTS)
def test_determinize_keeps_what_the_seat_knows(n):
    rng = np.random.default_rng(n)
    redealt = 0
    for game in states_for(n):
        for p in range(n):
            twin = game.determinize(p, rng)
            assert same_for(game, twin, p)
            if game.current_player() == p:
                assert np.array_equal(game.legal_actions(), twin.legal_actions())
            else:
                assert twin.is_over() or twin.legal_actions().any()
            assert twin.state.hands[p] == game.state.hands[p]
            assert known_cards(twin, p) == known_cards(game, p)
            assert sorted(card_places(twin)) == list(range(72))
            assert [pile_counts(h) for h in twin.state.hands] == [pile_counts(h) for h in game.state.hands]
            check_state(twin)
            redealt += any(twin.state.hands[q] != game.state.hands[q] for q in range(n) if q != p)
            for _ in range(30):  # the twin plays on
                if twin.is_over():
                    break
                twin.apply(int(rng.choice(np.flatnonzero(twin.legal_actions()))))
    assert redealt > len(states_for(n))


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
