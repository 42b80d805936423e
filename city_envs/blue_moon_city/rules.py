"""Blue Moon City rules: state, legal actions, transitions (docs/games/blue_moon_city.md).

Flat action space, 220 ids (the action table in docs/games/blue_moon_city.md):

| ids     | action                 | decoding                                   | decision kind |
|---------|------------------------|--------------------------------------------|---------------|
| 0-125   | DRAGON_MOVE(d, mode, t)| d = id // 42, mode = id // 21 % 2 (0 fly), t = id % 21 | MOVE   |
| 126     | FLIT_BOOST             | discard grey 2: +2 steps                   | MOVE          |
| 127     | FLIT_TELEPORT          | discard grey 1: move anywhere              | MOVE          |
| 128-148 | MOVE_FIGURE(t)         | t = id - 128; ends the movement            | MOVE          |
| 149-152 | SELECT_SECTION(s)      | s = id - 149; opens a payment              | BUILD         |
| 153     | END_CONTRIBUTION       | to discard and draw                        | BUILD, OFFER  |
| 154-160 | PALACE_COLOR(c)        | c = id - 154                               | PAY           |
| 161-182 | ADD_CARD(type)         | type = id - 161                            | PAY           |
| 183-185 | ADD_MIMIX_PAIR         | 1+1, 1+2, 2+2 as a wild 3                  | PAY           |
| 186-192 | USE_HOAX1(c)           | c = id - 186: up to 4 cards of c count as T | PAY          |
| 193     | USE_HOAX2              | one card of any colour counts as T         | PAY           |
| 194     | OFFER                  | the turn's normal offering                 | OFFER         |
| 195-196 | OFFER_EXTRA_Y1/_Y2     | discard yellow 1/2, extra offering +1/+2   | OFFER         |
| 197-218 | DISCARD(type)          | type = id - 197                            | DISCARD       |
| 219     | END_TURN               | draw 2 + discards, take the pending cards  | DISCARD       |

A payment auto-completes the moment its total reaches the section's value, and a PAY step is legal
only if the payment can still be completed afterwards (exact search, `can_finish`), so an agent can
never get stuck. Forced steps are automatic: phase B on a completed tile, END_CONTRIBUTION when it
is the only choice, END_TURN after two discards or with an empty hand.
Card types: type = 3 * colour + (value - 1) for colours 0-6, 21 = green (components.py).
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import cast

import numpy as np

from city_envs.blue_moon_city import components as cp
from city_envs.core.decisions import DecisionTable
from city_envs.core.game import Chance, leaders

# ----- action ids ------------------------------------------------------------------------------
DRAGON_MOVE = 0
FLIT_BOOST = 126
FLIT_TELEPORT = 127
MOVE_FIGURE = 128
SELECT_SECTION = 149
END_CONTRIBUTION = 153
PALACE_COLOR = 154
ADD_CARD = 161
ADD_MIMIX_PAIR = 183
USE_HOAX1 = 186
USE_HOAX2 = 193
OFFER = 194
OFFER_EXTRA_Y1 = 195
OFFER_EXTRA_Y2 = 196
DISCARD = 197
END_TURN = 219
NUM_ACTIONS = 220


# ----- decision kinds --------------------------------------------------------------------------
class Decision(DecisionTable):
    """The kinds of pending decision. The ids are what observations one-hot and recorded matches
    store, so they never change; the names are what logs, the web page and the docs show."""

    MOVE = 0
    BUILD = 1
    PAY = 2
    OFFER = 3
    DISCARD = 4


GAME_OVER = -1
EXTRA_OFFER_CARD = {OFFER_EXTRA_Y1: cp.YELLOW_1, OFFER_EXTRA_Y2: cp.YELLOW_2}
NO_COLOUR = -1


@dataclass
class Payment:
    """A section being paid: value `need` still to cover, colour T, capacities, cards committed."""

    section: int
    value: int
    colour: int  # T, NO_COLOUR until the palace colour is chosen
    total: int = 0
    cap1: list[int] = field(default_factory=lambda: [0] * cp.NUM_COLOURS)  # Hoax-1 capacity per source colour
    cap_any: int = 0  # Hoax-2 capacity
    committed: list[int] = field(default_factory=lambda: [0] * cp.NUM_TYPES)  # cards used, powers included


@dataclass
class State:
    """Everything that changes during a match; plain data mirrored by `to_dict`.

    Positions are 0..20 (row-major over the cross-shaped grid), 21 = off the board. The deck is a
    list of card types whose end is the top; the discard pile is face up, kept as counts.
    """

    n: int
    tile_at: list[int]  # per position, tile id
    complete: list[bool]  # per position
    markers_on: list[list[int]]  # per position, per section (4 slots), seat or -1
    dragons: list[int]  # Fire, Earth, Water: position or OFF_BOARD
    figures: list[int]  # per seat, position
    hands: list[list[int]]  # per seat, count per card type
    deck: list[int]
    discard: list[int]  # count per card type
    crystals: list[int]
    scales: list[int]
    scale_supply: int
    offerings: list[int]
    markers: list[int]  # in reserve
    obelisk: list[int]  # seats of the filled spaces, bottom up
    pending: list[int] = field(default_factory=list)  # reward cards of the active seat, hidden
    active: int = 0
    decision: int = Decision.MOVE
    allowance: int = cp.START_ALLOWANCE
    teleport: bool = False
    scales_claimed: bool = False
    offers_this_turn: int = 0
    discards: int = 0
    payment: Payment | None = None
    turns: int = 0  # turns completed
    last_completion_turn: int = -1  # turn count when the 20th building was completed
    winners: list[int] = field(default_factory=list)
    truncated: bool = False
    # memo of view.city_block (the city's markers and completed tiles, which change only when a
    # payment completes); not serialized, shared by copies (never mutated, only dropped)
    city_memo: np.ndarray | None = field(default=None, compare=False, repr=False)


# ===== setup (§3) ==============================================================================
def new_state(n: int, center: str, rng: Chance) -> State:
    tile_at = [0] * cp.NUM_POSITIONS
    positions: Sequence[int]
    if center == "fixed":
        for position, tile in cp.FIXED_CENTRE.items():
            tile_at[position] = tile
        tiles = [t for t in range(cp.NUM_TILES) if t not in cp.FIXED_CENTRE.values()]
        positions = cp.SHUFFLED_POSITIONS
    else:
        tiles = list(range(1, cp.NUM_TILES))
        positions = [p for p in range(cp.NUM_POSITIONS) if p != cp.COURTYARD_POSITION]
    for position, index in zip(positions, rng.permutation(len(tiles)).tolist(), strict=True):
        tile_at[position] = tiles[index]
    deck = [t for t in range(cp.NUM_TYPES) for _ in range(cp.CARD_COPIES[t])]
    deck = [deck[i] for i in rng.permutation(len(deck))]
    hands = [[0] * cp.NUM_TYPES for _ in range(n)]
    for seat in range(n):
        for _ in range(cp.STARTING_HAND):
            hands[seat][deck.pop()] += 1
    return State(
        n=n,
        tile_at=tile_at,
        complete=[False] * cp.NUM_POSITIONS,
        markers_on=[[-1] * cp.MAX_SECTIONS for _ in range(cp.NUM_POSITIONS)],
        dragons=[cp.OFF_BOARD] * 3,
        figures=[cp.COURTYARD_POSITION] * n,
        hands=hands,
        deck=deck,
        discard=[0] * cp.NUM_TYPES,
        crystals=[0] * n,
        scales=[0] * n,
        scale_supply=cp.SCALES_IN_PLAY[n],
        offerings=[0] * n,
        markers=[cp.MARKERS] * n,
        obelisk=[],
    )


# ===== payments (5.5-5.8, 9.2) =================================================================
@lru_cache(maxsize=1 << 12)  # larger sizes raise the hit rate no further; 1 << 16 held ~20 MB
def can_finish(need: int, colour: int, hand: tuple[int, ...], cap1: tuple[int, ...], cap_any: int) -> bool:
    """Can cards of `hand` (with Hoax capacities) still cover `need` for a section of `colour`?"""
    quick = _quick_answer(need, colour, hand, cap1, cap_any)
    if quick is not None:
        return quick
    for x in range(cp.NUM_TYPES):
        if not hand[x]:
            continue
        c = cp.CARD_COLOUR[x]
        if x == cp.GREEN_CARD:
            if can_finish(need - 1, colour, _without(hand, x), cap1, cap_any):
                return True
        elif c == colour:
            if can_finish(need - cp.CARD_VALUE[x], colour, _without(hand, x), cap1, cap_any):
                return True
        elif cap1[c] > 0:
            if can_finish(need - cp.CARD_VALUE[x], colour, _without(hand, x), _bump(cap1, c, -1), cap_any):
                return True
        elif cap_any > 0 and can_finish(need - cp.CARD_VALUE[x], colour, _without(hand, x), cap1, cap_any - 1):
            return True
    for a, b in cp.MIMIX_PAIRS:
        pair = hand[a] and hand[b] and (a != b or hand[a] >= 2)
        if pair and can_finish(need - cp.MIMIX_VALUE, colour, _without(_without(hand, a), b), cap1, cap_any):
            return True
    if hand[cp.WHITE_1]:
        rest = _without(hand, cp.WHITE_1)
        for c in _hoax1_sources(rest, colour):
            if can_finish(need, colour, rest, _bump(cap1, c, cp.HOAX1_CAPACITY), cap_any):
                return True
    if hand[cp.WHITE_2]:
        rest = _without(hand, cp.WHITE_2)
        if _has_foreign_card(rest, colour) and can_finish(need, colour, rest, cap1, cap_any + 1):
            return True
    return False


def _quick_answer(need: int, colour: int, hand: tuple[int, ...], cap1: tuple[int, ...], cap_any: int) -> bool | None:
    """`can_finish` where it is decided without a search, else None. Cards of `colour` and the Khind pay
    at face value and a Mimix pair pays 3; without Hoax (in hand or as capacity) nothing else pays, so
    that sum decides. With Hoax, nothing pays more than the face values plus one per pair of brown 1s."""
    if need <= 0:
        return True
    own = hand[cp.GREEN_CARD]
    if 0 <= colour < cp.NUM_COLOURS:
        own += hand[3 * colour] + 2 * hand[3 * colour + 1] + 3 * hand[3 * colour + 2]
    if own >= need:
        return True
    brown_1, brown_2 = hand[cp.BROWN_1], hand[cp.BROWN_2]
    if not (cap_any or hand[cp.WHITE_1] or hand[cp.WHITE_2] or any(cap1)):
        pairs = brown_1 // 2 if colour == cp.BROWN else cp.MIMIX_VALUE * ((brown_1 + brown_2) // 2)
        return own + pairs >= need
    if sum(map(operator.mul, hand, cp.CARD_VALUE)) + brown_1 // 2 < need:
        return False
    return None


def _without(hand: tuple[int, ...], x: int) -> tuple[int, ...]:
    return hand[:x] + (hand[x] - 1,) + hand[x + 1 :]


def _bump(caps: tuple[int, ...], c: int, delta: int) -> tuple[int, ...]:
    return caps[:c] + (caps[c] + delta,) + caps[c + 1 :]


def _hoax1_sources(hand: tuple[int, ...], colour: int) -> list[int]:
    """Colours a White 1 may recolour: held, not T, not green."""
    return [c for c in range(cp.NUM_COLOURS) if c != colour and any(hand[3 * c : 3 * c + 3])]


def _has_foreign_card(hand: tuple[int, ...], colour: int) -> bool:
    return any(hand[x] and cp.CARD_COLOUR[x] not in (colour, cp.GREEN) for x in range(cp.NUM_TYPES))


def section_colours(tile: int, section: int) -> list[int]:
    colour = cp.SECTIONS[tile][section][0]
    return list(range(cp.NUM_COLOURS)) if colour == cp.ANY else [colour]


def payable(s: State, seat: int, tile: int, section: int) -> bool:
    value = cp.SECTIONS[tile][section][1]
    hand = tuple(s.hands[seat])
    return any(can_finish(value, c, hand, (0,) * cp.NUM_COLOURS, 0) for c in section_colours(tile, section))


def _pay_outcomes(s: State, seat: int) -> dict[int, tuple]:
    """PAY action -> (added value, hand after, cap1 after, cap_any after) for every step that exists."""
    pay = cast(Payment, s.payment)  # PAY: a payment is open
    hand = tuple(s.hands[seat])
    cap1 = tuple(pay.cap1)
    out = {}
    colour = pay.colour
    for x in range(cp.NUM_TYPES):
        if not hand[x]:
            continue
        c = cp.CARD_COLOUR[x]
        rest = _without(hand, x)
        if x == cp.GREEN_CARD:
            out[ADD_CARD + x] = (1, rest, cap1, pay.cap_any)
        elif c == colour:
            out[ADD_CARD + x] = (cp.CARD_VALUE[x], rest, cap1, pay.cap_any)
        elif cap1[c] > 0:
            out[ADD_CARD + x] = (cp.CARD_VALUE[x], rest, _bump(cap1, c, -1), pay.cap_any)
        elif pay.cap_any > 0:
            out[ADD_CARD + x] = (cp.CARD_VALUE[x], rest, cap1, pay.cap_any - 1)
    for index, (a, b) in enumerate(cp.MIMIX_PAIRS):
        if hand[a] and hand[b] and (a != b or hand[a] >= 2):
            out[ADD_MIMIX_PAIR + index] = (cp.MIMIX_VALUE, _without(_without(hand, a), b), cap1, pay.cap_any)
    if hand[cp.WHITE_1]:
        rest = _without(hand, cp.WHITE_1)
        for c in _hoax1_sources(rest, colour):
            out[USE_HOAX1 + c] = (0, rest, _bump(cap1, c, cp.HOAX1_CAPACITY), pay.cap_any)
    if hand[cp.WHITE_2]:
        rest = _without(hand, cp.WHITE_2)
        if _has_foreign_card(rest, colour):
            out[USE_HOAX2] = (0, rest, cap1, pay.cap_any + 1)
    return out


# ===== legal actions, one function per decision kind ============================================
def legal_actions(s: State) -> np.ndarray:
    mask = np.zeros(NUM_ACTIONS, dtype=bool)
    LEGAL_BY_DECISION[s.decision](s, mask)
    return mask


def _legal_move(s: State, mask: np.ndarray) -> None:
    p = s.active
    hand = s.hands[p]
    for d in range(3):
        where = s.dragons[d]
        if hand[cp.DRAGON_FLY_CARD[d]]:
            for t in range(cp.NUM_POSITIONS):
                mask[DRAGON_MOVE + 42 * d + t] = t != where
        if hand[cp.DRAGON_WALK_CARD[d]] and where != cp.OFF_BOARD:
            for t in range(cp.NUM_POSITIONS):
                mask[DRAGON_MOVE + 42 * d + 21 + t] = 1 <= cp.DISTANCE[where][t] <= cp.DRAGON_WALK_STEPS
    if not s.teleport:
        mask[FLIT_BOOST] = hand[cp.GREY_BOOST] > 0
        mask[FLIT_TELEPORT] = hand[cp.GREY_TELEPORT] > 0
    here = s.figures[p]
    for t in range(cp.NUM_POSITIONS):
        mask[MOVE_FIGURE + t] = s.teleport or cp.DISTANCE[here][t] <= s.allowance


def selectable_sections(s: State) -> list[int]:
    p = s.active
    position = s.figures[p]
    tile = s.tile_at[position]
    if s.markers[p] < 1:
        return []
    return [i for i in range(len(cp.SECTIONS[tile])) if s.markers_on[position][i] < 0 and payable(s, p, tile, i)]


def _legal_build(s: State, mask: np.ndarray) -> None:
    for i in selectable_sections(s):
        mask[SELECT_SECTION + i] = True
    mask[END_CONTRIBUTION] = True


def _legal_pay(s: State, mask: np.ndarray) -> None:
    pay = cast(Payment, s.payment)  # PAY: a payment is open
    hand = tuple(s.hands[s.active])
    if pay.colour == NO_COLOUR:
        for c in range(cp.NUM_COLOURS):
            mask[PALACE_COLOR + c] = can_finish(pay.value, c, hand, (0,) * cp.NUM_COLOURS, 0)
        return
    need = pay.value - pay.total
    for action, (added, rest, cap1, cap_any) in _pay_outcomes(s, s.active).items():
        mask[action] = can_finish(need - added, pay.colour, rest, cap1, cap_any)


def offer_cost(s: State) -> int:
    costs = cp.OBELISK_COSTS[s.n]
    return costs[len(s.obelisk)] if len(s.obelisk) < len(costs) else 10**6


def offers_open(s: State) -> list[int]:
    p = s.active
    if s.markers[p] < 1:
        return []
    cost = offer_cost(s)
    if s.offers_this_turn == 0:
        return [OFFER] if s.crystals[p] >= cost else []
    return [
        action
        for action, card in EXTRA_OFFER_CARD.items()
        if s.hands[p][card] and s.crystals[p] >= cost + cp.EXTRA_OFFER_SURCHARGE[card]
    ]


def _legal_offer(s: State, mask: np.ndarray) -> None:
    for action in offers_open(s):
        mask[action] = True
    mask[END_CONTRIBUTION] = True


def _legal_discard(s: State, mask: np.ndarray) -> None:
    hand = s.hands[s.active]
    for x in range(cp.NUM_TYPES):
        mask[DISCARD + x] = hand[x] > 0
    mask[END_TURN] = True


LEGAL_BY_DECISION = {
    Decision.MOVE: _legal_move,
    Decision.BUILD: _legal_build,
    Decision.PAY: _legal_pay,
    Decision.OFFER: _legal_offer,
    Decision.DISCARD: _legal_discard,
}


# ===== transitions =============================================================================
def apply_action(s: State, action: int, rng: Chance, max_rounds: int) -> None:
    """One legal action (validated by the caller), then the automatic steps and the end checks."""
    p = s.active
    if s.decision == Decision.MOVE:
        _apply_move(s, p, action)
    elif s.decision in (Decision.BUILD, Decision.OFFER) and action == END_CONTRIBUTION:
        s.decision = Decision.DISCARD
    elif s.decision == Decision.BUILD:
        _open_payment(s, p, action - SELECT_SECTION)
    elif s.decision == Decision.PAY:
        _apply_pay(s, p, action, rng)
    elif s.decision == Decision.OFFER:
        _offer(s, p, action)
    elif action == END_TURN:
        _end_turn(s, rng)
    else:
        _discard(s, p, action - DISCARD, rng)
    # 4: the end conditions are checked after every action, before the forced steps: an action that
    # ends the game ends it at once, even when it also emptied the hand (no automatic end of turn)
    if s.decision != GAME_OVER:
        _check_endings(s, max_rounds)
    if s.decision != GAME_OVER:
        _settle(s, rng)
        _check_endings(s, max_rounds)


def _settle(s: State, rng: Chance) -> None:
    """The forced steps: nothing to build or offer ends the contribution; no card to discard ends the turn."""
    nothing_to_build = s.decision == Decision.BUILD and not selectable_sections(s)
    if nothing_to_build or (s.decision == Decision.OFFER and not offers_open(s)):
        s.decision = Decision.DISCARD
    if s.decision == Decision.DISCARD and not any(s.hands[s.active]):
        _end_turn(s, rng)


def _use_card(s: State, p: int, card: int) -> None:
    s.hands[p][card] -= 1
    s.discard[card] += 1


def _apply_move(s: State, p: int, action: int) -> None:
    if action < FLIT_BOOST:
        d, rest = divmod(action - DRAGON_MOVE, 42)
        mode, target = divmod(rest, 21)
        _use_card(s, p, cp.DRAGON_WALK_CARD[d] if mode else cp.DRAGON_FLY_CARD[d])
        s.dragons[d] = target
    elif action == FLIT_BOOST:
        _use_card(s, p, cp.GREY_BOOST)
        s.allowance += cp.BOOST_STEPS
    elif action == FLIT_TELEPORT:
        _use_card(s, p, cp.GREY_TELEPORT)
        s.teleport = True
    else:
        s.figures[p] = action - MOVE_FIGURE
        _enter_phase_b(s)


def _enter_phase_b(s: State) -> None:
    position = s.figures[s.active]
    if position == cp.COURTYARD_POSITION:
        s.decision = Decision.OFFER
    elif s.complete[position]:
        s.decision = Decision.DISCARD
    else:
        s.decision = Decision.BUILD


def _open_payment(s: State, p: int, section: int) -> None:
    tile = s.tile_at[s.figures[p]]
    colour, value = cp.SECTIONS[tile][section]
    s.payment = Payment(section=section, value=value, colour=NO_COLOUR if colour == cp.ANY else colour)
    s.decision = Decision.PAY


def _apply_pay(s: State, p: int, action: int, rng: Chance) -> None:
    pay = cast(Payment, s.payment)  # PAY: a payment is open
    if action < ADD_CARD:
        pay.colour = action - PALACE_COLOR
        return
    added, rest, cap1, cap_any = _pay_outcomes(s, p)[action]
    used = [x for x in range(cp.NUM_TYPES) if rest[x] < s.hands[p][x]]
    for x in used:
        pay.committed[x] += s.hands[p][x] - rest[x]
    s.hands[p] = list(rest)
    pay.cap1, pay.cap_any = list(cap1), cap_any
    pay.total += added
    if pay.total >= pay.value:
        _complete_payment(s, p, rng)


def _complete_payment(s: State, p: int, rng: Chance) -> None:
    pay = cast(Payment, s.payment)  # PAY: a payment is open
    position = s.figures[p]
    for x in range(cp.NUM_TYPES):
        s.discard[x] += pay.committed[x]
    s.markers_on[position][pay.section] = p
    s.markers[p] -= 1
    s.payment = None
    s.city_memo = None
    if not s.scales_claimed:
        s.scales_claimed = True
        dragons = sum(where == position for where in s.dragons)
        if dragons:
            _give_scales(s, p, dragons)
            _scale_scoring(s, dragons)
    tile = s.tile_at[position]
    if all(s.markers_on[position][i] >= 0 for i in range(len(cp.SECTIONS[tile]))):
        _scale_scoring(s, _score_building(s, position, rng))
        s.decision = Decision.DISCARD
    else:
        s.decision = Decision.BUILD


def _give_scales(s: State, seat: int, count: int) -> None:
    """Scales beyond the supply still count for the player ("virtual" scales, 5.9)."""
    s.scale_supply = max(0, s.scale_supply - count)
    s.scales[seat] += count


def _scale_scoring(s: State, taken: int) -> None:
    """5.9: when the supply ran out in this step, the scale leaders (and holders of 3+) are paid."""
    if not taken or s.scale_supply > 0:
        return
    top = max(s.scales)
    leaders = [seat for seat in range(s.n) if s.scales[seat] == top]
    gains = [0] * s.n
    for seat in range(s.n):
        if seat in leaders:
            gains[seat] = cp.SCALE_LEADER_CRYSTALS if len(leaders) == 1 else cp.SCALE_TIED_LEADER_CRYSTALS
        elif s.scales[seat] >= cp.SCALE_OTHERS_MINIMUM:
            gains[seat] = cp.SCALE_OTHERS_CRYSTALS
    for seat in range(s.n):
        if gains[seat]:
            s.crystals[seat] += gains[seat]
            s.scales[seat] = 0
    s.scale_supply = max(0, cp.SCALES_IN_PLAY[s.n] - sum(s.scales))


def master_builder(markers: list[int]) -> int:
    """Most markers; ties to the tied seat whose marker is leftmost (5.10)."""
    placed = [seat for seat in markers if seat >= 0]
    most = max(placed.count(seat) for seat in placed)
    return next(seat for seat in markers if seat >= 0 and placed.count(seat) == most)


def _score_building(s: State, position: int, rng: Chance) -> int:
    """5.10: rewards in seat order from the active player; returns the scales handed out."""
    tile = s.tile_at[position]
    markers = s.markers_on[position][: len(cp.SECTIONS[tile])]
    master = master_builder(markers)
    neighbours = [cp.NEIGHBOUR_REWARD[s.tile_at[q]] for q in cp.NEIGHBOURS_NESW[position] if s.complete[q]]
    scales = 0
    for offset in range(s.n):
        seat = (s.active + offset) % s.n
        if seat not in markers:
            continue
        rewards = ([cp.STAR_REWARD[tile]] if seat == master else []) + [cp.EACH_REWARD[tile], *neighbours]
        for crystals, cards, scale_count in rewards:
            s.crystals[seat] += crystals
            if scale_count:
                _give_scales(s, seat, scale_count)
                scales += scale_count
            for card in _draw(s, cards, rng):
                if seat == s.active:
                    s.pending.append(card)
                else:
                    s.hands[seat][card] += 1
    for seat in markers:
        s.markers[seat] += 1
    s.markers_on[position] = [-1] * cp.MAX_SECTIONS
    s.complete[position] = True
    if all(s.complete[q] for q in range(cp.NUM_POSITIONS) if q != cp.COURTYARD_POSITION):
        s.last_completion_turn = s.turns
    return scales


def _draw(s: State, count: int, rng: Chance) -> list[int]:
    """Top cards of the deck; the discard pile is reshuffled into a new deck when it runs out."""
    drawn = []
    for _ in range(count):
        if not s.deck:
            pile = [x for x in range(cp.NUM_TYPES) for _ in range(s.discard[x])]
            if not pile:
                break
            s.deck = [pile[i] for i in rng.permutation(len(pile))]
            s.discard = [0] * cp.NUM_TYPES
        drawn.append(s.deck.pop())
    return drawn


def _offer(s: State, p: int, action: int) -> None:
    cost = offer_cost(s)
    if action != OFFER:
        card = EXTRA_OFFER_CARD[action]
        _use_card(s, p, card)
        cost += cp.EXTRA_OFFER_SURCHARGE[card]
    s.crystals[p] -= cost
    s.obelisk.append(p)
    s.markers[p] -= 1
    s.offerings[p] += 1
    s.offers_this_turn += 1
    if s.offerings[p] >= cp.OFFERINGS_TO_WIN[s.n]:
        _game_over(s, [p])


def _discard(s: State, p: int, card: int, rng: Chance) -> None:
    _use_card(s, p, card)
    s.discards += 1
    if s.discards == cp.MAX_DISCARDS:
        _end_turn(s, rng)


def _end_turn(s: State, rng: Chance) -> None:
    p = s.active
    for card in _draw(s, cp.BASE_DRAW + s.discards, rng):
        s.hands[p][card] += 1
    for card in s.pending:
        s.hands[p][card] += 1
    s.pending = []
    s.turns += 1
    s.active = (p + 1) % s.n
    s.decision = Decision.MOVE
    s.allowance = cp.START_ALLOWANCE
    s.teleport = s.scales_claimed = False
    s.offers_this_turn = s.discards = 0


# ===== end of the game (§6) =====================================================================
def standing_keys(s: State) -> list[tuple[int, int]]:
    """Per seat: offerings, then crystals left (6.2)."""
    return [(s.offerings[seat], s.crystals[seat]) for seat in range(s.n)]


def ranking_winners(s: State) -> list[int]:
    """Most offerings, then most crystals, then a shared victory (6.2)."""
    return leaders(standing_keys(s))


def _game_over(s: State, winners: list[int], truncated: bool = False) -> None:
    s.winners = winners
    s.truncated = truncated
    s.decision = GAME_OVER
    s.active = -1
    s.payment = None


def city_complete(s: State) -> bool:
    return s.last_completion_turn >= 0


def _check_endings(s: State, max_rounds: int) -> None:
    """6.3-6.5: no markers left anywhere (a draw); a complete city nobody can offer in, or 10 rounds
    after its completion (ranking); the env's round cap (ranking, reported as truncation)."""
    if not any(s.markers):
        _game_over(s, list(range(s.n)))
    elif city_complete(s):
        cost = offer_cost(s)
        stuck = not any(s.markers[seat] and s.crystals[seat] >= cost for seat in range(s.n))
        rounds_after = (s.turns - s.last_completion_turn) // s.n
        if stuck or rounds_after >= cp.ROUNDS_AFTER_CITY_COMPLETE:
            _game_over(s, ranking_winners(s))
    if s.decision == Decision.MOVE and s.turns >= max_rounds * s.n:
        _game_over(s, ranking_winners(s), truncated=True)
