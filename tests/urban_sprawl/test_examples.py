"""The worked examples of the rules, with their exact numbers."""

from __future__ import annotations

import pytest

from city_envs.urban_sprawl import components as cp
from city_envs.urban_sprawl import rules
from city_envs.urban_sprawl.game import UrbanSprawl

from ..game_helpers import legal
from .helpers import at_main, bought, clear_board, lot, put, relative, run_tasks

CIV, COM, IND, RES, PARK = range(5)
A, B, C, D = range(4)


def block(r: int, c: int) -> int:
    return 6 * r + c


def place_action(r: int, c: int, variant: int) -> int:
    return rules.LOT + 4 * block(r, c) + variant


# ----- Example 1 ---------------------------------------------------------------------------------
PURCHASES = [
    (A, 3, 3),
    (B, 6, 6),
    (C, 5, 6),
    (D, 5, 5),
    (A, 6, 5),
    (B, 3, 8),
    (C, 8, 3),
    (D, 8, 8),
    (A, 1, 10),
    (B, 1, 1),
    (C, 10, 10),
    (D, 10, 1),
]


def test_example_1_starting_purchases_and_media():
    game = UrbanSprawl(4, seed=1, auto_single=False)
    assert game.state.wealth == [21] * 4
    for seat, i, j in PURCHASES:
        assert game.current_player() == seat and game.decision_name() == "START_BUY"
        game.apply(rules.LOT + lot(i, j))
    s = game.state
    assert s.wealth == [3, 4, 4, 7]
    assert sum(21 - w for w in s.wealth) == 66
    assert [v[cp.MEDIA] for v in s.vocations] == [0, 0, 0, 1]
    assert game.decision_name() == "INVEST" and game.current_player() == A


def test_example_1_media_tie_goes_to_the_start_player():
    game = UrbanSprawl(4, seed=1, auto_single=False)
    for k, (_, i, j) in enumerate(PURCHASES):
        if k == len(PURCHASES) - 1:
            game.state.wealth[D] = 7  # D ends with 4 instead of 7
        game.apply(rules.LOT + lot(i, j))
    assert game.state.wealth == [3, 4, 4, 4]
    # B and C each control a value-4 RES, D none -> still tied between B and C -> A chooses
    assert game.decision_name() == "MEDIA_TIE" and game.current_player() == A
    assert legal(game) == {relative(game, B), relative(game, C)}
    game.apply(relative(game, C))
    assert [v[cp.MEDIA] for v in game.state.vocations] == [0, 0, 1, 0]


# ----- Example 2 ---------------------------------------------------------------------------------
def test_example_2_block_values_with_markers():
    game = bought(4)
    s = game.state
    s.circles[1] = 5  # prestige marker 5 in T1 (block columns 2-3)
    s.circles[3] = 9  # wealth marker 9 in R0 (block row 0)
    assert rules.block_value(s, block(0, 3)) == 23
    assert rules.block_value(s, block(2, 2)) == 11
    assert rules.block_value(s, block(0, 0)) == 13
    assert rules.block_value(s, block(5, 5)) == 4
    # a MARKER(9) effect moves marker 9 from R0 to R5
    at_main(game, A)
    run_tasks(game, ["marker", 9, A])
    assert game.decision_name() == "MARKER_MOVE_DST" and rules.PASS in legal(game)
    game.apply(rules.CIRCLE + 8)
    assert rules.block_value(s, block(0, 0)) == 4
    assert rules.block_value(s, block(0, 3)) == 14
    assert rules.block_value(s, block(5, 5)) == 13
    assert rules.block_value(s, block(5, 3)) == 22
    assert rules.row_blocks(s, "w", 9) == tuple(block(5, c) for c in range(6))
    assert rules.row_blocks(s, "p", 5) == tuple(block(r, c) for r in range(6) for c in (2, 3))


# ----- Example 3 ---------------------------------------------------------------------------------
def _column_position(n: int, column: int, counts: list[int]) -> UrbanSprawl:
    game = bought(n)
    s = game.state
    clear_board(s)
    free = [lot(i, j) for i in range(12) for j in (2 * column, 2 * column + 1)]
    for seat, count in enumerate(counts):
        for _ in range(count):
            put(s, RES, [free.pop()], seat)
    return game


