"""The worked examples E1-E9 of Big City, hand-worked from the rules.

Positions are written into a fresh game's state (the L3 and E5 layouts cannot arise from a real
setup); every action then goes through `Game.apply` and every number the example states is asserted.
"""

from __future__ import annotations

import pytest

from city_envs.big_city import components as cp
from city_envs.big_city import rules

from ..game_helpers import legal
from .helpers import E5, build, idx, place, position, tram

OUTSKIRTS_L3 = {
    11: 1,
    12: 0,
    13: 0,
    14: 1,
    15: 0,
    16: 0,
    17: 1,
    18: 1,
    19: 1,
    21: 1,
    22: 1,
    23: 1,
    24: 1,
    25: 1,
    26: 0,
    27: 0,
    28: 1,
    31: 0,
    32: 1,
    33: 1,
    34: 0,
    35: 0,
    36: 1,
    37: 1,
    38: 1,
    39: 1,
}


def test_l3_outskirts():
    s = position().state
    assert {x: int(s.outskirts[idx(x)]) for x in OUTSKIRTS_L3} == OUTSKIRTS_L3
    assert (s.px[idx(11)], s.py[idx(11)]) == (25, 25) and (s.px[idx(15)], s.py[idx(15)]) == (26, 26)
    assert (s.px[idx(21)], s.py[idx(21)]) == (25, 23) and (s.px[idx(39)], s.py[idx(39)]) == (30, 27)


@pytest.mark.parametrize(
    ("kind", "plots", "points"),
    [
        (cp.RES1, [11], 3),
        (cp.BUS2, [26, 27], 7),
        (cp.BUS2, [27, 28], 6),
        (cp.RES3, [17, 18, 19], 11),
        (cp.RES3, [11, 14, 17], 11),
        (cp.BUS3, [12, 13, 31], 11),
    ],
)
def test_e1_residences_and_businesses(kind, plots, points):
    game = position(hands={0: plots})
    assert build(game, kind, plots) == points
    piece = game.state.pieces[-1]
    assert (piece.kind, piece.owner, piece.plots) == (kind, 0, tuple(sorted(idx(x) for x in plots)))


@pytest.mark.parametrize(("kind", "hand"), [(cp.RES2, [12, 16]), (cp.RES3, [11, 12, 15]), (cp.BUS1, [15])])
def test_e1_illegal_placements(kind, hand):
    game = position(hands={0: hand})
    assert rules.BUILD + kind not in legal(game)


def test_e1_action_ids():
    game = position(hands={0: [12, 13, 31]})
    for action in (77, 1, 2, 17):
        assert action in legal(game)
        game.apply(action)
    assert game.state.scores[0] == 11


def test_e2_city_hall_and_multipliers():
    game = position(hands={0: [15, 12, 13, 31, 32]})
    assert rules.BUILD + cp.BUS1 in legal(game) and 78 in legal(game)
    game.apply(78)
    assert legal(game) == {4}
    game.apply(4)
    s = game.state
    assert s.scores[0] == 0 and rules.city_hall_built(s) and s.pieces[0][:3] == (cp.CITY_HALL, 0, (4,))
    assert game.decision_name() == "DRAW" and len(s.hands[0]) == 4
    game.apply(next(iter(legal(game))))
    assert len(s.hands[0]) == 5 and game.current_player() == 1  # one card drawn, turn over

    game = position(hands={0: [12, 13]}, hall=True)
    assert build(game, cp.BUS2, [12, 13]) == 14
    game = position(hands={0: [12, 13]}, hall=True)
    tram(game, 12, cp.N)
    assert rules.canonical_edge(game.state, idx(12), cp.N) == 4
    assert build(game, cp.BUS2, [12, 13]) == 21


def test_e3_tram_legality():
    game = position(hall=True)
    place(game, cp.RES2, [17, 18], owner=1)
    game.apply(rules.TRAM)
    edges = {a - rules.EDGE for a in legal(game)}
    assert 3 in edges and 25 not in edges and rules.DONE not in legal(game)
    game.apply(103)
    s = game.state
    assert game.current_player() == 1 and game.decision_name() == "MAIN"  # one segment, no draw
    assert s.drawn == [0] * 8 and rules.trams_left(s) == 16
    game.apply(rules.TRAM)
    game.apply(100)
    assert game.decision_name() == "TRAM_EDGE_OPT" and rules.DONE in legal(game) and 155 in legal(game)
    game.apply(155)
    assert game.current_player() == 2 and rules.trams_left(s) == 14
    assert set(rules.tram_edges(s)) == {1, 2, 4, 15, 38, 39, 53}
    game.apply(rules.TRAM)
    assert {a - rules.EDGE for a in legal(game)} == {1, 2, 4, 15, 38, 39, 53}
    assert rules.canonical_edge(s, idx(25), cp.N) == 38  # the 21/25 edge is named (21, S)


