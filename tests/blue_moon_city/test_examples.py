"""The worked examples E1-E9 of Blue Moon City, hand-worked from the rules.

Positions are written into a fresh game's state; every action then goes through `Game.apply` and
every number the example states is asserted. Where an example says "only 153 (END_CONTRIBUTION) is
legal", the engine takes that forced step itself (as docs/games/blue_moon_city.md describes), so the
tests check that the game moved on to the DISCARD decision.
"""

from __future__ import annotations

from city_envs.blue_moon_city import components as cp
from city_envs.blue_moon_city import rules

from ..game_helpers import legal
from .helpers import A, B, C, card, hand, place_tile, position, stand_on, tile_id


def test_e1_movement_reach():
    """E1: from p0 with 2 steps: p0-5 and p9; a grey 2 adds two steps (16 positions)."""
    game = position(A=hand(card(cp.GREY, 2)))
    game.state.figures[A] = 0
    game._mask = None
    moves = {a for a in legal(game) if rules.MOVE_FIGURE <= a < rules.SELECT_SECTION}
    assert moves == {128, 129, 130, 131, 132, 133, 137}
    game.apply(rules.FLIT_BOOST)
    moves = {a - rules.MOVE_FIGURE for a in legal(game) if rules.MOVE_FIGURE <= a < rules.SELECT_SECTION}
    assert moves == {*range(12), 13, 14, 15, 18}
    assert game.state.discard[card(cp.GREY, 2)] == 1 and game.state.allowance == 4


def test_e2_dragon_moves():
    """E2: Earth flies anywhere (42-62); Water walks to every tile but its own (105-125 but 115);
    no Fire move (black 2 needs the dragon on the board); a blue 2 cannot fly."""
    game = position(A=hand(card(cp.BLACK, 2), card(cp.BLUE, 2), card(cp.RED, 1)))
    game.state.dragons = [cp.OFF_BOARD, cp.OFF_BOARD, 10]
    game._mask = None
    dragon = {a for a in legal(game) if a < rules.FLIT_BOOST}
    assert dragon == set(range(42, 63)) | (set(range(105, 126)) - {115})
    game.apply(105 + 3)
    assert game.state.dragons[cp.WATER] == 3 and game.state.hands[A][card(cp.BLUE, 2)] == 0


def test_e3_colour_payment_with_khind():
    """E3: on the Water Temple sections 1 and 2 are payable, not the 5; the 4 is paid with blue 3 + green 1."""
    game = position(A=hand(card(cp.BLUE, 3), cp.GREEN_CARD, card(cp.YELLOW, 2), card(cp.RED, 1)))
    stand_on(game, 9)
    assert game.decision_name() == "BUILD" and legal(game) == {150, 151, 153}
    game.apply(150)
    assert legal(game) == {169, 182}
    game.apply(169)
    assert game.state.payment.total == 3
    game.apply(182)
    s = game.state
    assert s.markers_on[9][1] == A and s.markers[A] == 9 and s.payment is None
    assert s.discard[card(cp.BLUE, 3)] == 1 and s.discard[cp.GREEN_CARD] == 1 and sum(s.discard) == 2
    assert s.scales[A] == 0 and s.scales_claimed
    assert game.decision_name() == "DISCARD"  # only 153 was left: taken automatically


def test_e4_palace_with_hoax2():
    """E4: every palace colour is payable; in blue, a Hoax 2 lets the yellow 3 count as blue."""
    game = position(
        A=hand(
            card(cp.YELLOW, 3), card(cp.BLUE, 2), card(cp.WHITE, 2), card(cp.BROWN, 1), card(cp.BROWN, 2), cp.GREEN_CARD
        )
    )
    stand_on(game, 11)
    game.apply(149)
    assert legal(game) == set(range(154, 161))
    game.apply(156)
    assert 181 not in legal(game)
    game.apply(193)
    game.apply(181)
    assert game.state.payment.total == 3
    game.apply(168)
    s = game.state
    assert s.markers_on[11][0] == A and s.payment is None
    assert sum(s.discard) == 3 and s.discard[card(cp.WHITE, 2)] == s.discard[card(cp.YELLOW, 3)] == 1
    assert s.hands[A] == hand(card(cp.BROWN, 1), card(cp.BROWN, 2), cp.GREEN_CARD)


