"""Big City rule by rule (docs/games/big_city.md), beyond the worked examples."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from city_envs.big_city import components as cp
from city_envs.big_city import rules
from city_envs.big_city.game import BigCity

from ..game_helpers import legal, random_action
from .helpers import L3, SPEC_HAND, build, idx, place, position, tram


# ----- components (2) ----------------------------------------------------------------------------
def test_component_counts():
    assert cp.NUM_PLOTS == 68 and len(cp.PLOT_NUMBER) == 68 and cp.NUM_CARDS == 72
    assert [len(cp.PILE_CARDS[i]) for i in range(1, 9)] == [9] * 8
    assert sum(cp.KIND_COUNT) + len(cp.FACILITY_SHAPES) == 52 and cp.NUM_TRAMS == 17
    assert [cp.plot_index(x) for x in (11, 19, 21, 28, 31, 41, 51, 61, 71, 81, 88)] == [
        0,
        8,
        9,
        16,
        17,
        26,
        34,
        43,
        51,
        60,
        67,
    ]
    assert {c: cp.CARD_PILE[c] for c in cp.SPECIAL_CARDS} == {68: 2, 69: 4, 70: 6, 71: 8}


def layout_text(n: int, r: int) -> str:
    width, height, cells = cp.LAYOUTS[n][r]
    grid = [[0] * width for _ in range(height)]
    for k, (c, w) in enumerate(cells):
        grid[w][c] = k + 1
    return "/".join(" ".join(map(str, row)) for row in grid)


def test_rotated_layouts_match_the_spec():
    assert [layout_text(1, r) for r in range(4)] == [
        "1 2 3/4 5 6/7 8 9",
        "7 4 1/8 5 2/9 6 3",
        "9 8 7/6 5 4/3 2 1",
        "3 6 9/2 5 8/1 4 7",
    ]
    assert [layout_text(2, r) for r in range(4)] == [
        "1 2 3 4/5 6 7 8",
        "5 1/6 2/7 3/8 4",
        "8 7 6 5/4 3 2 1",
        "4 8/3 7/2 6/1 5",
    ]


def test_shapes_have_their_rotations():
    assert len(cp.SHAPE_ORIENTATIONS[2]) == 2 and len(cp.SHAPE_ORIENTATIONS[3]) == 2
    assert len(cp.FACILITY_ORIENTATIONS[cp.FACTORY_L]) == 4 and len(cp.FACILITY_ORIENTATIONS[cp.FACTORY_4]) == 1


# ----- setup (3) ---------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_setup_deal_and_initial_city(n):
    game = BigCity(n, seed=n)
    s = game.state
    for seat in range(n):
        assert sorted(cp.CARD_PILE[c] for c in s.hands[seat]) == list(range(1, SPEC_HAND[n] + 1))
    assert [len(pile) for pile in s.piles] == [9 - n] * SPEC_HAND[n] + [9] * (8 - SPEC_HAND[n])
    assert s.tiles[0] == rules.Tile(0, 25, 25) and s.scores == [0] * n and s.supply == list(cp.KIND_COUNT)
    order = {2: [0, 1, 0, 1], 3: [0, 1, 2], 4: [0, 1, 2, 3], 5: [0, 1, 2, 3, 4]}[n]
    initial = {2: {2, 3, 4, 5}, 3: {2, 3, 4}, 4: {2, 3, 4, 5}, 5: {2, 3, 4, 5, 6}}[n]
    rng = np.random.default_rng(n)
    placers = []
    while game.decision_name() != "MAIN":
        assert game.decision_name() in ("SETUP_TILE", "TILE_ROTATION", "TILE_EDGE", "TILE_CELL")
        if game.decision_name() == "SETUP_TILE":
            assert {a - 84 for a in legal(game)} <= initial
            placers.append(game.current_player())
        game.apply(random_action(game, rng))
    assert placers == order and game.current_player() == 0
    assert {t + 1 for t in range(8) if s.tiles[t] is not None} == initial | {1}
    assert all(len(h) == SPEC_HAND[n] for h in s.hands)  # no draws during setup


def test_city_hall_gates_the_other_actions():
    game = position(hands={0: [15, 35, 68, 12]})
    main = legal(game)
    assert rules.BUILD + cp.CITY_HALL in main and 68 not in main and rules.TRAM not in main
    assert not any(rules.TILE + n in main for n in range(2, 9))
    assert not any(rules.BUILD + k in main for k in cp.SPECIAL_BUILDINGS)
    game = position(hands={0: [35, 68, 12]}, hall=True)
    main = legal(game)
    assert 68 in main and rules.TRAM in main and {rules.TILE + n for n in range(4, 9)} <= main
    assert rules.TILE + 2 not in main and rules.TILE + 1 not in main


def test_card_15_builds_only_city_hall():
    game = position(hands={0: [15]})
    assert {a for a in legal(game) if rules.BUILD <= a < rules.TRAM} == {rules.BUILD + cp.CITY_HALL}


def test_cards_of_unplaced_neighbourhoods_are_unusable():
    game = position(hands={0: [51, 52, 61]}, hall=True)
    assert not any(rules.BUILD <= a < rules.TRAM for a in legal(game))


# ----- neighbourhood placement (2.7) ----------------------------------------------------------------
def all_placements(game: BigCity, n: int) -> dict:
    """Every legal (rotation, anchor) of tile n by brute force over the whole grid."""
    s = game.state
    out = {}
    for r in range(4):
        for ax in range(15, 40):
            for ay in range(15, 40):
                e = rules._placement_min_edge(s, n, r, ax, ay)
                if e >= 0:
                    out[(r, ax, ay)] = e
    return out


def test_tile_placements_each_have_exactly_one_encoding():
    game = position(hall=True)
    s = game.state
    brute = all_placements(game, 6)
    encoded = {}
    for r in range(4):
        for e in range(272):
            for j in range(8):
                q = e // 4
                if s.px[q] < 0:
                    continue
                anchor = rules.anchor_from(s, 6, r, e, j)
                if rules.tile_options(s, 6, r).get(anchor) == e:
                    key = (r, *anchor)
                    assert key not in encoded, "two encodings of one placement"
                    encoded[key] = (e, j)
    assert set(encoded) == set(brute) and len(brute) > 50


def test_placement_needs_two_touching_plots_and_no_overlap():
    s = position().state
    assert rules._placement_min_edge(s, 5, 0, 31, 25) >= 0  # east of tile 3, 3 plots touch
    assert rules._placement_min_edge(s, 5, 0, 31, 27) == -1  # only plot 39 touches
    assert rules._placement_min_edge(s, 5, 0, 31, 28) == -1  # corner contact only
    assert rules._placement_min_edge(s, 5, 0, 30, 25) == -1  # overlaps tile 3
    assert rules._placement_min_edge(s, 5, 0, 22, 24) >= 0  # west of tile 1: touches 25, 11 and 14


def test_new_tile_recomputes_outskirts_but_never_old_scores():
    game = position(hands={0: [17]}, hall=True)
    assert build(game, cp.RES1, [17]) == 3  # outskirts
    s = game.state
    while game.current_player() == 0:
        game.apply(min(legal(game)))
    game.apply(rules.TILE + 5)
    game.apply(rules.ROTATION + 0)
    game.apply(rules.EDGE + 26)
    game.apply(rules.LOCAL_CELL + 0)
    assert not s.outskirts[idx(18)] and s.outskirts[idx(17)]  # 17 keeps its west side
    assert s.pieces[-1][3] == 3 and s.scores[0] == 3


def test_tiles_touching_at_a_corner_seal_a_hole():
    tiles = ((1, 0, 25, 25), (3, 0, 28, 28), (5, 0, 28, 22), (7, 0, 31, 25))
    game = position(tiles=tiles)
    s = game.state
    assert rules.cell_index(29, 26) in s.holes and not s.outskirts[idx(16)]


# ----- buildings (2.6, 5) ----------------------------------------------------------------------------
def test_church_only_on_the_last_free_plot_of_its_neighbourhood():
    game = position(hands={0: [13]}, hall=True)
    assert rules.BUILD + cp.CHURCH not in legal(game)
    for number in (11, 12, 14, 16, 17, 18, 19):
        place(game, cp.RES1, [number], owner=1)
    game = _refresh(game)
    assert rules.BUILD + cp.CHURCH in legal(game)
    assert build(game, cp.CHURCH, [13]) == 10


def _refresh(game: BigCity) -> BigCity:
    game._mask = None
    return game


def test_bank_needs_two_businesses_and_doubles_next_to_city_hall():
    game = position(hands={0: [12]}, hall=True)
    place(game, cp.BUS1, [11], owner=1)
    assert rules.BUILD + cp.BANK not in legal(_refresh(game))
    place(game, cp.BUS1, [13], owner=1)
    assert build(_refresh(game), cp.BANK, [12]) == 3 * 2 * 2


def test_post_office_needs_a_residence_and_a_business():
    game = position(hands={0: [35]}, hall=True)
    place(game, cp.RES2, [34, 37], owner=1)
    assert rules.BUILD + cp.POST_OFFICE not in legal(_refresh(game))
    place(game, cp.BUS1, [36], owner=2)
    place(game, cp.BUS1, [32], owner=2)
    tram(game, 35, cp.N)
    assert build(_refresh(game), cp.POST_OFFICE, [35]) == 2 * (1 + 2) * 2


def test_cinema_counts_distinct_residence_pieces():
    game = position(hands={0: [35]}, hall=True)
    place(game, cp.RES2, [34, 37], owner=1)  # 34 is next to 35
    place(game, cp.RES2, [32, 33], owner=1)
    assert build(_refresh(game), cp.CINEMA, [35]) == 6


def test_shopping_center_needs_a_special_building_not_city_hall():
    game = position(hands={0: [12, 13]}, hall=True)
    assert rules.BUILD + cp.SHOPPING_CENTER not in legal(game)


def test_park_and_factory_are_flat_modifiers():
    game = position(hands={0: [35], 1: [68, 69]}, hall=True)
    place(game, cp.PARK2, [31, 34], owner=1)
    place(game, cp.PARK3, [32, 33, 36], owner=1)  # shape check is skipped by the helper
    assert build(_refresh(game), cp.BUS1, [35]) == 2 + 1 + 1  # centre, one park bonus for two parks
    game = position(hands={0: [38]}, hall=True)
    place(game, cp.FACTORY_L, [37, 34, 35], owner=1)
    place(game, cp.FACTORY_4, [32, 33, 36, 39], owner=1)
    assert build(_refresh(game), cp.RES1, [38]) == 2 + 1 - 2


def test_residence_value_never_below_zero():
    game = position(hands={0: [35]}, hall=True)
    place(game, cp.FACTORY_4, [31, 32, 34, 37], owner=1)
    assert build(_refresh(game), cp.BUS1, [35]) == 1  # 2 + centre - 2
    game = position(tiles=((1, 0, 25, 25), (3, 0, 28, 25), (5, 0, 25, 28), (7, 0, 28, 28)), hands={0: [35]}, hall=True)
    place(game, cp.FACTORY_4, [31, 32, 34, 37], owner=1)
    assert build(_refresh(game), cp.RES1, [35]) == 0  # 2 + 0 (centre) - 2


def test_trams_double_residences_and_triple_businesses_with_city_hall():
    game = position(hands={0: [17]}, hall=True)
    tram(game, 17, cp.W)
    assert build(_refresh(game), cp.RES1, [17]) == 6
    game = position(hands={0: [12]}, hall=True)
    tram(game, 12, cp.N)
    assert build(_refresh(game), cp.BUS1, [12]) == 3 * 3


def test_no_piece_over_a_tram_street_and_no_tram_on_a_covered_street():
    game = position(hands={0: [11, 12]})
    tram(game, 11, cp.E)
    assert rules.BUILD + cp.RES2 not in legal(_refresh(game))
    game = position(hall=True)
    place(game, cp.RES2, [11, 12], owner=0)
    tram(game, 11, cp.N)
    assert 1 not in rules.tram_edges(game.state)


# ----- trams (4) -------------------------------------------------------------------------------------
def test_trams_branch_and_close_loops():
    game = position(hall=True)
    for number, side in ((11, cp.N), (11, cp.E), (11, cp.S)):
        tram(game, number, side)
    edges = rules.tram_edges(game.state)
    assert 3 in edges  # closes the loop around 11
    assert 4 in edges and 15 in edges  # branches from both ends


def test_second_segment_skipped_when_the_supply_runs_out():
    game = position(hall=True)
    s = game.state
    for number, side in (
        (31, cp.N),
        (32, cp.N),
        (33, cp.N),
        (33, cp.E),
        (36, cp.E),
        (39, cp.E),
        (39, cp.S),
        (38, cp.S),
        (37, cp.S),
        (19, cp.S),
        (18, cp.S),
        (17, cp.S),
        (17, cp.W),
        (14, cp.W),
        (11, cp.W),
        (25, cp.W),
    ):
        tram(game, number, side)
    assert rules.trams_left(s) == 1
    game = _refresh(game)
    game.apply(rules.TRAM)
    game.apply(min(legal(game)))
    assert rules.trams_left(s) == 0 and game.current_player() == 1
    assert rules.TRAM not in legal(game)


# ----- cards (4) -------------------------------------------------------------------------------------
def test_exchange_returns_cards_to_pile_bottoms_and_refills():
    game = position(n=3, hands={0: [11, 12, 21, 31, 41]})
    s = game.state
    game.apply(rules.EXCHANGE)
    assert rules.DONE not in legal(game)  # full hand: at least one card
    game.apply(0)
    game.apply(1)
    assert rules.DONE in legal(game) and 0 not in legal(game)
    game.apply(rules.DONE)
    assert s.piles[0][:2] == [1, 0] and s.pile_known[0][:2] == [0, 0]  # 12 went under 11
    assert game.decision_name() == "DRAW" and len(s.hands[0]) == 3
    game.apply(381)
    game.apply(381)
    assert len(s.hands[0]) == 5 and game.current_player() == 1


def test_empty_exchange_only_to_refill():
    game = position(n=3, hands={0: [11]})
    game.apply(rules.EXCHANGE)
    assert rules.DONE in legal(game)
    game.apply(rules.DONE)
    assert game.decision_name() == "DRAW"
    game = position(n=3, hands={0: []})
    assert rules.EXCHANGE in legal(game)


def test_dead_cards_may_be_kept_and_leave_face_up_when_discarded():
    game = position(n=2, hands={0: [32, 33, 11]}, hall=True)
    place(game, cp.FACTORY_L, [32, 33, 36], owner=1)
    rules._begin_turn(game.state, 0)
    game = _refresh(game)
    assert legal(game) == {idx(32), idx(33), rules.DONE}
    game.apply(idx(32))
    assert game.decision_name() == "DEAD_DISCARD" and game.state.out[idx(32)]
    game.apply(rules.DONE)
    assert game.decision_name() == "MAIN" and idx(33) in game.state.hands[0]
    assert rules.BUILD + cp.RES1 in legal(game)
    game.apply(rules.PASS)
    assert game.decision_name() == "DRAW"  # a card left the hand this turn
    while game.current_player() == 0:
        game.apply(min(legal(game)))
    assert len(game.state.hands[0]) == 5 and game.state.passes == 0


def test_facility_card_kills_cards_in_every_hand_and_pile():
    game = position(n=2, hands={0: [71], 1: [22]}, hall=True)
    game.apply(71)
    placements = rules.selection_placements(game.state)
    assert all(sum(game.state.outskirts[p] for p in pl) >= 2 for pl in placements)
    target = next(pl for pl in placements if idx(22) in pl)
    for p in target:
        game.apply(p)
    s = game.state
    assert all(rules.is_dead(s, p) for p in target) and rules.dead_cards(s, 1) == [idx(22)]


# ----- end of the game (6) ------------------------------------------------------------------------------
def test_a_full_city_ends_the_game_at_once_without_a_draw():
    tiles = L3 + ((4, 0, 31, 25), (5, 0, 25, 28), (6, 0, 28, 28), (7, 0, 22, 25), (8, 0, 29, 23))
    game = position(n=2, hands={0: [59]}, tiles=tiles)
    s = game.state
    for p in range(68):
        if p != idx(59):
            place(game, cp.RES1 if p != 4 else cp.CITY_HALL, [cp.PLOT_NUMBER[p]], owner=1)
    s.supply = list(cp.KIND_COUNT)
    game = _refresh(game)
    build(game, cp.RES1, [59])
    assert game.is_over() and not game.is_truncated() and s.hands[0] == [] and rules.city_full(s)
    assert s.scores[0] == 3 and game.winners() == [0]


def test_the_last_active_player_keeps_playing_while_the_others_pass():
    game = position(n=3, hands={0: [11, 12, 13, 14, 16]})
    for _ in range(3):
        assert game.current_player() == 0
        build(game, cp.RES1, [next(cp.PLOT_NUMBER[c] for c in game.state.hands[0] if c < 9 and c != 4)])
        while game.current_player() == 0:
            game.apply(min(legal(game)))
        game.apply(rules.PASS)
        game.apply(rules.PASS)
        assert not game.is_over() and game.state.passes == 2
    game.apply(rules.PASS)
    assert game.is_over()


def test_turn_cap_truncates():
    game = position(n=2, hands={0: [11]})
    game.state.turns = cp.MAX_TURNS - 1
    game.apply(rules.EXCHANGE)
    game.apply(rules.DONE)
    while not game.is_over():
        game.apply(min(legal(game)))
    assert game.is_truncated() and game.state.turns == cp.MAX_TURNS


def test_every_building_kind_reachable_in_random_games():
    built = set()
    for seed, n in itertools.product(range(12), (3, 4)):
        game = BigCity(n, seed=seed)
        rng = np.random.default_rng(seed)
        while not game.is_over():
            game.apply(random_action(game, rng))
        built |= {piece.kind for piece in game.state.pieces}
    assert built >= {cp.RES1, cp.RES2, cp.BUS1, cp.BUS2, cp.CITY_HALL, cp.CINEMA, cp.BANK} and {12, 13, 14, 15} & built


def test_rotation_mask_agrees_with_the_full_enumeration():
    checked = 0
    for seed in range(6):
        game = BigCity(3, seed=seed)
        rng = np.random.default_rng(seed)
        while not game.is_over() and checked < 400:
            s = game.state
            for n in range(2, 9):
                if s.tiles[n - 1] is None:
                    for rot in range(4):
                        fast = rules.has_anchor(s, n, rot)
                        s.geo.pop(("tiles", *cp.LAYOUTS[n][rot][:2]), None)
                        assert fast == bool(rules.tile_options(s, n, rot))
                        checked += 1
            game.apply(random_action(game, rng))
    assert checked >= 100
