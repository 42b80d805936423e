"""What one seat of Metropolys may know, its tensor encoding, and determinization.

Everything is public except the secret cards: each seat sees its own; at the end all are revealed.
Remaining supplies are public (every value was shown while it was a bid; perfect recall).

Observation for seat p: float32, 2164 values (the constant
adjacency matrix and the action mask are left out; the adapter adds the mask). Seat columns and
rows are seat-relative: 0 = p, then clockwise; rows of absent seats are zero.

| offset | block | contents |
|---|---|---|
| 0    | static (55x17)  | district one-hot (5); colour one-hot (5); lake-side; statue-side; bridge end; border;
|      |                 | dead end; in play; token-eligible |
| 935  | dynamic (55x20) | token one-hot none/trendy/subway/arch (4); built by, relative one-hot (4); built value/13;
|      |                 | height class one-hot (3); bid by, relative one-hot (4); bid value/13; is top bid;
|      |                 | legal now for me; chosen in my pending bid |
| 2035 | players (4x25)  | available values (13); built/13; trendy, subway, arch tokens/9 (3); holds Subway card;
|      |                 | holds Arch card; passed this call; top bidder; opened this call; acting;
|      |                 | public score/50 (tokens and cards); present |
| 2135 | private (14)    | my family Area card one-hot (4); my Neighbourhood colour (5); my expert Area card (5) |
| 2149 | global (15)     | decision one-hot NBHD/VALUE (2); top value/13; bids in this call/13; version one-hot (2);
|      |                 | player count one-hot 2..4 (3); removed districts (5); calls completed/49 |
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from city_envs.core.game import EntityLayout
from city_envs.metropolys import components as cp
from city_envs.metropolys import rules as r
from city_envs.metropolys.rules import State

N = cp.NUM_NBHDS
STATIC, DYNAMIC, PLAYERS, PRIVATE, GLOBAL = 0, 935, 2035, 2135, 2149
OBS_SIZE = 2164
STATIC_WIDTH, DYNAMIC_WIDTH, PLAYER_WIDTH = 17, 20, 25
MAX_CALLS = 49
_ROWS = np.arange(N)
# a neighbourhood's static and dynamic rows describe it; the neighbourhood actions (where to bid) act on it, and
# what a bid there is worth also depends on the seat's own row of the players block, its cards and the call
ENTITY_LAYOUT = EntityLayout(
    count=N, rows=((STATIC, STATIC_WIDTH), (DYNAMIC, DYNAMIC_WIDTH)), action_starts=(r.NBHD_ACTION,),
    context=((PLAYERS, PLAYERS + PLAYER_WIDTH, 1), (PRIVATE, OBS_SIZE, 1)),
)
# VALUE_BITS[mask] = the 13 values of a supply mask as 0/1 floats
VALUE_BITS = ((np.arange(1 << cp.NUM_BUILDINGS)[:, None] >> np.arange(cp.NUM_BUILDINGS)) & 1).astype(np.float32)


@lru_cache(maxsize=16)
def static_block(removed: tuple[int, ...]) -> np.ndarray:
    """The board's fixed features for one choice of removed districts (read-only)."""
    block = np.zeros((N, STATIC_WIDTH), dtype=np.float32)
    for nb in range(N):
        block[nb, cp.DISTRICT[nb]] = 1.0
        block[nb, 5 + cp.COLOUR[nb]] = 1.0
        block[nb, 10:17] = (nb in cp.LAKE_SIDE, nb in cp.STATUE_SIDE, nb in cp.BRIDGE_END, nb in cp.BORDER,
                            nb in cp.DEAD_END, cp.DISTRICT[nb] not in removed, nb in cp.TOKEN_OK)
    block.flags.writeable = False
    return block.ravel()


def board_block(s: State) -> np.ndarray:
    """Tokens and buildings with absolute owners, (55, 13): token one-hot (4), owner seat 0..3
    one-hot (4), value/13, height class one-hot (3), a zero column used for padding.

    It changes only when a call ends, so it is memoized on the state (`board_memo`).
    """
    if s.board_memo is None:
        block = np.zeros((N, 13), dtype=np.float32)
        block[_ROWS, s.token] = 1.0
        for nb, seat in enumerate(s.owner):
            if seat >= 0:
                value = s.built_value[nb]
                block[nb, 4 + seat] = 1.0
                block[nb, 8] = value / 13.0
                block[nb, 9 + cp.HEIGHT_CLASS[value]] = 1.0
        block.flags.writeable = False
        s.board_memo = block
    return s.board_memo


@lru_cache(maxsize=16)  # one per (player count, seat)
def _board_columns(n: int, p: int) -> np.ndarray:
    """Columns of `board_block` giving seat-relative owners for seat p (absent seats: zero column)."""
    owners = [4 + (p + o) % n if o < n else 12 for o in range(4)]
    return np.array([0, 1, 2, 3, *owners, 8, 9, 10, 11])