def test_example_3a_wealth_payout_with_a_tie():
    game = _column_position(3, 2, [2, 2, 1])
    before = list(game.state.wealth)
    rules.pay_row(game.state, "w", 5)
    assert [w - b for w, b in zip(game.state.wealth, before, strict=True)] == [3, 3, 1]


def test_example_3b_official_row_6_table():
    assert cp.payout_table(6) == (6, 3, 1, 0)
    assert rules.payout_split([4, 3, 1, 1], 6, 4) == [6, 3, 0, 0]
    game = _column_position(4, 3, [4, 3, 1, 1])  # W6 addresses column c3
    before = list(game.state.wealth)
    rules.pay_row(game.state, "w", 6)
    assert [w - b for w, b in zip(game.state.wealth, before, strict=True)] == [6, 3, 0, 0]


def test_example_3c_prestige_payout():
    game = bought(4)
    s = game.state
    clear_board(s)
    for seat, lots in ((A, [lot(8, 0), lot(9, 5), lot(11, 11)]), (B, [lot(10, 4)])):
        for x in lots:
            put(s, CIV, [x], seat)
    before = list(s.prestige)
    run_tasks(game, ["payout", "p", 2])
    assert [p - b for p, b in zip(s.prestige, before, strict=True)] == [2, 1, 0, 0]


def test_example_3d_marker_in_the_box_pays_nothing():
    game = _column_position(4, 0, [2, 1, 0, 0])
    before = (list(game.state.wealth), list(game.state.prestige))
    rules.pay_row(game.state, "w", 11)
    assert (game.state.wealth, game.state.prestige) == before


# ----- Example 4 ---------------------------------------------------------------------------------
COTTAGE, BLACKSMITH, COURTHOUSE, BANK, HIGH_SCHOOL = 24, 16, 2, 12, 6


# Cottage's own GAIN(p=1) comes on top of the bonus; Blacksmith's vocation payout is still pending.
@pytest.mark.parametrize(
    ("card", "r", "c", "variant", "ok", "bonus"),
    [
        (COTTAGE, 1, 1, 0, True, 1),  # RES at L(2,2): RES L(1,1) and IND L(3,3)
        (COTTAGE, 2, 2, 0, False, None),  # RES at L(4,4): only IND neighbours
        (BLACKSMITH, 2, 2, 0, True, 2),  # IND at L(4,4)
        (COURTHOUSE, 2, 3, 0, False, None),  # CIV 2 at L(4,6), L(4,7)
        (COURTHOUSE, 2, 3, 3, True, 1),  # CIV 2 at L(4,7), L(5,7): CIV L(6,6) across the street
        (COTTAGE, 0, 2, 1, True, 0),  # RES at L(0,5): no neighbours
    ],
)
def test_example_4_zoning(card, r, c, variant, ok, bonus):
    effect_prestige = 1 if card == COTTAGE else 0
    game = bought(4)
    s = game.state
    s.wealth[A] = 30
    assert (4 * block(r, c) + variant in rules.legal_placements(s, A, card)) is ok
    if ok:
        at_main(game, A)
        s.hands[A] = [8, 17]  # P08 (1 any zone), P17 (2 any zone)
        s.slots[4] = card  # C1
        game.apply(rules.BUILD + 7)
        game.apply(rules.CARD + (8 if cp.CONTRACT_SIZE[card] == 1 else 17))
        before = s.prestige[A]
        game.apply(place_action(r, c, variant))
        assert s.prestige[A] - before == bonus + effect_prestige


# ----- Example 5 ---------------------------------------------------------------------------------
def test_example_5_complete_build_with_action_ids():
    game = bought(4)
    s = game.state
    at_main(game, A)
    s.offices = [-1] * 6
    s.wealth[A], s.prestige[A] = 12, 0
    s.hands[A] = [4, 9, 13]
    s.slots[2] = HIGH_SCHOOL  # C3
    s.vocations = [[0] * 8 for _ in range(4)]
    s.vocations[D][cp.MEDIA] = 1
    s.voc_supply = [0, 2, 2, 3, 3, 4, 4, 5]
    game._mask = None
    game.apply(47)
    assert s.ap == 3 and game.decision_name() == "PAY_PERMIT"
    assert legal(game) == {4, 9, 13}
    game.apply(9)
    assert game.decision_name() == "PLACE"
    assert 123 == rules.LOT + 4 * 15 + 3 and 123 in legal(game)
    game.apply(123)
    assert s.wealth[A] == 5 and s.prestige[A] == 1
    assert s.vocations[A][cp.EDUCATION] == 1 and s.voc_supply[cp.EDUCATION] == 2
    assert game.decision_name() == "VOC_PAYOUT" and game.current_player() == A
    game.apply(218)
    assert (s.wealth[A], s.prestige[A], s.ap) == (5, 3, 3)
    assert s.hands[A] == [4, 13] and s.planning_discard[-1] == 9
    assert s.slots[2] == -1 and game.decision_name() == "MAIN"


