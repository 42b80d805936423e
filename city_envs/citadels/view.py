"""What one seat of Citadels may know, its tensor encoding, and determinization.

Observation for seat p: float32 values laid out by `LAYOUT` (docs/games/citadels.md shows the table),
with the features inside the seats and ranks blocks grouped so that scalars sit together (one write,
not many). Seat rows are in relative order o = 0..6 (o = 0 is p), zero-padded for absent seats.
The self block's drawn/marked counts, turn flags and builds left are filled only while p owns the turn.
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet

import numpy as np

from city_envs.citadels import components as cp
from city_envs.citadels import rules as r
from city_envs.citadels.rules import State, bit, ranks_of
from city_envs.core.layout import Field, ObservationLayout, table, vector
from city_envs.core.memo import BoundedMemo

_CARDS = tuple(district.name for district in cp.DISTRICTS)
_CHARACTERS = tuple(character.name for character in cp.CHARACTERS.values())
_OFFSETS = ("me", *(f"next_{o}" for o in range(1, 7)))  # seats in clockwise order from the observer
LAYOUT = ObservationLayout(
    vector(
        "context",
        "",
        Field("decision", 7, 'pending decision one-hot: 6 kinds + "not mine / over"'),
        Field("player_count", 6, "n one-hot 2..7", tuple(str(n) for n in range(2, 8))),
        Field("long_completion", doc="C = 8"),
        Field("round", doc="round/20"),
        Field("game_ending", doc="game ending"),
        Field("deck", doc=f"deck/{cp.DECK_SIZE}"),
        Field("called", cp.NUM_CHARACTERS, "rank being called one-hot", _CHARACTERS),
    ),
    vector(
        "self",
        "",
        Field("gold", doc="gold/10"),
        Field("hand", cp.NUM_KINDS, "hand counts/5", _CARDS),
        Field("drawn", cp.NUM_KINDS, "cards drawn, awaiting the keep choice", _CARDS),
        Field("marked", cp.NUM_KINDS, "Magician-marked cards", _CARDS),
        Field("my_characters", cp.NUM_CHARACTERS, "my characters", _CHARACTERS),
        Field("gathered", doc="turn flags: gathered"),
        Field("ability_used", doc="ability used"),
        Field("income_done", doc="income done"),
        Field("destroy_used", doc="destroy used"),
        Field("smithy_used", doc="Smithy used"),
        Field("lab_used", doc="Laboratory used"),
        Field("builds_left", 4, "builds left one-hot 0-3"),
    ),
    table(
        "seats",
        7,
        "per relative seat",
        Field("present"),
        Field("gold", doc="gold/10"),
        Field("hand_size", doc="hand size/10"),
        Field("city_size", doc="city size/8"),
        Field("complete"),
        Field("played", doc="has played this round"),
        Field("first_completer", doc="first completer"),
        Field("crown"),
        Field("bishop_protected", doc="Bishop-protected"),
        Field("city", cp.NUM_KINDS, "city 0/1", _CARDS),
        Field("revealed", cp.NUM_CHARACTERS, "ranks revealed this round", _CHARACTERS),
    ),
    table(
        "ranks",
        cp.NUM_CHARACTERS,
        "per character",
        Field("face_up", doc="face-up discarded"),
        Field("first_offer", doc="offered at my 1st pick"),
        Field("second_offer", doc="at my 2nd pick"),
        Field("known_face_down", doc="known face down by me"),
        Field("mine", doc="held by me"),
        Field("revealed"),
        Field("revealer", 7, "revealer offset one-hot", _OFFSETS),
        Field("killed", doc="named by the Assassin"),
        Field("robbed", doc="named by the Thief"),
        Field("called", doc="already called"),
    ),
    vector(
        "graveyard", "", Field("card", cp.NUM_KINDS, "the destroyed card awaiting the Graveyard owner, one-hot", _CARDS)
    ),
)
CONTEXT, SELF, SEATS, RANKS, GRAVEYARD = LAYOUT.blocks
# where the encoder writes, bound once
_DECISION, _PLAYER_COUNT, _CALLED = CONTEXT.index("decision"), CONTEXT.index("player_count"), CONTEXT.index("called")
_NOT_MINE = CONTEXT.span("decision").stop - 1  # the decision's last value: none of mine, or over
_CONTEXT_SCALARS = CONTEXT.span("long_completion", "deck")
_GOLD, _HAND, _MY_CHARACTERS = SELF.index("gold"), SELF.span("hand"), SELF.span("my_characters")
_DRAWN, _MARKED, _BUILDS_LEFT = SELF.index("drawn"), SELF.index("marked"), SELF.index("builds_left")
_TURN_FLAGS = SELF.span("gathered", "lab_used")
_SEAT_SCALARS, _SEAT_CITY = SEATS.columns("present", "played"), SEATS.columns("city")
_FIRST_COMPLETER, _CROWN, _PROTECTED, _SEAT_REVEALED = (
    SEATS.column(f) for f in ("first_completer", "crown", "bishop_protected", "revealed")
)
_RANK_MASKS = RANKS.columns("face_up", "mine")
_REVEALED, _REVEALER, _KILLED, _ROBBED, _RANK_CALLED = (
    RANKS.column(f) for f in ("revealed", "revealer", "killed", "robbed", "called")
)
_ALL_RANKS = (1 << cp.NUM_CHARACTERS) - 1
_SELECTION = (r.Decision.SELECT_CHARACTER, r.Decision.SELECT_DISCARD)
# BITS[mask] = the 8 ranks of a character mask as 0/1 floats
BITS = ((np.arange(256)[:, None] >> np.arange(cp.NUM_CHARACTERS)) & 1).astype(np.float32)


# ===== tensor ==================================================================================
def observation(s: State, p: int) -> np.ndarray:
    obs = np.zeros(LAYOUT.size, dtype=np.float32)
    n = s.n
    obs[_DECISION + s.decision if s.decision >= 0 and s.actor == p else _NOT_MINE] = 1.0
    obs[_PLAYER_COUNT + n - 2] = 1.0
    obs[_CONTEXT_SCALARS] = (
        s.completion == cp.LONG_COMPLETION_SIZE,
        s.round / 20.0,
        s.game_ending,
        len(s.deck) / cp.DECK_SIZE,
    )
    if s.called:
        obs[_CALLED + s.called - 1] = 1.0
    hands = s.hands
    obs[_GOLD] = s.gold[p] / 10.0
    obs[_HAND] = hands[p]
    obs[_HAND] *= 0.2
    holder = s.holder
    mine = 0
    for rank in cp.RANKS:
        if holder[rank] == p:
            mine |= 1 << (rank - 1)
    obs[_MY_CHARACTERS] = BITS[mine]
    if s.turn_seat == p:
        for kind in s.drawn:
            obs[_DRAWN + kind] += 1.0
        for kind in s.marked:
            obs[_MARKED + kind] += 1.0
        obs[_TURN_FLAGS] = (s.gathered, s.ability_used, s.income_done, s.destroy_used, s.smithy_used, s.lab_used)
        obs[_BUILDS_LEFT + s.build_limit - s.builds_done] = 1.0
    # every seat's public state, relative order
    order = [(p + o) % n for o in range(n)]
    gold, size, played, done = s.gold, s.city_size, s.played, s.completion
    hand_sizes = hands.sum(axis=1).tolist()
    seats = SEATS.view(obs)
    seats[:n, _SEAT_SCALARS] = [
        (1.0, gold[i] / 10.0, hand_sizes[i] / 10.0, size[i] / 8.0, size[i] >= done, played[i]) for i in order
    ]
    seats[:n, _SEAT_CITY] = s.cities[order]
    if s.first_completer >= 0:
        seats[(s.first_completer - p) % n, _FIRST_COMPLETER] = 1.0
    seats[(s.crown - p) % n, _CROWN] = 1.0
    # per character; revealed ranks also fill the seats' revealed columns and Bishop protection
    ranks = RANKS.view(obs)
    offered = s.offered[p]
    first = offered[0] if offered else 0
    second = offered[1] if len(offered) > 1 else 0
    ranks[:, _RANK_MASKS] = BITS[[s.face_up, first, second, s.known_facedown[p], mine]].T
    revealed = s.revealed
    for rank in cp.RANKS:
        seat = revealed[rank]
        if seat >= 0:
            offset = (seat - p) % n
            ranks[rank - 1, _REVEALED] = 1.0
            ranks[rank - 1, _REVEALER + offset] = 1.0
            seats[offset, _SEAT_REVEALED + rank - 1] = 1.0
            if rank == cp.BISHOP:
                seats[offset, _PROTECTED] = 1.0
    if s.killed:
        ranks[s.killed - 1, _KILLED] = 1.0
    if s.robbed:
        ranks[s.robbed - 1, _ROBBED] = 1.0
    ranks[: s.called, _RANK_CALLED] = 1.0
    if s.graveyard_card >= 0:
        obs[GRAVEYARD.start + s.graveyard_card] = 1.0
    return obs


# ===== structured view =========================================================================
# Each seat's city kinds and score, per public position: every seat's view of one position (and of
# the positions until a build, a coin or a card changes hands) asks for the same ones. Keys and
# values are public (cities, gold, hand sizes), so one memo serves every seat.
_KINDS_MEMO = BoundedMemo(256)
_SCORES_MEMO = BoundedMemo(256)


def _public_seats(s: State, hand_sizes: list[int]) -> tuple[tuple[tuple[int, ...], ...], tuple[int, ...]]:
    cities = s.cities.tobytes()
    known = _KINDS_MEMO.get(cities)
    if known is None:
        kinds = tuple(tuple(r.city_kinds(s.cities[i])) for i in range(s.n))
        # the seats whose score counts their gold or their hand (Imperial Treasury, Map Room: 5.9)
        treasury = tuple(i for i in range(s.n) if cp.IMPERIAL_TREASURY in kinds[i])
        map_room = tuple(i for i in range(s.n) if cp.MAP_ROOM in kinds[i])
        known = kinds, treasury, map_room
        _KINDS_MEMO.put(cities, known)
    kinds, treasury, map_room = known
    key = (
        cities,
        tuple(s.gold[i] for i in treasury),
        tuple(hand_sizes[i] for i in map_room),
        tuple(s.city_size),
        s.first_completer,
        s.completion,
    )
    scores = _SCORES_MEMO.get(key)
    if scores is None:
        scores = tuple(r.score(s, i, kinds[i]) for i in range(s.n))
        _SCORES_MEMO.put(key, scores)
    return kinds, scores


def view(s: State, p: int) -> dict:
    """Plain data of what seat p knows; the observation encodes exactly this."""
    n = s.n
    my_turn = s.turn_seat == p
    hand_sizes = s.hands.sum(axis=1).tolist()
    kinds, scores = _public_seats(s, hand_sizes)
    revealed_by: list[list[int]] = [[] for _ in range(n)]
    for rank in cp.RANKS:
        if s.revealed[rank] >= 0:
            revealed_by[s.revealed[rank]].append(rank)
    return {
        "game": "citadels",
        "player": p,
        "num_players": n,
        "completion_size": s.completion,
        "round": s.round,
        "max_rounds": s.max_rounds,
        "deck_size": len(s.deck),
        "decision": r.Decision.name_of(s.decision),
        "current_player": s.actor,
        "turn_player": s.turn_seat,
        "game_ending": s.game_ending,
        "crown": s.crown,
        "called_rank": s.called,
        "face_up_discards": ranks_of(s.face_up),
        "killed_rank": s.killed,
        "robbed_rank": s.robbed,
        "revealed": {rank: s.revealed[rank] for rank in cp.RANKS if s.revealed[rank] >= 0},
        "first_completer": s.first_completer,
        "seats": [
            {
                "gold": s.gold[i],
                "hand_size": hand_sizes[i],
                "city": list(kinds[i]),
                "complete": s.city_size[i] >= s.completion,
                "played": s.played[i],
                "revealed": revealed_by[i],
            }
            for i in range(n)
        ],
        "hand": s.hands[p].tolist(),
        "my_characters": [rank for rank in cp.RANKS if s.holder[rank] == p],
        "offered": [ranks_of(m) for m in s.offered[p]],
        "pile": ranks_of(s.pile) if s.actor == p and s.decision in _SELECTION else [],
        "known_facedown": ranks_of(s.known_facedown[p]),
        "drawn": list(s.drawn) if my_turn else [],
        "drawn_count": len(s.drawn),
        "marked": list(s.marked) if my_turn else [],
        "marked_count": len(s.marked),
        "turn": {
            "gathered": s.gathered,
            "ability_used": s.ability_used,
            "income_done": s.income_done,
            "destroy_used": s.destroy_used,
            "smithy_used": s.smithy_used,
            "lab_used": s.lab_used,
            "builds_left": s.build_limit - s.builds_done,
        }
        if my_turn
        else None,
        "graveyard_card": s.graveyard_card,
        "events": [e for e in s.events],
        "scores": list(scores),
    }


# ===== determinization =========================================================================
def determinize(s: State, p: int, rng: np.random.Generator) -> State:
    """A copy of `s` with everything p cannot see resampled consistently with p's view.

    Resampled: other seats' hands, the deck order, cards another seat is drawing or discarding
    this turn, and which unrevealed characters other seats hold (subject to p's offered sets,
    its own picks and discards, the face-up cards, every reveal and every called rank).
    As the rules allow, cards p itself put under the deck are treated as shuffled.
    """
    t = copy_state(s)
    _resample_cards(t, p, rng)
    _resample_characters(t, p, rng)
    return t


def _resample_cards(t: State, p: int, rng: np.random.Generator) -> None:
    hidden_pending = t.turn_seat != p
    unseen = cp.COPIES.astype(np.int64) - t.cities.sum(axis=0) - t.hands[p]
    if t.graveyard_card >= 0:
        unseen[t.graveyard_card] -= 1
    if not hidden_pending:
        for kind in t.drawn + t.marked:
            unseen[kind] -= 1
    pool = np.repeat(np.arange(cp.NUM_KINDS), unseen)[rng.permutation(int(unseen.sum()))].tolist()
    for seat in range(t.n):
        if seat == p:
            continue
        size = int(t.hands[seat].sum())
        t.hands[seat] = np.bincount(pool[:size], minlength=cp.NUM_KINDS)
        del pool[:size]
    if hidden_pending:
        t.drawn, pool = pool[: len(t.drawn)], pool[len(t.drawn) :]
        t.marked, pool = pool[: len(t.marked)], pool[len(t.marked) :]
    assert len(pool) == len(t.deck)
    t.deck = pool


def _allowed(t: State, event: int, seat: int, rank: int) -> bool:
    """May `rank` have gone to this selection event, given the public reveals and calls?"""
    revealer = t.revealed[rank]
    if event == r.EV_PICK:
        if revealer >= 0:
            return revealer == seat
        return rank > t.called or rank == t.killed  # a called, living, unrevealed rank was not held
    return revealer < 0


def _resample_characters(t: State, p: int, rng: np.random.Generator, tries: int = 200) -> None:
    everyone = _ALL_RANKS & ~t.face_up
    seven = t.n == 7
    for _ in range(tries):
        sample = _sample_selection(t, p, rng, everyone, seven)
        if sample is not None and _replay_selection(t, p, sample):
            return
    raise RuntimeError("could not determinize the character selection")  # pragma: no cover


def _sample_selection(t: State, p: int, rng: np.random.Generator, everyone: int, seven: bool):
    """New ranks for the selection log, segment by segment between p's own observations.

    Between two of p's picks, the other seats' events took exactly the ranks p saw leave the
    pile; with 7 players the face-down card is the one exception (it rejoins the pile for the
    last pick), so it is carried from segment to segment as a rank not yet placed.
    """
    log = t.sel_log
    ranks = [rank for _, _, rank in log]
    offered = t.offered[p]
    known = everyone  # the pile as p last saw it, plus ranks not yet placed
    pending: list[int] = []  # events p did not see since its last observation
    picks = 0
    set_aside = 0  # 7 players: the face-down card, once p has seen the pile without it
    last_two = {i for i, (event, _, _) in enumerate(log) if event == r.EV_LEFTOVER}
    if seven:
        pick_events = [i for i, (event, _, _) in enumerate(log) if event == r.EV_PICK]
        last_two.update(pick_events[6:7])
    for i, (event, seat, rank) in enumerate(log):
        if seven and event == r.EV_FACEDOWN:
            continue
        if seat == p:
            if event == r.EV_PICK:
                carry = _fill(t, rng, log, ranks, pending, known & ~offered[picks], set_aside, last_two)
                if carry is None:
                    return None
                if seven and carry:
                    set_aside = carry
                known = offered[picks] | carry
                picks += 1
                pending = []
            known &= ~bit(rank)
        else:
            pending.append(i)
    sees_pile = picks < len(offered)  # p is choosing from a pile it sees right now
    pool = known & ~offered[picks] if sees_pile else known
    hidden = _fill(t, rng, log, ranks, pending, pool, set_aside, last_two)
    if hidden is None:
        return None
    if seven and set_aside:
        ranks[0] = ranks_of(set_aside)[0]
    elif seven:
        in_selection = t.decision in (r.Decision.SELECT_CHARACTER, r.Decision.SELECT_DISCARD)
        if not in_selection:  # it was one of the two cards the 7th picker chose between
            candidates = [ranks[i] for i in range(len(log) - 2, len(log))]
        elif t.step == 6 and sees_pile:
            candidates = ranks_of(offered[picks])
        else:
            candidates = ranks_of(hidden)
        ranks[0] = candidates[int(rng.integers(len(candidates)))]
    return ranks


def _fill(
    t: State,
    rng: np.random.Generator,
    log,
    ranks: list[int],
    pending: list[int],
    pool_mask: int,
    set_aside: int = 0,
    last_two: AbstractSet[int] = frozenset(),
):
    """Assign distinct ranks of `pool_mask` to the `pending` events, most constrained first.

    A `set_aside` rank (7 players) can only be the last picker's card or the leftover. Returns
    the mask of ranks left over, or None when the random greedy choice hit a dead end.
    """
    pool = ranks_of(pool_mask)
    if len(pool) < len(pending):
        return None
    options = {
        i: [x for x in pool if _allowed(t, log[i][0], log[i][1], x) and (i in last_two or not set_aside & bit(x))]
        for i in pending
    }
    left = pool_mask
    for i in sorted(pending, key=lambda j: len(options[j])):
        choices = [x for x in options[i] if left & bit(x)]
        if not choices:
            return None
        pick = choices[int(rng.integers(len(choices)))]
        ranks[i] = pick
        left &= ~bit(pick)
    return left


def _replay_selection(t: State, p: int, ranks: list[int]) -> bool:
    """Rebuild holders, offered sets, known discards and the pile from sampled ranks; check p's."""
    n = t.n
    holder = [-1] * 9
    offered: list[list[int]] = [[] for _ in range(n)]
    known_down = [0] * n
    log = [(event, seat, rank) for (event, seat, _), rank in zip(t.sel_log, ranks, strict=True)]
    facedown = log[0][2]
    pile = _ALL_RANKS & ~t.face_up & ~bit(facedown)
    step = 0
    for event, seat, rank in log[1:]:
        if event in (r.EV_PICK, r.EV_DISCARD):
            if n == 7 and step == 6:
                pile |= bit(facedown)
            if event == r.EV_PICK:
                offered[seat].append(pile)
                holder[rank] = seat
            else:
                known_down[seat] |= bit(rank)
            step += 1
        else:
            known_down[seat] |= bit(rank)
        if not pile & bit(rank):
            return False
        pile &= ~bit(rank)
    in_selection = t.decision in (r.Decision.SELECT_CHARACTER, r.Decision.SELECT_DISCARD)
    if in_selection:
        if n == 7 and step == 6:
            pile |= bit(facedown)
        if t.decision == r.Decision.SELECT_CHARACTER:
            offered[t.actor].append(pile)
    if offered[p] != t.offered[p] or known_down[p] != t.known_facedown[p]:
        return False
    if in_selection and t.actor == p and pile != t.pile:
        return False
    t.sel_log, t.holder, t.offered, t.known_facedown, t.facedown = log, holder, offered, known_down, facedown
    t.pile = pile if in_selection else 0
    return True


SHARED_BY_COPIES = frozenset({"steps"})  # the round's pick order: replaced when a round starts, never written


def copy_state(s: State) -> State:
    """Structured copy: new containers for everything mutable, shared immutable tuples."""
    t = State.__new__(State)
    t.__dict__.update(s.__dict__)
    t.deck = list(s.deck)
    t.hands = s.hands.copy()
    t.cities = s.cities.copy()
    t.city_size = list(s.city_size)
    t.gold = list(s.gold)
    t.steps = s.steps  # never mutated in place
    t.holder = list(s.holder)
    t.offered = [list(o) for o in s.offered]
    t.sel_log = list(s.sel_log)
    t.known_facedown = list(s.known_facedown)
    t.revealed = list(s.revealed)
    t.played = list(s.played)
    t.drawn = list(s.drawn)
    t.marked = list(s.marked)
    t.events = list(s.events)
    return t
