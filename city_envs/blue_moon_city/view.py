"""What one seat of Blue Moon City may know, its tensor encoding, determinization.

Public: the city, markers, dragons, figures, the obelisk, every seat's crystals (derivable by perfect
recall), scales, offerings, markers, hand size and pending count, the scale supply, the deck size,
the face-up discard pile and the open payment. Private: the seat's own hand. Hidden from everyone:
deck order, other hands, the identities of the active seat's pending reward cards.

Observation for seat p: float32, 2200 values (laid out in docs/games/blue_moon_city.md); seats relative (0 = p).

| offset | block | contents |
|---|---|---|
| 0    | city (21 x 98) | per position: tile one-hot (21); completed; dragons Fire/Earth/Water (3); figures of
|      |                | relative seats (4); 4 sections x [exists, colour one-hot 8 (7 + any), value/5, occupant
|      |                | one-hot (empty, relative seat 0-3)] (60); star c/3 k/2 s/1, each c/3 k/1 s/1,
|      |                | neighbour c/3 k/2 s/2 (9) |
| 2058 | dragons (3)    | off the board |
| 2061 | players (4x8)  | present, crystals/20, scales/10, offerings/6, markers/10, hand size/20, pending/6, active |
| 2093 | hand (22)      | own card counts per type/4 |
| 2115 | piles (30)     | discard pile per type/10 (22); deck/80; scale supply/15; next obelisk cost/12; filled
|      |                | spaces/13; offerings to win/6; player count one-hot 2-4 (3) |
| 2145 | turn (11)      | decision one-hot (5); allowance/6; teleport; scales claimed; offers this turn/4; discards/2;
|      |                | city complete |
| 2156 | payment (44)   | section one-hot (4); colour one-hot (7 + unset); value/5; total/6; Hoax-1 capacity per
|      |                | colour/4 (7); Hoax-2 capacity/3; committed cards per type/4 (22) |
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from city_envs.blue_moon_city import components as cp
from city_envs.blue_moon_city import rules as r
from city_envs.blue_moon_city.rules import Payment, State
from city_envs.core.game import EntityLayout

OBS_SIZE = 2200
CITY, DRAGONS, PLAYERS, HAND, PILES, TURN, PAYMENT = 0, 2058, 2061, 2093, 2115, 2145, 2156
CELL = 98
SECTION_BASE, SECTION_WIDTH = 29, 15  # inside a cell: after tile (21), completed, dragons (3), figures (4)
# the city block is one cell per position; the figure's move and every dragon's flight or walk target a position.
# What a position is worth to the seat also depends on its hand, its own row of the players block, the turn, and
# where its figure stands (column 25 of every cell: the distance to walk).
ENTITY_LAYOUT = EntityLayout(
    count=cp.NUM_POSITIONS, rows=((CITY, CELL),),
    action_starts=(r.MOVE_FIGURE, *(r.DRAGON_MOVE + 2 * cp.NUM_POSITIONS * d + cp.NUM_POSITIONS * mode
                                    for d in range(3) for mode in range(2))),
    context=((HAND, PILES, 1), (PLAYERS, PLAYERS + 8, 1), (TURN, PAYMENT, 1),
             (CITY + 25, CITY + cp.NUM_POSITIONS * CELL, CELL)),
)


@lru_cache(maxsize=64)
def static_city(tile_at: tuple[int, ...]) -> np.ndarray:
    """The printed side of the layout: tile identities, sections and rewards (read-only).

    Every deal has its own layout, so the cache keeps only the most recent ones (a process plays
    one or a few matches at a time; an unbounded cache grew with every match played)."""
    city = np.zeros((cp.NUM_POSITIONS, CELL), dtype=np.float32)
    for position, tile in enumerate(tile_at):
        cell = city[position]
        cell[tile] = 1.0
        for i, (colour, value) in enumerate(cp.SECTIONS[tile]):
            base = SECTION_BASE + SECTION_WIDTH * i
            cell[base] = 1.0
            cell[base + 1 + (7 if colour == cp.ANY else colour)] = 1.0
            cell[base + 9] = value / 5.0
        (sc, sk, ss), (ec, ek, es), (nc, nk, ns) = cp.STAR_REWARD[tile], cp.EACH_REWARD[tile], cp.NEIGHBOUR_REWARD[tile]
        cell[89:98] = (sc / 3, sk / 2, ss, ec / 3, ek, es, nc / 3, nk / 2, ns / 2)
    city.flags.writeable = False
    return city


def city_block(s: State) -> np.ndarray:
    """The city with completed tiles and markers by absolute seat, plus a zero column (21 x 99).

    It changes only when a payment completes, so it is memoized on the state (`city_memo`).
    """
    if s.city_memo is None:
        city = np.zeros((cp.NUM_POSITIONS, CELL + 1), dtype=np.float32)
        city[:, :CELL] = static_city(tuple(s.tile_at))
        for position in range(cp.NUM_POSITIONS):
            if s.complete[position]:
                city[position, 21] = 1.0
            for i, seat in enumerate(s.markers_on[position]):
                base = SECTION_BASE + SECTION_WIDTH * i
                if seat >= 0:
                    city[position, base + 11 + seat] = 1.0
                elif i < len(cp.SECTIONS[s.tile_at[position]]):
                    city[position, base + 10] = 1.0
        city.flags.writeable = False
        s.city_memo = city
    return s.city_memo


@lru_cache(maxsize=16)  # one per (player count, seat)
def _city_columns(n: int, p: int) -> np.ndarray:
    """Columns of `city_block` that make marker occupants relative to seat p (absent seats: zero)."""
    columns = list(range(CELL))
    for i in range(cp.MAX_SECTIONS):
        base = SECTION_BASE + SECTION_WIDTH * i + 11
        for o in range(4):
            columns[base + o] = base + (p + o) % n if o < n else CELL
    return np.array(columns)


def observation(s: State, p: int) -> np.ndarray:
    obs = np.zeros(OBS_SIZE, dtype=np.float32)
    n = s.n
    city = obs[CITY:DRAGONS].reshape(cp.NUM_POSITIONS, CELL)
    city[:] = city_block(s)[:, _city_columns(n, p)]
    for d, where in enumerate(s.dragons):
        if where == cp.OFF_BOARD:
            obs[DRAGONS + d] = 1.0
        else:
            city[where, 22 + d] = 1.0
    for seat, where in enumerate(s.figures):
        city[where, 25 + (seat - p) % n] = 1.0
    players = obs[PLAYERS:HAND].reshape(4, 8)
    rows = []
    for o in range(n):
        seat = (p + o) % n
        rows += (1.0, s.crystals[seat] / 20.0, s.scales[seat] / 10.0, s.offerings[seat] / 6.0,
                 s.markers[seat] / 10.0, sum(s.hands[seat]) / 20.0,
                 (len(s.pending) if seat == s.active else 0) / 6.0, float(seat == s.active))
    players[:n] = np.array(rows, dtype=np.float32).reshape(n, 8)
    obs[HAND:PILES] = s.hands[p]
    obs[HAND:PILES] *= 0.25
    obs[PILES:PILES + 22] = s.discard
    obs[PILES:PILES + 22] *= 0.1
    costs = cp.OBELISK_COSTS[n]
    obs[PILES + 22:PILES + 27] = (len(s.deck) / 80.0, s.scale_supply / 15.0,
                                  (costs[len(s.obelisk)] if len(s.obelisk) < len(costs) else 0) / 12.0,
                                  len(s.obelisk) / 13.0, cp.OFFERINGS_TO_WIN[n] / 6.0)
    obs[PILES + 27 + n - 2] = 1.0
    if s.decision >= 0:
        obs[TURN + s.decision] = 1.0
    obs[TURN + 5:TURN + 11] = (s.allowance / 6.0, s.teleport, s.scales_claimed, s.offers_this_turn / 4.0,
                               s.discards / 2.0, r.city_complete(s))
    pay = s.payment
    if pay is not None:
        obs[PAYMENT + pay.section] = 1.0
        obs[PAYMENT + 4 + (pay.colour if pay.colour >= 0 else 7)] = 1.0
        obs[PAYMENT + 12] = pay.value / 5.0
        obs[PAYMENT + 13] = pay.total / 6.0
        obs[PAYMENT + 14:PAYMENT + 21] = pay.cap1
        obs[PAYMENT + 14:PAYMENT + 21] *= 0.25
        obs[PAYMENT + 21] = pay.cap_any / 3.0
        obs[PAYMENT + 22:PAYMENT + 44] = pay.committed
        obs[PAYMENT + 22:PAYMENT + 44] *= 0.25
    return obs


# ===== structured view =========================================================================
def view(s: State, p: int) -> dict:
    """Plain data of what seat p knows; the observation encodes exactly this."""
    pay = s.payment
    return {
        "game": "blue_moon_city",
        "player": p,
        "num_players": s.n,
        "decision": r.DECISION_NAMES[s.decision] if s.decision >= 0 else "GAME_OVER",
        "active": s.active,
        "tile_at": list(s.tile_at),
        "complete": list(s.complete),
        "markers_on": [list(m) for m in s.markers_on],
        "dragons": list(s.dragons),
        "figures": list(s.figures),
        "hand": list(s.hands[p]),
        "hand_sizes": [sum(h) for h in s.hands],
        "pending_count": len(s.pending),
        "deck_size": len(s.deck),
        "discard": list(s.discard),
        "crystals": list(s.crystals),
        "scales": list(s.scales),
        "scale_supply": s.scale_supply,
        "offerings": list(s.offerings),
        "markers": list(s.markers),
        "obelisk": list(s.obelisk),
        "next_offer_cost": r.offer_cost(s),
        "turn": {"allowance": s.allowance, "teleport": s.teleport, "scales_claimed": s.scales_claimed,
                 "offers": s.offers_this_turn, "discards": s.discards},
        "payment": None if pay is None else {
            "section": pay.section, "value": pay.value, "colour": pay.colour, "total": pay.total,
            "cap1": list(pay.cap1), "cap_any": pay.cap_any, "committed": list(pay.committed)},
        "turns": s.turns,
        "city_complete": r.city_complete(s),
        "winners": list(s.winners) if s.decision == r.GAME_OVER else None,
    }


# ===== copies and determinization ==============================================================
def copy_payment(pay: Payment | None) -> Payment | None:
    if pay is None:
        return None
    return Payment(section=pay.section, value=pay.value, colour=pay.colour, total=pay.total, cap1=list(pay.cap1),
                   cap_any=pay.cap_any, committed=list(pay.committed))


def copy_state(s: State) -> State:
    """Structured copy: every mutable field is rebuilt; `tile_at` never changes and is shared."""
    return State(
        n=s.n, tile_at=s.tile_at, complete=list(s.complete), markers_on=[list(m) for m in s.markers_on],
        dragons=list(s.dragons), figures=list(s.figures), hands=[list(h) for h in s.hands], deck=list(s.deck),
        discard=list(s.discard), crystals=list(s.crystals), scales=list(s.scales), scale_supply=s.scale_supply,
        offerings=list(s.offerings), markers=list(s.markers), obelisk=list(s.obelisk), pending=list(s.pending),
        active=s.active, decision=s.decision, allowance=s.allowance, teleport=s.teleport,
        scales_claimed=s.scales_claimed, offers_this_turn=s.offers_this_turn, discards=s.discards,
        payment=copy_payment(s.payment), turns=s.turns, last_completion_turn=s.last_completion_turn,
        winners=list(s.winners), truncated=s.truncated, city_memo=s.city_memo,
    )


MAX_REDEALS = 2000


def determinize(s: State, p: int, rng: np.random.Generator) -> State:
    """Redeal what p cannot see: the other hands, the pending reward cards and the deck order.

    The pool is every card that is neither in p's hand nor face up (discard pile, open payment);
    the others' hand sizes, the pending count and the deck size are kept. When another seat is
    building, its public choices say its hand can pay (a section was opened, or the BUILD decision
    was not skipped), so deals that could not are rejected.
    """
    pool = list(s.deck) + list(s.pending)
    for seat in range(s.n):
        if seat != p:
            pool += [x for x in range(cp.NUM_TYPES) for _ in range(s.hands[seat][x])]
    for _ in range(MAX_REDEALS):
        twin = _redeal(s, p, [pool[i] for i in rng.permutation(len(pool))])
        if _consistent(twin, p):
            return twin
    raise RuntimeError(f"no deal consistent with seat {p}'s view in {MAX_REDEALS} tries")


def _redeal(s: State, p: int, pool: list[int]) -> State:
    twin = copy_state(s)
    for seat in range(s.n):
        if seat != p:
            size = sum(s.hands[seat])
            twin.hands[seat] = [0] * cp.NUM_TYPES
            for card in pool[:size]:
                twin.hands[seat][card] += 1
            del pool[:size]
    twin.pending = pool[: len(s.pending)]
    twin.deck = pool[len(s.pending):]
    return twin


def _consistent(twin: State, p: int) -> bool:
    """The active seat's pending building decision is still one its hand could have reached."""
    if twin.active == p or twin.decision not in (r.BUILD, r.PAY):
        return True
    if twin.decision == r.BUILD:
        return bool(r.selectable_sections(twin))
    return bool(r.legal_actions(twin).any())
