"""Citadels rules: the state, the legal actions and the transitions (docs/games/citadels.md).

Flat action space, 376 ids (the action table in docs/games/citadels.md). Seats inside actions are relative offsets
o = (target - actor) mod n.

| ids     | action            | decoding                            | decision kind     |
|---------|-------------------|-------------------------------------|-------------------|
| 0-7     | PICK_CHARACTER    | rank = id + 1                       | SELECT_CHARACTER  |
| 8-15    | DISCARD_CHARACTER | rank = id - 7                       | SELECT_DISCARD    |
| 16      | GATHER_GOLD       |                                     | MAIN              |
| 17      | GATHER_CARDS      |                                     | MAIN              |
| 18-47   | KEEP_DRAWN        | kind = id - 18                      | KEEP_DRAWN        |
| 48-55   | ASSASSINATE       | rank = id - 47 (48 never legal)     | MAIN              |
| 56-63   | ROB               | rank = id - 55 (56, 57 never legal) | MAIN              |
| 64-69   | MAGICIAN_SWAP     | o = id - 63                         | MAIN              |
| 70-99   | MAGICIAN_MARK     | kind = id - 70                      | MAIN, MAGICIAN_DISCARD |
| 100     | MAGICIAN_DONE     |                                     | MAGICIAN_DISCARD  |
| 101     | COLLECT_INCOME    |                                     | MAIN              |
| 102-311 | DESTROY           | o = (id-102)//30, kind = (id-102)%30| MAIN              |
| 312-341 | BUILD             | kind = id - 312                     | MAIN              |
| 342     | USE_SMITHY        |                                     | MAIN              |
| 343-372 | LAB_DISCARD       | kind = id - 343                     | MAIN              |
| 373     | END_TURN          |                                     | MAIN              |
| 374     | GRAVEYARD_RECOVER |                                     | GRAVEYARD         |
| 375     | GRAVEYARD_DECLINE |                                     | GRAVEYARD         |

Character sets (the pile being passed, offered sets) are 8-bit masks: bit r-1 is rank r.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from city_envs.citadels import components as cp
from city_envs.core.decisions import DecisionTable
from city_envs.core.game import Chance, leaders

# ----- action ids ------------------------------------------------------------------------------
PICK_CHARACTER = 0
DISCARD_CHARACTER = 8
GATHER_GOLD = 16
GATHER_CARDS = 17
KEEP_DRAWN = 18
ASSASSINATE = 48
ROB = 56
MAGICIAN_SWAP = 64
MAGICIAN_MARK = 70
MAGICIAN_DONE = 100
COLLECT_INCOME = 101
DESTROY = 102
BUILD = 312
USE_SMITHY = 342
LAB_DISCARD = 343
END_TURN = 373
GRAVEYARD_RECOVER = 374
GRAVEYARD_DECLINE = 375
NUM_ACTIONS = 376


# ----- decision kinds (the observation one-hots these) ----------------------------------------
class Decision(DecisionTable):
    """The kinds of pending decision. The ids are what observations one-hot and recorded matches
    store, so they never change; the names are what logs, the web page and the docs show."""

    SELECT_CHARACTER = 0
    SELECT_DISCARD = 1
    MAIN = 2
    KEEP_DRAWN = 3
    MAGICIAN_DISCARD = 4
    GRAVEYARD = 5


GAME_OVER = -1

# ----- selection log events (where a character card went this round) ---------------------------
EV_FACEDOWN, EV_PICK, EV_DISCARD, EV_LEFTOVER = range(4)


def bit(rank: int) -> int:
    return 1 << (rank - 1)


def ranks_of(mask: int) -> list[int]:
    return list(_RANKS_OF[mask & _ALL_RANKS])


_ALL_RANKS = (1 << len(cp.RANKS)) - 1  # the bits ranks_of reads
_RANKS_OF = tuple(tuple(r for r in cp.RANKS if mask & (1 << (r - 1))) for mask in range(_ALL_RANKS + 1))


@dataclass
class State:
    """Everything that changes during a match. Plain data; `to_dict` mirrors these fields.

    Seats are 0..n-1, seat i+1 is seat i's left. Ranks are 1..8; 0 means "none".
    """

    n: int
    completion: int  # districts that complete a city (C)
    max_rounds: int
    deck: list[int]  # district kinds, index 0 = top
    hands: np.ndarray  # (n, 30) int16 card counts
    cities: np.ndarray  # (n, 30) int8, 0/1 (a city never holds two of a kind)
    city_size: list[int]
    gold: list[int]
    crown: int
    round: int = 1
    first_completer: int = -1
    game_ending: bool = False
    truncated: bool = False
    decision: int = Decision.SELECT_CHARACTER  # pending decision kind, GAME_OVER at the end
    actor: int = 0  # seat owning the pending decision (-1 at the end)
    # selection phase
    face_up: int = 0  # mask of face-up discarded characters
    facedown: int = 0  # rank of the initial face-down card
    pile: int = 0  # mask of characters being passed round (offered to the actor)
    steps: list[tuple[int, int]] = field(default_factory=list)  # (seat, decision) pick order
    step: int = 0
    holder: list[int] = field(default_factory=list)  # holder[rank] = seat or -1
    offered: list[list[int]] = field(default_factory=list)  # per seat: pile masks at its picks
    sel_log: list[tuple[int, int, int]] = field(default_factory=list)  # (event, seat, rank)
    known_facedown: list[int] = field(default_factory=list)  # per seat: masks it saw go face down
    # turn phase
    called: int = 0  # rank being called (0 during selection)
    killed: int = 0
    robbed: int = 0
    revealed: list[int] = field(default_factory=list)  # revealed[rank] = seat that played it, or -1
    played: list[bool] = field(default_factory=list)
    turn_seat: int = -1  # seat whose character turn it is (the actor, except in GRAVEYARD)
    gathered: bool = False
    ability_used: bool = False
    income_done: bool = False
    destroy_used: bool = False
    smithy_used: bool = False
    lab_used: bool = False
    builds_done: int = 0
    build_limit: int = 1
    drawn: list[int] = field(default_factory=list)  # cards drawn, awaiting KEEP_DRAWN
    marked: list[int] = field(default_factory=list)  # Magician's cards marked for discard
    graveyard_card: int = -1  # destroyed district awaiting the Graveyard owner's decision
    events: list[tuple] = field(default_factory=list)  # public log of this round


def new_state(n: int, rng: Chance, classic_variant: bool, max_rounds: int) -> State:
    """§3: shuffle, deal four cards round the table, two gold each, crown to seat 0."""
    deck = np.repeat(np.arange(cp.NUM_KINDS), cp.COPIES)[rng.permutation(cp.DECK_SIZE)].tolist()
    hands = np.zeros((n, cp.NUM_KINDS), dtype=np.int16)
    for j in range(cp.STARTING_HAND * n):
        hands[j % n, deck[j]] += 1
    del deck[: cp.STARTING_HAND * n]
    long_game = n < 4 or classic_variant
    s = State(
        n=n,
        completion=cp.LONG_COMPLETION_SIZE if long_game else cp.COMPLETION_SIZE,
        max_rounds=max_rounds,
        deck=deck,
        hands=hands,
        cities=np.zeros((n, cp.NUM_KINDS), dtype=np.int8),
        city_size=[0] * n,
        gold=[cp.STARTING_GOLD] * n,
        crown=0,
    )
    start_round(s, rng)
    return s


# ===== selection phase (4.2) ===========================================================
def selection_steps(n: int, crown: int) -> list[tuple[int, int]]:
    """The fixed pick order of a round: (seat, SELECT_CHARACTER | SELECT_DISCARD)."""
    seat = [(crown + i) % n for i in range(n)]
    if n == 2:
        c, d = seat
        return [
            (c, Decision.SELECT_CHARACTER),
            (d, Decision.SELECT_CHARACTER),
            (d, Decision.SELECT_DISCARD),
            (c, Decision.SELECT_CHARACTER),
            (c, Decision.SELECT_DISCARD),
            (d, Decision.SELECT_CHARACTER),
        ]
    if n == 3:
        return [(s, Decision.SELECT_CHARACTER) for s in seat + seat]
    return [(s, Decision.SELECT_CHARACTER) for s in seat]


def start_round(s: State, rng: Chance) -> None:
    n = s.n
    s.holder = [-1] * 9
    s.revealed = [-1] * 9
    s.played = [False] * n
    s.offered = [[] for _ in range(n)]
    s.known_facedown = [0] * n
    s.sel_log = []
    s.events = []
    s.called = s.killed = s.robbed = 0
    s.turn_seat = -1
    # Face-up discards are a uniform subset of the seven non-King characters; the face-down card
    # is uniform among the rest (the rulebook's "set the King aside and redraw" has this distribution).
    non_king = [r for r in cp.RANKS if r != cp.KING]
    face_up = [non_king[i] for i in rng.permutation(len(non_king))[: cp.FACE_UP_DISCARDS[n]]]
    s.face_up = sum(bit(r) for r in face_up)
    rest = [r for r in cp.RANKS if r not in face_up]
    s.facedown = rest[int(rng.integers(len(rest)))]
    s.sel_log.append((EV_FACEDOWN, -1, s.facedown))
    s.pile = sum(bit(r) for r in rest) & ~bit(s.facedown)
    s.steps = selection_steps(n, s.crown)
    s.step = 0
    _offer_step(s)


def _offer_step(s: State) -> None:
    seat, decision = s.steps[s.step]
    if s.n == 7 and s.step == 6:
        s.pile |= bit(s.facedown)  # the 7th picker also receives the initial face-down card
    s.actor, s.decision = seat, decision
    if decision == Decision.SELECT_CHARACTER:
        s.offered[seat].append(s.pile)


def pick_character(s: State, rank: int, rng: Chance) -> None:
    seat = s.actor
    s.pile &= ~bit(rank)
    s.holder[rank] = seat
    s.sel_log.append((EV_PICK, seat, rank))
    _next_selection_step(s, rng)


def discard_character(s: State, rank: int, rng: Chance) -> None:
    seat = s.actor
    s.pile &= ~bit(rank)
    s.known_facedown[seat] |= bit(rank)
    s.sel_log.append((EV_DISCARD, seat, rank))
    _next_selection_step(s, rng)


def _next_selection_step(s: State, rng: Chance) -> None:
    s.step += 1
    if s.step < len(s.steps):
        _offer_step(s)
        return
    # The single card left is discarded face down; the last picker saw it.
    last_seat = s.steps[-1][0]
    (leftover,) = ranks_of(s.pile)
    s.pile = 0
    s.known_facedown[last_seat] |= bit(leftover)
    s.sel_log.append((EV_LEFTOVER, last_seat, leftover))
    _call_next_rank(s, rng)


# ===== turn phase (4.3) ================================================================
def _call_next_rank(s: State, rng: Chance) -> None:
    while s.called < cp.NUM_CHARACTERS:
        s.called += 1
        seat = s.holder[s.called]
        if seat >= 0 and s.called != s.killed:
            _start_turn(s, seat, s.called)
            return
    _end_of_round(s, rng)


def _start_turn(s: State, seat: int, rank: int) -> None:
    s.revealed[rank] = seat
    s.played[seat] = True
    s.events.append(("reveal", seat, rank))
    if rank == s.robbed:
        thief = s.holder[cp.THIEF]
        if thief != seat:
            s.events.append(("robbed", thief, seat, s.gold[seat]))
            s.gold[thief] += s.gold[seat]
            s.gold[seat] = 0
    if rank == cp.KING:
        s.crown = seat
    elif rank == cp.MERCHANT:
        s.gold[seat] += cp.MERCHANT_BONUS_GOLD
    elif rank == cp.ARCHITECT:
        _draw_into_hand(s, seat, cp.ARCHITECT_BONUS_CARDS)
    s.turn_seat = s.actor = seat
    s.decision = Decision.MAIN
    s.gathered = s.ability_used = s.income_done = s.destroy_used = False
    s.smithy_used = s.lab_used = False
    s.builds_done = 0
    s.build_limit = cp.ARCHITECT_BUILD_LIMIT if rank == cp.ARCHITECT else cp.BUILD_LIMIT


def _draw_into_hand(s: State, seat: int, count: int) -> int:
    drawn = s.deck[:count]
    del s.deck[:count]
    hand = s.hands[seat]
    for kind in drawn:
        hand[kind] += 1
    return len(drawn)


def income(s: State, seat: int, rank: int) -> int:
    """Gold the character's income ability pays: one per district of its type (+1 School of Magic)."""
    kind_type = cp.INCOME_TYPE[rank]
    city = s.cities[seat]
    return int(city[cp.TYPE_OF == kind_type].sum()) + int(city[cp.SCHOOL_OF_MAGIC])


