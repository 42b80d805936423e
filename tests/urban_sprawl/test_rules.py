"""Urban Sprawl rules one at a time, on small built positions."""

from __future__ import annotations

import numpy as np
import pytest

from city_envs.urban_sprawl import components as cp
from city_envs.urban_sprawl import rules
from city_envs.urban_sprawl.game import UrbanSprawl

from ..game_helpers import legal
from .helpers import at_main, bought, check_state, clear_board, lot, put, relative, run_tasks

CIV, COM, IND, RES, PARK = range(5)
A, B, C, D = range(4)
COTTAGE, HIGH_SCHOOL, BANK, WAREHOUSE, INN = 24, 6, 12, 22, 13


# ----- setup (3.1-3.4) ---------------------------------------------------------------------------
@pytest.mark.parametrize("n", [2, 3, 4])
def test_setup_per_player_count(n):
    game = UrbanSprawl(n, seed=n)
    s = game.state
    assert s.wealth == [{2: 39, 3: 27, 4: 21}[n]] * n
    assert [len(h) for h in s.hands] == list(range(1, n + 1))
    assert all(c < 36 for h in s.hands for c in h)
    assert s.planning_discard == [36, 37, 38, 39]
    assert all(c >= 0 for c in s.planning_slots) and s.planning_up and s.deck_up == [True, False, False]
    assert all(c >= 0 for c in s.slots) and s.offices == [-1] * 6 and s.pawn == cp.MAYOR
    game = bought(n, seed=n)
    owned = [sum(1 for b in game.state.buildings if b is not None and b[3] == seat) for seat in range(n)]
    assert owned == [12 // n] * n
    assert sum(v[cp.MEDIA] for v in game.state.vocations) == 1
    assert game.decision_name() == "INVEST" and game.current_player() == 0


@pytest.mark.parametrize(("variant", "window"), [("standard", (16, 22)), ("long", (19, 28)), ("short", (10, 19))])
def test_special_events_lie_in_their_window(variant, window):
    seen = set()
    for seed in range(60):
        s = UrbanSprawl(2, seed=seed, variant=variant).state
        for deck in (cp.CITY, cp.METRO):
            special = cp.EVENT_BASE + cp.SPECIAL_EVENT[deck]
            position = len(s.decks[deck]) - s.decks[deck].index(special)  # 1 = top
            assert window[0] <= position <= window[1]
            seen.add(position)
    assert min(seen) == window[0] and max(seen) == window[1]


def test_no_planning_event_in_the_top_22():
    for seed in range(30):
        game = UrbanSprawl(4, seed=seed)
        s = game.state
        dealt = [c for h in s.hands for c in h] + s.planning_slots + s.planning_deck[-1:]
        top = dealt + s.planning_deck[-(22 - len(dealt)) :]
        assert len(top) == 22 and all(c < 36 for c in top)
        assert sorted(s.planning_deck[:28]) == sorted(set(s.planning_deck[:28]))
        assert all(e in s.planning_deck[:28] for e in range(40, 54))


# ----- the AP phase (4, 5.9) ---------------------------------------------------------------------
def test_take_planning_costs_its_space():
    game = bought(3)
    at_main(game, A, ap=3)
    s = game.state
    assert legal(game) >= {rules.TAKE_PLANNING + k for k in (2, 3, 4)}
    assert not legal(game) & {rules.TAKE_PLANNING, rules.TAKE_PLANNING + 1}
    card = s.planning_slots[1]
    game.apply(rules.TAKE_PLANNING + 2)
    assert card in s.hands[A] and s.planning_slots[1] == -1 and s.ap == 0


def test_build_needs_permits_wealth_and_a_lot():
    game = bought(3)
    at_main(game, A)
    s = game.state
    s.slots[4] = COTTAGE
    s.hands[A] = [1]  # a COM permit only
    game._mask = None
    assert rules.BUILD + 7 not in legal(game)
    s.hands[A] = [3]  # RES 1
    s.wealth[A] = 1  # no block is that cheap
    game._mask = None
    assert rules.BUILD + 7 not in legal(game)
    s.wealth[A] = 2
    game._mask = None
    assert rules.BUILD + 7 in legal(game)


def test_permits_are_paid_card_by_card_without_change():
    game = bought(3, auto_single=False)
    at_main(game, A)
    s = game.state
    s.slots[4] = 30  # T31 Manor, RES 3
    s.hands[A] = [3, 12, 21]  # RES 1, RES 2, RES 3
    s.wealth[A] = 30
    game._mask = None
    game.apply(rules.BUILD + 7)
    assert legal(game) == {3, 12, 21}
    game.apply(rules.CARD + 3)
    assert game.decision_name() == "PAY_PERMIT" and legal(game) == {12, 21}
    game.apply(rules.CARD + 21)  # 1 + 3 >= 3: no change given
    assert game.decision_name() == "PLACE" and s.hands[A] == [12]


def test_favors_capacity_and_building_a_favor():
    game = bought(3)
    at_main(game, A)
    s = game.state
    s.slots[4], s.slots[3] = COTTAGE, WAREHOUSE
    s.hands[A] = [3, 35]
    s.wealth[A] = 30
    game._mask = None
    game.apply(rules.TAKE_FAVOR + 7)  # Cottage as a Favor, 1 AP
    assert s.favors[A] == [COTTAGE] and s.ap == 5
    assert not legal(game) & set(range(rules.TAKE_FAVOR, rules.BUILD_FAVOR))
    assert rules.BUILD_FAVOR in legal(game)
    s.extra_favor = A
    game._mask = None
    assert rules.TAKE_FAVOR + 6 in legal(game)
    game.apply(rules.BUILD_FAVOR)  # 0 AP; the permits are paid next
    assert s.ap == 5 and s.favors[A] == [] and game.decision_name() == "PAY_PERMIT"


def test_extra_favor_effect_moves_the_tile():
    game = bought(3)
    at_main(game, A)
    s = game.state
    s.extra_favor = B
    run_tasks(game, ["effect", WAREHOUSE, 0, 0])
    assert s.extra_favor == A


# ----- vocations (4.1 step 6, 5.8) ----------------------------------------------------------------
def _vocation_position() -> UrbanSprawl:
    game = bought(3)
    at_main(game, A)
    s = game.state
    s.vocations = [[0] * 8 for _ in range(3)]
    s.voc_supply = list(cp.VOCATION_MARKERS)
    return game


def test_steal_a_vocation_only_when_the_supply_is_empty():
    game = _vocation_position()
    s = game.state
    s.voc_supply[cp.EDUCATION] = 0
    s.vocations[B][cp.EDUCATION] = 2
    s.vocations[C][cp.EDUCATION] = 1
    run_tasks(game, ["vocation", cp.EDUCATION, 2])
    assert game.decision_name() == "VOC_SOURCE"
    assert legal(game) == {relative(game, B), relative(game, C), rules.PASS}
    game.apply(relative(game, C))
    assert s.vocations[C][cp.EDUCATION] == 0 and s.vocations[A][cp.EDUCATION] == 1
    # payout: one decision per marker, owners clockwise from the builder (A, then B twice)
    assert game.decision_name() == "VOC_PAYOUT" and game.current_player() == A
    game.apply(rules.OPT_A)
    assert game.current_player() == B
    game.apply(rules.OPT_A)
    game.apply(rules.OPT_B)
    assert (s.wealth[B], s.prestige[B]) == (bought(3).state.wealth[B] + 2, 2)


def test_police_chief_takes_both():
    game = _vocation_position()
    s = game.state
    s.offices[cp.POLICE_CHIEF] = B
    s.vocations[B][cp.FACTORY] = 2
    wealth = list(s.wealth)
    run_tasks(game, ["vocation", cp.FACTORY, 3])
    assert game.current_player() == A  # A took one from the supply and chooses
    game.apply(rules.OPT_A)
    assert s.wealth[B] - wealth[B] == 6 and s.prestige[B] == 6
    assert game.decision_name() == "MAIN"


# ----- District Attorney, Union Boss ----------------------------------------------------------------
def test_district_attorney_doubles_only_the_first_build():
    game = bought(4)
    s = game.state
    at_main(game, A)
    s.offices[cp.DISTRICT_ATTORNEY] = A
    s.hands[A] = [8, 17, 26]
    s.wealth[A] = 40
    s.slots[4], s.slots[3] = 2, 2  # two Courthouses (CIV 2, no effects)
    game._mask = None
    game.apply(rules.BUILD + 7)
    game.apply(rules.CARD + 17)
    before = s.prestige[A]
    game.apply(rules.LOT + 4 * 15 + 3)  # next to CIV L(6,6): bonus 1, doubled
    assert s.prestige[A] - before == 2
    game.apply(rules.BUILD + 6)
    game.apply(rules.CARD + 26)
    before = s.prestige[A]
    game.apply(rules.LOT + 4 * 21 + 1)  # B(3,3) bottom pair: next to CIV L(6,6) and the new CIV
    assert s.prestige[A] - before == 2  # two CIV neighbours, not doubled


# ----- elections (5.5) ------------------------------------------------------------------------------
def test_mayor_election_and_park():
    game = bought(3)
    at_main(game, A)
    s = game.state
    s.vocations = [[0] * 8 for _ in range(3)]
    s.vocations[B] = [1, 1, 0, 0, 0, 0, 0, 0]
    run_tasks(game, ["election", cp.MAYOR])
    assert s.offices[cp.MAYOR] == B and game.decision_name() == "MAYOR_PARK" and game.current_player() == B
    empty = [x for x in range(144) if s.lot_building[x] < 0]
    assert legal(game) == {rules.LOT + x for x in empty}
    game.apply(rules.LOT + empty[0])
    assert s.buildings[s.lot_building[empty[0]]] == rules.Building(PARK, 1, (empty[0],), B)
    assert game.decision_name() == "MAIN"


def test_mayor_tie_is_broken_by_the_media_holder():
    game = bought(3)
    at_main(game, A)
    s = game.state
    s.vocations = [[0, 1, 0, 0, 0, 0, 0, 0], [0, 0, 1, 0, 0, 0, 0, 0], [1, 0, 0, 0, 0, 0, 0, 0]]
    run_tasks(game, ["election", cp.MAYOR])
    assert game.decision_name() == "ELECTION_TIE" and game.current_player() == C
    assert legal(game) == {relative(game, s_) for s_ in (A, B, C)}


def test_no_qualifying_player_leaves_the_tile():
    game = bought(3)
    at_main(game, A)
    s = game.state
    s.airport = True
    s.offices[cp.TREASURER] = B
    for b in rules.live_buildings(s):
        if s.buildings[b][0] == COM:
            s.buildings[b] = s.buildings[b]._replace(owner=-1)
    run_tasks(game, ["election", cp.TREASURER])
    assert s.offices[cp.TREASURER] == B


def test_contractor_goes_to_the_least_prestige_after_every_election():
    game = bought(3)
    at_main(game, A)
    s = game.state
    s.sports = s.airport = True
    s.prestige = [5, 3, 9]
    run_tasks(game, ["election", cp.UNION_BOSS])
    assert s.offices[cp.CONTRACTOR] == B
    s.prestige = [3, 3, 9]
    s.offices[cp.UNION_BOSS] = C
    run_tasks(game, ["election", cp.UNION_BOSS])
    assert game.decision_name() == "ELECTION_TIE" and game.current_player() == s.offices[cp.UNION_BOSS]
    assert legal(game) == {relative(game, A), relative(game, B)}


def test_win_election_effect():
    game = bought(3)
    at_main(game, A)
    s = game.state
    run_tasks(game, ["effect", 33, 0, 0])  # Municipal Court before the Airport: DA not in play
    assert s.offices[cp.DISTRICT_ATTORNEY] == -1
    s.airport = True
    run_tasks(game, ["effect", 33, 0, 0])
    assert s.offices[cp.DISTRICT_ATTORNEY] == A


def test_ballot_then_payout_order():
    """A card with both icons: the election is resolved before the payout (4.3)."""
    game = bought(3)
    at_main(game, A)
    s = game.state
    s.tasks = []
    rules._push_reveal_triggers(s, 4)  # P04: ballot and W5
    assert s.tasks == [rules.Payout("w", 5), rules.Ballot()]


# ----- effects (5.2) and restrictions (5.3) --------------------------------------------------------
def test_per_building_scopes():
    game = bought(3)
    at_main(game, A)
    s = game.state
    clear_board(s)
    new = put(s, COM, [lot(4, 4), lot(4, 5)], A)  # block (2, 2)
    put(s, RES, [lot(4, 0)], B)  # same block row
    put(s, RES, [lot(10, 5)], -1)  # same block column
    put(s, RES, [lot(0, 0)], A)  # neither
    put(s, RES, [lot(3, 3)], C)  # adjacent, and in no row of block (2, 2)
    wealth = s.wealth[A]
    run_tasks(game, ["effect", 42, 0, new])  # Department Store: ACTIVE_ALL w=1 RES THESE_ROWS
    assert s.wealth[A] - wealth == 2
    wealth = s.wealth[A]
    run_tasks(game, ["effect", 10, 0, new])  # Barber Shop: ACTIVE_ALL w=1 RES ADJACENT
    assert s.wealth[A] - wealth == 1


def test_corporate_hq_effects():
    game = bought(3)
    at_main(game, A)
    s = game.state
    clear_board(s)
    new = put(s, COM, [lot(0, 0), lot(0, 1), lot(1, 0), lot(1, 1)], A)
    put(s, COM, [lot(4, 4), lot(4, 5), lot(5, 4), lot(5, 5)], -1)
    put(s, COM, [lot(8, 8), lot(8, 9), lot(9, 8)], B)
    put(s, COM, [lot(8, 0), lot(8, 1), lot(9, 0)], B)
    put(s, COM, [lot(0, 8), lot(0, 9), lot(1, 8)], A)
    wealth = list(s.wealth)
    run_tasks(game, ["effect", 46, 0, new], ["effect", 46, 1, new])
    assert [w - v for w, v in zip(s.wealth, wealth, strict=True)] == [8 + 3, 6, 0]


def test_tribute_each_opponent_per_building():
    game = bought(3, auto_single=False)
    at_main(game, A)
    s = game.state
    clear_board(s)
    put(s, RES, [lot(0, 0)], B)
    put(s, RES, [lot(0, 4), lot(0, 5)], B)
    put(s, RES, [lot(8, 8)], C)
    s.wealth, s.prestige = [0, 10, 2], [0, 1, 5]
    run_tasks(game, ["effect", 79, 0, 0])  # Marina: 4 per 1-lot RES
    assert game.decision_name() == "TRIBUTE_PAY" and game.current_player() == B
    game.apply(rules.OPT_B)  # B pays prestige: has only 1
    assert game.current_player() == C
    game.apply(rules.OPT_A)  # C pays wealth: has only 2
    assert s.wealth == [2, 10, 0] and s.prestige == [1, 0, 5]


def test_park_effect_next_to_the_new_building():
    game = bought(3)
    at_main(game, A)
    s = game.state
    clear_board(s)
    new = put(s, RES, [lot(0, 0), lot(0, 1), lot(1, 0)], A)
    run_tasks(game, ["effect", 31, 0, new])  # Subdivision: PARK(1)
    assert game.decision_name() == "PARK_LOT"
    assert legal(game) == {rules.LOT + x for x in (lot(1, 1), lot(0, 2), lot(1, 2), lot(2, 0), lot(2, 1))}


def test_marker_effect_places_from_the_box():
    game = bought(3)
    at_main(game, A)
    s = game.state
    run_tasks(game, ["effect", 38, 0, 0])  # City Hall: MARKER(4)
    assert game.decision_name() == "MARKER_PLACE" and rules.PASS not in legal(game)
    game.apply(rules.CIRCLE + 4)
    assert s.circles[4] == 4


@pytest.mark.parametrize(
    ("card", "place", "ok"),
    [
        (INN, 4 * 5 + 0, True),  # ADJ_WATER: B(0,5) top pair touches the water
        (INN, 4 * 14 + 0, False),  # B(2,2) does not
        (30, 4 * 0 + 3, False),  # Manor MIN_VALUE(6) in a value-4 block
        (30, 4 * 2 + 3, True),  # ... and in a value-8 block
        (59, 4 * 12 + 1, True),  # Tenements MAX_VALUE(6) in a value-2 block
        (59, 4 * 3 + 1, False),  # ... not in a value-9 block
    ],
)
def test_restrictions(card, place, ok):
    game = bought(3)
    s = game.state
    clear_board(s)
    s.wealth[A] = 40
    assert (place in rules.legal_placements(s, A, card)) is ok


def test_not_adjacent_to_res_and_ignore_zoning():
    game = bought(3)
    s = game.state
    clear_board(s)
    s.wealth[A] = 40
    put(s, RES, [lot(0, 0)], B)
    brickworks = 23  # IND 3, NOT_ADJ(RES)
    assert 4 * 0 + 0 not in rules.legal_placements(s, A, brickworks)
    assert 4 * 1 + 0 in rules.legal_placements(s, A, brickworks)  # L(0,3), L(1,2), L(1,3): not adjacent
    put(s, IND, [lot(2, 10)], B)
    marina = 79  # COM 4, IGNORE_ZONING
    assert 4 * 5 in rules.legal_placements(s, A, marina)
    assert 4 * 5 + 1 not in rules.legal_placements(s, A, BANK)  # COM next to IND only


# ----- planning events (5.6) ----------------------------------------------------------------------
def _event_position(n: int = 3, **options) -> UrbanSprawl:
    game = bought(n, **options)
    at_main(game, A)
    return game


def test_luxury_tax_and_property_tax_are_mandatory():
    game = _event_position()
    s = game.state
    s.wealth = [10, 2, 0]
    run_tasks(game, ["planning_event", 40])
    assert s.wealth == [7, 0, 0]
    clear_board(s)
    put(s, RES, [lot(0, 0), lot(0, 1), lot(1, 0), lot(1, 1)], B)
    put(s, RES, [lot(2, 0), lot(2, 1), lot(3, 0), lot(3, 1)], B)
    s.wealth = [5, 1, 5]
    run_tasks(game, ["planning_event", 51])
    assert s.wealth == [5, 0, 5]


def test_auction_needs_eight_wealth():
    game = _event_position(auto_single=False)
    s = game.state
    s.wealth = [8, 7, 20]
    run_tasks(game, ["planning_event", 41])
    assert game.decision_name() == "AUCTION" and game.current_player() == A
    assert legal(game) == {rules.OPT_A, rules.OPT_B}
    game.apply(rules.OPT_A)
    assert game.decision_name() == "MAYOR_PARK" and s.wealth[A] == 0
    game.apply(min(legal(game)))
    assert game.current_player() == C  # B cannot pay
    game.apply(rules.OPT_B)
    assert game.decision_name() == "MAIN" and s.wealth == [0, 7, 20]


def test_urban_blight_pay_or_lose_it():
    game = _event_position(auto_single=False)
    s = game.state
    clear_board(s)
    low = put(s, RES, [lot(4, 0)], B)  # value 2
    put(s, RES, [lot(0, 0)], C)
    s.prestige = [0, 5, 0]
    run_tasks(game, ["planning_event", 42])
    assert game.decision_name() == "BLIGHT_CHOICE" and game.current_player() == B
    game.apply(rules.OPT_A)
    assert s.prestige[B] == 2 and s.buildings[low] is not None
    run_tasks(game, ["planning_event", 42])
    assert legal(game) == {rules.OPT_B}
    game.apply(rules.OPT_B)
    assert s.buildings[low] is None


def test_urban_blight_tie_picked_by_the_active_player():
    game = _event_position(auto_single=False)
    s = game.state
    clear_board(s)
    first = put(s, RES, [lot(4, 0)], -1)
    second = put(s, RES, [lot(6, 0)], -1)
    run_tasks(game, ["planning_event", 42])
    assert game.decision_name() == "PICK_BUILDING" and game.current_player() == A
    game.apply(rules.LOT + lot(6, 0))
    assert s.buildings[second] is None and s.buildings[first] is not None


def test_local_headlines_and_income_events():
    game = _event_position()
    s = game.state
    clear_board(s)
    put(s, COM, [lot(0, 6)], B)  # value 9, the highest
    put(s, COM, [lot(4, 0)], C)
    put(s, PARK, [lot(11, 11)], C)
    prestige, wealth = list(s.prestige), list(s.wealth)
    run_tasks(game, ["planning_event", 43], ["planning_event", 47], ["planning_event", 50])
    assert [p - q for p, q in zip(s.prestige, prestige, strict=True)] == [0, 3, 1]
    assert [p - q for p, q in zip(s.wealth, wealth, strict=True)] == [0, 1, 1]


def test_special_election_and_press_conference():
    game = _event_position()
    s = game.state
    media = next(seat for seat in range(3) if s.vocations[seat][cp.MEDIA])
    prestige = s.prestige[media]
    run_tasks(game, ["planning_event", 53])
    assert s.prestige[media] - prestige == 2
    run_tasks(game, ["planning_event", 44])
    assert s.pawn == cp.DISTRICT_ATTORNEY


def test_zoning_variance_moves_a_marker():
    game = _event_position()
    s = game.state
    run_tasks(game, ["planning_event", 52])
    assert game.decision_name() == "MAIN"  # no marker on the board: nothing to move
    s.circles[0] = 7
    run_tasks(game, ["planning_event", 52])
    assert game.decision_name() == "MARKER_MOVE_SRC" and legal(game) == {rules.CIRCLE, rules.PASS}
    game.apply(rules.CIRCLE)
    assert rules.PASS not in legal(game)
    game.apply(rules.CIRCLE + 8)
    assert s.circles[0] == 0 and s.circles[8] == 7


# ----- contract-deck events (5.7) -------------------------------------------------------------------
def test_disaster_pay_or_demolish():
    game = _event_position(auto_single=False)
    s = game.state
    clear_board(s)
    a1 = put(s, RES, [lot(4, 4)], A)
    a2 = put(s, RES, [lot(6, 6)], A)
    b1 = put(s, IND, [lot(8, 8)], B)
    s.wealth = [3, 1, 9]
    run_tasks(game, ["contract_event", 7])  # Fire: 1-lot buildings, or pay 3 wealth
    assert game.decision_name() == "DISASTER_CHOICE" and game.current_player() == A
    game.apply(rules.OPT_B)
    assert game.decision_name() == "PICK_BUILDING" and legal(game) == {rules.LOT + lot(4, 4), rules.LOT + lot(6, 6)}
    game.apply(rules.LOT + lot(6, 6))
    assert s.buildings[a2] is None and s.buildings[a1] is not None
    assert game.current_player() == B and legal(game) == {rules.OPT_B}  # cannot pay 3
    game.apply(rules.OPT_B)
    game.apply(rules.LOT + lot(8, 8))
    assert s.buildings[b1] is None and game.decision_name() == "MAIN"  # C controls nothing


def test_airport_changes_the_routing_and_city_feeds_c4():
    game = _event_position()
    s = game.state
    run_tasks(game, ["contract_event", 0])
    assert s.airport and rules.contract_chains(s) == [(cp.TOWN, [0]), (cp.CITY, [1, 2, 3, 4])]
    s.slots = [5, -1, 2, -1, 1]
    s.decks[cp.TOWN][-1:] = [7]
    s.deck_up[cp.TOWN] = True
    city_next = s.decks[cp.CITY][-1]
    run_tasks(game, ["slide_contracts"])
    assert s.slots == [5, -1, -1, 2, 1] and s.deck_up[cp.TOWN]  # C5 is stuck; the Town top waits
    s.decks[cp.CITY] = [c for c in s.decks[cp.CITY] if c < 96]
    city_next = s.decks[cp.CITY][-1]
    run_tasks(game, ["refill_contracts"])
    assert s.slots[2] == city_next


def test_sports_team_routing_and_exhausted_city():
    game = _event_position()
    s = game.state
    s.airport = True
    run_tasks(game, ["contract_event", 5])
    assert s.sports and rules.contract_chains(s) == [(cp.TOWN, [0]), (cp.CITY, [1]), (cp.METRO, [2, 3, 4])]
    s.decks[cp.CITY] = []
    assert rules.contract_chains(s) == [(cp.TOWN, [0, 1]), (cp.METRO, [2, 3, 4])]


def test_olympic_games_end_the_game_mid_turn():
    game = _event_position()
    s = game.state
    s.airport = s.sports = True
    s.tasks = [rules.NextTurn(), rules.RevealContract(2)]
    s.decks[cp.METRO].append(cp.EVENT_BASE + 10)
    s.deck_up[cp.METRO] = False
    run_tasks(game)
    assert game.is_over() and not game.is_truncated() and s.tasks == [] and s.turns == 0


def test_relocation_union_strike_scandal_gentrification():
    game = _event_position(auto_single=False)
    s = game.state
    clear_board(s)
    s.airport = True
    com = put(s, COM, [lot(0, 0)], B)
    put(s, IND, [lot(4, 4)], C)
    put(s, IND, [lot(6, 6)], -1)
    put(s, RES, [lot(8, 8), lot(8, 9), lot(9, 8)], A)
    s.offices = [C, -1, A, -1, B, -1]
    s.prestige, s.wealth = [0, 0, 4], [0, 0, 0]
    s.vocations = [[1, 0, 0, 0, 0, 0, 0, 0], [0] * 8, [0] * 8]
    run_tasks(game, ["contract_event", 6])  # Business Relocation
    assert (s.wealth[A], s.prestige[A]) == (1, 1)
    assert game.decision_name() == "PICK_BUILDING" and game.current_player() == A
    game.apply(rules.LOT + lot(0, 0))
    assert s.buildings[com][3] == -1
    run_tasks(game, ["contract_event", 8])  # Union Strike: B +2 wealth, election for Union Boss
    assert s.wealth[B] == 2 and s.offices[cp.UNION_BOSS] == C
    run_tasks(game, ["contract_event", 13])  # Scandal: Mayor C -3, then a Mayor election (A has MEDIA)
    assert s.prestige[C] == 1 and s.offices[cp.MAYOR] == A
    game.apply(min(legal(game)))  # the new Mayor's park
    run_tasks(game, ["contract_event", 12])  # Gentrification: +2 per RES of 3-4 lots
    assert s.prestige[A] == 3


def test_planning_deck_reshuffles_the_discard():
    game = _event_position()
    s = game.state
    s.planning_discard += s.planning_deck
    s.planning_deck = []
    s.planning_up = False
    s.planning_discard.append(s.planning_slots[0])
    s.planning_slots[0] = -1
    run_tasks(game, ["refill_planning"])
    assert s.planning_slots[0] >= 0 and len(s.planning_deck) > 30
    check_state(game)


def test_truncation_by_max_turns():
    game = bought(2, max_turns=4)
    rng = np.random.default_rng(0)
    while not game.is_over():
        game.apply(int(rng.choice(np.flatnonzero(game.legal_actions()))))
    assert game.is_truncated() and game.state.turns == 4


def test_election_events_in_order():
    game = _event_position(auto_single=False)
    s = game.state
    s.airport = True
    s.vocations = [[1, 0, 0, 0, 0, 0, 0, 0], [0] * 8, [0] * 8]
    run_tasks(game, ["contract_event", 3])  # Town Meeting: Mayor election
    assert s.offices[cp.MAYOR] == A and game.decision_name() == "MAYOR_PARK"
    game.apply(min(legal(game)))
    s.offices[cp.MAYOR] = -1
    run_tasks(game, ["planning_event", 45])  # Mayoral Recall
    assert s.offices[cp.MAYOR] == A
    game.apply(min(legal(game)))
    clear_board(s)
    put(s, COM, [lot(0, 6)], B)
    put(s, CIV, [lot(0, 0)], C)
    run_tasks(game, ["contract_event", 9])  # City Council Vote: Treasurer, then DA
    assert s.offices[cp.TREASURER] == B and s.offices[cp.DISTRICT_ATTORNEY] == C


def test_railroad_arrives_places_marker_7():
    game = _event_position()
    run_tasks(game, ["contract_event", 2])
    assert game.decision_name() == "MARKER_PLACE" and game.current_player() == A
    game.apply(rules.CIRCLE + 3)
    assert game.state.circles[3] == 7
    assert rules.row_blocks(game.state, "w", 7) == tuple(range(6))


@pytest.mark.parametrize(
    ("event", "hit", "spared"),
    [
        (1, [lot(0, 5)], [lot(5, 5)]),  # Flood: a lot next to the water
        (11, [lot(4, 4), lot(4, 5), lot(5, 4), lot(5, 5)], [lot(0, 0)]),  # Earthquake: 4-lot buildings
    ],
)
def test_flood_and_earthquake_filters(event, hit, spared):
    game = _event_position(auto_single=False)
    s = game.state
    clear_board(s)
    put(s, RES, hit, B)
    put(s, RES, spared, B)
    run_tasks(game, ["contract_event", event])
    assert game.decision_name() == "DISASTER_CHOICE" and game.current_player() == B
    game.apply(rules.OPT_B)
    assert legal(game) == {rules.LOT + x for x in hit}


def test_earthquake_alternative_costs_prestige():
    game = _event_position(auto_single=False)
    s = game.state
    clear_board(s)
    put(s, RES, [lot(4, 4), lot(4, 5), lot(5, 4), lot(5, 5)], A)
    s.prestige[A], wealth = 3, s.wealth[A]
    run_tasks(game, ["contract_event", 11])
    assert legal(game) == {rules.OPT_A, rules.OPT_B}
    game.apply(rules.OPT_A)
    assert s.prestige[A] == 0 and s.wealth[A] == wealth and len(rules.live_buildings(s)) == 1


def test_zone_income_events():
    game = _event_position()
    s = game.state
    clear_board(s)
    put(s, CIV, [lot(0, 0)], A)
    put(s, IND, [lot(4, 4)], A)
    put(s, RES, [lot(8, 8)], B)
    put(s, RES, [lot(10, 10)], B)
    wealth = list(s.wealth)
    run_tasks(game, ["planning_event", 46], ["planning_event", 48], ["planning_event", 49])
    assert [w - v for w, v in zip(s.wealth, wealth, strict=True)] == [2, 2, 0]


def test_contractor_demolishes_without_a_card():
    game = bought(3, auto_single=False)
    at_main(game, A)
    s = game.state
    s.offices[cp.CONTRACTOR] = A
    s.hands[A] = [10, 36]
    s.wealth[A] = 30
    s.slots[4] = BANK
    target = s.lot_building[lot(6, 6)]
    game._mask = None
    game.apply(rules.BUILD + 7)
    game.apply(rules.CARD + 10)
    game.apply(rules.LOT + 4 * 21)
    assert s.buildings[target] is None and s.hands[A] == [36]  # the Urban Renewal card is kept


def test_planning_event_drawn_on_refill_is_resolved_then_replaced():
    game = _event_position()
    s = game.state
    s.planning_discard.append(s.planning_slots[0])
    s.planning_slots[0] = -1
    tax = 40  # a permit with no ballot and a W7+ icon (marker in the box: pays nothing)
    permit = next(c for c in s.planning_deck if c < 36 and not cp.BALLOT[c] and cp.WEALTH_PAYOUT[c] >= 7)
    s.planning_deck.remove(permit)
    s.planning_deck.remove(tax)
    s.planning_deck += [permit, tax]  # the tax on top, then the permit
    s.planning_up = False
    wealth = list(s.wealth)
    run_tasks(game, ["refill_planning"])
    assert s.planning_slots[0] == permit and s.planning_discard[-1] == tax
    assert all(w == max(0, v - 3) for w, v in zip(s.wealth, wealth, strict=True))


def test_an_airport_dealt_during_setup_comes_into_play():
    """Short game, seed 17157: the four ordinary Town events and then the Airport come up in the deal.
    The Airport is resolved (no election, no payout), the City deck opens and the match ends by the
    Olympic Games instead of running to the turn cap."""
    game = UrbanSprawl(2, seed=17157, variant="short")
    s = game.state
    assert s.events_done[-1] == cp.SPECIAL_EVENT[cp.TOWN] and len(s.events_done) == 5
    assert s.airport and not s.sports
    assert s.deck_up[cp.CITY] and s.decks[cp.CITY][-1] < cp.EVENT_BASE and not s.deck_up[cp.METRO]
    assert s.offices == [rules.NOBODY] * 6 and s.prestige == [0, 0]  # nothing else happened
    rng = np.random.default_rng(0)
    while not game.is_over():
        game.apply(int(rng.choice(np.flatnonzero(game.legal_actions()))))
    assert not game.is_truncated() and cp.SPECIAL_EVENT[cp.METRO] in s.events_done
