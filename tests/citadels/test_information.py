"""What a Citadels seat may know: determinization and hidden-item invariance.

1. For random mid-game states of every player count (selection, MAIN, KEEP_DRAWN,
   MAGICIAN_DISCARD, GRAVEYARD) and every seat p: `determinize(p, rng)` leaves p's observation,
   view and legal actions unchanged, conserves the cards, can be played to the end, and really
   resamples what p cannot see.
2. Pairs of states that differ in one hidden item (a card between an opponent's hand and the
   deck, the deck order, another seat's drawn or marked cards, which seat took which character,
   the face-down character) give p identical observations, and p's determinization of both is
   the same game for the same rng (it is a function of p's view). A visible change does change
   p's observation, so the comparisons can fail.
"""

from __future__ import annotations

import functools
import json

import numpy as np
import pytest

from city_envs.citadels import rules
from city_envs.citadels import view as view_module
from city_envs.citadels.game import Citadels
from city_envs.core.game import IllegalActionError

from ..game_helpers import same_for
from .helpers import (
    MAP_ROOM,
    TREASURY,
    check_state,
    harvest,
    harvest_kind,
    play_out,
    random_action,
    spec_score,
)

COUNTS = range(2, 8)
SELECTION = ("SELECT_CHARACTER", "SELECT_DISCARD")


@functools.cache
def states_for(n: int) -> tuple[Citadels, ...]:
    """Random mid-game states (shared by the tests below, which never mutate them)."""
    states = harvest(n, range(100 * n, 100 * n + 8))
    states += harvest_kind(n, "GRAVEYARD", 2, seed0=5000)
    kinds = {game.decision_name() for game in states}
    expected = {"SELECT_CHARACTER", "MAIN", "KEEP_DRAWN", "MAGICIAN_DISCARD", "GRAVEYARD"}
    assert expected | ({"SELECT_DISCARD"} if n == 2 else set()) <= kinds
    return tuple(states)


def assert_same_info(game: Citadels, other: Citadels, p: int) -> None:
    """Everything seat p may know agrees between the two games."""
    assert np.array_equal(game.observation(p), other.observation(p))
    assert game.view(p) == other.view(p)
    assert game.current_player() == other.current_player()
    assert game.decision_name() == other.decision_name()
    if game.current_player() == p:
        assert np.array_equal(game.legal_actions(), other.legal_actions())


def assert_same_determinization(game_a: Citadels, game_b: Citadels, p: int, seed: int = 7) -> None:
    """p's determinization is a function of p's view: the same rng gives the same game."""
    det_a = game_a.determinize(p, np.random.default_rng(seed))
    det_b = game_b.determinize(p, np.random.default_rng(seed))
    assert det_a.to_dict() == det_b.to_dict()


def unrevealed_holders(game: Citadels, p: int) -> tuple:
    s = game.state
    return tuple(s.holder[rank] if s.revealed[rank] < 0 and s.holder[rank] != p else -2 for rank in range(1, 9))


def opponents_hands(game: Citadels, p: int) -> list:
    return [game.state.hands[q].tolist() for q in range(game.num_players) if q != p]


# ===== 1. determinize keeps the view and resamples the rest ====================================
@pytest.mark.parametrize("n", COUNTS)
def test_determinize_keeps_view(n):
    rng = np.random.default_rng(n)
    for game in states_for(n):
        before = json.dumps(game.to_dict(), sort_keys=True)
        player_to_play_out = int(rng.integers(n))
        for p in range(n):
            det = game.determinize(p, rng)
            assert_same_info(game, det, p)
            check_state(det)
            if p == player_to_play_out:
                play_out(det, rng, check=True)
        assert json.dumps(game.to_dict(), sort_keys=True) == before, "determinize changed the original"


@pytest.mark.parametrize("n", COUNTS)
def test_determinize_at_every_selection_step(n):
    """Each pick of a selection phase (round 1 and a later round, where the crown moved), every
    seat; the determinized game then finishes its selection and the next few turns legally."""
    rng = np.random.default_rng(n)
    for seed in range(2):
        game = Citadels(n, seed=seed)
        play_rng = np.random.default_rng(seed)
        for _ in range(int(play_rng.integers(0, 2))):  # sometimes skip to round 2
            round_now = game.state.round
            while game.state.round == round_now:
                game.apply(random_action(game, play_rng))
        while game.decision_name() in SELECTION:
            for p in range(n):
                det = game.determinize(p, rng)
                assert_same_info(game, det, p)
                for _ in range(30):
                    check_state(det)
                    det.apply(random_action(det, rng))
            game.apply(random_action(game, play_rng))


