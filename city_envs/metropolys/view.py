"""What one seat of Metropolys may know, its tensor encoding, and determinization.

Everything is public except the secret cards: each seat sees its own; at the end all are revealed.
Remaining supplies are public (every value was shown while it was a bid; perfect recall).

Observation for seat p: float32 values laid out by `LAYOUT` (the constant adjacency matrix and the
action mask are left out; the adapter adds the mask). Seat columns and rows are seat-relative:
0 = p, then clockwise; rows of absent seats are zero. docs/games/metropolys.md shows the table.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from city_envs.core.game import EntityLayout
from city_envs.core.layout import Field, ObservationLayout, table, vector
from city_envs.metropolys import components as cp
from city_envs.metropolys import rules as r
from city_envs.metropolys.rules import State

N = cp.NUM_NBHDS
MAX_CALLS = 49
_ROWS = np.arange(N)
_RELATIVE = ("me", "next", "second", "third")  # seats in clockwise order from the observer
LAYOUT = ObservationLayout(
    table(
        "static",
        N,
        "per neighbourhood, fixed for the match",
        Field("district", 5, "district one-hot", cp.DISTRICT_NAMES),
        Field("colour", 5, "colour one-hot", cp.COLOUR_NAMES),
        Field("lake_side", doc="lake-side"),
        Field("statue_side", doc="statue-side"),
        Field("bridge_end", doc="bridge end"),
        Field("border"),
        Field("dead_end", doc="dead end"),
        Field("in_play", doc="in play"),
        Field("token_eligible", doc="token-eligible"),
    ),
    table(
        "dynamic",
        N,
        "per neighbourhood, as play goes",
        Field("token", 4, "token one-hot none/trendy/subway/arch", cp.TOKEN_NAMES),
        Field("built_by", 4, "built by, relative one-hot", _RELATIVE),
        Field("built_value", doc="built value/13"),
        Field("height_class", 3, "height class one-hot", ("small", "medium", "tall")),
        Field("bid_by", 4, "bid by, relative one-hot", _RELATIVE),
        Field("bid_value", doc="bid value/13"),
        Field("top_bid", doc="is top bid"),
        Field("legal", doc="legal now for me"),
        Field("chosen", doc="chosen in my pending bid"),
    ),
    table(
        "players",
        4,
        "per relative seat",
        Field("available_values", 13, "available values", tuple(str(v) for v in cp.VALUES)),
        Field("built", doc="built/13"),
        Field("tokens", 3, "trendy, subway, arch tokens/9", cp.TOKEN_NAMES[1:]),
        Field("subway_card", doc="holds Subway card"),
        Field("arch_card", doc="holds Arch card"),
        Field("passed", doc="passed this call"),
        Field("top_bidder", doc="top bidder"),
        Field("opener", doc="opened this call"),
        Field("acting"),
        Field("public_score", doc="public score/50 (tokens and cards)"),
        Field("present"),
    ),
    vector(
        "private",
        "the observer's secret cards",
        Field("family_area_card", 4, "my family Area card one-hot", cp.FAMILY_CARD_NAMES),
        Field("neighbourhood_colour", 5, "my Neighbourhood colour", cp.COLOUR_NAMES),
        Field("expert_area_card", 5, "my expert Area card", cp.EXPERT_AREA_NAMES),
    ),
    vector(
        "global",
        "",
        Field("decision", 2, "decision one-hot NBHD/VALUE"),
        Field("top_value", doc="top value/13"),
        Field("bids", doc="bids in this call/13"),
        Field("version", 2, "version one-hot", ("family", "expert")),
        Field("player_count", 3, "player count one-hot 2-4", ("2", "3", "4")),
        Field("removed_districts", 5, "removed districts", cp.DISTRICT_NAMES),
        Field("calls", doc=f"calls completed/{MAX_CALLS}"),
    ),
)
STATIC, DYNAMIC, PLAYERS, PRIVATE, GLOBAL = LAYOUT.blocks
# a neighbourhood's static and dynamic rows describe it; the neighbourhood actions (where to bid) act on it, and
# what a bid there is worth also depends on the seat's own row of the players block, its cards and the call
ENTITY_LAYOUT = EntityLayout(
    count=N,
    rows=(STATIC.entity_rows(), DYNAMIC.entity_rows()),
    action_starts=(r.NBHD_ACTION,),
    context=(PLAYERS.row_range(0), (PRIVATE.start, LAYOUT.size, 1)),
)
# where the encoder writes, bound once
_DISTRICT = STATIC.column("district")
_COLOUR = STATIC.column("colour")
_FIXED_FLAGS = STATIC.columns("lake_side", "token_eligible")
_BOARD = DYNAMIC.columns("token", "height_class")  # what `board_block` holds, its owner columns made relative
_BUILT_BY, _BUILT_VALUE, _HEIGHT = (DYNAMIC.column(f) for f in ("built_by", "built_value", "height_class"))
_BID_BY, _BID_VALUE, _TOP_BID = (DYNAMIC.column(f) for f in ("bid_by", "bid_value", "top_bid"))
_LEGAL, _CHOSEN = DYNAMIC.column("legal"), DYNAMIC.column("chosen")
_VALUES, _SEAT_SCALARS = PLAYERS.columns("available_values"), PLAYERS.columns("built", "present")
_FAMILY, _COLOUR_CARD, _AREA_CARD = (
    PRIVATE.index(f) for f in ("family_area_card", "neighbourhood_colour", "expert_area_card")
)
_DECISION, _TOP_VALUE, _BIDS, _VERSION, _PLAYER_COUNT, _REMOVED, _CALLS = (
    GLOBAL.index(f) for f in ("decision", "top_value", "bids", "version", "player_count", "removed_districts", "calls")
)
# VALUE_BITS[mask] = the 13 values of a supply mask as 0/1 floats
VALUE_BITS = ((np.arange(1 << cp.NUM_BUILDINGS)[:, None] >> np.arange(cp.NUM_BUILDINGS)) & 1).astype(np.float32)


@lru_cache(maxsize=16)
def static_block(removed: tuple[int, ...]) -> np.ndarray:
    """The board's fixed features for one choice of removed districts (read-only)."""
    block = np.zeros(STATIC.shape, dtype=np.float32)
    for nb in range(N):
        block[nb, _DISTRICT + cp.DISTRICT[nb]] = 1.0
        block[nb, _COLOUR + cp.COLOUR[nb]] = 1.0
        block[nb, _FIXED_FLAGS] = (
            nb in cp.LAKE_SIDE,
            nb in cp.STATUE_SIDE,
            nb in cp.BRIDGE_END,
            nb in cp.BORDER,
            nb in cp.DEAD_END,
            cp.DISTRICT[nb] not in removed,
            nb in cp.TOKEN_OK,
        )
    block.flags.writeable = False
    return block.ravel()