def destroy_cost(s: State, target: int, kind: int) -> int:
    wall = cp.GREAT_WALL_SURCHARGE if kind != cp.GREAT_WALL and s.cities[target, cp.GREAT_WALL] else 0
    return cp.COST_LIST[kind] - 1 + wall


def can_be_destroyed_in(s: State, target: int) -> bool:
    """A city the Warlord may target: not complete and not the (living, revealed) Bishop's."""
    return s.city_size[target] < s.completion and s.revealed[cp.BISHOP] != target


def _collect_income(s: State) -> None:
    seat, rank = s.turn_seat, s.called
    amount = income(s, seat, rank)
    s.gold[seat] += amount
    s.income_done = True
    s.events.append(("income", seat, amount))


def _end_of_round(s: State, rng: Chance) -> None:
    """4.4: the killed King's heir takes the crown, then the game ends or goes on."""
    if s.killed == cp.KING and s.holder[cp.KING] >= 0:
        s.crown = s.holder[cp.KING]
    s.turn_seat = -1
    if s.game_ending or s.round >= s.max_rounds:
        s.truncated = not s.game_ending
        s.decision = GAME_OVER
        s.actor = -1
        return
    s.round += 1
    start_round(s, rng)


# ===== legal actions, one function per decision kind ============================================
def legal_actions(s: State) -> np.ndarray:
    mask = np.zeros(NUM_ACTIONS, dtype=bool)
    LEGAL_BY_DECISION[s.decision](s, mask)
    return mask


