"""What one seat of Urban Sprawl may know, its tensor encoding, determinization.

Everything is public (the board, every seat's wealth, prestige, hand, Favors, vocations, offices,
face-up cards, the planning discard pile, deck sizes) except the order of the face-down cards of
the four decks, which is hidden from everyone; `determinize` resamples it within what the stacking
rules and the cards already seen allow. Seats are rotated so the observer is offset 0.

Observation for seat p: float32, `OBS_SIZE` = 5219 values (laid out in docs/games/urban_sprawl.md):

| offset | block | contents |
|---|---|---|
| 0    | lots (12 x 12 x 20) | per lot L(i, j), row-major: zone one-hot (empty, CIV, COM, IND, RES, PARK) 6;
|      |                     | controller one-hot (self, +1, +2, +3, none) 5; size one-hot 4; block value/30;
|      |                     | adjacent water; adjacent forest; controlled by the Contractor; anchor |
| 2880 | circles (9 x 10)    | per grey circle: empty, marker 4..12 |
| 2970 | marker box (9)      | marker 4..12 still in the holding box |
| 2979 | planning (5 x 41)   | deck top, PL4..PL1: non-event planning id one-hot (40) or empty |
| 3184 | contracts (8 x 97)  | Town/City/Metropolis tops, C5..C1: contract idx one-hot (96) or empty |
| 3960 | features (8 x 38)   | per contract space: zone 4, size 4, vocation values/7 (8), payout one-hot 7,
|      |                     | restriction one-hot 7, effect templates multi-hot 8 |
| 4264 | players (4 x 153)   | rotated seats: wealth/50, prestige/100, hand 40, Favors 96, vocations/5 (8),
|      |                     | offices held 6, Extra Favor |
| 4876 | globals (215)       | vocation supply/5 (8), pawn 5, Airport, Sports Team, deck sizes/54,/37 (4), planning
|      |                     | discard 54, contracts out of the game 96, events resolved 15, AP/8, active offset 4,
|      |                     | player count 3, variant 3, tile supply/20 (20) |
| 5091 | decision (128)      | decision one-hot 19, contract being built one-hot 96 + none, permits picked/4,
|      |                     | vocation in question one-hot 8 + none, amount/10, "I am the active player" |
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from city_envs.urban_sprawl import components as cp
from city_envs.urban_sprawl import rules as r
from city_envs.urban_sprawl.rules import State

LOT_FEATURES = 20
LOTS_SIZE = cp.LOTS * LOT_FEATURES
CIRCLES_AT = LOTS_SIZE
BOX_AT = CIRCLES_AT + 90
PLANNING_AT = BOX_AT + 9
CONTRACTS_AT = PLANNING_AT + 5 * 41
FEATURES_AT = CONTRACTS_AT + 8 * 97
PLAYERS_AT = FEATURES_AT + 8 * 38
PLAYER_WIDTH = 153
GLOBALS_AT = PLAYERS_AT + 4 * PLAYER_WIDTH
DECISION_AT = GLOBALS_AT + 215
OBS_SIZE = DECISION_AT + 128
VARIANTS = ("standard", "long", "short")


# flat offset of each lot's 20 features in the L(i, j) row-major planes
LOT_BASE = tuple(LOT_FEATURES * (12 * i + j) for (i, j) in cp.LOT_COORDS)
LOT_BASE_ARRAY = np.asarray(LOT_BASE)


@lru_cache(maxsize=1)
def _static_lots() -> np.ndarray:
    """Flat lot planes with what never changes: adjacency to water (16) and forest (17)."""
    plane = np.zeros(LOTS_SIZE, dtype=np.float32)
    for lot in range(cp.LOTS):
        plane[LOT_BASE[lot] + 16] = cp.LOT_WATER[lot]
        plane[LOT_BASE[lot] + 17] = cp.LOT_FOREST[lot]
    plane.flags.writeable = False
    return plane


@lru_cache(maxsize=cp.NUM_CONTRACTS)
def contract_features(card: int) -> np.ndarray:
    """The printed side of a contract (38 values)."""
    f = np.zeros(38, dtype=np.float32)
    f[cp.CONTRACT_ZONE[card]] = 1.0
    f[4 + cp.CONTRACT_SIZE[card] - 1] = 1.0
    for voc, value in cp.CONTRACT_VOCATIONS[card]:
        f[8 + voc] = value / 7.0
    f[16 + cp.CONTRACT_PAYOUT[card]] = 1.0
    restriction = cp.CONTRACT_RESTRICTION[card]
    f[23 + (0 if restriction is None else 1 + restriction[0])] = 1.0
    for effect in cp.CONTRACT_EFFECTS[card]:
        f[30 + effect[0]] = 1.0
    f.flags.writeable = False
    return f


def _fill_lots(s: State, p: int, out: np.ndarray) -> None:
    """Write the flat 12 x 12 x 20 lot planes into `out` (one scatter of ones, one of values)."""
    out[:] = _static_lots()
    values = np.asarray(r.block_values(tuple(s.circles)), dtype=np.float32) / 30.0
    out[LOT_BASE_ARRAY + 15] = np.repeat(values, 4)
    contractor = s.offices[cp.CONTRACTOR]
    ones = [LOT_BASE[x] for x in range(cp.LOTS) if s.lot_building[x] < 0]
    n = s.n
    for b in s.buildings:
        if b is None:
            continue
        zone, size, lots, owner = b
        control = 6 + ((owner - p) % n if owner >= 0 else 4)
        for x in lots:
            base = LOT_BASE[x]
            ones += (base + 1 + zone, base + control, base + 10 + size)
            if owner >= 0 and owner == contractor:
                ones.append(base + 18)
        ones.append(LOT_BASE[lots[0]] + 19)
    out[ones] = 1.0


def lot_planes(s: State, p: int) -> np.ndarray:
    """The 12 x 12 x 20 city planes of the observation, for convolutional encoders."""
    out = np.empty(LOTS_SIZE, dtype=np.float32)
    _fill_lots(s, p, out)
    return out.reshape(cp.GRID, cp.GRID, LOT_FEATURES)


def _read_only(block: np.ndarray) -> np.ndarray:
    block.flags.writeable = False
    return block


def _lots_block(s: State, p: int) -> np.ndarray:
    """`_fill_lots`, kept on the state (per seat) until the city changes: a building built, demolished or
    changing hands, a marker moved, a new Contractor. Within one match a building id always names the same
    zone, size and lots, so the ids per lot, each building's owner, the markers and the Contractor
    decide the planes (a clone starts without the memo, so it never crosses matches)."""
    owners = [b and b[r.OWNER] for b in s.buildings]  # None: demolished
    memo = s.lot_planes_memo
    if (memo is None or memo[0] != s.lot_building or memo[1] != owners or memo[2] != s.circles
            or memo[3] != s.offices[cp.CONTRACTOR]):
        seat_zero = np.empty(LOTS_SIZE, dtype=np.float32)
        _fill_lots(s, 0, seat_zero)
        memo = s.lot_planes_memo = (s.lot_building[:], owners, s.circles[:], s.offices[cp.CONTRACTOR],
                                    {0: _read_only(seat_zero)})
    by_seat = memo[4]
    planes = by_seat.get(p)
    if planes is None:  # seat p's controller columns are seat 0's, rotated by p
        planes = by_seat[p] = _read_only(by_seat[0][_controller_rotation(s.n, p)])
    return planes


@lru_cache(maxsize=16)  # one per (player count, seat)
def _controller_rotation(n: int, p: int) -> np.ndarray:
    """Indices taking seat 0's lot planes to seat p's: controller one-hot k of seat p is (k + p) % n of seat 0."""
    index = np.arange(LOTS_SIZE).reshape(cp.LOTS, LOT_FEATURES)
    index[:, 6:6 + n] = np.roll(index[:, 6:6 + n], -p, axis=1)
    return _read_only(index.reshape(LOTS_SIZE))


@lru_cache(maxsize=512)
def _circles_block(circles: tuple[int, ...]) -> np.ndarray:
    """Grey circles and the marker box (99 values)."""
    block = np.zeros(PLANNING_AT - CIRCLES_AT, dtype=np.float32)
    for g, marker in enumerate(circles):
        block[10 * g + (marker - 3 if marker else 0)] = 1.0
    for k, marker in enumerate(cp.MARKERS):
        block[90 + k] = marker not in circles
    return _read_only(block)


@lru_cache(maxsize=512)
def _planning_block(cards: tuple[int, ...]) -> np.ndarray:
    """The five planning spaces (5 x 41 values)."""
    block = np.zeros(CONTRACTS_AT - PLANNING_AT, dtype=np.float32)
    for space, card in enumerate(cards):
        block[41 * space + (card if card >= 0 else 40)] = 1.0
    return _read_only(block)


@lru_cache(maxsize=512)
def _contracts_block(cards: tuple[int, ...]) -> np.ndarray:
    """The eight contract spaces and their printed features (8 x 97 + 8 x 38 values)."""
    block = np.zeros(PLAYERS_AT - CONTRACTS_AT, dtype=np.float32)
    features = FEATURES_AT - CONTRACTS_AT
    for space, card in enumerate(cards):
        block[97 * space + (card if card >= 0 else 96)] = 1.0
        if card >= 0:
            block[features + 38 * space: features + 38 * (space + 1)] = contract_features(card)
    return _read_only(block)


@lru_cache(maxsize=512)
def _players_block(hands: tuple[tuple[int, ...], ...], favors: tuple[tuple[int, ...], ...],
                   vocations: tuple[tuple[int, ...], ...], offices: tuple[int, ...], extra_favor: int) -> np.ndarray:
    """Every seat's row in seat order, but its wealth and prestige (zeros there)."""
    n = len(hands)
    block = np.zeros(n * PLAYER_WIDTH, dtype=np.float32)
    for seat in range(n):
        base = PLAYER_WIDTH * seat
        block[base + 2: base + 146] = _holdings_block(hands[seat], favors[seat], vocations[seat])
        block[base + 146: base + 153] = _offices_block(offices, extra_favor, seat)
    return _read_only(block)


