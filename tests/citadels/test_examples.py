"""The worked examples E1-E10 of Citadels, hand-worked from the rules.

Each test writes the example's position into a fresh game's state (tests/citadels/positions.py),
plays the example's exact action ids through `Game.apply` and asserts every number the example
states. Examples that start at the beginning of a round (E4-E7) run the character draft with real
PICK/DISCARD actions from a chosen deal of the character cards, so the engine itself calls the
ranks in order.

Erratum: the worked example E8 says the Observatory turn leaves the deck at 18; by the rules themselves (4.3
"Drawing", 5.9.5) 20 - 3 drawn + 2 put back = 19, which is what is asserted.
"""

from __future__ import annotations

from city_envs.citadels import rules
from city_envs.citadels.game import Citadels
from city_envs.citadels.rules import bit

from ..game_helpers import legal
from .helpers import KIND
from .positions import (
    ARCHITECT,
    ASSASSIN,
    BISHOP,
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

GATHER_GOLD, GATHER_CARDS, COLLECT_INCOME, END_TURN = 16, 17, 101, 373


def city_of(game: Citadels, seat: int) -> set[str]:
    names = {k: name for name, k in KIND.items()}
    return {names[k] for k, built in enumerate(game.state.cities[seat]) if built}


def ids_in(game: Citadels, first: int, stop: int) -> set[int]:
    """The legal ids in [first, stop)."""
    return {a for a in legal(game) if first <= a < stop}


def offered_ranks(game: Citadels) -> set[int]:
    """Ranks offered to the picking seat (keep or discard)."""
    base = rules.PICK_CHARACTER if game.decision_name() == "SELECT_CHARACTER" else rules.DISCARD_CHARACTER
    return {a - base + 1 for a in legal(game)}


def begin_selection(game: Citadels, *, face_up: tuple[int, ...] = (), facedown: int) -> None:
    """Restart the current round's draft from this deal: face-up discards and the face-down card."""
    s = game.state
    s.face_up = sum(bit(r) for r in face_up)
    s.facedown = facedown
    s.pile = sum(bit(r) for r in range(1, 9) if r not in face_up and r != facedown)
    s.holder = [-1] * 9
    s.offered = [[] for _ in range(s.n)]
    s.known_facedown = [0] * s.n
    s.sel_log = [(rules.EV_FACEDOWN, -1, facedown)]
    s.steps = rules.selection_steps(s.n, s.crown)
    s.step = 0
    rules._offer_step(s)
    game._mask = None


def draft(game: Citadels, picks: list[tuple[int, int]]) -> None:
    """Play (seat, rank) picks in order, checking that it is that seat's pick each time."""
    for seat, rank in picks:
        assert game.current_player() == seat and game.decision_name() == "SELECT_CHARACTER"
        game.apply(rules.PICK_CHARACTER + rank - 1)


# ===== E1 =======================================================================================
def test_e1_warlord_turn_with_robbery_destroy_income_and_build():
    """E1: 5 players; the Thief named rank 8; Luis (seat 3, Warlord) is robbed on reveal, destroys
    Jose's Market (id 170), collects income, builds Barracks (id 327) and ends with 0 gold."""
    jose, manuel, luis = 0, 1, 3
    manuel_gold = 1
    game = position(
        5,
        cities={jose: kinds("Market", "Manor", "Temple", "Watchtower"), luis: kinds("Prison", "School of Magic")},
        hands={luis: kinds("Barracks")},
        gold={manuel: manuel_gold, luis: 4},
        deck=30,
    )
    s = game.state
    assert s.completion == 7 and len(s.deck) == 30 and s.city_size[jose] == 4
    start_turns(
        game,
        {THIEF: manuel, ARCHITECT: jose, WARLORD: luis},
        called=ARCHITECT,
        robbed=WARLORD,
        revealed={THIEF: manuel, ARCHITECT: jose},
    )
    assert s.called == WARLORD and game.current_player() == luis
    assert s.gold[luis] == 0 and s.gold[manuel] == manuel_gold + 4  # the robbery on reveal
    game.apply(GATHER_GOLD)
    assert s.gold[luis] == 2
    assert (jose - luis) % 5 == 2 and rules.DESTROY + 2 * 30 + KIND["Market"] == 170
    game.apply(170)
    assert s.gold[luis] == 1
    assert len(s.deck) == 31 and s.deck[-1] == KIND["Market"]
    assert s.city_size[jose] == 3 and city_of(game, jose) == {"Manor", "Temple", "Watchtower"}
    game.apply(COLLECT_INCOME)
    assert s.gold[luis] == 3  # +2: Prison + School of Magic
    game.apply(327)
    assert s.gold[luis] == 0 and city_of(game, luis) == {"Prison", "School of Magic", "Barracks"}
    assert COLLECT_INCOME not in legal(game)
    game.apply(END_TURN)
    assert s.gold[luis] == 0  # no further gold at the end of the turn


# ===== E2 =======================================================================================
def test_e2_scoring():
    """E2: A completed first (29), B completed later with the Haunted Quarter as military (28),
    C (14), D with Imperial Treasury and Map Room (27); A wins."""
    game = position(
        4,
        cities={
            0: kinds("Manor", "Castle", "Temple", "Market", "Watchtower", "Keep", "University"),
            1: kinds("Palace", "Church", "Docks", "Tavern", "Haunted Quarter", "Library", "Harbor"),
            2: kinds("Palace", "Church", "Docks", "Tavern", "Keep"),
            3: kinds("Imperial Treasury", "Map Room", "Manor", "Temple", "Tavern", "Prison"),
        },
        hands={3: kinds("Manor", "Temple", "Tavern")},
        gold={3: 4},
    )
    s = game.state
    s.first_completer, s.game_ending = 0, True
    assert s.completion == 7 and s.city_size == [7, 7, 5, 6]
    assert [rules.has_five_types(s.cities[seat]) for seat in range(4)] == [True, True, False, True]
    assert game.scores() == [29, 28, 14, 27]
    assert game.winners() == [0]


# ===== E3 =======================================================================================
def warlord_after_gathering(gold_before: int) -> Citadels:
    """E3's position: seat 2 is the Warlord, seat 1 the revealed Bishop; seat 2 has just gathered gold."""
    game = position(
        5,
        cities={
            0: kinds("Great Wall", "Castle", "Temple"),
            1: kinds("Cathedral", "Manor"),
            2: kinds("Prison", "Barracks"),
            3: kinds("Tavern", "Manor", "Castle", "Palace", "Temple", "Church", "Market"),
            4: kinds("Keep", "Watchtower", "Market"),
        },
        gold={2: gold_before},
    )
    start_turns(game, {BISHOP: 1, WARLORD: 2}, called=MERCHANT, revealed={BISHOP: 1})
    assert game.current_player() == 2 and game.state.city_size[3] == 7
    game.apply(GATHER_GOLD)
    return game


def test_e3_warlord_legality():
    """E3: with 3 gold the legal DESTROY ids are exactly {116, 117, 170, 175, 195}; with 4 gold 193
    (seat 0's Castle) joins them."""
    game = warlord_after_gathering(1)
    assert game.state.gold[2] == 3
    assert ids_in(game, rules.DESTROY, rules.BUILD) == {116, 117, 170, 175, 195}

    game = warlord_after_gathering(2)
    assert game.state.gold[2] == 4
    assert ids_in(game, rules.DESTROY, rules.BUILD) == {116, 117, 170, 175, 193, 195}


# ===== E4 =======================================================================================
def test_e4_assassin_and_thief():
    """E4: the Assassin kills the Merchant, the Thief robs the Architect; ranks 3-5 and the dead
    Merchant are skipped, the robbery happens at the Architect's reveal, the crown stays; 4/8/3/2."""
    game = position(4, gold={0: 2, 1: 1, 2: 3, 3: 5}, crown=0)
    s = game.state
    begin_selection(game, face_up=(BISHOP, WARLORD), facedown=KING)
    draft(game, [(0, ASSASSIN), (1, THIEF), (2, MERCHANT)])
    assert offered_ranks(game) == {MAGICIAN, ARCHITECT}
    draft(game, [(3, ARCHITECT)])
    assert s.holder[MAGICIAN] == s.holder[KING] == -1  # both face down

    assert s.called == ASSASSIN and game.current_player() == 0
    game.apply(GATHER_GOLD)
    assert s.gold[0] == 4
    game.apply(53)
    assert s.killed == MERCHANT
    game.apply(END_TURN)

    assert s.called == THIEF and game.current_player() == 1
    assert ids_in(game, rules.ROB, rules.MAGICIAN_SWAP) == {58, 59, 60, 62, 63}
    game.apply(62)
    assert s.robbed == ARCHITECT
    game.apply(GATHER_GOLD)
    assert s.gold[1] == 3
    game.apply(END_TURN)

    # Ranks 3, 4, 5 are unheld and rank 6 is dead: straight to the Architect.
    assert s.called == ARCHITECT and game.current_player() == 3
    assert s.gold[2] == 3 and s.revealed[MERCHANT] == -1 and not s.played[2]
    assert s.gold[1] == 8 and s.gold[3] == 0
    assert int(s.hands[3].sum()) == 2
    game.apply(GATHER_GOLD)
    assert s.gold[3] == 2
    game.apply(END_TURN)

    # Rank 8 is unheld: the round is over.
    assert s.round == 2 and s.crown == 0 and game.current_player() == 0
    assert s.gold == [4, 8, 3, 2]


# ===== E5 =======================================================================================
def test_e5_killed_king_takes_the_crown_at_the_end_of_the_round():
    """E5: a killed King is skipped and its holder takes the crown at the end of the round, then
    picks first."""
    game = position(4, crown=0)
    s = game.state
    begin_selection(game, face_up=(THIEF, BISHOP), facedown=MAGICIAN)
    draft(game, [(0, WARLORD), (1, ASSASSIN), (2, KING), (3, MERCHANT)])
    assert game.current_player() == 1
    game.apply(GATHER_GOLD)
    game.apply(51)  # assassinate rank 4
    game.apply(END_TURN)
    assert s.killed == KING and s.revealed[KING] == -1
    assert s.called == MERCHANT and game.current_player() == 3 and s.crown == 0  # rank 4 skipped
    game.apply(GATHER_GOLD)
    game.apply(END_TURN)
    assert s.called == WARLORD and s.crown == 0  # the crown does not move during the round
    game.apply(GATHER_GOLD)
    game.apply(END_TURN)
    assert s.round == 2 and s.crown == 2
    assert game.current_player() == 2 and game.decision_name() == "SELECT_CHARACTER"


def test_e5_face_down_king_leaves_the_crown():
    """E5, second set-up: the King is the face-down card and the Assassin names 4: the crown stays."""
    game = position(4, crown=0)
    s = game.state
    begin_selection(game, face_up=(MAGICIAN, BISHOP), facedown=KING)
    draft(game, [(0, WARLORD), (1, ASSASSIN), (2, THIEF), (3, MERCHANT)])
    game.apply(GATHER_GOLD)
    game.apply(51)  # assassinate rank 4
    game.apply(END_TURN)
    for _ in (THIEF, MERCHANT, WARLORD):
        game.apply(GATHER_GOLD)
        game.apply(END_TURN)
    assert s.round == 2 and s.crown == 0 and game.current_player() == 0


# ===== E6 =======================================================================================
def test_e6_two_player_selection():
    """E6: the 2-player draft with the Bishop face down; the Magician is discarded automatically;
    turn order King (0), Merchant (1), Architect (0), Warlord (1); C = 8."""
    game = Citadels(2, seed=0)
    s = game.state
    assert s.crown == 0 and s.completion == 8
    begin_selection(game, facedown=BISHOP)

    assert game.current_player() == 0 and offered_ranks(game) == {1, 2, 3, 4, 6, 7, 8}
    game.apply(3)  # keep the King
    assert game.current_player() == 1 and offered_ranks(game) == {1, 2, 3, 6, 7, 8}
    game.apply(7)  # keep the Warlord
    assert game.current_player() == 1 and game.decision_name() == "SELECT_DISCARD"
    game.apply(8)  # discard the Assassin
    assert game.current_player() == 0 and offered_ranks(game) == {2, 3, 6, 7}
    game.apply(6)  # keep the Architect
    assert game.current_player() == 0 and game.decision_name() == "SELECT_DISCARD"
    game.apply(9)  # discard the Thief
    assert game.current_player() == 1 and offered_ranks(game) == {3, 6}
    game.apply(5)  # keep the Merchant; the Magician goes face down by itself
    assert s.holder[MAGICIAN] == -1 and s.known_facedown[1] & bit(MAGICIAN)
    assert {r: s.holder[r] for r in (KING, MERCHANT, ARCHITECT, WARLORD)} == {
        KING: 0,
        MERCHANT: 1,
        ARCHITECT: 0,
        WARLORD: 1,
    }

    order = []
    while s.round == 1:
        order.append((s.called, game.current_player()))
        game.apply(GATHER_GOLD)
        game.apply(END_TURN)
    assert order == [(KING, 0), (MERCHANT, 1), (ARCHITECT, 0), (WARLORD, 1)]


# ===== E7 =======================================================================================
def test_e7_seven_player_selection():
    """E7: crown at seat 4; the 7th picker (seat 3) gets the face-down Bishop with the Warlord,
    keeps the Bishop and the Warlord goes face down."""
    game = Citadels(7, seed=0)
    s = game.state
    s.crown = 4
    begin_selection(game, facedown=BISHOP)
    assert [seat for seat, _ in s.steps] == [4, 5, 6, 0, 1, 2, 3]
    draft(game, [(4, ASSASSIN), (5, THIEF), (6, MAGICIAN), (0, KING), (1, MERCHANT), (2, ARCHITECT)])
    assert game.current_player() == 3 and offered_ranks(game) == {WARLORD, BISHOP}
    game.apply(4)  # keep the Bishop
    assert s.holder[BISHOP] == 3 and s.holder[WARLORD] == -1
    assert s.known_facedown[3] == bit(WARLORD)
    assert game.decision_name() == "MAIN" and s.called == ASSASSIN and game.current_player() == 4


# ===== E8 =======================================================================================
def drawing_turn(city: list[int], deck_size: int, gold: int = 0) -> Citadels:
    """Seat 0 (King) at the start of its turn with this city and a deck Tavern, Market, Docks, ..."""
    deck = kinds("Tavern", "Market", "Docks") * 7
    game = position(4, cities={0: city}, gold={0: gold}, deck=deck[:deck_size])
    start_turns(game, {KING: 0, WARLORD: 1}, face_up=(ASSASSIN, THIEF), facedown=BISHOP)
    assert game.current_player() == 0 and len(game.state.deck) == deck_size
    return game


def test_e8_observatory_draws_three_and_keeps_one():
    """E8: Observatory only: 3 drawn, KEEP_DRAWN, the other 2 under the deck, hand +1 (deck 19, see
    the module docstring)."""
    game = drawing_turn(kinds("Observatory"), 20)
    s = game.state
    game.apply(GATHER_CARDS)
    assert game.decision_name() == "KEEP_DRAWN" and s.drawn == kinds("Tavern", "Market", "Docks")
    assert legal(game) == {rules.KEEP_DRAWN + k for k in kinds("Tavern", "Market", "Docks")}
    game.apply(rules.KEEP_DRAWN + KIND["Market"])
    assert hand_of(game, 0) == {"Market": 1}
    assert len(s.deck) == 19 and s.deck[-2:] == kinds("Tavern", "Docks")


def test_e8_library_keeps_everything_drawn():
    """E8: Library only: 2 drawn to hand with no decision, deck 18; Library and Observatory: 3 to
    hand, deck 17."""
    game = drawing_turn(kinds("Library"), 20)
    game.apply(GATHER_CARDS)
    assert game.decision_name() == "MAIN" and len(game.state.deck) == 18
    assert hand_of(game, 0) == {"Tavern": 1, "Market": 1}

    game = drawing_turn(kinds("Library", "Observatory"), 20)
    game.apply(GATHER_CARDS)
    assert game.decision_name() == "MAIN" and len(game.state.deck) == 17
    assert hand_of(game, 0) == {"Tavern": 1, "Market": 1, "Docks": 1}


def test_e8_short_and_empty_deck():
    """E8: a deck of 1 with the Observatory draws 1 (one legal KEEP_DRAWN id, deck 0); with an empty
    deck GATHER_CARDS (17) and USE_SMITHY (342) are illegal."""
    game = drawing_turn(kinds("Observatory"), 1)
    game.apply(GATHER_CARDS)
    assert game.decision_name() == "KEEP_DRAWN" and len(game.state.deck) == 0
    assert legal(game) == {rules.KEEP_DRAWN + KIND["Tavern"]}
    game.apply(rules.KEEP_DRAWN + KIND["Tavern"])
    assert hand_of(game, 0) == {"Tavern": 1}

    game = drawing_turn(kinds("Observatory", "Smithy"), 0, gold=5)
    assert GATHER_CARDS not in legal(game) and rules.USE_SMITHY not in legal(game)
    game.apply(GATHER_GOLD)
    assert rules.USE_SMITHY not in legal(game)


# ===== E9 =======================================================================================
def test_e9_magician_discard_subset():
    """E9: mark both Manors (70, 70), a third 70 is illegal, 100 puts them under the deck and draws
    Harbor and Tavern; the deck keeps its size and the swap ids 64-69 are illegal."""
    deck = kinds("Harbor", "Tavern", "Keep") + kinds("Watchtower") * 10
    game = position(4, hands={0: kinds("Manor", "Manor", "Temple", "Fortress")}, gold={0: 2}, deck=deck)
    s = game.state
    start_turns(game, {MAGICIAN: 0, WARLORD: 1}, face_up=(ASSASSIN, THIEF), facedown=BISHOP)
    assert game.current_player() == 0 and ids_in(game, 64, 70) == {64, 65, 66}
    game.apply(70)
    assert game.decision_name() == "MAGICIAN_DISCARD"
    game.apply(70)
    assert legal(game) == {rules.MAGICIAN_MARK + KIND["Temple"], rules.MAGICIAN_MARK + KIND["Fortress"], 100}
    game.apply(100)
    assert hand_of(game, 0) == {"Temple": 1, "Fortress": 1, "Harbor": 1, "Tavern": 1}
    assert len(s.deck) == len(deck) and s.deck[0] == KIND["Keep"] and s.deck[-2:] == kinds("Manor", "Manor")
    assert game.decision_name() == "MAIN" and not ids_in(game, 64, 70)


# ===== E10 ======================================================================================
def test_e10_tie_break_four_players():
    """E10: A and C tie at 25; A revealed the Bishop (5), C the Merchant (6): C wins (the higher ranks
    of the untied seats do not matter)."""
    twenty_five = kinds("Palace", "Cathedral", "Town Hall", "Fortress", "Castle", "Temple")
    game = position(4, cities={0: twenty_five, 1: kinds("Palace"), 2: twenty_five, 3: kinds("Castle")})
    s = game.state
    s.revealed = [-1] * 9
    s.revealed[BISHOP], s.revealed[MERCHANT] = 0, 2
    s.revealed[ARCHITECT], s.revealed[WARLORD] = 1, 3
    assert game.scores() == [25, 5, 25, 4]
    assert game.winners() == [2]


def test_e10_tie_break_two_players():
    """E10: 2 players tied; A revealed Thief (2) and Warlord (8), B King (4) and Architect (7): A wins."""
    game = position(2, cities={0: kinds("Palace"), 1: kinds("Palace")})
    s = game.state
    s.revealed = [-1] * 9
    s.revealed[THIEF], s.revealed[WARLORD] = 0, 0
    s.revealed[KING], s.revealed[ARCHITECT] = 1, 1
    assert game.scores()[0] == game.scores()[1]
    assert [rules.tie_value(s, seat) for seat in range(2)] == [8, 7]
    assert game.winners() == [0]
