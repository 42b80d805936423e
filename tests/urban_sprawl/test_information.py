"""What an Urban Sprawl seat may know (spec section 7): everything but the order of the decks.

1. For random mid-game states of every count and every seat p, `determinize(p, rng)` leaves p's
   observation, view and legal actions unchanged, keeps every card in its place except the hidden
   deck order, really reorders the decks, and the twin plays on.
2. Two states that differ only in the order of a deck's face-down cards give every seat identical
   observations and views; a change to a face-up card (which everyone sees) does change them, so the
   check can fail.
3. Planning cards in hand are public: every seat's observation shows every hand.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

from city_envs.urban_sprawl import components as cp
from city_envs.urban_sprawl import view
from city_envs.urban_sprawl.game import UrbanSprawl

from .us_testlib import COUNTS, check_state, mid_game_states


@functools.cache
def states_for(n: int) -> tuple[UrbanSprawl, ...]:
    return tuple(mid_game_states(n, range(30 * n, 30 * n + 8), per_game=3))


def same_for(a: UrbanSprawl, b: UrbanSprawl, p: int) -> bool:
    return np.array_equal(a.observation(p), b.observation(p)) and a.view(p) == b.view(p)


@pytest.mark.parametrize("n", COUNTS)
def test_determinize_keeps_what_the_seat_knows(n):
    rng = np.random.default_rng(n)
    reordered = 0
    for game in states_for(n):
        for p in range(n):
            twin = game.determinize(p, rng)
            assert same_for(game, twin, p)
            assert np.array_equal(game.legal_actions(), twin.legal_actions())
            s, t = game.state, twin.state
            assert sorted(s.planning_deck) == sorted(t.planning_deck)
            assert all(sorted(a) == sorted(b) for a, b in zip(s.decks, t.decks, strict=True))
            check_state(twin)
            assert_stacking_kept(game, twin)
            reordered += t.decks != s.decks or t.planning_deck != s.planning_deck
            for _ in range(40):  # the twin plays on
                if twin.is_over():
                    break
                twin.apply(int(rng.choice(np.flatnonzero(twin.legal_actions()))))
    assert reordered > len(states_for(n))


def assert_stacking_kept(game: UrbanSprawl, twin: UrbanSprawl) -> None:
    """A still-hidden special event stays in its window; no planning event in the first 22 cards."""
    above, mixed = cp.DECK_STACKING[game.options["variant"]]
    for d, deck in enumerate(twin.state.decks):
        special = cp.EVENT_BASE + cp.SPECIAL_EVENT[d]
        if special in deck:
            position = 37 - deck.index(special)  # 1 = the original top
            assert above + 1 <= position <= above + mixed + 1
        assert deck[len(deck) - twin.state.deck_up[d]:] == game.state.decks[d][len(deck) - game.state.deck_up[d]:]
    t = twin.state
    if not t.planning_reshuffles:
        first_22 = t.planning_deck[max(0, len(t.planning_deck) - (22 - (50 - len(t.planning_deck)))):]
        assert all(c < 36 for c in first_22)


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
            base = view.PLAYERS_AT + view.PLAYER_WIDTH * ((seat - p) % n)
            shown = [c for c in range(40) if obs[base + 2 + c]]
            assert shown == game.state.hands[seat]
            assert game.view(p)["hands"][seat] == game.state.hands[seat]
