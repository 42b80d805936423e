"""Metropolys rules: the state, the legal actions and the transitions (docs/games/metropolys.md).

Flat action space, 69 ids (the action table in docs/games/metropolys.md). A bid is two decisions by
the same seat: first the neighbourhood, then the building value.

| ids   | action       | decoding          | decision kind |
|-------|--------------|-------------------|---------------|
| 0-54  | NEIGHBOURHOOD| nbhd = id         | NBHD          |
| 55-67 | VALUE        | value = id - 54   | VALUE         |
| 68    | PASS         |                   | NBHD (never for the opener's first bid) |

Forced passes (nothing to outbid with, or no free neighbour around the top bid) are applied
automatically, so every presented decision has a real choice or is the opener's bid.
Value sets (supplies) are 13-bit masks: bit v-1 is value v.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache, lru_cache
from itertools import combinations

import numpy as np

from city_envs.core.decisions import DecisionTable
from city_envs.core.game import leaders
from city_envs.metropolys import components as cp

# ----- action ids ------------------------------------------------------------------------------
NBHD_ACTION = 0
VALUE_ACTION = 55
PASS = 68
NUM_ACTIONS = 69


# ----- decision kinds --------------------------------------------------------------------------
class Decision(DecisionTable):
    """The kinds of pending decision. The ids are what observations one-hot and recorded matches
    store, so they never change; the names are what logs, the web page and the docs show."""

    NBHD = 0
    VALUE = 1


GAME_OVER = -1

FAMILY, EXPERT = "family", "expert"
FULL_SUPPLY = (1 << cp.NUM_BUILDINGS) - 1


def values_of(mask: int) -> list[int]:
    return list(_values_of(mask))


@lru_cache(maxsize=1 << 13)  # one entry per supply mask (13 values), so the bound is never reached
def _values_of(mask: int) -> tuple[int, ...]:
    return tuple(v for v in cp.VALUES if mask >> (v - 1) & 1)


def values_above(mask: int, value: int) -> int:
    """The values of `mask` strictly greater than `value`."""
    return mask & ~((1 << value) - 1)


@dataclass
class State:
    """Everything that changes during a match; plain data mirrored by `to_dict`.

    Seats are 0..n-1 clockwise. Neighbourhood lists are indexed by id 0..54.
    """

    n: int
    version: str  # "family" or "expert"
    removed: list[int]  # districts out of play
    in_play: list[bool]  # per neighbourhood
    token: list[int]  # per neighbourhood, token still on the board (cp.NO_TOKEN ... cp.ARCH)
    owner: list[int]  # per neighbourhood, seat that built there or -1
    built_value: list[int]  # per neighbourhood, value built there or 0
    bid_owner: list[int]  # per neighbourhood, seat with a bid there in this call or -1
    bid_value: list[int]  # per neighbourhood, value of that bid or 0
    supply: list[int]  # per seat, mask of values neither built nor bid
    built: list[int]  # per seat, buildings built
    tokens: list[list[int]]  # per seat, counts of [trendy, subway, archaeological] taken
    subway_card: int = -1  # seat holding the Subway card
    arch_card: int = -1  # seat holding the Archaeological-site card
    family_card: list[int] = field(default_factory=list)  # per seat, family Area card or -1
    colour_card: list[int] = field(default_factory=list)  # per seat, expert Neighbourhood colour or -1
    area_card: list[int] = field(default_factory=list)  # per seat, expert Area card or -1
    # the call for proposals
    opener: int = 0
    bids: list[tuple[int, int, int]] = field(default_factory=list)  # (seat, nbhd, value), last = top
    passed: int = 0  # mask of seats out of this call
    decision: int = Decision.NBHD  # GAME_OVER at the end
    actor: int = 0  # seat to decide, -1 at the end
    chosen: int = -1  # neighbourhood picked in the pending bid (VALUE decision)
    calls: int = 0  # calls completed
    # memo of view.board_block (tokens and buildings, which change only when a call ends); not
    # serialized, shared by copies (never mutated, only dropped), recomputed when None
    board_memo: np.ndarray | None = field(default=None, compare=False, repr=False)
    # memo of view.public_board (the public fields of `view` that change only when a call ends), on the
    # same terms as board_memo; immutable (tuples), so every seat's view of the position may share it
    view_memo: tuple | None = field(default=None, compare=False, repr=False)


# ===== setup (§3) ==============================================================================
def removed_districts(n: int, rng: np.random.Generator) -> list[int]:
    """3 players drop one peripheral district, 2 players an adjacent pair, drawn uniformly."""
    if n == 3:
        return [cp.PERIPHERAL[int(rng.integers(4))]]
    if n == 2:
        return sorted(cp.ADJACENT_PAIRS[int(rng.integers(4))])
    return []


def first_game_tokens(n: int, removed: list[int]) -> list[int]:
    token = [cp.NO_TOKEN] * cp.NUM_NBHDS
    for district, spots in cp.FIRST_GAME_LAYOUT.items():
        if district in removed:
            continue
        for kind, nbhds in spots.items():
            for nbhd in nbhds:
                token[nbhd] = kind
    if n == 2:
        for nbhd, kind in cp.FIRST_GAME_TWO_PLAYER_CHANGES.items():
            token[nbhd] = kind
    return token


def random_tokens(n: int, removed: list[int], rng: np.random.Generator) -> list[int]:
    """Shuffle the count's token pool onto distinct token-eligible spots of each district in play."""
    pool = [kind for kind, count in cp.TOKENS_PER_COUNT[n].items() for _ in range(count)]
    pool = [pool[i] for i in rng.permutation(len(pool))]
    token = [cp.NO_TOKEN] * cp.NUM_NBHDS
    for district in range(5):
        if district in removed:
            continue
        spots = [nb for nb in range(cp.NUM_NBHDS) if cp.DISTRICT[nb] == district and nb in cp.TOKEN_OK]
        for index in sorted(rng.choice(len(spots), size=cp.TOKEN_SPOTS[district], replace=False).tolist()):
            token[spots[index]] = pool.pop()
    return token