def _legal_select(s: State, mask: np.ndarray) -> None:
    base = PICK_CHARACTER if s.decision == Decision.SELECT_CHARACTER else DISCARD_CHARACTER
    pile = s.pile
    for r in cp.RANKS:
        if pile & (1 << (r - 1)):
            mask[base + r - 1] = True


def _legal_main(s: State, mask: np.ndarray) -> None:
    p, rank = s.turn_seat, s.called
    hand, city, gold = s.hands[p], s.cities[p], s.gold[p]
    if not s.gathered:
        mask[GATHER_GOLD] = True
        if s.deck:
            mask[GATHER_CARDS] = True
    else:
        mask[END_TURN] = True
        if s.builds_done < s.build_limit:
            mask[BUILD : BUILD + cp.NUM_KINDS] = (hand > 0) & (city == 0) & (cp.COST <= gold)
    if rank == cp.ASSASSIN:
        if not s.ability_used:
            mask[ASSASSINATE + 1 : ASSASSINATE + 8] = True  # ranks 2..8
    elif rank == cp.THIEF:
        if not s.ability_used:
            mask[ROB + 2 : ROB + 8] = True  # ranks 3..8
            if s.killed >= 3:
                mask[ROB + s.killed - 1] = False
    elif rank == cp.MAGICIAN:
        if not s.ability_used:
            mask[MAGICIAN_SWAP : MAGICIAN_SWAP + s.n - 1] = True
            mask[MAGICIAN_MARK : MAGICIAN_MARK + cp.NUM_KINDS] = hand > 0
    else:
        if rank in cp.INCOME_TYPE and not s.income_done:
            mask[COLLECT_INCOME] = True
        if rank == cp.WARLORD and not s.destroy_used:
            _legal_destroy(s, p, gold, mask)
    if city[cp.SMITHY] and not s.smithy_used and gold >= cp.SMITHY_PRICE and s.deck:
        mask[USE_SMITHY] = True
    if city[cp.LABORATORY] and not s.lab_used:
        mask[LAB_DISCARD : LAB_DISCARD + cp.NUM_KINDS] = hand > 0