@pytest.mark.parametrize("n", COUNTS)
def test_determinize_resamples(n):
    states = [g for g in harvest(n, range(200 * n, 200 * n + 12)) if g.decision_name() not in SELECTION]
    hand_cases = hand_changed = deck_changed = holder_cases = holder_changed = 0
    for game in states:
        for p in range(n):
            dets = [game.determinize(p, np.random.default_rng(seed)) for seed in range(6)]
            hidden = sum(int(game.state.hands[q].sum()) for q in range(n) if q != p)
            if hidden and len(game.state.deck) >= 2:
                hand_cases += 1
                hand_changed += any(opponents_hands(d, p) != opponents_hands(game, p) for d in dets)
                deck_changed += any(d.state.deck != game.state.deck for d in dets)
            truth = unrevealed_holders(game, p)
            if set(truth) - {-1, -2}:  # some opponent holds an unrevealed character
                holder_cases += 1
                holder_changed += any(unrevealed_holders(d, p) != truth for d in dets)
    assert hand_cases >= 10 and hand_changed >= 0.9 * hand_cases, (hand_changed, hand_cases)
    assert deck_changed >= 0.9 * hand_cases, (deck_changed, hand_cases)
    assert holder_cases >= 5 and holder_changed >= 0.5 * holder_cases, (holder_changed, holder_cases)


@pytest.mark.parametrize("n", [4, 7])
def test_determinize_keeps_own_secrets(n):
    """p's own hand, characters, offered sets and known discards never change."""
    for game in harvest(n, range(300, 306)):
        for p in range(n):
            det = game.determinize(p, np.random.default_rng(p))
            s, t = game.state, det.state
            assert np.array_equal(s.hands[p], t.hands[p])
            mine = [r for r in range(1, 9) if s.holder[r] == p]
            assert mine == [r for r in range(1, 9) if t.holder[r] == p]
            assert s.offered[p] == t.offered[p] and s.known_facedown[p] == t.known_facedown[p]
            assert s.cities.tolist() == t.cities.tolist() and s.gold == t.gold
            assert len(s.deck) == len(t.deck)
            assert s.hands.sum(axis=1).tolist() == t.hands.sum(axis=1).tolist()


@pytest.mark.parametrize("n", [2, 5])
def test_determinized_game_cannot_be_traced_back(n):
    """A determinization is a full `Game` handed to search agents: it must not carry the real
    match seed (replaying it would show the true deal and deck) nor fresh masks of the real
    state (its own mask must match its own state)."""
    true_deal = {}
    for game in states_for(n)[:10]:
        if game.seed not in true_deal:
            true_deal[game.seed] = Citadels(n, seed=game.seed).to_dict()["state"]
        game.legal_actions()  # a mask cached on the original must not leak into the copy
        for p in range(n):
            det = game.determinize(p, np.random.default_rng(p))
            det_mask = det.legal_actions().copy()
            det._mask = None
            assert np.array_equal(det_mask, det.legal_actions()), "stale mask copied from the real game"
            if det.seed is not None:
                assert Citadels(n, seed=det.seed).to_dict()["state"] != true_deal[game.seed]


# ===== 2. single hidden changes ===============================================================
def swap_hand_deck(game: Citadels, seat: int, rng: np.random.Generator) -> Citadels | None:
    """A copy where one card of `seat`'s hand and one deck card of another kind trade places."""
    s = game.state
    hand = np.flatnonzero(s.hands[seat]).tolist()
    for _ in range(20):
        if not hand or not s.deck:
            return None
        kind = hand[int(rng.integers(len(hand)))]
        pos = int(rng.integers(len(s.deck)))
        if s.deck[pos] != kind:
            break
    else:
        return None
    other = game.clone()
    t = other.state
    t.hands[seat, kind] -= 1
    t.hands[seat, t.deck[pos]] += 1
    t.deck[pos] = kind
    other._mask = None
    return other


@pytest.mark.parametrize("n", COUNTS)
def test_opponent_hand_card_is_hidden(n):
    rng = np.random.default_rng(n)
    tested = 0
    for game in states_for(n):
        q = int(rng.integers(n))
        other = swap_hand_deck(game, q, rng)
        if other is None:
            continue
        check_state(other)
        tested += 1
        assert not same_for(game, other, q), "a change in q's own hand must show in q's observation"
        for p in range(n):
            if p != q:
                assert_same_info(game, other, p)
        assert_same_determinization(game, other, (q + 1 + int(rng.integers(n - 1))) % n)
    assert tested >= 10


