"""What one seat of Urban Sprawl may know, its tensor encoding, determinization.

Everything is public (the board, every seat's wealth, prestige, hand, Favors, vocations, offices,
face-up cards, the planning discard pile, deck sizes) except the order of the face-down cards of
the four decks, which is hidden from everyone; `determinize` resamples it within what the stacking
rules and the cards already seen allow. Seats are rotated so the observer is offset 0.

Observation for seat p: float32 values laid out by `LAYOUT` (docs/games/urban_sprawl.md shows the
table); the lots block is the 12 x 12 grid of lots L(i, j), row-major (`lot_planes` gives it as planes).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, cast

import numpy as np

from city_envs.core.layout import Block, Field, ObservationLayout, table, vector
from city_envs.urban_sprawl import components as cp
from city_envs.urban_sprawl import rules as r
from city_envs.urban_sprawl.rules import State

VARIANTS = ("standard", "long", "short")
_RELATIVE = ("me", "next", "second", "third")  # seats in clockwise order from the observer
_ZONES = cp.ZONE_NAMES[:4]  # the zones a contract can name (no PARK)
_MARKERS = tuple(str(marker) for marker in cp.MARKERS)
_VOCATIONS = cp.VOCATION_NAMES[:8]
LAYOUT = ObservationLayout(
    table(
        "lots",
        cp.LOTS,
        "per lot L(i, j), row 12 i + j",
        Field("zone", 6, "zone one-hot (empty, CIV, COM, IND, RES, PARK)", ("empty", *cp.ZONE_NAMES)),
        Field("controller", 5, "controller one-hot (self, +1, +2, +3, none)", (*_RELATIVE, "none")),
        Field("size", 4, "size one-hot", ("1", "2", "3", "4")),
        Field("block_value", doc="block value/30"),
        Field("water", doc="adjacent water"),
        Field("forest", doc="adjacent forest"),
        Field("contractor", doc="controlled by the Contractor"),
        Field("anchor", doc="anchor (the building's lowest lot)"),
    ),
    table("circles", 9, "per grey circle", Field("marker", 10, "empty, marker 4..12", ("empty", *_MARKERS))),
    vector("marker_box", "", Field("markers", 9, "marker 4..12 still in the holding box", _MARKERS)),
    table(
        "planning",
        5,
        "deck top, PL4..PL1",
        Field("card", 40, "non-event planning id one-hot"),
        Field("empty", doc="empty (a face-down top is empty)"),
    ),
    table(
        "contracts",
        8,
        "Town/City/Metropolis tops, C5..C1",
        Field("card", cp.NUM_CONTRACTS, "contract idx one-hot"),
        Field("empty"),
    ),
    table(
        "features",
        8,
        "per contract space",
        Field("zone", 4, "zone", _ZONES),
        Field("size", 4, "size", ("1", "2", "3", "4")),
        Field("vocations", 8, "vocation values/7", _VOCATIONS),
        Field("payout", 7, "payout one-hot"),
        Field("restriction", 7, "restriction one-hot", ("none", *cp.RESTRICTION_NAMES)),
        Field("effects", 8, "effect templates multi-hot", cp.EFFECT_NAMES),
    ),
    table(
        "players",
        4,
        "seats rotated (0 = observer)",
        Field("wealth", doc="wealth/50"),
        Field("prestige", doc="prestige/100"),
        Field("hand", 40),
        Field("favors", cp.NUM_CONTRACTS, "Favors"),
        Field("vocations", 8, "vocations/5", _VOCATIONS),
        Field("offices", 6, "offices held", cp.OFFICE_NAMES),
        Field("extra_favor", doc="Extra Favor"),
    ),
    vector(
        "globals",
        "",
        Field("vocation_supply", 8, "vocation supply/5", _VOCATIONS),
        Field("pawn", 5),
        Field("airport"),
        Field("sports_team", doc="Sports Team"),
        Field("planning_deck", doc="planning deck size/54"),
        Field("decks", 3, "deck sizes/37", cp.DECK_NAMES),
        Field("planning_discard", 54, "planning discard"),
        Field("contracts_out", cp.NUM_CONTRACTS, "contracts out of the game"),
        Field("events", 15, "events resolved"),
        Field("ap", doc="AP/8"),
        Field("active", 4, "active offset", _RELATIVE),
        Field("player_count", 3, "player count", ("2", "3", "4")),
        Field("variant", 3, "variant", VARIANTS),
        Field("tiles", 20, "tile supply per zone and size/20"),
    ),
    vector(
        "decision",
        "",
        Field("kind", 19, "decision one-hot"),
        Field("contract", cp.NUM_CONTRACTS + 1, "contract being built one-hot 96 + none"),
        Field("permits", doc="permits picked/4"),
        Field("vocation", 9, "vocation in question one-hot 8 + none", (*_VOCATIONS, "none")),
        Field("amount", doc="amount/10"),
        Field("active", doc='"I am the active player"'),
    ),
)
LOTS, CIRCLES, MARKER_BOX, PLANNING, CONTRACTS, FEATURES, PLAYERS, GLOBALS, DECISION = LAYOUT.blocks
# where the encoder writes, bound once
_ZONE, _CONTROLLER, _SIZE, _BLOCK_VALUE, _WATER, _FOREST, _CONTRACTOR, _ANCHOR = (
    LOTS.column(f) for f in ("zone", "controller", "size", "block_value", "water", "forest", "contractor", "anchor")
)
_F_ZONE, _F_SIZE, _F_VOCATIONS, _F_PAYOUT, _F_RESTRICTION, _F_EFFECTS = (
    FEATURES.column(f) for f in ("zone", "size", "vocations", "payout", "restriction", "effects")
)
_HAND, _FAVORS, _OWN_VOCATIONS = PLAYERS.columns("hand"), PLAYERS.columns("favors"), PLAYERS.columns("vocations")
_OFFICES = PLAYERS.columns("offices", "extra_favor")
_SUPPLY, _DISCARD, _OUT, _EVENTS, _TILES = (
    GLOBALS.span(f) for f in ("vocation_supply", "planning_discard", "contracts_out", "events", "tiles")
)
_AP, _ACTIVE, _PLAYER_COUNT, _VARIANT = (GLOBALS.index(f) for f in ("ap", "active", "player_count", "variant"))
_KIND, _CONTRACT, _PERMITS, _VOCATION, _AMOUNT, _I_AM_ACTIVE = (
    DECISION.index(f) for f in ("kind", "contract", "permits", "vocation", "amount", "active")
)
_NO_CONTRACT, _NO_VOCATION = DECISION.span("contract").stop - 1, DECISION.span("vocation").stop - 1
_COUNT_AND_VARIANT = GLOBALS.span("player_count", "variant")
# the pawn's one-hot, then the airport, the Sports Team and the deck sizes: `_write_scalars` writes them as one run
_PAWN_TO_DECKS = GLOBALS.span("pawn", "decks")
_PAWN_ONE_HOT = tuple(tuple(float(k == pawn) for k in range(cp.POLITICIANS)) for pawn in range(cp.POLITICIANS))


# flat offset of each lot's features in the L(i, j) row-major planes
LOT_BASE = tuple(LOTS.width * (cp.GRID * i + j) for (i, j) in cp.LOT_COORDS)
LOT_BASE_ARRAY = np.asarray(LOT_BASE)


@lru_cache(maxsize=1)
def _static_lots() -> np.ndarray:
    """Flat lot planes with what never changes: adjacency to water and forest."""
    plane = np.zeros(LOTS.size, dtype=np.float32)
    for lot in range(cp.LOTS):
        plane[LOT_BASE[lot] + _WATER] = cp.LOT_WATER[lot]
        plane[LOT_BASE[lot] + _FOREST] = cp.LOT_FOREST[lot]
    plane.flags.writeable = False
    return plane


@lru_cache(maxsize=cp.NUM_CONTRACTS)
def contract_features(card: int) -> np.ndarray:
    """The printed side of a contract (a row of the features block)."""
    f = np.zeros(FEATURES.width, dtype=np.float32)
    f[_F_ZONE + cp.CONTRACT_ZONE[card]] = 1.0
    f[_F_SIZE + cp.CONTRACT_SIZE[card] - 1] = 1.0
    for voc, value in cp.CONTRACT_VOCATIONS[card]:
        f[_F_VOCATIONS + voc] = value / 7.0
    f[_F_PAYOUT + cp.CONTRACT_PAYOUT[card]] = 1.0
    restriction = cp.CONTRACT_RESTRICTION[card]
    f[_F_RESTRICTION + (0 if restriction is None else 1 + restriction[0])] = 1.0
    for effect in cp.CONTRACT_EFFECTS[card]:
        f[_F_EFFECTS + effect[0]] = 1.0
    f.flags.writeable = False
    return f


@lru_cache(maxsize=64)
def _base_lots(circles: tuple[int, ...]) -> np.ndarray:
    """`_static_lots` with the block values the markers `circles` give: the planes of an empty city."""
    plane = _static_lots().copy()
    values = np.asarray(r.block_values(circles), dtype=np.float32) / 30.0
    plane[LOT_BASE_ARRAY + _BLOCK_VALUE] = np.repeat(values, 4)
    return _read_only(plane)


@lru_cache(maxsize=4096)
def _building_ones(b: r.Building, control: int, contracted: bool) -> tuple[int, ...]:
    """The flat indices of the ones building `b` puts in the lot planes, with its controller one-hot at
    column `control` (memoized: a city keeps its buildings while the planes are filled again and again)."""
    zone, size, lots, _owner = b
    ones: list[int] = []
    for x in lots:
        base = LOT_BASE[x]
        ones += (base + _ZONE + 1 + zone, base + control, base + _SIZE + size - 1)
        if contracted:
            ones.append(base + _CONTRACTOR)
    ones.append(LOT_BASE[lots[0]] + _ANCHOR)
    return tuple(ones)


def _ones_of(b: r.Building, p: int, n: int, contractor: int) -> tuple[int, ...]:
    """`_building_ones` of building `b` as seat p sees it."""
    owner = b.owner
    if owner < 0:
        return _building_ones(b, _CONTROLLER + 4, False)
    return _building_ones(b, _CONTROLLER + (owner - p) % n, owner == contractor)


def _fill_lots(s: State, p: int, out: np.ndarray) -> None:
    """Write the flat 12 x 12 x 20 lot planes into `out` (the empty city's planes, then one scatter of ones)."""
    out[:] = _base_lots(tuple(s.circles))
    ones = [base + _ZONE for base, bid in zip(LOT_BASE, s.lot_building, strict=True) if bid < 0]  # empty lots
    n, contractor = s.n, s.offices[cp.CONTRACTOR]
    for b in s.buildings:
        if b is not None:
            ones += _ones_of(b, p, n, contractor)
    out[ones] = 1.0


def _refill_lots(s: State, lot_building: list[int], buildings: list[r.Building | None], out: np.ndarray) -> None:
    """Turn `out`, seat 0's planes when the lots held `lot_building` and the buildings were `buildings` (the
    markers and the Contractor as now), into seat 0's planes now: only the lots whose building changed (another
    id, or a new record: a new owner) are written again. A building's lots all change together, since its id
    always names the same lots."""
    now_lots, now_buildings = s.lot_building, s.buildings
    changed = [
        x
        for x, (old, bid) in enumerate(zip(lot_building, now_lots, strict=True))
        if old != bid or (bid >= 0 and buildings[bid] is not now_buildings[bid])
    ]
    if not changed:
        return
    empty, width = _base_lots(tuple(s.circles)), LOTS.width
    n, contractor = s.n, s.offices[cp.CONTRACTOR]
    ones: list[int] = []
    written: set[int] = set()
    for x in changed:
        base = LOT_BASE[x]
        out[base : base + width] = empty[base : base + width]  # the lot's row in the empty city
        bid = now_lots[x]
        if bid < 0:
            ones.append(LOT_BASE[x] + _ZONE)
        elif bid not in written:
            written.add(bid)
            ones += _ones_of(cast(r.Building, now_buildings[bid]), 0, n, contractor)  # a lot names a standing building
    out[ones] = 1.0


def lot_planes(s: State, p: int) -> np.ndarray:
    """The 12 x 12 x 20 city planes of the observation, for convolutional encoders."""
    out = np.empty(LOTS.size, dtype=np.float32)
    _fill_lots(s, p, out)
    return out.reshape(cp.GRID, cp.GRID, LOTS.width)


def _read_only(block: np.ndarray) -> np.ndarray:
    block.setflags(write=False)
    return block


def _lots_block(s: State, p: int) -> np.ndarray:
    """`_fill_lots`, kept on the state (per seat) until the city changes: a building built, demolished or
    changing hands, a marker moved, a new Contractor. Within one match a building id always names the same
    zone, size and lots, so the ids per lot, each building's owner, the markers and the Contractor
    decide the planes (a clone starts without the memo, so it never crosses matches)."""
    memo = s.lot_planes_memo
    contractor = s.offices[cp.CONTRACTOR]
    if (
        memo is None
        or memo[0] != s.lot_building
        or memo[1] != s.buildings  # records are immutable (a new owner is a new record): compared as they are
        or memo[2] != s.circles
        or memo[3] != contractor
    ):
        if memo is not None and memo[2] == s.circles and memo[3] == contractor:  # only buildings changed
            seat_zero = memo[4][0].copy()
            _refill_lots(s, memo[0], memo[1], seat_zero)
        else:
            seat_zero = np.empty(LOTS.size, dtype=np.float32)
            _fill_lots(s, 0, seat_zero)
        memo = s.lot_planes_memo = (
            s.lot_building[:],
            s.buildings[:],
            s.circles[:],
            contractor,
            {0: _read_only(seat_zero)},
        )
    by_seat = memo[4]
    planes = by_seat.get(p)
    if planes is None:  # seat p's controller columns are seat 0's, rotated by p
        planes = by_seat[p] = _read_only(by_seat[0][_controller_rotation(s.n, p)])
    return planes


@lru_cache(maxsize=16)  # one per (player count, seat)
def _controller_rotation(n: int, p: int) -> np.ndarray:
    """Indices taking seat 0's lot planes to seat p's: controller one-hot k of seat p is (k + p) % n of seat 0."""
    index = np.arange(LOTS.size).reshape(LOTS.shape)
    index[:, _CONTROLLER : _CONTROLLER + n] = np.roll(index[:, _CONTROLLER : _CONTROLLER + n], -p, axis=1)
    return _read_only(index.reshape(LOTS.size))


@lru_cache(maxsize=512)
def _circles_block(circles: tuple[int, ...]) -> np.ndarray:
    """Grey circles and the marker box (99 values)."""
    block = np.zeros(CIRCLES.size + MARKER_BOX.size, dtype=np.float32)
    for g, marker in enumerate(circles):
        block[CIRCLES.width * g + (marker - 3 if marker else 0)] = 1.0
    for k, marker in enumerate(cp.MARKERS):
        block[CIRCLES.size + k] = marker not in circles
    return _read_only(block)


@lru_cache(maxsize=512)
def _offices_block(offices: tuple[int, ...], extra_favor: int, seat: int) -> np.ndarray:
    """The offices a seat holds, and its Extra Favor (the last columns of its row)."""
    block = np.zeros(_OFFICES.stop - _OFFICES.start, dtype=np.float32)
    for office, holder in enumerate(offices):
        block[office] = holder == seat
    block[-1] = extra_favor == seat
    return _read_only(block)


@lru_cache(maxsize=1024)
def _fifths(counts: tuple[int, ...]) -> np.ndarray:
    """Vocation counts (a seat's or the supply) as values/5, memoized: converting a list costs more than the write."""
    return _read_only(np.asarray(counts, dtype=np.float32) / 5.0)


def _write_multi_hot(obs: np.ndarray, span: slice, items: list[int], was: list[int] | None) -> None:
    """Ones at `items` within `span`, zeros elsewhere in it, where the span held the ones of `was` (None: not
    written yet): only the values that differ are written (a step moves a card or two)."""
    if was is None:
        values = obs[span]
        values[:] = 0.0
        values[items] = 1.0
        return
    start = span.start
    for item in set(was).difference(items):
        obs[start + item] = 0.0
    for item in set(items).difference(was):
        obs[start + item] = 1.0


class _Frame:
    """The last observation of one state but for what depends on the observer (the city planes, the
    rotation of the seats' rows, the active offset), and what each of its parts was written from: the
    next `observation` rewrites only the parts whose sources changed since, instead of encoding all
    5,219 values again (an AEC loop asks after every step, and a step changes a few fields). A fresh
    frame has no sources, so its first observation writes every part."""

    __slots__ = (
        "obs",
        "rows",
        "circles",
        "planning",
        "contracts",
        "hands",
        "favors",
        "vocations",
        "offices",
        "wealth",
        "prestige",
        "voc_supply",
        "discard",
        "removed",
        "events",
        "tiles",
        "counts",
        "variant",
    )

    def __init__(self, n: int) -> None:
        self.obs = np.zeros(LAYOUT.size, dtype=np.float32)  # the lots block unused
        self.rows = [PLAYERS.start + PLAYERS.width * seat for seat in range(n)]  # in seat order
        self.circles: list[int] | None = None
        self.planning: tuple[int, ...] | None = None
        self.contracts: tuple[int, ...] | None = None
        self.hands: list[list[int]] | None = None
        self.favors: list[list[int]] | None = None
        self.vocations: list[list[int]] | None = None
        self.offices: tuple[list[int], int] | None = None  # offices, Extra Favor
        self.wealth: list[int] | None = None
        self.prestige: list[int] | None = None
        self.voc_supply: list[int] | None = None
        self.discard: list[int] | None = None
        self.removed: list[int] | None = None
        self.events: list[int] | None = None
        self.tiles: list[list[int]] | None = None
        self.counts: tuple[int, ...] | None = None  # the pawn, airport, Sports Team and deck sizes
        self.variant: str | None = None  # with the state's player count


def observation(s: State, p: int, variant: str) -> np.ndarray:
    """The tensor of `LAYOUT`: seat p's city planes (`_lots_block`), then the state's frame (`_Frame`)
    brought up to date and copied out with the seats' rows rotated so that p's comes first. The frame
    lives on the state, and a copied or determinized state starts without it."""
    frame = s.observation_frame
    if frame is None:
        frame = s.observation_frame = _Frame(s.n)
    seen = frame.obs
    if s.circles != frame.circles:
        seen[CIRCLES.start : MARKER_BOX.stop] = _circles_block(tuple(s.circles))
        frame.circles = s.circles[:]
    planning = (s.planning_deck[-1] if s.planning_up and s.planning_deck else -1, *s.planning_slots)
    if planning != frame.planning:
        _patch_spaces(seen, PLANNING, planning, frame.planning)
        frame.planning = planning
    contracts = (*r.deck_tops(s), *s.slots)
    if contracts != frame.contracts:
        _patch_spaces(seen, CONTRACTS, contracts, frame.contracts)
        was = frame.contracts
        for space, card in enumerate(contracts):  # the printed features of the card on each space
            if was is None or card != was[space]:
                row = FEATURES.start + FEATURES.width * space
                seen[row : row + FEATURES.width] = contract_features(card) if card >= 0 else 0.0
        frame.contracts = contracts
    _patch_players(s, frame)
    _patch_supply(s, frame)
    _write_scalars(s, variant, frame)
    n, first, width = s.n, PLAYERS.start, PLAYERS.width
    if p == 0:  # the frame's seat order is seat 0's
        obs = np.concatenate((_lots_block(s, p), seen[LOTS.stop :]))
    else:  # one copy of every part, p's row first (the absent seats' zero rows stay after the seated ones)
        rotated, seated = first + p * width, first + n * width
        parts = (_lots_block(s, p), seen[LOTS.stop : first], seen[rotated:seated], seen[first:rotated], seen[seated:])
        obs = np.concatenate(parts)
    if s.active >= 0:
        obs[_ACTIVE + (s.active - p) % n] = 1.0
    obs[_I_AM_ACTIVE] = s.active == p
    return obs


def _patch_spaces(seen: np.ndarray, block: Block, cards: tuple[int, ...], was: tuple[int, ...] | None) -> None:
    """Rows of one-hot cards (a row's "empty" column for -1), one per space, which held `was` (None: zeros)."""
    empty = block.column("empty")
    for space, card in enumerate(cards):
        old = None if was is None else was[space]
        if card != old:
            row = block.start + block.width * space
            if old is not None:
                seen[row + (old if old >= 0 else empty)] = 0.0
            seen[row + (card if card >= 0 else empty)] = 1.0


def _patch_players(s: State, frame: _Frame) -> None:
    """The players block, one row per seat (`frame.rows`); the rows of absent seats stay zero."""
    obs, rows = frame.obs, frame.rows
    if s.hands != frame.hands:
        for seat, row in enumerate(rows):
            was = None if frame.hands is None else frame.hands[seat]
            if s.hands[seat] != was:
                _write_multi_hot(obs, slice(row + _HAND.start, row + _HAND.stop), s.hands[seat], was)
        frame.hands = [hand[:] for hand in s.hands]
    if s.favors != frame.favors:
        for seat, row in enumerate(rows):
            was = None if frame.favors is None else frame.favors[seat]
            if s.favors[seat] != was:
                _write_multi_hot(obs, slice(row + _FAVORS.start, row + _FAVORS.stop), s.favors[seat], was)
        frame.favors = [favors[:] for favors in s.favors]
    if s.vocations != frame.vocations:
        for seat, row in enumerate(rows):
            obs[row + _OWN_VOCATIONS.start : row + _OWN_VOCATIONS.stop] = _fifths(tuple(s.vocations[seat]))
        frame.vocations = [vocations[:] for vocations in s.vocations]
    if (s.offices, s.extra_favor) != frame.offices:
        offices = tuple(s.offices)
        for seat, row in enumerate(rows):
            obs[row + _OFFICES.start : row + _OFFICES.stop] = _offices_block(offices, s.extra_favor, seat)
        frame.offices = (s.offices[:], s.extra_favor)
    if s.wealth != frame.wealth:
        for seat, row in enumerate(rows):  # the row's first value
            obs[row] = s.wealth[seat] / 50.0
        frame.wealth = s.wealth[:]
    if s.prestige != frame.prestige:
        for seat, row in enumerate(rows):  # the row's second value
            obs[row + 1] = s.prestige[seat] / 100.0
        frame.prestige = s.prestige[:]


def _patch_supply(s: State, frame: _Frame) -> None:
    """The slowly changing globals: vocation supply, discard pile, contracts out, events, tile supply."""
    obs = frame.obs
    if s.voc_supply != frame.voc_supply:
        obs[_SUPPLY] = _fifths(tuple(s.voc_supply))
        frame.voc_supply = s.voc_supply[:]
    if s.planning_discard != frame.discard:
        _write_multi_hot(obs, _DISCARD, s.planning_discard, frame.discard)
        frame.discard = s.planning_discard[:]
    if s.removed != frame.removed:
        _write_multi_hot(obs, _OUT, s.removed, frame.removed)
        frame.removed = s.removed[:]
    if s.events_done != frame.events:
        _write_multi_hot(obs, _EVENTS, s.events_done, frame.events)
        frame.events = s.events_done[:]
    if s.tiles != frame.tiles:
        tiles = obs[_TILES]  # per zone and size, values/20 (divided as float32s)
        tiles[:] = [count for row in s.tiles for count in row]
        tiles /= 20.0
        frame.tiles = [row[:] for row in s.tiles]


def _write_scalars(s: State, variant: str, frame: _Frame) -> None:
    """The values that change with almost every step: the pawn, deck sizes, AP, the decision (what
    depends on the observer, the active offset and "I am active", stays zero in the frame)."""
    seen = frame.obs
    decks = s.decks
    counts = (s.pawn, s.airport, s.sports, len(s.planning_deck), len(decks[0]), len(decks[1]), len(decks[2]))
    if counts != frame.counts:
        pawn, airport, sports, planning, town, city, metropolis = counts
        seen[_PAWN_TO_DECKS] = [
            *_PAWN_ONE_HOT[pawn],
            airport,
            sports,
            planning / 54.0,
            town / 37.0,
            city / 37.0,
            metropolis / 37.0,
        ]
        frame.counts = counts
    seen[_AP] = s.ap / 8.0
    if variant != frame.variant:  # written once: a match keeps its player count and variant
        seen[_COUNT_AND_VARIANT] = _count_and_variant(s.n, variant)
        frame.variant = variant
    build = s.build
    ctx = cast("dict[str, Any]", s.ctx)  # read by key whatever the decision
    seen[DECISION.slice] = _decision_block(
        s.decision,
        build["card"] if build else None,
        build["paid"] if build else 0,
        ctx.get("voc", -1),
        ctx.get("amount", 0),
    )


@lru_cache(maxsize=8)
def _count_and_variant(n: int, variant: str) -> np.ndarray:
    """The player count and variant one-hots."""
    block = np.zeros(_COUNT_AND_VARIANT.stop - _COUNT_AND_VARIANT.start, dtype=np.float32)
    block[_PLAYER_COUNT - _COUNT_AND_VARIANT.start + n - 2] = 1.0
    block[_VARIANT - _COUNT_AND_VARIANT.start + VARIANTS.index(variant)] = 1.0
    return _read_only(block)


@lru_cache(maxsize=2048)
def _decision_block(decision: int, card: int | None, paid: int, voc: int, amount: int) -> np.ndarray:
    """The decision block but "I am active": the pending kind, the contract being built (None: none) and the
    permits paid for it, the vocation in question and the amount (memoized: a match asks few of them)."""
    block = np.zeros(DECISION.size, dtype=np.float32)
    start = DECISION.start
    if decision >= 0:
        block[_KIND - start + decision] = 1.0
    block[(_CONTRACT + card if card is not None else _NO_CONTRACT) - start] = 1.0
    block[_PERMITS - start] = paid / 4.0
    block[(_VOCATION + voc if voc >= 0 else _NO_VOCATION) - start] = 1.0
    block[_AMOUNT - start] = amount / 10.0
    return _read_only(block)


def view(s: State, p: int) -> dict:
    """Structured, read-only description of what seat p knows: all public state but deck order."""
    return {
        "player": p,
        "num_players": s.n,
        "active": s.active,
        "decision": r.Decision.name_of(s.decision),
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
        n=s.n,
        lot_building=s.lot_building[:],
        buildings=s.buildings[:],  # records are immutable: shared
        tiles=[row[:] for row in s.tiles],
        circles=s.circles[:],
        wealth=s.wealth[:],
        prestige=s.prestige[:],
        hands=[h[:] for h in s.hands],
        favors=[f[:] for f in s.favors],
        vocations=[v[:] for v in s.vocations],
        voc_supply=s.voc_supply[:],
        offices=s.offices[:],
        planning_deck=s.planning_deck[:],
        planning_slots=s.planning_slots[:],
        planning_discard=s.planning_discard[:],
        decks=[d[:] for d in s.decks],
        slots=s.slots[:],
        extra_favor=s.extra_favor,
        pawn=s.pawn,
        airport=s.airport,
        sports=s.sports,
        planning_up=s.planning_up,
        deck_up=s.deck_up[:],
        removed=s.removed[:],
        events_done=s.events_done[:],
        active=s.active,
        phase=s.phase,
        ap=s.ap,
        built_this_turn=s.built_this_turn,
        decision=s.decision,
        decider=s.decider,
        ctx=_copy_ctx(s.ctx),
        tasks=s.tasks[:],  # records are immutable: shared
        build=None if s.build is None else s.build.copy(),
        planning_reshuffles=s.planning_reshuffles,
        turns=s.turns,
        winners=s.winners[:],
        truncated=s.truncated,
    )


def _copy_ctx(ctx: r.Context) -> r.Context:
    return cast(r.Context, {k: (v[:] if isinstance(v, list) else v) for k, v in ctx.items()})


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
    return from_top[::-1] + deck[len(hidden) :]


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
    return from_top[::-1] + deck[len(hidden) :]


def determinize(s: State, p: int, variant: str, rng: np.random.Generator) -> State:
    """Resample the order of every deck's face-down cards (the only hidden information), keeping what
    the stacking rules and the cards already seen imply (`_resample_contract_deck`)."""
    twin = copy_state(s)
    twin.planning_deck = _resample_planning_deck(twin, rng)
    twin.decks = [_resample_contract_deck(deck, twin.deck_up[d], d, variant, rng) for d, deck in enumerate(twin.decks)]
    return twin
