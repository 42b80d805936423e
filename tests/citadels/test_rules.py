"""One test per Citadels rule (docs/games/citadels.md).

The worked examples (test_examples.py) and the randomized invariants cover more; here each rule is
exercised on its own, with exact values, in a position built for it.
"""

from __future__ import annotations

import numpy as np
import pytest

from city_envs.citadels import components as cp
from city_envs.citadels import rules
from city_envs.citadels.game import Citadels
from city_envs.citadels.rules import bit

from ..game_helpers import legal
from .helpers import KIND
from .positions import (
    ARCHITECT,
    ASSASSIN,
    BISHOP,
    FILLER,
    KING,
    MAGICIAN,
    MERCHANT,
    THIEF,
    WARLORD,
    hand_of,
    kinds,
    position,
    start_turns,
)


def build_id(name: str) -> int:
    return rules.BUILD + KIND[name]


def destroy_id(offset: int, name: str) -> int:
    return rules.DESTROY + offset * cp.NUM_KINDS + KIND[name]


def turn(n: int, rank: int, seat: int = 0, others: dict[int, int] | None = None, **where) -> Citadels:
    """A game at the start of `seat`'s turn as `rank` (the other holders as given)."""
    game = position(n, **where)
    holders = {rank: seat, **(others or {})}
    start_turns(game, holders, called=rank - 1)
    assert game.current_player() == seat and game.state.called == rank
    return game


# ===== 3. setup ==================================================================================
@pytest.mark.parametrize("n", range(2, 8))
def test_setup(n):
    """3: 4 cards each, 2 gold, crown at seat 0, C, deck 68 - 4n, round 1."""
    game = Citadels(n, seed=n)
    s = game.state
    assert s.hands.sum(axis=1).tolist() == [4] * n and s.gold == [2] * n and s.crown == 0
    assert len(s.deck) == 68 - 4 * n and s.round == 1 and s.first_completer == -1 and not s.game_ending
    assert s.completion == (8 if n <= 3 else 7)
    assert Citadels(n, seed=n, classic_variant=True).state.completion == 8
    deck = np.bincount(s.deck, minlength=30) + s.hands.sum(axis=0)
    assert deck.tolist() == cp.COPIES.tolist()


def test_deal_order_is_round_the_table():
    """3.2: card j of the shuffled deck goes to seat j mod n."""
    rng = np.random.default_rng(3)
    deck = np.repeat(np.arange(30), cp.COPIES)[rng.permutation(68)].tolist()
    game = Citadels(3, seed=3)
    for seat in range(3):
        expected = np.bincount(deck[seat:12:3], minlength=30)
        assert game.state.hands[seat].tolist() == expected.tolist()


# ===== 4.2 selection =============================================================================
@pytest.mark.parametrize(("n", "face_up"), [(4, 2), (5, 1), (6, 0), (7, 0), (3, 0), (2, 0)])
def test_face_up_discards_never_the_king(n, face_up):
    """4.2: u face-up discards (2, 1, 0, 0 for 4-7 players), never the King; one face down."""
    for seed in range(40):
        s = Citadels(n, seed=seed).state
        ups = rules.ranks_of(s.face_up)
        assert len(ups) == face_up and KING not in ups
        assert s.facedown not in ups and 1 <= s.facedown <= 8
        offered = rules.ranks_of(s.pile)
        assert len(offered) == {7: 7, 3: 7, 2: 7}.get(n, n + 1)
        assert s.facedown not in offered


def test_four_to_six_players_pick_in_order_and_the_leftover_goes_face_down():
    """4.2: seats c..c+n-1 each keep one; the single leftover is discarded face down, seen by the last."""
    game = Citadels(5, seed=1)
    s = game.state
    seats = []
    while game.decision_name() == "SELECT_CHARACTER":
        seats.append(game.current_player())
        game.apply(min(legal(game)))
    assert seats == [0, 1, 2, 3, 4]
    held = [r for r in range(1, 9) if s.holder[r] >= 0]
    assert len(held) == 5
    leftover = set(range(1, 9)) - set(held) - set(rules.ranks_of(s.face_up)) - {s.facedown}
    assert len(leftover) == 1 and s.known_facedown[4] == bit(leftover.pop())