@lru_cache(maxsize=1024)
def _holdings_block(hand: tuple[int, ...], favors: tuple[int, ...], vocations: tuple[int, ...]) -> np.ndarray:
    """A seat's hand, Favors and vocations (values 2..146 of its row)."""
    block = np.zeros(144, dtype=np.float32)
    for card in hand:
        block[card] = 1.0
    for card in favors:
        block[40 + card] = 1.0
    block[136:144] = np.asarray(vocations, dtype=np.float32) / 5.0
    return _read_only(block)


@lru_cache(maxsize=512)
def _offices_block(offices: tuple[int, ...], extra_favor: int, seat: int) -> np.ndarray:
    """The offices a seat holds, and its Extra Favor (values 146..153 of its row)."""
    block = np.zeros(7, dtype=np.float32)
    for office, holder in enumerate(offices):
        block[office] = holder == seat
    block[6] = extra_favor == seat
    return _read_only(block)


@lru_cache(maxsize=512)
def _supply_block(voc_supply: tuple[int, ...], discard: tuple[int, ...], removed: tuple[int, ...],
                  events: tuple[int, ...], tiles: tuple[tuple[int, ...], ...]) -> np.ndarray:
    """The slowly changing globals (vocation supply, discard pile, contracts out, events, tile supply),
    zeros in between for the values `observation` writes itself."""
    block = np.zeros(DECISION_AT - GLOBALS_AT, dtype=np.float32)
    block[0:8] = np.asarray(voc_supply, dtype=np.float32) / 5.0
    for card in discard:
        block[19 + card] = 1.0
    for card in removed:
        block[73 + card] = 1.0
    for e in events:
        block[169 + e] = 1.0
    block[195:215] = np.asarray(tiles, dtype=np.float32).ravel() / 20.0
    return _read_only(block)