def board_block(s: State) -> np.ndarray:
    """The dynamic columns from `token` to `height_class`, owners by absolute seat 0..3, and a zero
    column used for padding (55 x 13).

    It changes only when a call ends, so it is memoized on the state (`board_memo`).
    """
    if s.board_memo is None:
        block = np.zeros((N, _BOARD.stop + 1), dtype=np.float32)
        block[_ROWS, s.token] = 1.0
        for nb, seat in enumerate(s.owner):
            if seat >= 0:
                value = s.built_value[nb]
                block[nb, _BUILT_BY + seat] = 1.0
                block[nb, _BUILT_VALUE] = value / 13.0
                block[nb, _HEIGHT + cp.HEIGHT_CLASS[value]] = 1.0
        block.flags.writeable = False
        s.board_memo = block
    return s.board_memo


@lru_cache(maxsize=16)  # one per (player count, seat)
def _board_columns(n: int, p: int) -> np.ndarray:
    """Columns of `board_block` giving seat-relative owners for seat p (absent seats: zero column)."""
    owners = [_BUILT_BY + (p + o) % n if o < n else _BOARD.stop for o in range(4)]
    columns = list(range(_BOARD.stop))
    columns[_BUILT_BY : _BUILT_BY + 4] = owners
    return np.array(columns)