def test_three_players_pick_twice_round_the_table():
    """4.2 n=3: c, c+1, c+2, c, c+1, c+2; the last card goes face down."""
    game = Citadels(3, seed=2)
    seats = []
    while game.decision_name() == "SELECT_CHARACTER":
        seats.append(game.current_player())
        game.apply(min(legal(game)))
    assert seats == [0, 1, 2, 0, 1, 2]
    assert sorted(sum(game.state.holder[r] == seat for r in range(1, 9)) for seat in range(3)) == [2, 2, 2]


def test_selection_mask_is_exactly_the_offered_cards():
    """4.2: a SELECT_CHARACTER decision's legal set is exactly the cards offered to that seat."""
    game = Citadels(4, seed=5)
    while game.decision_name() == "SELECT_CHARACTER":
        offered = {r - 1 for r in rules.ranks_of(game.state.pile)}
        assert legal(game) == offered
        game.apply(max(legal(game)))


def test_crowned_seat_picks_first():
    """4.2/4.4: the crowned seat starts the selection."""
    game = Citadels(4, seed=0)
    game.state.crown = 2
    rules.start_round(game.state, game.chance)
    game._mask = None
    assert game.current_player() == 2
    assert [seat for seat, _ in game.state.steps] == [2, 3, 0, 1]


# ===== 4.3 the turn ==============================================================================
def test_before_gathering_only_gather_and_abilities_are_legal():
    """4.3: building needs `gathered`; END_TURN needs `gathered`; the mask is never empty."""
    game = turn(4, KING, hands={0: kinds("Temple")}, gold={0: 5})
    assert legal(game) == {16, 17, 101}
    game.apply(16)
    assert legal(game) == {101, build_id("Temple"), 373}


def test_gather_cards_needs_a_deck():
    """4.3: GATHER_CARDS is illegal with an empty deck; GATHER_GOLD gives 2."""
    game = turn(4, MERCHANT, deck=0, gold={0: 0})
    assert 17 not in legal(game)
    game.apply(16)
    assert game.state.gold[0] == 2 + 1  # and the Merchant's +1 on reveal


def test_keep_drawn_puts_the_others_under_the_deck_in_order():
    """4.3 drawing: keep one; the other goes to the deck bottom."""
    deck = kinds("Castle", "Tavern") + [FILLER] * 5
    game = turn(4, KING, deck=deck)
    game.apply(17)
    assert legal(game) == {rules.KEEP_DRAWN + KIND["Castle"], rules.KEEP_DRAWN + KIND["Tavern"]}
    game.apply(rules.KEEP_DRAWN + KIND["Tavern"])
    assert hand_of(game, 0) == {"Tavern": 1} and game.state.deck[-1] == KIND["Castle"]
    assert len(game.state.deck) == 6


def test_build_rules():
    """4.3 BUILD: after gathering, in hand, not already in the city, affordable, once (Architect 3)."""
    game = turn(4, KING, hands={0: kinds("Temple", "Castle", "Manor")}, cities={0: kinds("Manor")}, gold={0: 2})
    game.apply(16)  # 4 gold
    assert {a for a in legal(game) if rules.BUILD <= a < rules.USE_SMITHY} == {build_id("Temple"), build_id("Castle")}
    game.apply(build_id("Temple"))
    assert game.state.gold[0] == 3
    assert not {a for a in legal(game) if rules.BUILD <= a < rules.USE_SMITHY}  # one build only

    game = turn(
        4, ARCHITECT, hands={0: kinds("Temple", "Tavern", "Watchtower", "Church")}, gold={0: 10}, deck=[FILLER] * 4
    )
    assert hand_of(game, 0)["Manor"] == 2  # the Architect draws 2 on reveal
    game.apply(16)
    for name in ("Temple", "Tavern", "Watchtower"):
        game.apply(build_id(name))
    assert not {a for a in legal(game) if rules.BUILD <= a < rules.USE_SMITHY}
    assert game.state.gold[0] == 12 - 3