def deal_secret_cards(n: int, version: str, rng: np.random.Generator) -> tuple[list[int], list[int], list[int]]:
    """(family, colour, area) cards per seat; -1 where the version has no such card."""
    none = [-1] * n
    if version == FAMILY:
        deck = [c for c in range(4) if not (n == 2 and c == cp.FAMILY_BORDERS)]
        return [deck[i] for i in rng.permutation(len(deck))[:n]], none, list(none)
    colours = rng.permutation(5)[:n].tolist()
    areas = rng.permutation(5)[:n].tolist()
    return none, colours, areas


def new_state(
    n: int, version: str, layout: str, removed: list[int] | None, start_player: int, rng: np.random.Generator
) -> State:
    removed = sorted(removed) if removed is not None else removed_districts(n, rng)
    in_play = [cp.DISTRICT[nb] not in removed for nb in range(cp.NUM_NBHDS)]
    token = first_game_tokens(n, removed) if layout == "first_game" else random_tokens(n, removed, rng)
    family, colour, area = deal_secret_cards(n, version, rng)
    return State(
        n=n,
        version=version,
        removed=removed,
        in_play=in_play,
        token=token,
        owner=[-1] * cp.NUM_NBHDS,
        built_value=[0] * cp.NUM_NBHDS,
        bid_owner=[-1] * cp.NUM_NBHDS,
        bid_value=[0] * cp.NUM_NBHDS,
        supply=[FULL_SUPPLY] * n,
        built=[0] * n,
        tokens=[[0, 0, 0] for _ in range(n)],
        family_card=family,
        colour_card=colour,
        area_card=area,
        opener=start_player,
        actor=start_player,
    )


# ===== legal actions ===========================================================================
def is_free(s: State, nbhd: int) -> bool:
    return s.in_play[nbhd] and s.owner[nbhd] < 0 and s.bid_owner[nbhd] < 0


def free_neighbours(s: State, nbhd: int) -> list[int]:
    return [nb for nb in cp.ADJ[nbhd] if is_free(s, nb)]


def legal_values(s: State, seat: int) -> int:
    """Mask of the values `seat` may bid now (any available one for the opening bid)."""
    if not s.bids:
        return s.supply[seat]
    return values_above(s.supply[seat], s.bids[-1][2])


def legal_nbhds(s: State) -> list[int]:
    if not s.bids:  # the opening bid: any free neighbourhood (inlined: the observation calls this often)
        in_play, owner, bid_owner = s.in_play, s.owner, s.bid_owner
        return [nb for nb in range(cp.NUM_NBHDS) if in_play[nb] and owner[nb] < 0 and bid_owner[nb] < 0]
    return free_neighbours(s, s.bids[-1][1])


def legal_actions(s: State) -> np.ndarray:
    mask = np.zeros(NUM_ACTIONS, dtype=bool)
    if s.decision == Decision.NBHD:
        mask[legal_nbhds(s)] = True
        mask[PASS] = bool(s.bids)
    elif s.decision == Decision.VALUE:
        values = legal_values(s, s.actor)
        for v in values_of(values):
            mask[VALUE_ACTION + v - 1] = True
    return mask


