"""What a Blue Moon City seat may know: hands, pending cards and the deck.

1. `determinize(p, rng)` keeps p's observation, view and (when p acts) legal actions, conserves the
   cards, keeps p's hand, really redeals the others' hands, and the twin can be played on:
   tests/test_every_game.py, with `check_determinized` and `hidden_from` of tests/blue_moon_city/helpers.py.
2. Pairs of states that differ only in a hidden item give p identical observations: a card moved
   between another seat's hand and the deck, the deck order, and the identities of the active
   seat's pending reward cards (hidden even from their owner until the end of the turn). The seat
   that can see the change does see it, so the checks can fail.
"""

from __future__ import annotations

import functools

import pytest

from city_envs.blue_moon_city.game import BlueMoonCity

from ..game_helpers import same_for
from .helpers import COUNTS, mid_game_states


@functools.cache
def states_for(n: int) -> tuple[BlueMoonCity, ...]:
    return tuple(mid_game_states(n, range(30 * n, 30 * n + 8), per_game=3))


def move_card_from_hand_to_deck(game: BlueMoonCity, seat: int) -> BlueMoonCity | None:
    """A twin where one card of `seat`'s hand swapped with a different card of the deck."""
    twin = game.clone()
    s = twin.state
    for i, deck_card in enumerate(s.deck):
        for card, count in enumerate(s.hands[seat]):
            if count and card != deck_card:
                s.hands[seat][card] -= 1
                s.hands[seat][deck_card] += 1
                s.deck[i] = card
                twin._mask = None
                return twin
    return None


@pytest.mark.parametrize("n", COUNTS)
def test_hidden_items_never_show(n):
    compared = 0
    for game in states_for(n):
        for p in range(n):
            q = (p + 1) % n
            twin = move_card_from_hand_to_deck(game, q)
            if twin is not None:
                assert same_for(game, twin, p)
                assert not same_for(game, twin, q)
                compared += 1
            shuffled = game.clone()
            shuffled.state.deck = shuffled.state.deck[::-1]
            assert same_for(game, shuffled, p)
    assert compared >= 10 * n


def test_pending_cards_are_hidden_even_from_their_owner():
    seen = 0
    for n in COUNTS:
        for game in mid_game_states(n, range(200, 260), per_game=6):
            s = game.state
            if not s.pending or len(s.deck) < 1:
                continue
            twin = game.clone()
            t = twin.state
            swap = next((i for i, card in enumerate(t.deck) if card != t.pending[0]), None)
            if swap is None:
                continue
            t.pending[0], t.deck[swap] = t.deck[swap], t.pending[0]
            for p in range(n):
                assert same_for(game, twin, p)
            seen += 1
    assert seen >= 3