def test_e5_university_completion():
    """E5: the rulebook's University example: dragon scales, master builder by the leftmost marker,
    each-reward, neighbour rewards (Fire Temple +3c, Market Hall +2 cards), pending cards."""
    game = position(A=hand(card(cp.BLUE, 1), card(cp.WHITE, 2), card(cp.WHITE, 3), card(cp.RED, 3), card(cp.GREY, 3)))
    s = game.state
    for name, where in (("University", 6), ("Market Hall", 7), ("Mill", 2), ("Hospice", 12)):
        place_tile(game, tile_id(name), where)
    assert s.tile_at[5] == tile_id("Fire Temple") and s.tile_at[11] == tile_id("Royal Palace")
    s.complete[5] = s.complete[7] = True
    s.markers_on[6][1] = B
    s.markers[B] = 9
    s.dragons = [6, cp.OFF_BOARD, cp.OFF_BOARD]
    s.figures[A] = 12
    deck_before = len(s.deck)
    b_hand_before = sum(s.hands[B])
    game._mask = None
    for action in (90, 134, 149, 177, 178):
        game.apply(action)
    assert s.crystals[A] == 4 and s.scales[A] == 3 and len(s.pending) == 2 and s.markers[A] == 10
    assert s.crystals[B] == 4 and sum(s.hands[B]) == b_hand_before + 2 and s.markers[B] == 10
    assert s.scale_supply == 12
    assert s.complete[6] and s.markers_on[6] == [-1] * 4
    assert s.figures[A] == 6 and s.dragons[cp.FIRE] == 6 and s.dragons[cp.WATER] == 6
    assert game.decision_name() == "DISCARD"
    game.apply(202)
    game.apply(208)
    assert game.current_player() == B and sum(s.hands[A]) == 6 and s.pending == []
    assert len(s.deck) == deck_before - 8


def test_e6_scale_scoring_with_a_virtual_scale():
    """E6: A takes the last scale and is owed one more: A +6, B +3, C keeps 2, supply 10."""
    game = position(3, A=hand(card(cp.BLUE, 3)))
    s = game.state
    s.scale_supply = 1
    s.scales = [5, 4, 2]
    s.dragons = [9, 9, cp.OFF_BOARD]
    stand_on(game, 9)  # the Water Temple: blue 5, 4, 3
    game.apply(151)
    game.apply(169)
    assert s.crystals == [6, 3, 0] and s.scales == [0, 0, 2] and s.scale_supply == 10


def test_e7_offerings_with_yellow_cards():
    """E7: 7 for the normal offering, 8 + 1 with a yellow 1; a yellow 2 extra is then too dear."""
    game = position(A=hand(card(cp.YELLOW, 1), card(cp.YELLOW, 2)))
    s = game.state
    s.obelisk = [A, B, C]
    s.offerings = [1, 1, 1, 0]
    s.markers = [8, 9, 9, 10]
    s.markers_on[0][0] = A
    s.crystals[A] = 20
    stand_on(game, 10)
    assert legal(game) == {194, 153}
    game.apply(194)
    assert s.crystals[A] == 13 and s.offerings[A] == 2
    assert legal(game) == {195, 196, 153}  # 8 + 1 and 8 + 2 are both affordable now
    game.apply(195)
    assert s.crystals[A] == 4 and s.offerings[A] == 3 and s.markers[A] == 6
    assert s.discard[card(cp.YELLOW, 1)] == 1 and s.obelisk == [A, B, C, A, A]
    assert game.decision_name() == "DISCARD"  # 196 too dear, 194 used: only 153 was left


def test_e8_two_player_win():
    """E8: the 10th space costs 11; A's 6th offering wins at once; with 10 crystals it is illegal."""
    for crystals, wins in ((11, True), (10, False)):
        game = position(2, A=hand(card(cp.RED, 3)))
        s = game.state
        s.obelisk = [A, B, A, B, A, B, A, B, A]
        s.offerings = [5, 4]
        s.markers = [5, 6]
        s.crystals[A] = crystals
        stand_on(game, 10)
        assert rules.offer_cost(s) == 11
        if wins:
            game.apply(194)
            assert game.is_over() and game.winners() == [A] and game.returns() == [1.0, -1.0]
            assert sum(s.hands[A]) == 1  # no discard, no draw
        else:
            assert game.decision_name() == "DISCARD"  # no offering possible: phase B skipped


def test_e9_discard_and_draw_with_a_reshuffle():
    """E9: two discards, 3 from the deck, the 10 discards reshuffled, 1 more, then the pending cards."""
    game = position(A=hand(card(cp.RED, 3), card(cp.BLUE, 3), card(cp.GREY, 3)))
    s = game.state
    s.deck = [card(cp.BLACK, 3)] * 3
    s.discard = hand(*([card(cp.WHITE, 3)] * 8))
    s.pending = [card(cp.YELLOW, 3), card(cp.YELLOW, 3)]
    stand_on(game, 10)  # no crystals to offer: straight to the discard phase
    assert game.decision_name() == "DISCARD"
    game.apply(rules.DISCARD + card(cp.RED, 3))
    assert sum(s.discard) == 9
    game.apply(rules.DISCARD + card(cp.BLUE, 3))
    assert len(s.deck) == 9 and sum(s.discard) == 0
    assert sum(s.hands[A]) == 1 + 4 + 2 and s.hands[A][card(cp.YELLOW, 3)] == 2
    assert s.hands[A][card(cp.BLACK, 3)] == 3 and game.current_player() == B