def test_completion_sets_first_completer_and_game_ending_but_the_round_goes_on():
    """4.3 BUILD, 5.10: reaching C marks the first completer and ends the game after the round."""
    city = kinds("Manor", "Castle", "Palace", "Temple", "Church", "Monastery")
    game = turn(4, KING, others={WARLORD: 1}, cities={0: city}, hands={0: kinds("Tavern")}, gold={0: 1})
    game.apply(16)
    game.apply(build_id("Tavern"))
    s = game.state
    assert s.first_completer == 0 and s.game_ending and s.city_size[0] == 7
    game.apply(373)
    assert game.current_player() == 1 and s.called == WARLORD  # remaining ranks still play
    assert destroy_id(3, "Tavern") not in legal(game)  # completed cities are immune
    game.apply(16)
    game.apply(373)
    assert game.is_over() and not game.is_truncated()


def test_income_is_collected_at_end_turn_if_forgotten():
    """4.3 END_TURN, 8.2: uncollected income is paid automatically."""
    game = turn(4, KING, cities={0: kinds("Manor", "Castle")}, gold={0: 0})
    game.apply(16)
    game.apply(373)
    assert game.state.gold[0] == 2 + 2


def test_income_counts_type_and_school_of_magic():
    """5.4/5.5/5.6/5.8, 5.9.9: one gold per district of the type, +1 School of Magic."""
    for rank, names in (
        (KING, ("Manor", "Palace")),
        (BISHOP, ("Temple",)),
        (MERCHANT, ("Tavern", "Docks")),
        (WARLORD, ("Prison",)),
    ):
        game = turn(4, rank, cities={0: [*kinds(*names), KIND["School of Magic"], KIND["Keep"]]}, gold={0: 0})
        before = game.state.gold[0]
        game.apply(101)
        assert game.state.gold[0] - before == len(names) + 1
        assert 101 not in legal(game)


# ===== 4.4 end of round ==========================================================================
def test_max_rounds_truncates():
    """4.4, 6.4: after max_rounds the game stops as a truncation, not a termination."""
    game = Citadels(4, seed=0, max_rounds=1)
    rng = np.random.default_rng(0)
    while not game.is_over():
        game.apply(int(rng.choice(np.flatnonzero(game.legal_actions()))))
    assert game.is_truncated() and game.state.round == 1 and not game.state.game_ending


# ===== 5. abilities ==============================================================================
def test_assassin_targets_and_the_killed_holder_is_silent():
    """5.1: ranks 2-8 (never 1); the killed character's turn is skipped and it is not revealed."""
    game = turn(4, ASSASSIN, others={BISHOP: 1})
    assert {a for a in legal(game) if rules.ASSASSINATE <= a < rules.ROB} == set(range(49, 56))
    game.apply(rules.ASSASSINATE + BISHOP - 1)
    assert not {a for a in legal(game) if rules.ASSASSINATE <= a < rules.ROB}  # once
    game.apply(16)
    game.apply(373)
    assert game.state.revealed[BISHOP] == -1 and not game.state.played[1]


def test_thief_cannot_rob_the_assassin_thief_or_the_killed_rank_and_robs_on_reveal():
    """5.2: never 1, 2 or the killed rank; gold moves at the victim's reveal, before the Merchant's +1."""
    game = turn(4, THIEF, others={MERCHANT: 1}, gold={0: 0, 1: 3})
    game.state.killed = KING
    game._mask = None
    assert {a for a in legal(game) if rules.ROB <= a < rules.MAGICIAN_SWAP} == {58, 60, 61, 62, 63}
    game.apply(rules.ROB + MERCHANT - 1)
    game.apply(16)
    game.apply(373)
    assert game.state.gold == [2 + 3, 1, 0, 0]  # the Merchant's +1 came after the robbery


