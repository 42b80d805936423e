"""What one seat of Blue Moon City may know, its tensor encoding, determinization.

Public: the city, markers, dragons, figures, the obelisk, every seat's crystals (derivable by perfect
recall), scales, offerings, markers, hand size and pending count, the scale supply, the deck size,
the face-up discard pile and the open payment. Private: the seat's own hand. Hidden from everyone:
deck order, other hands, the identities of the active seat's pending reward cards.

Observation for seat p: float32 values laid out by `LAYOUT` (docs/games/blue_moon_city.md shows the
table); seats relative (0 = p).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from city_envs.blue_moon_city import components as cp
from city_envs.blue_moon_city import rules as r
from city_envs.blue_moon_city.rules import Payment, State
from city_envs.core.game import EntityLayout
from city_envs.core.layout import Field, ObservationLayout, table, vector

_RELATIVE = ("me", "next", "second", "third")  # seats in clockwise order from the observer
_CARDS = tuple(f"{cp.COLOUR_NAMES[cp.CARD_COLOUR[t]]}_{cp.CARD_VALUE[t]}" for t in range(cp.NUM_TYPES))
_PAYABLE = cp.COLOUR_NAMES[: cp.NUM_COLOURS]
_REWARD = ("crystals", "cards", "scales")


def _section_fields(i: int) -> tuple[Field, ...]:
    """Section i of a tile: whether it exists, what it takes, and who holds it."""
    return (
        Field(f"section{i}_exists", doc=f"section {i}: exists"),
        Field(f"section{i}_colour", 8, "colour one-hot, 7 + any", (*_PAYABLE, "any")),
        Field(f"section{i}_value", doc="value/5"),
        Field(f"section{i}_occupant", 5, "occupant one-hot (empty, relative seat 0-3)", ("empty", *_RELATIVE)),
    )


LAYOUT = ObservationLayout(
    table(
        "city",
        cp.NUM_POSITIONS,
        "per position",
        Field("tile", cp.NUM_TILES, "tile one-hot", cp.TILE_NAMES),
        Field("completed"),
        Field("dragons", 3, "dragons Fire/Earth/Water", cp.DRAGON_NAMES),
        Field("figures", 4, "figures of relative seats", _RELATIVE),
        *(field for i in range(cp.MAX_SECTIONS) for field in _section_fields(i)),
        Field("star_reward", 3, "star reward crystals/3, cards/2, scales/1", _REWARD),
        Field("each_reward", 3, "each-section reward crystals/3, cards/1, scales/1", _REWARD),
        Field("neighbour_reward", 3, "neighbour reward crystals/3, cards/2, scales/2", _REWARD),
    ),
    vector("dragons", "", Field("off_board", 3, "dragons off the board", cp.DRAGON_NAMES)),
    table(
        "players",
        4,
        "per relative seat",
        Field("present"),
        Field("crystals", doc="crystals/20"),
        Field("scales", doc="scales/10"),
        Field("offerings", doc="offerings/6"),
        Field("markers", doc="markers/10"),
        Field("hand_size", doc="hand size/20"),
        Field("pending", doc="pending/6"),
        Field("active"),
    ),
    vector("hand", "", Field("cards", cp.NUM_TYPES, "own card counts per type/4", _CARDS)),
    vector(
        "piles",
        "",
        Field("discard", cp.NUM_TYPES, "discard pile per type/10", _CARDS),
        Field("deck", doc="deck/80"),
        Field("scale_supply", doc="scale supply/15"),
        Field("obelisk_cost", doc="next obelisk cost/12"),
        Field("obelisk_filled", doc="filled spaces/13"),
        Field("offerings_to_win", doc="offerings to win/6"),
        Field("player_count", 3, "player count one-hot 2-4", ("2", "3", "4")),
    ),
    vector(
        "turn",
        "",
        Field("decision", 5, "decision one-hot"),
        Field("allowance", doc="allowance/6"),
        Field("teleport"),
        Field("scales_claimed", doc="scales claimed"),
        Field("offers", doc="offers this turn/4"),
        Field("discards", doc="discards/2"),
        Field("city_complete", doc="city complete"),
    ),
    vector(
        "payment",
        "",
        Field("section", 4, "section one-hot"),
        Field("colour", 8, "colour one-hot, 7 + unset", (*_PAYABLE, "unset")),
        Field("value", doc="value/5"),
        Field("total", doc="total/6"),
        Field("hoax1", cp.NUM_COLOURS, "Hoax-1 capacity per colour/4", _PAYABLE),
        Field("hoax2", doc="Hoax-2 capacity/3"),
        Field("committed", cp.NUM_TYPES, "committed cards per type/4", _CARDS),
    ),
)
CITY, DRAGONS, PLAYERS, HAND, PILES, TURN, PAYMENT = LAYOUT.blocks
# the city block is one cell per position; the figure's move and every dragon's flight or walk target a position.
# What a position is worth to the seat also depends on its hand, its own row of the players block, the turn, and
# where its figure stands (the figures column of every cell: the distance to walk).
ENTITY_LAYOUT = EntityLayout(
    count=cp.NUM_POSITIONS,
    rows=(CITY.entity_rows(),),
    action_starts=(
        r.MOVE_FIGURE,
        *(r.DRAGON_MOVE + 2 * cp.NUM_POSITIONS * d + cp.NUM_POSITIONS * mode for d in range(3) for mode in range(2)),
    ),
    context=(
        (HAND.start, HAND.stop, 1),
        PLAYERS.row_range(0),
        (TURN.start, TURN.stop, 1),
        CITY.column_range("figures"),
    ),
)
# where the encoder writes, bound once
_COMPLETED, _DRAGONS_AT, _FIGURES = CITY.column("completed"), CITY.column("dragons"), CITY.column("figures")
# per section: the columns of exists, colour, value and occupant
_SECTIONS = tuple(
    tuple(CITY.column(f"section{i}_{part}") for part in ("exists", "colour", "value", "occupant"))
    for i in range(cp.MAX_SECTIONS)
)
_REWARDS = CITY.columns("star_reward", "neighbour_reward")
_DISCARD, _PILE_SCALARS, _PLAYER_COUNT = (
    PILES.span("discard"),
    PILES.span("deck", "offerings_to_win"),
    PILES.index("player_count"),
)
_DECISION, _TURN_SCALARS = TURN.index("decision"), TURN.span("allowance", "city_complete")
_PAY_SECTION, _PAY_COLOUR, _PAY_VALUE, _PAY_TOTAL, _HOAX1, _HOAX2, _COMMITTED = (
    PAYMENT.index("section"),
    PAYMENT.index("colour"),
    PAYMENT.index("value"),
    PAYMENT.index("total"),
    PAYMENT.span("hoax1"),
    PAYMENT.index("hoax2"),
    PAYMENT.span("committed"),
)


@lru_cache(maxsize=64)
def static_city(tile_at: tuple[int, ...]) -> np.ndarray:
    """The printed side of the layout: tile identities, sections and rewards (read-only).

    Every deal has its own layout, so the cache keeps only the most recent ones (a process plays
    one or a few matches at a time; an unbounded cache grew with every match played)."""
    city = np.zeros(CITY.shape, dtype=np.float32)
    for position, tile in enumerate(tile_at):
        cell = city[position]
        cell[tile] = 1.0  # the tile one-hot starts the cell
        for (exists, colours, value_at, _), (colour, value) in zip(_SECTIONS, cp.SECTIONS[tile], strict=False):
            cell[exists] = 1.0
            cell[colours + (cp.NUM_COLOURS if colour == cp.ANY else colour)] = 1.0
            cell[value_at] = value / 5.0
        (sc, sk, ss), (ec, ek, es), (nc, nk, ns) = cp.STAR_REWARD[tile], cp.EACH_REWARD[tile], cp.NEIGHBOUR_REWARD[tile]
        cell[_REWARDS] = (sc / 3, sk / 2, ss, ec / 3, ek, es, nc / 3, nk / 2, ns / 2)
    city.flags.writeable = False
    return city


def city_block(s: State) -> np.ndarray:
    """The city with completed tiles and markers by absolute seat, plus a zero column (21 x 98 + 1).

    It changes only when a payment completes, so it is memoized on the state (`city_memo`).
    """
    if s.city_memo is None:
        city = np.zeros((cp.NUM_POSITIONS, CITY.width + 1), dtype=np.float32)
        city[:, : CITY.width] = static_city(tuple(s.tile_at))
        for position in range(cp.NUM_POSITIONS):
            if s.complete[position]:
                city[position, _COMPLETED] = 1.0
            for i, seat in enumerate(s.markers_on[position]):
                occupant = _SECTIONS[i][3]
                if seat >= 0:
                    city[position, occupant + 1 + seat] = 1.0
                elif i < len(cp.SECTIONS[s.tile_at[position]]):
                    city[position, occupant] = 1.0
        city.flags.writeable = False
        s.city_memo = city
    return s.city_memo


@lru_cache(maxsize=16)  # one per (player count, seat)
def _city_columns(n: int, p: int) -> np.ndarray:
    """Columns of `city_block` that make marker occupants relative to seat p (absent seats: zero)."""
    columns = list(range(CITY.width))
    for *_, occupant in _SECTIONS:
        for o in range(4):
            columns[occupant + 1 + o] = occupant + 1 + (p + o) % n if o < n else CITY.width
    return np.array(columns)


def observation(s: State, p: int) -> np.ndarray:
    obs = np.zeros(LAYOUT.size, dtype=np.float32)
    n = s.n
    city = CITY.view(obs)
    city[:] = city_block(s)[:, _city_columns(n, p)]
    for d, where in enumerate(s.dragons):
        if where == cp.OFF_BOARD:
            obs[DRAGONS.start + d] = 1.0
        else:
            city[where, _DRAGONS_AT + d] = 1.0
    for seat, where in enumerate(s.figures):
        city[where, _FIGURES + (seat - p) % n] = 1.0
    players = PLAYERS.view(obs)
    rows: list[float] = []
    for o in range(n):
        seat = (p + o) % n
        rows += (
            1.0,
            s.crystals[seat] / 20.0,
            s.scales[seat] / 10.0,
            s.offerings[seat] / 6.0,
            s.markers[seat] / 10.0,
            sum(s.hands[seat]) / 20.0,
            (len(s.pending) if seat == s.active else 0) / 6.0,
            float(seat == s.active),
        )
    players[:n] = np.array(rows, dtype=np.float32).reshape(n, PLAYERS.width)
    obs[HAND.slice] = s.hands[p]
    obs[HAND.slice] *= 0.25
    obs[_DISCARD] = s.discard
    obs[_DISCARD] *= 0.1
    costs = cp.OBELISK_COSTS[n]
    obs[_PILE_SCALARS] = (
        len(s.deck) / 80.0,
        s.scale_supply / 15.0,
        (costs[len(s.obelisk)] if len(s.obelisk) < len(costs) else 0) / 12.0,
        len(s.obelisk) / 13.0,
        cp.OFFERINGS_TO_WIN[n] / 6.0,
    )
    obs[_PLAYER_COUNT + n - 2] = 1.0
    if s.decision >= 0:
        obs[_DECISION + s.decision] = 1.0
    obs[_TURN_SCALARS] = (
        s.allowance / 6.0,
        s.teleport,
        s.scales_claimed,
        s.offers_this_turn / 4.0,
        s.discards / 2.0,
        r.city_complete(s),
    )
    pay = s.payment
    if pay is not None:
        obs[_PAY_SECTION + pay.section] = 1.0
        obs[_PAY_COLOUR + (pay.colour if pay.colour >= 0 else cp.NUM_COLOURS)] = 1.0
        obs[_PAY_VALUE] = pay.value / 5.0
        obs[_PAY_TOTAL] = pay.total / 6.0
        obs[_HOAX1] = pay.cap1
        obs[_HOAX1] *= 0.25
        obs[_HOAX2] = pay.cap_any / 3.0
        obs[_COMMITTED] = pay.committed
        obs[_COMMITTED] *= 0.25
    return obs


# ===== structured view =========================================================================
def view(s: State, p: int) -> dict:
    """Plain data of what seat p knows; the observation encodes exactly this."""
    pay = s.payment
    return {
        "game": "blue_moon_city",
        "player": p,
        "num_players": s.n,
        "decision": r.Decision.name_of(s.decision),
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
        "turn": {
            "allowance": s.allowance,
            "teleport": s.teleport,
            "scales_claimed": s.scales_claimed,
            "offers": s.offers_this_turn,
            "discards": s.discards,
        },
        "payment": None
        if pay is None
        else {
            "section": pay.section,
            "value": pay.value,
            "colour": pay.colour,
            "total": pay.total,
            "cap1": list(pay.cap1),
            "cap_any": pay.cap_any,
            "committed": list(pay.committed),
        },
        "turns": s.turns,
        "city_complete": r.city_complete(s),
        "winners": list(s.winners) if s.decision == r.GAME_OVER else None,
    }


# ===== copies and determinization ==============================================================
def copy_payment(pay: Payment | None) -> Payment | None:
    if pay is None:
        return None
    return Payment(
        section=pay.section,
        value=pay.value,
        colour=pay.colour,
        total=pay.total,
        cap1=list(pay.cap1),
        cap_any=pay.cap_any,
        committed=list(pay.committed),
    )


SHARED_BY_COPIES = frozenset({"tile_at"})  # where each building tile lies: fixed at setup


def copy_state(s: State) -> State:
    """Structured copy: every mutable field is rebuilt; `tile_at` never changes and is shared."""
    return State(
        n=s.n,
        tile_at=s.tile_at,
        complete=list(s.complete),
        markers_on=[list(m) for m in s.markers_on],
        dragons=list(s.dragons),
        figures=list(s.figures),
        hands=[list(h) for h in s.hands],
        deck=list(s.deck),
        discard=list(s.discard),
        crystals=list(s.crystals),
        scales=list(s.scales),
        scale_supply=s.scale_supply,
        offerings=list(s.offerings),
        markers=list(s.markers),
        obelisk=list(s.obelisk),
        pending=list(s.pending),
        active=s.active,
        decision=s.decision,
        allowance=s.allowance,
        teleport=s.teleport,
        scales_claimed=s.scales_claimed,
        offers_this_turn=s.offers_this_turn,
        discards=s.discards,
        payment=copy_payment(s.payment),
        turns=s.turns,
        last_completion_turn=s.last_completion_turn,
        winners=list(s.winners),
        truncated=s.truncated,
        city_memo=s.city_memo,
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
    twin.deck = pool[len(s.pending) :]
    return twin


def _consistent(twin: State, p: int) -> bool:
    """The active seat's pending building decision is still one its hand could have reached."""
    if twin.active == p or twin.decision not in (r.Decision.BUILD, r.Decision.PAY):
        return True
    if twin.decision == r.Decision.BUILD:
        return bool(r.selectable_sections(twin))
    return bool(r.legal_actions(twin).any())