def _legal_destroy(s: State, p: int, gold: int, mask: np.ndarray) -> None:
    n = s.n
    for offset in range(n):
        target = (p + offset) % n
        if not s.city_size[target] or not can_be_destroyed_in(s, target):
            continue
        base = DESTROY + offset * cp.NUM_KINDS
        wall = cp.GREAT_WALL_SURCHARGE if s.cities[target, cp.GREAT_WALL] else 0
        for kind in np.flatnonzero(s.cities[target]).tolist():
            if kind == cp.KEEP:
                continue
            price = cp.COST_LIST[kind] - 1 + (wall if kind != cp.GREAT_WALL else 0)
            if price <= gold:
                mask[base + kind] = True


def _legal_keep_drawn(s: State, mask: np.ndarray) -> None:
    for kind in s.drawn:
        mask[KEEP_DRAWN + kind] = True


def _legal_magician_discard(s: State, mask: np.ndarray) -> None:
    mask[MAGICIAN_MARK : MAGICIAN_MARK + cp.NUM_KINDS] = s.hands[s.actor] > 0
    mask[MAGICIAN_DONE] = True  # at least one card is marked in this mode


def _legal_graveyard(s: State, mask: np.ndarray) -> None:
    mask[GRAVEYARD_RECOVER] = True
    mask[GRAVEYARD_DECLINE] = True