def test_e4_parks_and_factories():
    game = position(hands={0: [70, 69], 1: [32, 38, 39], 2: [33, 36]}, hall=True)
    s = game.state
    factories = rules.facility_placements(s, cp.FACTORY_L)
    assert (idx(32), idx(33), idx(36)) in factories and (idx(31), idx(34), idx(35)) not in factories
    parks = rules.facility_placements(s, cp.PARK3)
    assert (idx(34), idx(35), idx(36)) in parks and (idx(37), idx(38), idx(39)) not in parks
    for action in (70, 18, 19, 22):
        assert action in legal(game)
        game.apply(action)
    assert s.out[70] and s.pieces[-1][:3] == (cp.FACTORY_L, 0, (18, 19, 22)) and s.scores[0] == 0
    assert all(rules.is_dead(s, idx(x)) for x in (32, 33, 36)) and not rules.is_dead(s, idx(38))
    while game.current_player() == 0:  # seat 0 draws its replacement card
        game.apply(min(legal(game)))
    assert game.decision_name() == "DEAD_DISCARD" and legal(game) == {idx(32), rules.DONE}
    game.apply(idx(32))
    assert s.out[idx(32)] and game.decision_name() == "MAIN" and s.dead_discarded
    assert build(game, cp.RES2, [38, 39]) == 5


def test_e5_a_hole_counts_as_centre():
    game = position(tiles=E5, hands={0: [28, 47, 13, 16]})
    s = game.state
    assert (s.px[idx(45)], s.py[idx(45)]) == (29, 23) and (s.px[idx(41)], s.py[idx(41)]) == (30, 23)
    assert rules.cell_index(28, 25) in s.holes and rules.cell_index(28, 26) in s.holes
    assert not any(s.outskirts[idx(x)] for x in (13, 16, 28, 46, 47, 48))
    assert all(s.outskirts[idx(x)] for x in (41, 42, 43, 44, 45))
    assert build(game, cp.BUS1, [28]) == 3
    game = position(tiles=E5, hands={0: [47]})
    assert build(game, cp.RES1, [47]) == 2
    game = position(tiles=E5, hands={0: [13, 16]})
    assert build(game, cp.BUS2, [13, 16]) == 7


def test_e6_placing_a_neighbourhood():
    game = position(hall=True)
    game.apply(89)
    assert game.decision_name() == "TILE_ROTATION" and 96 in legal(game)
    game.apply(96)
    assert {a - rules.EDGE for a in legal(game)} == {3, 15, 26, 30, 34, 36, 39, 40, 44, 49, 77, 89, 94, 98}
    game.apply(126)
    assert legal(game) == {372, 373}
    assert rules.anchor_from(game.state, 5, 0, 26, 0) == (25, 28)
    assert rules.anchor_from(game.state, 5, 0, 26, 1) == (24, 28)
    twin = game.clone()
    game.apply(372)
    s = game.state
    assert s.tiles[4] == rules.Tile(rotation=0, ax=25, ay=28) and (s.px[idx(51)], s.py[idx(51)]) == (25, 28)
    assert game.current_player() == 1  # no draw after a TILE turn
    twin.apply(373)
    assert twin.state.tiles[4] == rules.Tile(rotation=0, ax=24, ay=28)


def test_e6_single_contact_is_masked():
    game = position(hall=True)
    assert rules._placement_min_edge(game.state, 5, 0, 23, 28) == -1  # only plot 53 would touch 17


def test_e7_draw_limits():
    game = position(n=4, hands={0: [12, 13, 31, 45, 57]})
    assert build(game, cp.BUS3, [12, 13, 31]) == 11
    s = game.state
    assert len(s.hands[0]) == 2 and game.decision_name() == "DRAW"
    assert 381 in legal(game)
    game.apply(381)
    assert 381 in legal(game)
    game.apply(381)
    assert 381 not in legal(game) and 385 in legal(game) and s.drawn[0] == 2
    game.apply(385)
    assert len(s.hands[0]) == 5 and game.current_player() == 1  # the hand is full: the turn is over
    assert [cp.CARD_PILE[c] for c in s.hands[0]].count(1) == 2


def test_e8_end_by_passes_and_the_tie():
    game = position(n=3)
    game.state.scores = [20, 31, 31]
    for seat in range(3):
        assert game.current_player() == seat and not game.is_over()
        game.apply(rules.PASS)
    assert game.is_over() and game.winners() == [1, 2]
    assert game.returns() == [-1.0, 0.5, 0.5]


def test_e8_a_dead_discard_restarts_the_count():
    game = position(n=3, hands={1: [32]}, hall=True)
    place(game, cp.FACTORY_L, [32, 33, 36])
    game.apply(rules.PASS)
    assert game.decision_name() == "DEAD_DISCARD" and game.current_player() == 1
    game.apply(idx(32))
    game.apply(rules.PASS)
    while game.current_player() == 1:  # the discarded card is replaced
        game.apply(min(legal(game)))
    assert game.state.passes == 0
    game.apply(rules.PASS)
    assert not game.is_over() and game.state.passes == 1
    game.apply(rules.PASS)
    assert not game.is_over() and game.state.passes == 2
    game.apply(rules.PASS)
    assert game.is_over() and game.state.passes == 3


def test_e9_cinema_and_shopping_center():
    game = position(hands={0: [35], 1: [38, 39]}, hall=True)
    place(game, cp.RES1, [34], owner=2)
    place(game, cp.RES1, [36], owner=2)
    place(game, cp.BUS1, [32], owner=2)
    tram(game, 35, cp.S)
    assert rules.canonical_edge(game.state, idx(35), cp.S) == 86
    assert build(game, cp.CINEMA, [35]) == 12
    while game.current_player() == 0:
        game.apply(min(legal(game)))
    assert build(game, cp.SHOPPING_CENTER, [38, 39]) == 30