def observation(s: State, p: int) -> np.ndarray:
    obs = np.zeros(LAYOUT.size, dtype=np.float32)
    n = s.n
    obs[STATIC.slice] = static_block(tuple(s.removed))
    dyn = DYNAMIC.view(obs)
    dyn[:, _BOARD] = board_block(s)[:, _board_columns(n, p)]
    for seat, nb, value in s.bids:
        dyn[nb, _BID_BY + (seat - p) % n] = 1.0
        dyn[nb, _BID_VALUE] = value / 13.0
    if s.bids:
        dyn[s.bids[-1][1], _TOP_BID] = 1.0
    if s.actor == p:
        if s.decision == r.Decision.NBHD:
            dyn[r.legal_nbhds(s), _LEGAL] = 1.0
        elif s.decision == r.Decision.VALUE:
            dyn[s.chosen, _CHOSEN] = 1.0
    players = PLAYERS.view(obs)
    order = [(p + o) % n for o in range(n)]
    players[:n, _VALUES] = VALUE_BITS[[s.supply[i] for i in order]]
    top_seat = s.bids[-1][0] if s.bids else -1
    opener = s.opener if s.actor >= 0 else -1
    rows: list[float] = []
    for i in order:
        trendy, subway, arch = s.tokens[i]
        rows += (
            s.built[i] / 13.0,
            trendy / 9.0,
            subway / 9.0,
            arch / 9.0,
            float(s.subway_card == i),
            float(s.arch_card == i),
            float(s.passed >> i & 1),
            float(top_seat == i),
            float(opener == i),
            float(s.actor == i),
            r.token_points(s, i) / 50.0,
            1.0,
        )
    players[:n, _SEAT_SCALARS] = np.array(rows, dtype=np.float32).reshape(n, -1)
    if s.family_card[p] >= 0:
        obs[_FAMILY + s.family_card[p]] = 1.0
    if s.colour_card[p] >= 0:
        obs[_COLOUR_CARD + s.colour_card[p]] = 1.0
        obs[_AREA_CARD + s.area_card[p]] = 1.0
    if s.decision >= 0:
        obs[_DECISION + s.decision] = 1.0
    if s.bids:
        obs[_TOP_VALUE] = s.bids[-1][2] / 13.0
        obs[_BIDS] = len(s.bids) / 13.0
    obs[_VERSION + (s.version == r.EXPERT)] = 1.0
    obs[_PLAYER_COUNT + n - 2] = 1.0
    for district in s.removed:
        obs[_REMOVED + district] = 1.0
    obs[_CALLS] = s.calls / MAX_CALLS
    return obs


# ===== structured view =========================================================================
def secret_cards(s: State, seat: int) -> dict:
    if s.version == r.FAMILY:
        card = s.family_card[seat]
        return {"area": cp.FAMILY_CARD_NAMES[card] if card >= 0 else None}
    return {"neighbourhood": cp.COLOUR_NAMES[s.colour_card[seat]], "area": cp.EXPERT_AREA_NAMES[s.area_card[seat]]}


def public_board(s: State) -> tuple:
    """The fields of `view` that change only when a call ends, as tuples: the removed districts, the
    tokens on the board, the buildings, each seat's buildings built, tokens taken and public score.
    All public, so one memo on the state (`view_memo`) serves every seat's view."""
    if s.view_memo is None:
        s.view_memo = (
            tuple(cp.DISTRICT_NAMES[d] for d in s.removed),
            tuple((nb, cp.TOKEN_NAMES[t]) for nb, t in enumerate(s.token) if t != cp.NO_TOKEN),
            tuple((nb, (s.owner[nb], s.built_value[nb])) for nb in range(N) if s.owner[nb] >= 0),
            tuple(s.built),
            tuple(tuple(zip(cp.TOKEN_NAMES[1:], counts, strict=True)) for counts in s.tokens),
            tuple(r.token_points(s, seat) for seat in range(s.n)),
        )
    return s.view_memo


