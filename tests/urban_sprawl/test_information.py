"""What an Urban Sprawl seat may know: everything but the order of the decks.

1. `determinize(p, rng)` keeps p's observation, view and legal actions, keeps every card in its place
   except the hidden deck order, really reorders the decks, and the twin plays on:
   tests/test_every_game.py, with `check_determinized` and `hidden_from` of urban_sprawl_helpers.
2. Two states that differ only in the order of a deck's face-down cards give every seat identical
   observations and views; a change to a face-up card (which everyone sees) does change them, so the
   check can fail.
3. Planning cards in hand are public: every seat's observation shows every hand.
"""

from __future__ import annotations

import functools

import pytest

from city_envs.urban_sprawl import view
from city_envs.urban_sprawl.game import UrbanSprawl

from ..game_helpers import same_for
from .helpers import COUNTS, mid_game_states


@functools.cache
def states_for(n: int) -> tuple[UrbanSprawl, ...]:
    return tuple(mid_game_states(n, range(30 * n, 30 * n + 8), per_game=3))


def _reorder_hidden(game: UrbanSprawl) -> UrbanSprawl | None:
    """A twin whose decks' face-down cards are in another order (the face-up tops stay)."""
    twin = game.clone()
    s = twin.state
    changed = False
    for d, deck in enumerate(s.decks):
        hidden = len(deck) - (1 if s.deck_up[d] else 0)
        if hidden >= 2:
            deck[:hidden] = deck[:hidden][::-1] if deck[0] != deck[hidden - 1] else deck[:hidden]
            changed = True
    hidden = len(s.planning_deck) - (1 if s.planning_up else 0)
    if hidden >= 2:
        s.planning_deck[:hidden] = s.planning_deck[:hidden][::-1]
        changed = True
    return twin if changed else None


@pytest.mark.parametrize("n", COUNTS)
def test_deck_order_never_reaches_an_observation(n):
    checked = 0
    for game in states_for(n):
        twin = _reorder_hidden(game)
        if twin is None:
            continue
        assert twin.state.decks != game.state.decks or twin.state.planning_deck != game.state.planning_deck
        for p in range(n):
            assert same_for(game, twin, p)
        checked += 1
    assert checked >= len(states_for(n)) - 2


@pytest.mark.parametrize("n", COUNTS)
def test_a_face_up_change_is_seen(n):
    for game in states_for(n)[:4]:
        twin = game.clone()
        s = twin.state
        slot = next(k for k in range(5) if s.slots[k] >= 0)
        s.slots[slot] = next(c for c in range(96) if c != s.slots[slot])
        for p in range(n):
            assert not same_for(game, twin, p)


@pytest.mark.parametrize("n", COUNTS)
def test_hands_are_public(n):
    game = states_for(n)[0]
    for p in range(n):
        obs = game.observation(p)
        for seat in range(n):
            row = view.PLAYERS.view(obs)[(seat - p) % n]
            shown = [c for c in range(40) if row[view.PLAYERS.column("hand") + c]]
            assert shown == game.state.hands[seat]
            assert game.view(p)["hands"][seat] == game.state.hands[seat]