# ----- Example 6 ---------------------------------------------------------------------------------
def _demolition_position(contractor: int = -1) -> UrbanSprawl:
    game = bought(4, auto_single=False)
    s = game.state
    for bid, (zone, x) in enumerate(cp.STARTING_BUILDINGS):
        s.buildings[bid] = s.buildings[bid]._replace(owner=B if (zone, x) == (CIV, lot(6, 6)) else C)
    s.offices = [-1] * 5 + [contractor]
    at_main(game, A)
    s.hands[A] = [9, 10, 36]
    s.wealth[A], s.prestige[A] = 10, 0
    return game


def test_example_6a_zoning_ignores_the_demolished_building():
    s = _demolition_position().state
    assert 4 * block(3, 3) not in rules.legal_placements(s, A, COURTHOUSE)


def test_example_6b_bank_replaces_the_civ_building():
    game = _demolition_position()
    s = game.state
    s.slots[4] = BANK
    target = s.lot_building[lot(6, 6)]
    assert rules.legal_placements(s, A, BANK)[4 * block(3, 3)] == [target]
    game.apply(rules.BUILD + 7)
    game.apply(rules.CARD + 10)
    game.apply(place_action(3, 3, 0))
    assert s.buildings[target] is None
    assert 36 not in s.hands[A] and 36 in s.planning_discard and 10 in s.planning_discard
    assert s.wealth[A] == 3 and s.prestige[A] == 2
    assert s.vocations[A][cp.FINANCE] == 1
    game.apply(rules.OPT_A)
    assert s.wealth[A] == 5


def test_example_6c_contractor_buildings_are_immune_to_urban_renewal():
    s = _demolition_position(contractor=B).state
    assert 4 * block(3, 3) not in rules.legal_placements(s, A, BANK)