def view(s: State, p: int) -> dict:
    """Plain data of what seat p knows; the observation encodes exactly this."""
    over = s.decision == r.GAME_OVER
    removed, tokens_on_board, buildings, built, tokens, public_scores = public_board(s)
    return {
        "game": "metropolys",
        "player": p,
        "num_players": s.n,
        "version": s.version,
        "removed_districts": list(removed),
        "decision": r.Decision.name_of(s.decision),
        "actor": s.actor,
        "opener": s.opener if not over else -1,
        "calls": s.calls,
        "tokens_on_board": dict(tokens_on_board),
        "buildings": dict(buildings),
        "bids": [tuple(b) for b in s.bids],
        "chosen": s.chosen if s.actor == p else -1,
        "passed": [seat for seat in range(s.n) if s.passed >> seat & 1],
        "supply": [r.values_of(mask) for mask in s.supply],
        "built": list(built),
        "tokens": [dict(counts) for counts in tokens],
        "subway_card": s.subway_card,
        "arch_card": s.arch_card,
        "public_scores": list(public_scores),
        "my_cards": secret_cards(s, p),
        "revealed_cards": [secret_cards(s, seat) for seat in range(s.n)] if over else None,
        "scores": [r.score(s, seat) for seat in range(s.n)] if over else None,
    }


# ===== copies and determinization ==============================================================
SHARED_BY_COPIES = frozenset({"removed", "in_play"})  # the districts out of play: fixed at setup


def copy_state(s: State) -> State:
    """Structured copy: every mutable field is rebuilt, immutable ones shared."""
    return State(
        n=s.n,
        version=s.version,
        removed=s.removed,
        in_play=s.in_play,
        token=list(s.token),
        owner=list(s.owner),
        built_value=list(s.built_value),
        bid_owner=list(s.bid_owner),
        bid_value=list(s.bid_value),
        supply=list(s.supply),
        built=list(s.built),
        tokens=[list(t) for t in s.tokens],
        subway_card=s.subway_card,
        arch_card=s.arch_card,
        family_card=list(s.family_card),
        colour_card=list(s.colour_card),
        area_card=list(s.area_card),
        opener=s.opener,
        bids=list(s.bids),
        passed=s.passed,
        decision=s.decision,
        actor=s.actor,
        chosen=s.chosen,
        calls=s.calls,
        board_memo=s.board_memo,
        view_memo=s.view_memo,
    )


def _redeal(cards: list[int], deck: list[int], p: int, rng: np.random.Generator) -> list[int]:
    """Other seats' cards drawn from the deck minus p's own card (p's card stays)."""
    pool = [c for c in deck if c != cards[p]]
    drawn = [pool[i] for i in rng.permutation(len(pool))]
    return [cards[p] if seat == p else drawn.pop() for seat in range(len(cards))]


def determinize(s: State, p: int, rng: np.random.Generator) -> State:
    """Resample the secret cards p cannot see: the only hidden information of the game."""
    twin = copy_state(s)
    if s.decision == r.GAME_OVER:
        return twin  # everything was revealed
    if s.version == r.FAMILY:
        deck = [c for c in range(4) if not (s.n == 2 and c == cp.FAMILY_BORDERS)]
        twin.family_card = _redeal(s.family_card, deck, p, rng)
    else:
        twin.colour_card = _redeal(s.colour_card, list(range(5)), p, rng)
        twin.area_card = _redeal(s.area_card, list(range(5)), p, rng)
    return twin