# ===== transitions =============================================================================
def apply_action(s: State, action: int) -> None:
    """One legal action (validated by the caller)."""
    if s.decision == Decision.VALUE:
        _bid(s, s.actor, s.chosen, action - VALUE_ACTION + 1)
    elif action == PASS:
        s.passed |= 1 << s.actor
        _next_bidder(s)
    else:
        s.chosen = action
        s.decision = Decision.VALUE


def _bid(s: State, seat: int, nbhd: int, value: int) -> None:
    s.bid_owner[nbhd] = seat
    s.bid_value[nbhd] = value
    s.supply[seat] &= ~(1 << (value - 1))
    s.bids.append((seat, nbhd, value))
    s.chosen = -1
    s.decision = Decision.NBHD
    _next_bidder(s)


def can_outbid(s: State, seat: int) -> bool:
    top_seat, top_nbhd, top_value = s.bids[-1]
    return values_above(s.supply[seat], top_value) != 0 and bool(free_neighbours(s, top_nbhd))


def _next_bidder(s: State) -> None:
    """Seat after the actor that is still in the call; forced passes are taken on the way (§4)."""
    top_seat = s.bids[-1][0]
    seat = s.actor
    for _ in range(s.n - 1):
        seat = (seat + 1) % s.n
        if seat == top_seat or s.passed >> seat & 1:
            continue
        if can_outbid(s, seat):
            s.actor = seat
            return
        s.passed |= 1 << seat  # forced pass
    _resolve(s)


def _resolve(s: State) -> None:
    """The top bidder builds; the other bids go home; the winner opens the next call."""
    seat, nbhd, value = s.bids[-1]
    for other_seat, other_nbhd, other_value in s.bids[:-1]:
        s.supply[other_seat] |= 1 << (other_value - 1)
        s.bid_owner[other_nbhd] = -1
        s.bid_value[other_nbhd] = 0
    s.bid_owner[nbhd] = -1
    s.bid_value[nbhd] = 0
    s.owner[nbhd] = seat
    s.built_value[nbhd] = value
    s.built[seat] += 1
    if s.token[nbhd] != cp.NO_TOKEN:
        _take_token(s, seat, s.token[nbhd])
        s.token[nbhd] = cp.NO_TOKEN
    s.bids = []
    s.passed = 0
    s.calls += 1
    s.board_memo = None
    s.view_memo = None
    if s.built[seat] == cp.NUM_BUILDINGS:
        s.decision = GAME_OVER
        s.actor = -1
        return
    s.opener = seat
    s.actor = seat
    s.decision = Decision.NBHD


def _take_token(s: State, seat: int, kind: int) -> None:
    """Token pick-up and the cards of 5.2 (Subway: strictly more tokens) and 5.3 (Arch: always)."""
    s.tokens[seat][kind - 1] += 1
    if kind == cp.SUBWAY:
        holder = s.subway_card
        mine = s.tokens[seat][cp.SUBWAY - 1]
        if holder < 0 or (holder != seat and mine > s.tokens[holder][cp.SUBWAY - 1]):
            s.subway_card = seat
    elif kind == cp.ARCH:
        s.arch_card = seat


# ===== scoring (§6) ============================================================================
def buildings_of(s: State, seat: int) -> list[int]:
    return [nb for nb in range(cp.NUM_NBHDS) if s.owner[nb] == seat]


def token_points(s: State, seat: int) -> int:
    """Tokens and the two cards: public during play."""
    trendy, subway, arch = s.tokens[seat]
    points = trendy * cp.TOKEN_POINTS[cp.TRENDY] + subway * cp.TOKEN_POINTS[cp.SUBWAY] + arch * cp.TOKEN_POINTS[cp.ARCH]
    if s.subway_card == seat:
        points += cp.SUBWAY_CARD_POINTS
    if s.arch_card == seat:
        points += cp.ARCH_CARD_POINTS
    return points


def family_points(card: int, buildings: list[int]) -> int:
    qualifying = cp.FAMILY_QUALIFYING[card]
    return cp.FAMILY_POINTS_PER_BUILDING * sum(nb in qualifying for nb in buildings)


def colour_points(colour: int, buildings: list[int]) -> int:
    return cp.NEIGHBOURHOOD_POINTS_PER_BUILDING * sum(cp.COLOUR[nb] == colour for nb in buildings)