def observation(s: State, p: int, variant: str) -> np.ndarray:
    """The tensor of the table above, assembled from blocks memoized by what they show."""
    obs = np.zeros(OBS_SIZE, dtype=np.float32)
    n = s.n
    obs[:LOTS_SIZE] = _lots_block(s, p)
    obs[CIRCLES_AT:PLANNING_AT] = _circles_block(tuple(s.circles))
    planning_up = s.planning_up and s.planning_deck
    obs[PLANNING_AT:CONTRACTS_AT] = _planning_block((s.planning_deck[-1] if planning_up else -1, *s.planning_slots))
    obs[CONTRACTS_AT:PLAYERS_AT] = _contracts_block((*[r.contract_at(s, space) for space in range(3)], *s.slots))
    rows = _players_block(tuple(map(tuple, s.hands)), tuple(map(tuple, s.favors)), tuple(map(tuple, s.vocations)),
                          tuple(s.offices), s.extra_favor)
    split = PLAYERS_AT + (n - p) * PLAYER_WIDTH  # rotated: seat p's row first
    obs[PLAYERS_AT:split] = rows[p * PLAYER_WIDTH:]
    obs[split:PLAYERS_AT + n * PLAYER_WIDTH] = rows[:p * PLAYER_WIDTH]
    wealth, prestige = s.wealth, s.prestige
    for seat in range(n):
        base = PLAYERS_AT + PLAYER_WIDTH * ((seat - p) % n)
        obs[base] = wealth[seat] / 50.0
        obs[base + 1] = prestige[seat] / 100.0
    g = GLOBALS_AT
    obs[g: DECISION_AT] = _supply_block(tuple(s.voc_supply), tuple(s.planning_discard), tuple(s.removed),
                                        tuple(s.events_done), tuple(map(tuple, s.tiles)))
    obs[g + 8 + s.pawn] = 1.0
    obs[g + 13] = s.airport
    obs[g + 14] = s.sports
    obs[g + 15] = len(s.planning_deck) / 54.0
    decks = s.decks
    obs[g + 16] = len(decks[0]) / 37.0
    obs[g + 17] = len(decks[1]) / 37.0
    obs[g + 18] = len(decks[2]) / 37.0
    obs[g + 184] = s.ap / 8.0
    if s.active >= 0:
        obs[g + 185 + (s.active - p) % n] = 1.0
    obs[g + 189 + n - 2] = 1.0
    obs[g + 192 + VARIANTS.index(variant)] = 1.0
    d = DECISION_AT
    if s.decision >= 0:
        obs[d + s.decision] = 1.0
    build = s.build
    obs[d + 19 + (build["card"] if build else 96)] = 1.0
    obs[d + 116] = build["paid"] / 4.0 if build else 0.0
    ctx = s.ctx
    voc = ctx.get("voc", -1)
    obs[d + 117 + (voc if voc >= 0 else 8)] = 1.0
    obs[d + 126] = ctx.get("amount", 0) / 10.0
    obs[d + 127] = s.active == p
    return obs