def test_example_6d_two_dominoes_need_a_whole_block():
    game = _demolition_position()
    s = game.state
    rules.demolish(s, s.lot_building[lot(6, 6)])
    put(s, COM, [lot(6, 6), lot(6, 7)], B)
    put(s, COM, [lot(7, 6), lot(7, 7)], C)
    s.wealth[A] = 30
    three = [
        card
        for card in range(96)
        if cp.CONTRACT_ZONE[card] == COM and cp.CONTRACT_SIZE[card] == 3 and cp.CONTRACT_RESTRICTION[card] is None
    ]
    four = [
        card
        for card in range(96)
        if cp.CONTRACT_ZONE[card] == COM and cp.CONTRACT_SIZE[card] == 4 and cp.CONTRACT_RESTRICTION[card] is None
    ]
    assert not any(p // 4 == block(3, 3) for p in rules.legal_placements(s, A, three[0]))
    assert sorted(rules.legal_placements(s, A, four[0])[4 * block(3, 3)]) == sorted(
        [s.lot_building[lot(6, 6)], s.lot_building[lot(7, 6)]]
    )
    s.hands[A] = [9, 10]  # no Urban Renewal and not the Contractor: no demolition
    assert 4 * block(3, 3) not in rules.legal_placements(s, A, four[0])


# ----- Example 7 ---------------------------------------------------------------------------------
def _da_position(a_values: list[int]) -> UrbanSprawl:
    game = bought(3)
    s = game.state
    for b in rules.live_buildings(s):
        s.buildings[b] = s.buildings[b]._replace(owner=-1)
    blocks_by_value = {
        7: [block(0, 1), block(1, 1)],
        4: [block(2, 4), block(3, 4)],
        5: [block(2, 1)],
        2: [block(2, 0), block(3, 0)],
        6: [block(2, 2)],
    }
    used: dict[int, int] = {}

    def civ(value: int, owner: int) -> None:
        k = used.get(value, 0)
        used[value] = k + 1
        put(s, CIV, [4 * blocks_by_value[value][k // 4] + k % 4], owner)

    for v in a_values:
        civ(v, A)
    for v in (7, 5, 2):
        civ(v, B)
    civ(6, C)
    s.airport = True
    s.pawn = cp.MAYOR
    at_main(game, A)
    return game


def test_example_7_district_attorney_election():
    game = _da_position([7, 4])
    run_tasks(game, ["ballot"])
    assert game.state.pawn == cp.DISTRICT_ATTORNEY
    assert game.state.offices[cp.DISTRICT_ATTORNEY] == B


def test_example_7_tie_decided_by_the_mayor_or_the_active_player():
    game = _da_position([7, 4, 2])
    game.state.offices[cp.MAYOR] = C
    run_tasks(game, ["ballot"])
    assert game.decision_name() == "ELECTION_TIE" and game.current_player() == C
    assert legal(game) == {relative(game, A), relative(game, B)}
    game.apply(relative(game, A))
    assert game.state.offices[cp.DISTRICT_ATTORNEY] == A
    unheld = _da_position([7, 4, 2])
    run_tasks(unheld, ["ballot"])
    assert unheld.decision_name() == "ELECTION_TIE" and unheld.current_player() == A


def test_example_7_no_election_before_the_airport():
    game = _da_position([7, 4])
    game.state.airport = False
    run_tasks(game, ["ballot"])
    assert game.state.pawn == cp.DISTRICT_ATTORNEY
    assert game.state.offices[cp.DISTRICT_ATTORNEY] == -1


# ----- Example 8 ---------------------------------------------------------------------------------
def _slide_position(next_town: list[int]) -> tuple[UrbanSprawl, dict]:
    game = bought(4)
    s = game.state
    t1, t2, t3, t4, t5, x = 0, 1, 2, 3, 4, 5  # Clinic .. Town Hall: no restriction on the slide
    s.slots = [t5, t4, t3, t2, t1]
    s.decks[cp.TOWN] = [10, 11, *reversed(next_town), x]  # X face up on top, then the cards to come
    s.deck_up[cp.TOWN] = True
    a, b, c, d, big_d, nxt, after = 0, 1, 2, 3, 18, 19, 20  # permits without ballots
    rest = [p for p in range(36) if p not in (a, b, c, d, big_d, nxt, after)]
    s.hands = [[] for _ in range(4)]
    s.planning_slots = [a, b, c, d]
    s.planning_deck = rest + [after, nxt, big_d]
    s.planning_up = True
    s.planning_discard = list(range(36, 54))
    at_main(game, A)
    return game, {"t": (t1, t2, t3, t4, t5), "X": x, "abcd": (a, b, c, d), "D": big_d, "next": (nxt, after)}


def test_example_8_end_of_turn_slide_and_refill():
    y, z = 6, 7  # High School (payout P1), Library (payout P2)
    game, k = _slide_position([y, z])
    s = game.state
    t1, t2, t3, t4, t5 = k["t"]
    game.apply(rules.TAKE_PLANNING + 4)  # PL1 (d)
    game.apply(rules.TAKE_PLANNING + 0)  # the planning top (D)
    assert s.hands[A] == sorted([k["abcd"][3], k["D"]])
    s.slots[3] = s.slots[1] = -1  # t2 and t4 built
    game._mask = None
    game.apply(rules.PASS)
    a, b, c, _ = k["abcd"]
    nxt, after = k["next"]
    assert s.planning_slots == [nxt, a, b, c]  # PL4 refilled, PL3 a, PL2 b, PL1 c
    assert s.planning_deck[-1] == after and s.planning_up
    assert s.slots == [y, k["X"], t5, t3, t1]  # C5 Y, C4 X, C3 t5, C2 t3, C1 t1
    assert s.decks[cp.TOWN][-1] == z and s.deck_up[cp.TOWN]


def test_example_8_an_event_drawn_for_c5_is_resolved_and_replaced():
    harvest = cp.EVENT_BASE + 4
    y, z = 6, 7
    game, k = _slide_position([harvest, y, z])
    s = game.state
    forest_owned = sum(
        1
        for b in rules.live_buildings(s)
        if s.buildings[b][3] == B and any(cp.LOT_FOREST[x] for x in s.buildings[b][2])
    )
    wealth_b = s.wealth[B]
    s.slots[3] = s.slots[1] = -1
    game._mask = None
    game.apply(rules.PASS)
    assert s.slots[0] == y and s.decks[cp.TOWN][-1] == z
    assert 4 in s.events_done
    assert s.wealth[B] - wealth_b == forest_owned


# ----- Example 9 ---------------------------------------------------------------------------------
def _final_scoring_position() -> UrbanSprawl:
    game = bought(3)
    s = game.state
    clear_board(s)
    # controlled buildings per band / row (block row r, column c, sub-lot)
    a_lots = [(0, 0, 0), (0, 1, 0), (1, 0, 0), (2, 0, 0), (2, 1, 0), (4, 0, 0)]
    b_lots = [(0, 4, 0), (1, 3, 0), (1, 5, 0), (2, 5, 0), (3, 1, 0), (3, 3, 0), (3, 5, 0)]
    c_lots = [(1, 1, 3), (2, 3, 3), (3, 0, 3), (4, 2, 3), (4, 4, 3), (5, 1, 3), (5, 3, 3), (5, 5, 3)]
    for owner, zone, spots in ((A, COM, a_lots), (B, IND, b_lots), (C, CIV, c_lots)):
        for r, c, sub in spots:
            put(s, zone, [4 * block(r, c) + sub], owner)
    for x in (lot(11, 0), lot(11, 2), lot(11, 4)):  # 3 more COM in play, uncontrolled
        put(s, COM, [x], -1)
    for j in (6, 7, 8, 9, 10, 11):  # 6 RES in play, uncontrolled
        put(s, RES, [lot(10, j)], -1)
    for x in (lot(0, 9), lot(2, 7), lot(4, 11), lot(6, 3)):  # parks next to four of B's buildings
        put(s, PARK, [x], -1)
    s.prestige, s.wealth = [60, 62, 58], [27, 9, 41]
    s.circles = [0] * 9
    s.circles[5] = 6  # prestige marker 6 in R2
    s.offices = [B, C, A, C, B, B]
    return game


def test_example_9_position_matches_the_spec():
    s = _final_scoring_position().state
    assert rules.row_counts(s, rules.row_blocks(s, "p", 3)) == [3, 3, 1]
    assert rules.row_counts(s, rules.row_blocks(s, "p", 1)) == [2, 4, 2]
    assert rules.row_counts(s, rules.row_blocks(s, "p", 2)) == [1, 0, 5]
    assert rules.row_counts(s, rules.row_blocks(s, "p", 6)) == [2, 1, 1]
    assert rules.office_bonus(s, cp.MAYOR, B) == 4
    assert [
        rules.office_bonus(s, o, h)
        for o, h in ((cp.TREASURER, A), (cp.UNION_BOSS, B), (cp.DISTRICT_ATTORNEY, C), (cp.POLICE_CHIEF, C))
    ] == [9, 7, 8, 6]


def test_example_9_final_scoring():
    game = _final_scoring_position()
    s = game.state
    at_main(game, A)
    run_tasks(game, ["contract_event", 10])  # Olympic Games
    assert game.is_over()
    assert s.prestige == [80, 78, 80]
    assert game.winners() == [C]
    assert game.returns() == [-0.5, -0.5, 1.0]


# ----- Example 10 --------------------------------------------------------------------------------
@pytest.mark.parametrize("union_boss", [False, True])
def test_example_10_treasurer_tax_and_investment(union_boss):
    game = bought(4)
    s = game.state
    s.offices = [-1, -1, B, -1, B if union_boss else -1, -1]
    s.wealth = [10, 5, 1, 4]
    s.hands[B] = [27]
    at_main(game, A)
    run_tasks(game, ["next_turn"])
    assert s.active == B and game.decision_name() == "INVEST"
    assert s.wealth == [8, 10, 0, 2]
    game.apply(rules.CARD + 27)
    assert s.wealth[B] == 23 and s.planning_discard[-1] == 27
    game.apply(rules.PASS)
    assert s.ap == (8 if union_boss else 6)