LEGAL_BY_DECISION = {
    Decision.SELECT_CHARACTER: _legal_select,
    Decision.SELECT_DISCARD: _legal_select,
    Decision.MAIN: _legal_main,
    Decision.KEEP_DRAWN: _legal_keep_drawn,
    Decision.MAGICIAN_DISCARD: _legal_magician_discard,
    Decision.GRAVEYARD: _legal_graveyard,
}


# ===== transitions =============================================================================
def apply_action(s: State, action: int, rng: Chance) -> None:
    """Advance by one action that `legal_actions` allows."""
    if action < GATHER_GOLD:
        if action < DISCARD_CHARACTER:
            pick_character(s, action + 1, rng)
        else:
            discard_character(s, action - DISCARD_CHARACTER + 1, rng)
    elif s.decision == Decision.MAIN:
        _apply_main(s, action, rng)
    elif s.decision == Decision.KEEP_DRAWN:
        _keep_drawn(s, action - KEEP_DRAWN)
    elif s.decision == Decision.MAGICIAN_DISCARD:
        if action == MAGICIAN_DONE:
            _magician_done(s)
        else:
            _magician_mark(s, action - MAGICIAN_MARK)
    else:
        _graveyard(s, action == GRAVEYARD_RECOVER)


def _apply_main(s: State, action: int, rng: Chance) -> None:
    p = s.turn_seat
    if action >= BUILD:
        if action < USE_SMITHY:
            _build(s, p, action - BUILD)
        elif action == USE_SMITHY:
            s.gold[p] -= cp.SMITHY_PRICE
            s.smithy_used = True
            got = _draw_into_hand(s, p, cp.SMITHY_CARDS)
            s.events.append(("smithy", p, got))
        elif action < END_TURN:
            kind = action - LAB_DISCARD
            s.hands[p, kind] -= 1
            s.deck.append(kind)
            s.gold[p] += cp.LABORATORY_GOLD
            s.lab_used = True
            s.events.append(("laboratory", p))
        else:
            _end_turn(s, rng)
    elif action >= DESTROY:
        offset, kind = divmod(action - DESTROY, cp.NUM_KINDS)
        _destroy(s, p, (p + offset) % s.n, kind)
    elif action == GATHER_GOLD:
        s.gold[p] += cp.GATHER_GOLD_AMOUNT
        s.gathered = True
        s.events.append(("gather_gold", p))
    elif action == GATHER_CARDS:
        _gather_cards(s, p)
    elif action == COLLECT_INCOME:
        _collect_income(s)
    elif action < ROB:
        s.killed = action - ASSASSINATE + 1
        s.ability_used = True
        s.events.append(("assassinate", p, s.killed))
    elif action < MAGICIAN_SWAP:
        s.robbed = action - ROB + 1
        s.ability_used = True
        s.events.append(("rob", p, s.robbed))
    elif action < MAGICIAN_MARK:
        other = (p + action - MAGICIAN_SWAP + 1) % s.n
        s.hands[[p, other]] = s.hands[[other, p]]
        s.ability_used = True
        s.events.append(("swap", p, other))
    else:
        _magician_mark(s, action - MAGICIAN_MARK)


def _gather_cards(s: State, p: int) -> None:
    want = cp.OBSERVATORY_DRAW_COUNT if s.cities[p, cp.OBSERVATORY] else cp.DRAW_COUNT
    if s.cities[p, cp.LIBRARY]:
        got = _draw_into_hand(s, p, want)
        s.gathered = True
        s.events.append(("gather_cards", p, got, got))
        return
    s.drawn = s.deck[:want]
    del s.deck[:want]
    s.decision = Decision.KEEP_DRAWN


def _keep_drawn(s: State, kind: int) -> None:
    p = s.turn_seat
    drawn = s.drawn
    drawn.remove(kind)
    s.hands[p, kind] += 1
    s.deck.extend(drawn)
    s.events.append(("gather_cards", p, len(drawn) + 1, 1))
    s.drawn = []
    s.gathered = True
    s.decision = Decision.MAIN


def _magician_mark(s: State, kind: int) -> None:
    s.hands[s.turn_seat, kind] -= 1
    s.marked.append(kind)
    s.decision = Decision.MAGICIAN_DISCARD


def _magician_done(s: State) -> None:
    p = s.turn_seat
    count = len(s.marked)
    s.deck.extend(s.marked)
    s.marked = []
    _draw_into_hand(s, p, count)
    s.ability_used = True
    s.decision = Decision.MAIN
    s.events.append(("redraw", p, count))