def test_thief_robbing_himself_changes_nothing():
    """4.3 step 2: if the Thief's holder is the robbed character's holder, nothing moves (2 players)."""
    game = turn(2, THIEF, others={MERCHANT: 0, KING: 1}, gold={0: 4})
    game.apply(rules.ROB + MERCHANT - 1)
    game.apply(16)
    game.apply(373)
    game.apply(16)  # the King (seat 1)
    game.apply(373)
    assert game.state.called == MERCHANT and game.state.gold[0] == 4 + 2 + 1


def test_magician_swap_exchanges_whole_hands():
    """5.3: swap the whole hand with another seat (any size, even empty)."""
    game = turn(3, MAGICIAN, hands={0: kinds("Temple"), 2: kinds("Castle", "Palace", "Manor")})
    assert {a for a in legal(game) if 64 <= a < 70} == {64, 65}
    game.apply(rules.MAGICIAN_SWAP + 1)  # offset 2 = seat 2
    assert hand_of(game, 0) == {"Castle": 1, "Palace": 1, "Manor": 1} and hand_of(game, 2) == {"Temple": 1}
    assert not legal(game) & set(range(64, 100))


def test_king_takes_the_crown_on_reveal():
    """5.4: the living King takes the crown when revealed."""
    game = turn(4, KING, seat=3)
    assert game.state.crown == 3


def test_bishop_protects_against_the_warlord_unless_killed():
    """5.5, 5.10: the revealed living Bishop's city cannot be targeted; a killed Bishop gives nothing."""
    city = {1: kinds("Temple")}
    game = turn(4, WARLORD, others={BISHOP: 1}, cities=city, gold={0: 5})
    game.state.revealed[BISHOP] = 1
    game._mask = None
    assert destroy_id(1, "Temple") not in legal(game)
    game = turn(4, WARLORD, others={BISHOP: 1}, cities=city, gold={0: 5})
    game.state.killed = BISHOP
    game._mask = None
    assert destroy_id(1, "Temple") in legal(game)


def test_merchant_gets_one_gold_on_reveal():
    """5.6: +1 gold on reveal (before anything else)."""
    game = turn(4, MERCHANT, gold={0: 0})
    assert game.state.gold[0] == 1


def test_architect_draws_two_on_reveal_even_from_a_short_deck():
    """5.7, 4.3 step 5: min(2, deck) cards."""
    game = turn(4, ARCHITECT, deck=[FILLER])
    assert hand_of(game, 0) == {"Manor": 1} and game.state.deck == []


def test_warlord_costs_keep_great_wall_and_own_city():
    """5.8, 5.9.2, 5.9.11: cost - 1, Keep immune, Great Wall +1 on the others, own city allowed."""
    game = turn(4, WARLORD, cities={0: kinds("Temple"), 1: kinds("Keep", "Castle", "Great Wall")}, gold={0: 5})
    destroy = {a for a in legal(game) if rules.DESTROY <= a < rules.BUILD}
    assert destroy == {destroy_id(0, "Temple"), destroy_id(1, "Castle"), destroy_id(1, "Great Wall")}
    game.apply(destroy_id(1, "Castle"))
    assert game.state.gold[0] == 5 - (4 - 1 + 1)
    assert not {a for a in legal(game) if rules.DESTROY <= a < rules.BUILD}  # once per turn


def test_graveyard_recovery_and_decline():
    """5.9.6: the Graveyard owner may pay 1 to take the destroyed card; control returns to the Warlord."""
    game = turn(4, WARLORD, cities={1: kinds("Castle"), 2: kinds("Graveyard")}, gold={0: 5, 2: 1}, deck=[FILLER] * 3)
    game.apply(destroy_id(1, "Castle"))
    assert game.current_player() == 2 and game.decision_name() == "GRAVEYARD"
    assert legal(game) == {374, 375}
    game.apply(374)
    assert hand_of(game, 2) == {"Castle": 1} and game.state.gold[2] == 0
    assert game.current_player() == 0 and game.decision_name() == "MAIN"

    game = turn(4, WARLORD, cities={1: kinds("Castle"), 2: kinds("Graveyard")}, gold={0: 5, 2: 1}, deck=[FILLER] * 3)
    game.apply(destroy_id(1, "Castle"))
    game.apply(375)
    assert game.state.deck[-1] == KIND["Castle"] and game.current_player() == 0


