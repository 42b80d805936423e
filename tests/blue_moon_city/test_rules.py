"""One test per Blue Moon City rule (docs/games/blue_moon_city.md).

The worked examples (test_examples.py) and the randomized invariants cover more; here each rule is
exercised on its own with exact values.
"""

from __future__ import annotations

import numpy as np
import pytest

from city_envs.blue_moon_city import components as cp
from city_envs.blue_moon_city import rules
from city_envs.blue_moon_city.game import BlueMoonCity

from ..game_helpers import legal, play_out
from .helpers import SPEC_COPIES, A, B, card, hand, place_tile, position, stand_on, tile_id

NO_CAPS = (0,) * 7


# ===== 2-3. components and setup =================================================================
def test_components():
    """2.2-2.5: 80 cards (10 per colour, all Khind 1), 21 tiles, grid distances are Manhattan."""
    assert list(cp.CARD_COPIES) == SPEC_COPIES and sum(SPEC_COPIES) == 80
    assert len(cp.TILES) == 21 and max(max(row) for row in cp.DISTANCE) == 6
    assert cp.ADJ[10] == (5, 9, 11, 15) and cp.OBELISK_COSTS[2] == (7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_setup(n):
    """3: fixed centre, 8 cards each, figures on the Courtyard, dragons off, scales 9/12/15, 10 markers."""
    s = BlueMoonCity(n, seed=n).state
    assert {p: s.tile_at[p] for p in (10, 5, 11, 15, 9)} == {10: 0, 5: 2, 11: 1, 15: 3, 9: 4}
    assert [sum(h) for h in s.hands] == [8] * n and len(s.deck) == 80 - 8 * n
    assert s.figures == [10] * n and s.dragons == [21] * 3 and s.markers == [10] * n
    assert s.scale_supply == {2: 9, 3: 12, 4: 15}[n] and s.active == 0 and s.decision == rules.Decision.MOVE


def test_random_centre_keeps_only_the_courtyard():
    """3.2 variant: the 20 other tiles are shuffled onto every position but 10."""
    layouts = {tuple(BlueMoonCity(2, seed=seed, center="random").state.tile_at) for seed in range(20)}
    assert all(layout[10] == 0 for layout in layouts)
    assert any(layout[5] != 2 for layout in layouts)


# ===== 4-5. movement and dragons =================================================================
def test_teleport_reaches_everywhere_and_locks_the_grey_cards():
    """5.3: a grey 1 lets the figure go anywhere; no more grey powers after it."""
    game = position(A=hand(card(cp.GREY, 1), card(cp.GREY, 2)))
    game.state.figures[A] = 0
    game._mask = None
    game.apply(rules.FLIT_TELEPORT)
    assert {a - rules.MOVE_FIGURE for a in legal(game) if rules.MOVE_FIGURE <= a < 149} == set(range(21))
    assert rules.FLIT_BOOST not in legal(game)


def test_boosts_stack():
    """5.4, 8.7: two grey 2 cards give 6 steps."""
    game = position(A=hand(card(cp.GREY, 2), card(cp.GREY, 2)))
    game.state.figures[A] = 0
    game._mask = None
    game.apply(rules.FLIT_BOOST)
    game.apply(rules.FLIT_BOOST)
    assert game.state.allowance == 6 and rules.MOVE_FIGURE + 20 in legal(game)


def test_dragon_walk_and_fly_limits():
    """5.1-5.2, 8.4: fly anywhere but the current tile; walk 1-3 steps, only on the board."""
    game = position(A=hand(card(cp.BLACK, 1), card(cp.BLACK, 2)))
    game.state.dragons[cp.FIRE] = 0
    game._mask = None
    fly = {a for a in legal(game) if a < 21}
    walk = {a - 21 for a in legal(game) if 21 <= a < 42}
    assert fly == set(range(1, 21))
    assert walk == {t for t in range(21) if 1 <= cp.DISTANCE[0][t] <= 3}


# ===== 5. payments ===============================================================================
def test_mimix_pair_is_a_wild_three_and_brown_threes_never_pair():
    """5.7: brown 1 + brown 2 pay 3 of any colour; two brown 3s do not."""
    assert rules.can_finish(3, cp.RED, tuple(hand(card(cp.BROWN, 1), card(cp.BROWN, 2))), NO_CAPS, 0)
    assert not rules.can_finish(3, cp.RED, tuple(hand(card(cp.BROWN, 3), card(cp.BROWN, 3))), NO_CAPS, 0)
    assert rules.can_finish(
        5, cp.BROWN, tuple(hand(card(cp.BROWN, 1), card(cp.BROWN, 1), card(cp.BROWN, 2))), NO_CAPS, 0
    )


def test_hoax_one_recolours_up_to_four_cards_of_one_colour():
    """5.8: a white 1 lets four cards of one colour count as the section's colour."""
    reds = [card(cp.RED, 1)] * 5
    assert rules.can_finish(4, cp.BLUE, tuple(hand(card(cp.WHITE, 1), *reds)), NO_CAPS, 0)
    assert not rules.can_finish(5, cp.BLUE, tuple(hand(card(cp.WHITE, 1), *reds)), NO_CAPS, 0)
    mixed = hand(card(cp.WHITE, 1), card(cp.RED, 3), card(cp.YELLOW, 3))
    assert not rules.can_finish(5, cp.BLUE, tuple(mixed), NO_CAPS, 0)  # two colours, one Hoax


def test_palace_payment_is_one_colour():
    """5.6: yellow 3 + blue 1 cannot pay a palace 4 (two colours); the yellow 3 pays the 3."""
    game = position(A=hand(card(cp.YELLOW, 3), card(cp.BLUE, 1)))
    stand_on(game, 11)
    assert legal(game) == {rules.SELECT_SECTION + 3, rules.END_CONTRIBUTION}


def test_overpaying_is_allowed_and_completes_the_payment():
    """9.2: a blue 3 pays a blue 2 section; the payment completes at once."""
    game = position(A=hand(card(cp.BLUE, 3)))
    place_tile(game, tile_id("Thermae"), 0)
    stand_on(game, 0)
    game.apply(rules.SELECT_SECTION + 1)
    game.apply(rules.ADD_CARD + card(cp.BLUE, 3))
    assert game.state.markers_on[0][1] == A and game.state.payment is None


def test_scales_once_per_turn():
    """4 B.2: the dragon scales come with the turn's first contribution only."""
    game = position(A=hand(card(cp.BLUE, 3), card(cp.BLUE, 3), card(cp.BLUE, 1)))
    game.state.dragons = [9, cp.OFF_BOARD, cp.OFF_BOARD]
    stand_on(game, 9)
    game.apply(151)
    game.apply(rules.ADD_CARD + card(cp.BLUE, 3))
    assert game.state.scales[A] == 1 and game.state.scale_supply == 14
    game.apply(150)
    game.apply(rules.ADD_CARD + card(cp.BLUE, 3))
    game.apply(rules.ADD_CARD + card(cp.BLUE, 1))
    assert game.state.markers_on[9][1] == A and game.state.scales[A] == 1


# ===== 5.9-5.10 scoring =========================================================================
def test_scale_scoring_with_tied_leaders():
    """5.9: tied leaders get 3 each, others with 3+ get 3, fewer get nothing; payees return scales."""
    s = BlueMoonCity(4, seed=0).state
    s.scales = [5, 5, 3, 2]
    s.scale_supply = 0
    rules._scale_scoring(s, 1)
    assert s.crystals == [3, 3, 3, 0] and s.scales == [0, 0, 0, 2] and s.scale_supply == 13


def test_master_builder_leftmost_tie_break():
    """5.10: most markers; a tie goes to the leftmost marker's owner."""
    assert rules.master_builder([B, A, A, B]) == B
    assert rules.master_builder([B, A, A, -1]) == A


def test_completion_rewards_reach_every_contributor_and_pending_is_not_discardable():
    """5.10: contributors get the each-reward; the active seat's cards wait in `pending`."""
    game = position(A=hand(card(cp.GREY, 3), card(cp.RED, 1)))
    place_tile(game, tile_id("Watchtower"), 0)  # grey 4 (left), grey 3
    s = game.state
    s.markers_on[0][0] = B
    s.markers[B] = 9
    stand_on(game, 0)
    game.apply(rules.SELECT_SECTION + 1)
    game.apply(rules.ADD_CARD + card(cp.GREY, 3))
    assert s.complete[0] and s.crystals[A] == 1 and s.crystals[B] == 1
    assert s.pending == [] and sum(s.hands[B]) == 2  # B is the master builder: 2 cards to B's hand
    assert legal(game) == {rules.DISCARD + card(cp.RED, 1), rules.END_TURN}


def test_end_turn_draws_two_plus_discards():
    """4 C: END_TURN draws 2 + the number of discards."""
    game = position(A=hand(card(cp.RED, 1), card(cp.RED, 2)))
    stand_on(game, 10)
    game.apply(rules.DISCARD + card(cp.RED, 1))
    game.apply(rules.END_TURN)
    assert sum(game.state.hands[A]) == 1 + 3


# ===== 6. ends ===================================================================================
def test_offering_needs_a_marker():
    """4 B: no marker in reserve, no offering."""
    game = position(A=hand(card(cp.RED, 1)))
    game.state.crystals[A] = 30
    game.state.markers[A] = 0
    game.state.markers_on[0][0] = A  # (where the markers went does not matter here)
    stand_on(game, 10)
    assert game.decision_name() == "DISCARD"


def test_no_markers_anywhere_is_a_draw():
    """6.3: every seat with 0 markers in reserve ends the game, all sharing."""
    game = position(2, A=hand(card(cp.RED, 1)))
    s = game.state
    s.markers = [0, 0]
    game.apply(rules.MOVE_FIGURE + 10)
    assert game.is_over() and game.winners() == [A, B] and game.returns() == [0.0, 0.0]


def test_an_action_that_ends_the_game_ends_it_before_the_forced_end_of_turn():
    """6 after 4: the payment that places the last marker in anyone's reserve also spends A's last
    card; the game is a draw at once, with no automatic draw of two cards and no turn passed."""
    game = position(2, A=hand(card(cp.BLUE, 3)))
    s = game.state
    s.markers = [1, 0]
    place_tile(game, tile_id("Thermae"), 0)
    stand_on(game, 0)
    turns = s.turns
    game.apply(rules.SELECT_SECTION + 1)
    game.apply(rules.ADD_CARD + card(cp.BLUE, 3))
    assert game.is_over() and game.winners() == [A, B]
    assert sum(s.hands[A]) == 0 and s.turns == turns and not s.pending


def test_a_forced_end_of_turn_still_comes_when_the_game_goes_on():
    """The same payment with a marker left: the empty hand ends the turn (draw 2) as before."""
    game = position(2, A=hand(card(cp.BLUE, 3)))
    s = game.state
    s.markers = [2, 0]
    place_tile(game, tile_id("Thermae"), 0)
    stand_on(game, 0)
    turns = s.turns
    game.apply(rules.SELECT_SECTION + 1)
    game.apply(rules.ADD_CARD + card(cp.BLUE, 3))
    assert not game.is_over() and s.turns == turns + 1 and sum(s.hands[A]) >= 2 and s.active == B


def test_complete_city_ends_with_the_ranking_when_nobody_can_offer():
    """6.2: all 20 buildings complete and no affordable offering: most offerings, then crystals."""
    game = position(3, A=hand(card(cp.RED, 1)))
    s = game.state
    s.complete = [p != 10 for p in range(21)]
    s.last_completion_turn = 0
    s.offerings = [1, 1, 0]
    s.obelisk = [A, B]
    s.markers = [9, 9, 10]
    s.crystals = [3, 5, 6]
    game.apply(rules.MOVE_FIGURE + 10)
    assert game.is_over() and game.winners() == [B] and not game.is_truncated()


def test_max_rounds_is_a_truncation():
    """6.4: the env's safety cap ends the game with the ranking, reported as truncation."""
    game = play_out(BlueMoonCity(2, seed=1, max_rounds=2), np.random.default_rng(0))
    assert game.is_truncated() and game.state.turns == 4
    assert game.winners() == rules.ranking_winners(game.state)


def test_scores_are_offerings():
    """6.5: scores() is the number of offerings per seat."""
    game = position(3)
    game.state.offerings = [2, 0, 1]
    assert game.scores() == [2.0, 0.0, 1.0]


def test_payment_search_shortcuts_agree_with_the_full_search(monkeypatch):
    """`can_finish` answers many hands without searching (the colour's cards and the Khind, Mimix pairs,
    a bound on the total); with the shortcuts off, the exhaustive search gives the same answer."""
    rng = np.random.default_rng(5)
    cases = []
    for _ in range(3000):
        cards = [0] * cp.NUM_TYPES
        for x in rng.integers(0, cp.NUM_TYPES, int(rng.integers(0, 10))):
            cards[x] += 1
        for x in (cp.BROWN_1, cp.BROWN_2, cp.WHITE_1, cp.WHITE_2):
            cards[x] += int(rng.integers(0, 3)) * (rng.random() < 0.4)
        cap1 = tuple(int(c) for c in rng.integers(0, 3, 7) * (rng.random() < 0.2))
        cap_any = int(rng.random() < 0.2)
        cases.append((int(rng.integers(-1, 13)), int(rng.integers(0, 7)), tuple(cards), cap1, cap_any))
    rules.can_finish.cache_clear()
    fast = [rules.can_finish(*case) for case in cases]
    rules.can_finish.cache_clear()
    monkeypatch.setattr(rules, "_quick_answer", lambda need, *_: True if need <= 0 else None)
    assert [rules.can_finish(*case) for case in cases] == fast
    rules.can_finish.cache_clear()
    assert 0.2 < sum(fast) / len(fast) < 0.8  # both answers are common