def view(s: State, p: int) -> dict:
    """Structured, read-only description of what seat p knows: all public state but deck order."""
    return {
        "player": p,
        "num_players": s.n,
        "active": s.active,
        "decision": r.DECISION_NAMES[s.decision] if s.decision >= 0 else "GAME_OVER",
        "decider": s.decider,
        "context": {k: (list(v) if isinstance(v, list) else v) for k, v in s.ctx.items()},
        "buildings": [None if b is None else [b[0], b[1], list(b[2]), b[3]] for b in s.buildings],
        "tiles": [list(row) for row in s.tiles],
        "circles": list(s.circles),
        "wealth": list(s.wealth),
        "prestige": list(s.prestige),
        "hands": [list(h) for h in s.hands],
        "favors": [list(f) for f in s.favors],
        "vocations": [list(v) for v in s.vocations],
        "vocation_supply": list(s.voc_supply),
        "offices": list(s.offices),
        "extra_favor": s.extra_favor,
        "pawn": s.pawn,
        "airport": s.airport,
        "sports_team": s.sports,
        "planning_spaces": [r.planning_at(s, space) for space in range(5)],
        "contract_spaces": [r.contract_at(s, space) for space in range(8)],
        "planning_deck_size": len(s.planning_deck),
        "planning_reshuffles": s.planning_reshuffles,
        "deck_sizes": [len(deck) for deck in s.decks],
        "planning_discard": list(s.planning_discard),
        "removed_contracts": list(s.removed),
        "events_resolved": list(s.events_done),
        "ap": s.ap,
        "building": None if s.build is None else dict(s.build),
        "turns": s.turns,
    }