def observation(s: State, p: int) -> np.ndarray:
    obs = np.zeros(OBS_SIZE, dtype=np.float32)
    n = s.n
    obs[STATIC:DYNAMIC] = static_block(tuple(s.removed))
    dyn = obs[DYNAMIC:PLAYERS].reshape(N, DYNAMIC_WIDTH)
    dyn[:, :12] = board_block(s)[:, _board_columns(n, p)]
    for seat, nb, value in s.bids:
        dyn[nb, 12 + (seat - p) % n] = 1.0
        dyn[nb, 16] = value / 13.0
    if s.bids:
        dyn[s.bids[-1][1], 17] = 1.0
    if s.actor == p:
        if s.decision == r.NBHD:
            dyn[r.legal_nbhds(s), 18] = 1.0
        elif s.decision == r.VALUE:
            dyn[s.chosen, 19] = 1.0
    players = obs[PLAYERS:PRIVATE].reshape(4, PLAYER_WIDTH)
    order = [(p + o) % n for o in range(n)]
    players[:n, :13] = VALUE_BITS[[s.supply[i] for i in order]]
    top_seat = s.bids[-1][0] if s.bids else -1
    opener = s.opener if s.actor >= 0 else -1
    rows = []
    for i in order:
        trendy, subway, arch = s.tokens[i]
        rows += (s.built[i] / 13.0, trendy / 9.0, subway / 9.0, arch / 9.0, float(s.subway_card == i),
                 float(s.arch_card == i), float(s.passed >> i & 1), float(top_seat == i), float(opener == i),
                 float(s.actor == i), r.token_points(s, i) / 50.0, 1.0)
    players[:n, 13:] = np.array(rows, dtype=np.float32).reshape(n, 12)
    if s.family_card[p] >= 0:
        obs[PRIVATE + s.family_card[p]] = 1.0
    if s.colour_card[p] >= 0:
        obs[PRIVATE + 4 + s.colour_card[p]] = 1.0
        obs[PRIVATE + 9 + s.area_card[p]] = 1.0
    g = GLOBAL
    if s.decision >= 0:
        obs[g + s.decision] = 1.0
    if s.bids:
        obs[g + 2] = s.bids[-1][2] / 13.0
        obs[g + 3] = len(s.bids) / 13.0
    obs[g + 4 + (s.version == r.EXPERT)] = 1.0
    obs[g + 6 + n - 2] = 1.0
    for district in s.removed:
        obs[g + 9 + district] = 1.0
    obs[g + 14] = s.calls / MAX_CALLS
    return obs


# ===== structured view =========================================================================
def secret_cards(s: State, seat: int) -> dict:
    if s.version == r.FAMILY:
        card = s.family_card[seat]
        return {"area": cp.FAMILY_CARD_NAMES[card] if card >= 0 else None}
    return {"neighbourhood": cp.COLOUR_NAMES[s.colour_card[seat]], "area": cp.EXPERT_AREA_NAMES[s.area_card[seat]]}


def view(s: State, p: int) -> dict:
    """Plain data of what seat p knows; the observation encodes exactly this."""
    over = s.decision == r.GAME_OVER
    return {
        "game": "metropolys",
        "player": p,
        "num_players": s.n,
        "version": s.version,
        "removed_districts": [cp.DISTRICT_NAMES[d] for d in s.removed],
        "decision": r.DECISION_NAMES[s.decision] if s.decision >= 0 else "GAME_OVER",
        "actor": s.actor,
        "opener": s.opener if not over else -1,
        "calls": s.calls,
        "tokens_on_board": {nb: cp.TOKEN_NAMES[t] for nb, t in enumerate(s.token) if t != cp.NO_TOKEN},
        "buildings": {nb: (s.owner[nb], s.built_value[nb]) for nb in range(N) if s.owner[nb] >= 0},
        "bids": [tuple(b) for b in s.bids],
        "chosen": s.chosen if s.actor == p else -1,
        "passed": [seat for seat in range(s.n) if s.passed >> seat & 1],
        "supply": [r.values_of(mask) for mask in s.supply],
        "built": list(s.built),
        "tokens": [dict(zip(cp.TOKEN_NAMES[1:], counts, strict=True)) for counts in s.tokens],
        "subway_card": s.subway_card,
        "arch_card": s.arch_card,
        "public_scores": [r.token_points(s, seat) for seat in range(s.n)],
        "my_cards": secret_cards(s, p),
        "revealed_cards": [secret_cards(s, seat) for seat in range(s.n)] if over else None,
        "scores": [r.score(s, seat) for seat in range(s.n)] if over else None,
    }


# ===== copies and determinization ==============================================================
def copy_state(s: State) -> State:
    """Structured copy: every mutable field is rebuilt, immutable ones shared."""
    return State(
        n=s.n, version=s.version, removed=s.removed, in_play=s.in_play, token=list(s.token),
        owner=list(s.owner), built_value=list(s.built_value), bid_owner=list(s.bid_owner),
        bid_value=list(s.bid_value), supply=list(s.supply), built=list(s.built),
        tokens=[list(t) for t in s.tokens], subway_card=s.subway_card, arch_card=s.arch_card,
        family_card=list(s.family_card), colour_card=list(s.colour_card), area_card=list(s.area_card),
        opener=s.opener, bids=list(s.bids), passed=s.passed, decision=s.decision, actor=s.actor,
        chosen=s.chosen, calls=s.calls, board_memo=s.board_memo,
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