def _build(s: State, p: int, kind: int) -> None:
    s.gold[p] -= cp.COST_LIST[kind]
    s.hands[p, kind] -= 1
    s.cities[p, kind] = 1
    s.city_size[p] += 1
    s.builds_done += 1
    s.events.append(("build", p, kind))
    if s.city_size[p] >= s.completion:
        if s.first_completer < 0:
            s.first_completer = p
        s.game_ending = True


def _destroy(s: State, p: int, target: int, kind: int) -> None:
    price = destroy_cost(s, target, kind)
    s.gold[p] -= price
    s.cities[target, kind] = 0
    s.city_size[target] -= 1
    s.destroy_used = True
    s.events.append(("destroy", p, target, kind, price))
    owner = graveyard_owner(s, p)
    if owner >= 0:
        s.graveyard_card = kind
        s.actor = owner
        s.decision = Decision.GRAVEYARD
    else:
        s.deck.append(kind)


def graveyard_owner(s: State, warlord: int) -> int:
    """The seat that may recover a destroyed district: owns the Graveyard, is not the Warlord, has gold."""
    for seat in range(s.n):
        if seat != warlord and s.cities[seat, cp.GRAVEYARD] and s.gold[seat] >= cp.GRAVEYARD_PRICE:
            return seat
    return -1


def _graveyard(s: State, recover: bool) -> None:
    owner, kind = s.actor, s.graveyard_card
    if recover:
        s.gold[owner] -= cp.GRAVEYARD_PRICE
        s.hands[owner, kind] += 1
    else:
        s.deck.append(kind)
    s.events.append(("graveyard", owner, kind, recover))
    s.graveyard_card = -1
    s.actor = s.turn_seat
    s.decision = Decision.MAIN


def _end_turn(s: State, rng: Chance) -> None:
    if s.called in cp.INCOME_TYPE and not s.income_done:
        _collect_income(s)
    s.events.append(("end_turn", s.turn_seat))
    _call_next_rank(s, rng)


# ===== scoring (§6) ============================================================================
def city_kinds(city: np.ndarray) -> list[int]:
    """The district kinds a city holds (a city never holds two of a kind)."""
    return city.nonzero()[0].tolist()


def has_five_types(city: np.ndarray) -> bool:
    """All five types, the Haunted Quarter standing in for one missing type (5.9)."""
    return _has_five_types(city_kinds(city))


def _has_five_types(kinds: Sequence[int]) -> bool:
    present = len({cp.TYPE_LIST[kind] for kind in kinds if kind != cp.HAUNTED_QUARTER})
    return present == cp.NUM_TYPES or (present == cp.NUM_TYPES - 1 and cp.HAUNTED_QUARTER in kinds)


def score_parts(s: State, seat: int, kinds: Sequence[int] | None = None) -> list[tuple[str, int]]:
    """What `seat`'s points add up from: its districts, then each bonus that applies (`kinds`: its
    city's `city_kinds`, when the caller has them already)."""
    if kinds is None:
        kinds = city_kinds(s.cities[seat])
    parts = [("points of districts", sum(cp.POINTS_LIST[kind] for kind in kinds))]  # University, Dragon Gate: 6 + 2
    if _has_five_types(kinds):
        parts.append(("points for all five district types", cp.FIVE_TYPES_BONUS))
    if s.first_completer == seat:
        parts.append(("points for the first complete city", cp.FIRST_COMPLETE_BONUS))
    elif s.city_size[seat] >= s.completion:
        parts.append(("points for a complete city", cp.COMPLETE_BONUS))
    if cp.IMPERIAL_TREASURY in kinds:
        parts.append(("points for gold (Imperial Treasury)", int(s.gold[seat])))
    if cp.MAP_ROOM in kinds:
        parts.append(("points for cards in hand (Map Room)", int(s.hands[seat].sum())))
    return parts


def score(s: State, seat: int, kinds: Sequence[int] | None = None) -> int:
    return sum(points for _, points in score_parts(s, seat, kinds))


def tie_value(s: State, seat: int) -> int:
    """Highest rank the seat revealed (and so played) in the final round; 0 if none (6.3)."""
    return max((r for r in cp.RANKS if s.revealed[r] == seat), default=0)


def standing_keys(s: State) -> list[tuple[int, int]]:
    """Per seat: points, then the tie-break (6.3)."""
    return [(score(s, seat), tie_value(s, seat)) for seat in range(s.n)]


def winners(s: State) -> list[int]:
    return leaders(standing_keys(s))