def copy_state(s: State) -> State:
    """Structured copy: every mutable field rebuilt (building records are copied one by one)."""
    return State(
        n=s.n, lot_building=s.lot_building[:],
        buildings=[None if b is None else [b[0], b[1], b[2][:], b[3]] for b in s.buildings],
        tiles=[row[:] for row in s.tiles], circles=s.circles[:], wealth=s.wealth[:], prestige=s.prestige[:],
        hands=[h[:] for h in s.hands], favors=[f[:] for f in s.favors], vocations=[v[:] for v in s.vocations],
        voc_supply=s.voc_supply[:], offices=s.offices[:], planning_deck=s.planning_deck[:],
        planning_slots=s.planning_slots[:], planning_discard=s.planning_discard[:],
        decks=[d[:] for d in s.decks], slots=s.slots[:], extra_favor=s.extra_favor, pawn=s.pawn,
        airport=s.airport, sports=s.sports, planning_up=s.planning_up, deck_up=s.deck_up[:], removed=s.removed[:],
        events_done=s.events_done[:], active=s.active, phase=s.phase, ap=s.ap, built_this_turn=s.built_this_turn,
        decision=s.decision, decider=s.decider, ctx=_copy_ctx(s.ctx), tasks=[t[:] for t in s.tasks],
        build=None if s.build is None else dict(s.build), planning_reshuffles=s.planning_reshuffles,
        turns=s.turns, winners=s.winners[:],
        truncated=s.truncated,
    )


def _copy_ctx(ctx: dict) -> dict:
    return {k: (v[:] if isinstance(v, list) else v) for k, v in ctx.items()}


def _shuffled(cards: list[int], rng: np.random.Generator) -> list[int]:
    return [cards[i] for i in rng.permutation(len(cards))]


def _resample_contract_deck(deck: list[int], up: bool, d: int, variant: str, rng: np.random.Generator) -> list[int]:
    """The deck's face-down cards in a fresh order drawn from what the stacking (3.1, 3.4) allows.

    The non-special cards are exchangeable; the special event, while still hidden, lies uniformly in
    the part of its stacking window below the cards already gone from the top.
    """
    hidden = deck[:-1] if up else deck[:]
    gone = cp.CONTRACT_DECK_SIZE - len(hidden)  # cards above the hidden part
    special = cp.EVENT_BASE + cp.SPECIAL_EVENT[d]
    from_top = _shuffled([c for c in hidden if c != special], rng)
    if special in hidden:
        above, mixed = cp.DECK_STACKING[variant]
        first, last = max(above + 1, gone + 1), above + mixed + 1  # 1-based positions from the original top
        from_top.insert(int(rng.integers(first, last + 1)) - gone - 1, special)
    return from_top[::-1] + deck[len(hidden):]


def _resample_planning_deck(s: State, rng: np.random.Generator) -> list[int]:
    """Before the first reshuffle the top 22 cards were permits (3.1 step 5); after it, any order."""
    deck = s.planning_deck
    hidden = deck[:-1] if s.planning_up and deck else deck[:]
    if s.planning_reshuffles:
        from_top = _shuffled(hidden, rng)
    else:
        permits = _shuffled([c for c in hidden if c < cp.FIRST_PLANNING_EVENT], rng)
        safe = max(0, cp.PLANNING_TOP_PERMITS - (cp.PLANNING_START_DECK - len(hidden)))
        rest = permits[safe:] + [c for c in hidden if c >= cp.FIRST_PLANNING_EVENT]
        from_top = permits[:safe] + _shuffled(rest, rng)
    return from_top[::-1] + deck[len(hidden):]


def determinize(s: State, p: int, variant: str, rng: np.random.Generator) -> State:
    """Resample the order of every deck's face-down cards (the only hidden information), keeping what
    the stacking rules and the cards already seen imply (`_resample_contract_deck`)."""
    twin = copy_state(s)
    twin.planning_deck = _resample_planning_deck(twin, rng)
    twin.decks = [_resample_contract_deck(deck, twin.deck_up[d], d, variant, rng) for d, deck in enumerate(twin.decks)]
    return twin