@pytest.mark.parametrize("n", COUNTS)
def test_card_between_two_opponents_is_hidden(n):
    if n == 2:
        pytest.skip("needs two opponents")
    tested = 0
    rng = np.random.default_rng(n)
    for game in states_for(n)[:20]:
        s = game.state
        for q1 in rng.permutation(n)[:2].tolist():
            q2 = (q1 + 1) % n
            a = np.flatnonzero(s.hands[q1] > s.hands[q2]).tolist()
            b = np.flatnonzero(s.hands[q2] > s.hands[q1]).tolist()
            if not a or not b:
                continue
            other = game.clone()
            t = other.state
            t.hands[q1, a[0]] -= 1
            t.hands[q2, a[0]] += 1
            t.hands[q2, b[0]] -= 1
            t.hands[q1, b[0]] += 1
            other._mask = None
            check_state(other)
            tested += 1
            assert not same_for(game, other, q1) and not same_for(game, other, q2)
            for p in range(n):
                if p not in (q1, q2):
                    assert_same_info(game, other, p)
            assert_same_determinization(game, other, (q2 + 1) % n)
    assert tested >= 5


@pytest.mark.parametrize("n", COUNTS)
def test_deck_order_is_hidden(n):
    rng = np.random.default_rng(n)
    for game in states_for(n)[:10]:
        other = game.clone()
        other.state.deck = [other.state.deck[i] for i in rng.permutation(len(other.state.deck))]
        other._mask = None
        for p in range(n):
            assert_same_info(game, other, p)
            assert_same_determinization(game, other, p)


@pytest.mark.parametrize("n", COUNTS)
@pytest.mark.parametrize("decision", ["KEEP_DRAWN", "MAGICIAN_DISCARD"])
def test_pending_cards_of_the_acting_seat_are_hidden(n, decision):
    """Cards another seat is drawing (KEEP_DRAWN) or discarding (Magician) are its secret."""
    tested = 0
    for game in harvest_kind(n, decision, 6, seed0=700):
        s = game.state
        pending = s.drawn if decision == "KEEP_DRAWN" else s.marked
        positions = [i for i, kind in enumerate(s.deck) if kind != pending[0]]
        if not positions:
            continue
        other = game.clone()
        t = other.state
        pending_t = t.drawn if decision == "KEEP_DRAWN" else t.marked
        pos = positions[0]
        pending_t[0], t.deck[pos] = t.deck[pos], pending_t[0]
        other._mask = None
        check_state(other)
        tested += 1
        actor = game.current_player()
        assert not same_for(game, other, actor)
        for p in range(n):
            if p != actor:
                assert_same_info(game, other, p)
                assert_same_determinization(game, other, p)
    assert tested >= 3


def own_hand_change_is_visible(game: Citadels, p: int, rng) -> bool:
    other = swap_hand_deck(game, p, rng)
    return other is None or not same_for(game, other, p)


@pytest.mark.parametrize("n", COUNTS)
def test_visible_changes_show(n):
    """Controls: p's own hand, and any seat's gold, change p's observation."""
    rng = np.random.default_rng(n)
    for game in states_for(n)[:10]:
        for p in range(n):
            assert own_hand_change_is_visible(game, p, rng)
            other = game.clone()
            other.state.gold[(p + 1) % n] += 1
            assert not np.array_equal(game.observation(p), other.observation(p))


# ----- characters -----------------------------------------------------------------------------
def selection_sequence(n: int, seed: int) -> list[int]:
    """Random actions of the first round's selection phase."""
    game = Citadels(n, seed=seed)
    rng = np.random.default_rng(seed)
    actions = []
    while game.decision_name() in SELECTION:
        actions.append(random_action(game, rng))
        game.apply(actions[-1])
    return actions


def play(n: int, seed: int, actions: list[int]) -> Citadels | None:
    game = Citadels(n, seed=seed)
    try:
        for action in actions:
            game.apply(action)
    except IllegalActionError:
        return None
    return game


@pytest.mark.parametrize("n", COUNTS)
def test_who_took_which_character_is_hidden(n):
    """Two hidden choices (steps i < j of the selection) swapped: the seats that did not act at
    steps i..j see the same thing; the seat of step i holds another card and sees it."""
    tested = 0
    for seed in range(4):
        actions = selection_sequence(n, seed)
        base = Citadels(n, seed=seed)
        seats = []
        for action in actions:
            seats.append(base.current_player())
            base.apply(action)
        for i in range(len(actions)):
            for j in range(i + 1, len(actions)):
                rank_i, rank_j = actions[i] % 8, actions[j] % 8
                swapped = list(actions)
                swapped[i] = actions[i] - rank_i + rank_j
                swapped[j] = actions[j] - rank_j + rank_i
                game_a, game_b = play(n, seed, actions[: j + 1]), play(n, seed, swapped[: j + 1])
                if game_b is None:
                    continue
                revealed = game_a.state.revealed
                if revealed[rank_i + 1] >= 0 or revealed[rank_j + 1] >= 0:
                    continue  # the turn phase began with one of the two cards: public now
                check_state(game_b)
                assert not same_for(game_a, game_b, seats[i])
                observers = set(range(n)) - set(seats[i : j + 1])
                for p in observers:
                    assert_same_info(game_a, game_b, p)
                    assert_same_determinization(game_a, game_b, p)
                    tested += 1
    assert tested >= 3