def candidate_sets(card: int, buildings: list[int]) -> list[frozenset[int]]:
    """Every set of the owner's buildings that scores once for an expert Area card (2.7, 8.3)."""
    mine = set(buildings)
    if card == cp.EXPERT_BRIDGES:
        return [frozenset(bridge) for bridge in cp.BRIDGES if set(bridge) <= mine]
    if card == cp.EXPERT_CHAINS:
        # connected triples: some member is adjacent to both others (a path or a triangle)
        sets = set()
        for centre in buildings:
            around = [nb for nb in cp.ADJ[centre] if nb in mine]
            for a, b in combinations(around, 2):
                sets.add(frozenset((centre, a, b)))
        return list(sets)
    if card == cp.EXPERT_LAKES:
        sets = set()
        for lake in cp.LAKES:
            sets.update(frozenset(t) for t in combinations([nb for nb in lake if nb in mine], 3))
        return list(sets)
    if card == cp.EXPERT_STATUES:
        return [frozenset(statue) for statue in cp.STATUES if set(statue) <= mine]
    raise ValueError(f"no set packing for expert area card {card}")


def max_disjoint_sets(sets: list[frozenset[int]]) -> int:
    """Largest number of pairwise disjoint sets (exact; at most 13 buildings are involved)."""
    elements = sorted(set().union(*sets)) if sets else []
    bit_of = {e: 1 << i for i, e in enumerate(elements)}
    masks = [sum(bit_of[e] for e in s) for s in sets]

    @cache
    def best(free: int) -> int:
        if not free:
            return 0
        low = free & -free
        result = best(free & ~low)  # the lowest element serves no set
        for mask in masks:
            if mask & low and mask & free == mask:
                result = max(result, 1 + best(free & ~mask))
        return result

    return best((1 << len(elements)) - 1)


def area_points(card: int, buildings: list[int]) -> int:
    if card == cp.EXPERT_DISTRICTS:
        counts = [0] * 5
        for nb in buildings:
            counts[cp.DISTRICT[nb]] += 1
        sets = sum(count >= cp.DISTRICT_SET_SIZE for count in counts)
    else:
        sets = max_disjoint_sets(candidate_sets(card, buildings))
    return cp.EXPERT_AREA_POINTS[card] * sets


def highest_building_winners(s: State, district: int) -> list[int]:
    """Seats whose descending list of height classes in `district` is the best (6.3)."""
    heights: dict[int, list[int]] = {}
    for nb in range(cp.NUM_NBHDS):
        if s.owner[nb] >= 0 and cp.DISTRICT[nb] == district:
            heights.setdefault(s.owner[nb], []).append(cp.HEIGHT_CLASS[s.built_value[nb]])
    if not heights:
        return []
    ranked = {seat: sorted(h, reverse=True) for seat, h in heights.items()}
    best = max(ranked.values())  # list order: lexicographic, a proper prefix is smaller
    return sorted(seat for seat, h in ranked.items() if h == best)


def score_parts(s: State, seat: int) -> list[tuple[str, int]]:
    """What `seat`'s prestige adds up from as the final scoring would count it now: its tokens, then
    secret cards (shown at the end) and the highest buildings."""
    buildings = buildings_of(s, seat)
    parts = [("prestige of tokens", token_points(s, seat))]
    if s.version == FAMILY:
        if s.family_card[seat] >= 0:
            parts.append(("prestige of the secret Area card", family_points(s.family_card[seat], buildings)))
        return parts
    parts.append(("prestige of the secret Neighbourhood colour", colour_points(s.colour_card[seat], buildings)))
    parts.append(("prestige of the secret Area card", area_points(s.area_card[seat], buildings)))
    highest = sum(
        1 for district in range(5) if district not in s.removed and seat in highest_building_winners(s, district)
    )
    if highest:
        parts.append(
            (
                f"prestige of the highest building in {highest} district{'s' if highest > 1 else ''}",
                highest * cp.HIGHEST_BUILDING_POINTS,
            )
        )
    return parts


def score(s: State, seat: int) -> int:
    """Prestige of `seat` as the final scoring would count it now."""
    return sum(points for _, points in score_parts(s, seat))


def standing_keys(s: State) -> list[tuple[int, int]]:
    """Per seat: prestige, then buildings built (6.4)."""
    return [(score(s, seat), s.built[seat]) for seat in range(s.n)]


def winners(s: State) -> list[int]:
    """Highest prestige; then more buildings built; then a shared victory (6.4)."""
    return leaders(standing_keys(s))