def test_graveyard_not_offered_without_gold_to_the_warlord_or_for_itself():
    """5.9.6: no decision if the owner has no gold, is the Warlord, or the Graveyard itself was destroyed."""
    for cities, gold in (
        ({1: kinds("Castle"), 2: kinds("Graveyard")}, {0: 5, 2: 0}),
        ({0: kinds("Graveyard"), 1: kinds("Castle")}, {0: 5}),
        ({1: kinds("Graveyard")}, {0: 5, 1: 3}),
    ):
        game = turn(4, WARLORD, cities=cities, gold=gold)
        target = destroy_id(1, "Castle") if 1 in cities and KIND["Castle"] in cities[1] else destroy_id(1, "Graveyard")
        game.apply(target)
        assert game.decision_name() == "MAIN" and game.current_player() == 0


def test_laboratory_and_smithy():
    """5.9.3/5.9.4: Laboratory discards a card for 2 gold; Smithy pays 2 for 3 cards; once per turn each."""
    game = turn(
        4, KING, cities={0: kinds("Laboratory", "Smithy")}, hands={0: kinds("Temple")}, gold={0: 2}, deck=[FILLER] * 5
    )
    game.apply(rules.LAB_DISCARD + KIND["Temple"])
    assert game.state.gold[0] == 4 and game.state.deck[-1] == KIND["Temple"] and hand_of(game, 0) == {}
    game.apply(rules.USE_SMITHY)
    assert game.state.gold[0] == 2 and hand_of(game, 0) == {"Manor": 3}
    assert rules.USE_SMITHY not in legal(game)
    assert not legal(game) & set(range(rules.LAB_DISCARD, rules.END_TURN))


def test_haunted_quarter_counts_as_a_missing_type_only():
    """5.9.1: five types with the Haunted Quarter standing for the one missing type."""
    s = position(
        4,
        cities={
            0: kinds("Manor", "Temple", "Tavern", "Haunted Quarter", "Library"),
            1: kinds("Manor", "Temple", "Haunted Quarter", "Library"),
        },
    ).state
    assert rules.has_five_types(s.cities[0]) and not rules.has_five_types(s.cities[1])


def test_treasury_map_room_university_dragon_gate_scores():
    """6.2, 5.9.7/8/12: gold and hand as points; University and Dragon Gate score 8."""
    game = position(
        4,
        cities={0: kinds("Imperial Treasury", "Map Room", "University", "Dragon Gate")},
        hands={0: kinds("Temple", "Temple")},
        gold={0: 3},
    )
    assert game.scores()[0] == 5 + 5 + 8 + 8 + 3 + 2


def test_complete_city_bonuses():
    """6.2: +4 the first complete city, +2 the other complete cities, nothing for incomplete."""
    seven = kinds("Manor", "Castle", "Palace", "Temple", "Church", "Monastery", "Cathedral")
    game = position(4, cities={0: seven, 1: seven, 2: seven[:6]})
    game.state.first_completer = 1
    base = sum(cp.COST_LIST[k] for k in seven)
    assert game.scores()[:3] == [base + 2, base + 4, base - 5]


def test_tie_with_no_character_revealed_is_shared():
    """6.3: the tie-break counts only characters that took their turn; none leaves a shared win."""
    game = position(3, cities={0: kinds("Palace"), 1: kinds("Palace")})
    game.state.revealed = [-1] * 9
    game.state.decision, game.state.actor = rules.GAME_OVER, -1
    assert game.winners() == [0, 1]
    assert game.returns() == [pytest.approx(0.5), pytest.approx(0.5), pytest.approx(-1.0)]