def set_facedown(game: Citadels, rank: int) -> None:
    """Before the first pick of a round: make `rank` the face-down card instead (a chance
    outcome that the first picker would see in its offered set)."""
    s = game.state
    assert s.step == 0 and s.decision == rules.Decision.SELECT_CHARACTER and s.pile & rules.bit(rank)
    old = s.facedown
    s.facedown = rank
    s.pile = (s.pile | rules.bit(old)) & ~rules.bit(rank)
    s.sel_log[0] = (rules.EV_FACEDOWN, -1, rank)
    s.offered[s.actor][-1] = s.pile
    game._mask = None


@pytest.mark.parametrize("n", COUNTS)
def test_face_down_character_is_hidden(n):
    """Round start: the first picker c takes y with x face down, or takes x with y face down.
    After c's pick the pile is the same, so every other seat sees the same thing (until the
    7-player last pick, which receives the face-down card)."""
    tested = 0
    for seed in range(6):
        game_a = Citadels(n, seed=seed)
        crown, x = game_a.current_player(), game_a.state.facedown
        y = rules.ranks_of(game_a.state.pile)[seed % 3]
        game_b = game_a.clone()
        set_facedown(game_b, y)
        check_state(game_b)
        game_a.apply(y - 1)
        game_b.apply(x - 1)
        rng = np.random.default_rng(seed)
        while game_a.decision_name() in SELECTION and not (n == 7 and game_a.state.step >= 6):
            check_state(game_b)
            assert not same_for(game_a, game_b, crown)
            for p in range(n):
                if p != crown:
                    assert_same_info(game_a, game_b, p)
                    assert_same_determinization(game_a, game_b, p)
                    tested += 1
            action = random_action(game_a, rng)
            game_a.apply(action)
            game_b.apply(action)
    assert tested >= 6


# ===== 3. the view's public memo =================================================================
@pytest.mark.parametrize("n", COUNTS)
def test_view_cities_and_scores_match_a_recount_at_every_step(n):
    """The view memoizes each seat's city and score per public position: along whole random games
    (the memo warm with every earlier position) they stay those of an independent recount, for every seat."""
    rng = np.random.default_rng(n)
    for seed in range(2):
        game = Citadels(n, seed=300 + seed)
        while not game.is_over():
            expected_cities = [np.flatnonzero(game.state.cities[i]).tolist() for i in range(n)]
            expected_scores = [spec_score(game, i) for i in range(n)]
            for p in range(n):
                v = game.view(p)
                assert [seat["city"] for seat in v["seats"]] == expected_cities
                assert v["scores"] == expected_scores
            game.apply(random_action(game, rng))


def test_memoized_scores_follow_gold_and_hand_of_treasury_and_map_room_owners():
    """Same cities, different gold or hand size: the Imperial Treasury's and Map Room's points move."""
    game = Citadels(3, seed=1)
    s = game.state
    s.cities[0, TREASURY] = s.cities[1, MAP_ROOM] = 1
    s.city_size[0] += 1
    s.city_size[1] += 1
    before = game.view(2)["scores"]
    s.gold[0] += 3
    assert game.view(2)["scores"] == [before[0] + 3, before[1], before[2]]
    s.hands[1, 0] += 2
    assert game.view(2)["scores"] == [before[0] + 3, before[1] + 2, before[2]]
    assert game.view(2)["scores"] == [spec_score(game, i) for i in range(3)]


@pytest.mark.parametrize("n", [2, 4, 7])
def test_view_is_unchanged_by_what_the_public_memo_holds(n):
    """A seat's view read with the memo warm from another match (a determinized twin, a fresh game)
    is the view read with it empty: the memo holds only public data and answers only from it."""
    rng = np.random.default_rng(n)
    for game in states_for(n)[:6]:
        for p in range(n):
            twin = game.determinize(p, rng)
            warm = [game.view(p), twin.view(p)]
            view_module._KINDS_MEMO.entries.clear()
            view_module._SCORES_MEMO.entries.clear()
            assert warm == [game.view(p), game.view(p)]
