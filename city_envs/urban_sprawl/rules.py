"""Urban Sprawl rules: state, legal actions, transitions (docs/games/urban_sprawl.md).

Flat action space, 219 ids (the action table in docs/games/urban_sprawl.md):

| ids     | action            | meaning by decision kind                                                  |
|---------|-------------------|---------------------------------------------------------------------------|
| 0-35    | CARD k            | permit P00..P35: INVEST it (INVEST) or pay it (PAY_PERMIT)                 |
| 36      | PASS              | end investments / end the AP phase / decline (steal, marker move)         |
| 37-41   | TAKE_PLANNING s   | 0 deck top (5 AP), 1 PL4 (4), 2 PL3 (3), 3 PL2 (2), 4 PL1 (1)             |
| 42-49   | BUILD s           | 0 Town top (6), 1 City top (5), 2 Metropolis top (4), 3 C5 .. 7 C1 (5..1) |
| 50-57   | TAKE_FAVOR s      | same space numbering as BUILD                                             |
| 58-59   | BUILD_FAVOR k     | own Favor k (in order acquired), 0 AP                                     |
| 60-203  | LOT x             | PLACE: block x // 4, variant x % 4; lot decisions: lot x = 4 * block + sub-lot |
| 204-212 | CIRCLE g          | grey circle T0, T1, T2, R0..R5                                            |
| 213-216 | PLAYER d          | the seat d places clockwise from the deciding seat (0 = self)             |
| 217     | OPT_A             | wealth / "yes, pay"                                                       |
| 218     | OPT_B             | prestige / "no" (accept the demolition, decline the auction)              |

Decision kinds: `Decision` below, each with who decides and its legal actions (START_BUY and
MEDIA_TIE are the setup's choices, 3.1 steps 9-10).

Everything automatic (Treasurer tax, slides and refills, payouts, elections without ties, events
without choices) runs inside `apply_action` as a stack of small tasks (`State.tasks`), so a
decision owned by another seat simply interrupts the procedure and the rest resumes after it.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, NamedTuple, TypeAlias, TypedDict, cast

import numpy as np

from city_envs.core.decisions import DecisionTable
from city_envs.core.game import Chance, leaders
from city_envs.urban_sprawl import components as cp

# ----- action ids ------------------------------------------------------------------------------
CARD = 0
PASS = 36
TAKE_PLANNING = 37
BUILD = 42
TAKE_FAVOR = 50
BUILD_FAVOR = 58
LOT = 60
CIRCLE = 204
PLAYER = 213
OPT_A = 217
OPT_B = 218
NUM_ACTIONS = 219


# ----- decision kinds --------------------------------------------------------------------------
class Decision(DecisionTable):
    """The kinds of pending decision. The ids are what observations one-hot and recorded matches
    store, so they never change; the names are what logs, the web page and the docs show. Each
    member's comment says who decides: which actions are legal."""

    INVEST = 0  # active: CARD k (permits in hand), PASS
    MAIN = 1  # active: TAKE_PLANNING, BUILD, TAKE_FAVOR, BUILD_FAVOR, PASS
    PAY_PERMIT = 2  # active: CARD k (unpicked permits showing the zone)
    PLACE = 3  # active: LOT 4b+v for every legal placement
    VOC_SOURCE = 4  # builder: PLAYER d (opponents owning it), PASS
    VOC_PAYOUT = 5  # each marker owner, once per marker: OPT_A wealth, OPT_B prestige
    MARKER_PLACE = 6  # builder / active: CIRCLE g empty
    MARKER_MOVE_SRC = 7  # active (Zoning Variance, Subway Line): CIRCLE g holding a marker, PASS
    MARKER_MOVE_DST = 8  # builder / active: CIRCLE g empty; PASS if MARKER(n) was on board
    PARK_LOT = 9  # builder: LOT: empty lots adjacent to the new building
    TRIBUTE_PAY = 10  # each opponent, once per building: OPT_A wealth, OPT_B prestige
    ELECTION_TIE = 11  # decider (5.5): PLAYER d for each tied player
    MAYOR_PARK = 12  # new Mayor; auction buyer: LOT: any empty lot
    AUCTION = 13  # each player clockwise: OPT_A pay 8 (if wealth >= 8), OPT_B
    PICK_BUILDING = 14  # active / Treasurer / disaster victim: LOT covering a candidate building
    DISASTER_CHOICE = 15  # each affected player: OPT_A pay (if affordable), OPT_B demolish
    BLIGHT_CHOICE = 16  # controller of the chosen building: OPT_A pay 3 P (if prestige >= 3), OPT_B
    START_BUY = 17  # seats in turn during setup: LOT of an uncontrolled starting building
    MEDIA_TIE = 18  # start player: PLAYER d for each tied player


NONE = -2  # no decision pending: tasks run
GAME_OVER = -1
NOBODY = -1


# ----- records -----------------------------------------------------------------------------------
class Building(NamedTuple):
    """A tile in the city. Immutable (a new owner is a new record), so a copy of the state shares them;
    the JSON form is the list [zone, size, lots, owner]."""

    zone: int  # CIV, COM, IND, RES or PARK
    size: int  # lots, 1..4
    lots: tuple[int, ...]  # in footprint order; lots[0] is the anchor, and its block the building's
    owner: int  # controlling seat, NOBODY for none


ZONE, SIZE, LOTS_, OWNER = range(4)  # Building's field positions, for index access


class _Contract(TypedDict):
    card: int
    paid: int


class Build(_Contract, total=False):
    """The contract being built: its card, the permit value paid so far, then the building it made."""

    building: int


# The pending decision's context (`State.ctx`), one shape per decision kind (an empty dict for the others);
# validation.py checks each.
class VocSourceContext(TypedDict):  # VOC_SOURCE: the vocation the supply ran out of
    voc: int


class VocPayoutContext(TypedDict):  # VOC_PAYOUT: one marker's payout
    voc: int
    amount: int


class TributeContext(TypedDict):  # TRIBUTE_PAY
    amount: int


class LotsContext(TypedDict):  # PARK_LOT, MAYOR_PARK: the lots to choose from
    lots: list[int]


class MarkerPlaceContext(TypedDict):  # MARKER_PLACE
    marker: int


class MarkerMoveContext(TypedDict):  # MARKER_MOVE_DST: the marker, and whether it may stay (PASS)
    marker: int
    optional: bool


class ElectionTieContext(TypedDict):  # ELECTION_TIE
    office: int
    tied: list[int]


class MediaTieContext(TypedDict):  # MEDIA_TIE
    tied: list[int]


class PickBuildingContext(TypedDict):  # PICK_BUILDING: the task the picked building goes to, its lots
    purpose: str  # "blight", "headlines", "relocate" or "demolish"
    lots: list[int]


class BlightContext(TypedDict):  # BLIGHT_CHOICE
    building: int
    affordable: bool


class AuctionContext(TypedDict):  # AUCTION
    affordable: bool
    price: int


class DisasterContext(TypedDict):  # DISASTER_CHOICE
    event: int
    affordable: bool


class NoContext(TypedDict):  # every other decision
    pass


Context = (
    VocSourceContext
    | VocPayoutContext
    | TributeContext
    | LotsContext
    | MarkerPlaceContext
    | MarkerMoveContext
    | ElectionTieContext
    | MediaTieContext
    | PickBuildingContext
    | BlightContext
    | AuctionContext
    | DisasterContext
    | NoContext
)


# The tasks of the automatic procedure (`State.tasks`, a stack), one record per kind. Immutable, so a copy of
# the state shares them; the JSON form is the list [name, *fields] (`TASK_NAMES`).
class BuildDone(NamedTuple):
    """The contract being built is done with."""


class Vocation(NamedTuple):
    """The builder takes a marker of `voc`, then it pays out `value` per marker."""

    voc: int
    value: int


class VocPayout(NamedTuple):
    """Every marker of `voc` pays `value` to its holder."""

    voc: int
    value: int


class VocPayOne(NamedTuple):
    """One marker of `voc` pays `value` to `seat`, as wealth or prestige (its choice)."""

    seat: int
    voc: int
    value: int


class EffectTask(NamedTuple):
    """Effect number `effect` of contract `card`, built as `building`."""

    card: int
    effect: int
    building: int


class TributeOne(NamedTuple):
    """`seat` pays the builder `amount` for one of its buildings."""

    seat: int
    amount: int


class ParkNear(NamedTuple):
    """`seat` places a park next to `building`."""

    building: int
    seat: int


class ParkAnywhere(NamedTuple):
    """`seat` places a park on any empty lot."""

    seat: int


class MarkerTask(NamedTuple):
    """`seat` puts payout marker `number` on a grey circle (or moves it there)."""

    number: int
    seat: int


class MoveMarker(NamedTuple):
    """`seat` may move a placed marker."""

    seat: int


class ElectionTask(NamedTuple):
    """An election for `office`."""

    office: int


class Elected(NamedTuple):
    """`seat` takes `office`."""

    office: int
    seat: int


class Ballot(NamedTuple):
    """The election pawn moves on (4.3)."""


class Payout(NamedTuple):
    """A payout icon pays: `icon` "w" (wealth row) or "p" (prestige row), numbered `number`."""

    icon: str
    number: int


class SlidePlanning(NamedTuple):
    """End of turn step 1: the planning cards slide."""


class RefillPlanning(NamedTuple):
    """End of turn: a planning space is refilled."""


class RevealPlanning(NamedTuple):
    """End of turn: the planning deck's top is turned up."""


class SlideContracts(NamedTuple):
    """End of turn: the contracts slide."""


class RefillContracts(NamedTuple):
    """End of turn: a contract space is refilled."""


class RevealContract(NamedTuple):
    """End of turn: the top of contract deck `deck` is turned up."""

    deck: int


class NextTurn(NamedTuple):
    """The next seat's turn begins."""


class PlanningEventTask(NamedTuple):
    """Planning event `card` happens."""

    card: int


class Blight(NamedTuple):
    """Urban Blight strikes `building`."""

    building: int


class Headlines(NamedTuple):
    """Local Headlines reward `building`'s controller."""

    building: int


class AuctionOne(NamedTuple):
    """`seat` may buy a park for `price`."""

    seat: int
    price: int


class ContractEventTask(NamedTuple):
    """Contract-deck event `event` happens."""

    event: int


class Relocate(NamedTuple):
    """`building` loses its controller."""

    building: int


class DisasterOne(NamedTuple):
    """Disaster `event` strikes `seat`."""

    seat: int
    event: int


class Demolish(NamedTuple):
    """`building` is demolished."""

    building: int


# the end of a turn (4.2), pushed at once (its first step last); records are immutable, so turns share them
END_OF_TURN = (
    NextTurn(),
    RevealContract(2),
    RevealContract(1),
    RevealContract(0),
    RefillContracts(),
    SlideContracts(),
    RevealPlanning(),
    RefillPlanning(),
    SlidePlanning(),
)

Task = (
    BuildDone
    | Vocation
    | VocPayout
    | VocPayOne
    | EffectTask
    | TributeOne
    | ParkNear
    | ParkAnywhere
    | MarkerTask
    | MoveMarker
    | ElectionTask
    | Elected
    | Ballot
    | Payout
    | SlidePlanning
    | RefillPlanning
    | RevealPlanning
    | SlideContracts
    | RefillContracts
    | RevealContract
    | NextTurn
    | PlanningEventTask
    | Blight
    | Headlines
    | AuctionOne
    | ContractEventTask
    | Relocate
    | DisasterOne
    | Demolish
)


@dataclass
class State:
    """Everything that changes during a match; plain JSON-safe data mirrored by `to_dict`.

    Decks are lists whose end is the top; `planning_up` / `deck_up` say whether that top card is
    face up. Planning slots are PL4..PL1, contract slots C5..C1 (-1 = empty). Buildings are `Building`
    records (None once demolished); `lot_building` maps each lot to one. `ctx` is the pending decision's
    context (a `Context`), `tasks` the procedure's stack (`Task` records, the top last).
    """

    n: int
    lot_building: list[int]
    buildings: list[Building | None]
    tiles: list[list[int]]  # supply per zone, per size 1..4
    circles: list[int]  # marker number per grey circle, 0 = empty
    wealth: list[int]
    prestige: list[int]
    hands: list[list[int]]  # planning card ids, sorted
    favors: list[list[int]]  # contract ids, in order acquired
    vocations: list[list[int]]  # per seat, per vocation
    voc_supply: list[int]
    offices: list[int]  # holder per office (Mayor, DA, Treasurer, Police Chief, Union Boss, Contractor)
    planning_deck: list[int]
    planning_slots: list[int]
    planning_discard: list[int]
    decks: list[list[int]]  # Town, City, Metropolis (card ids: contracts 0..95, events 96..110)
    slots: list[int]
    extra_favor: int = NOBODY
    pawn: int = cp.MAYOR
    airport: bool = False
    sports: bool = False
    planning_up: bool = False
    deck_up: list[bool] = field(default_factory=lambda: [False, False, False])
    removed: list[int] = field(default_factory=list)  # contracts built (out of the game), in order
    events_done: list[int] = field(default_factory=list)  # contract events resolved, in order
    active: int = 0
    phase: int = Decision.INVEST
    ap: int = 0
    built_this_turn: bool = False
    decision: int = Decision.START_BUY
    decider: int = 0
    ctx: Context = field(default_factory=NoContext)
    tasks: list[Task] = field(default_factory=list)
    build: Build | None = None
    planning_reshuffles: int = 0
    turns: int = 0
    winners: list[int] = field(default_factory=list)
    truncated: bool = False

    # not fields (no annotation): memos of derived data, never serialized, compared or copied; each
    # starts as None and is typed Any for the checker (an annotation would make it a field)
    lot_planes_memo = cast(Any, None)  # view.observation's city planes
    observation_frame = cast(Any, None)  # view.observation's last observation (view._Frame)
    placements_memo = cast(Any, None)  # legal_placements' answers while the lots and markers stay, likewise


# ===== the city (2.2-2.4) ======================================================================
def block_value(s: State, block: int) -> int:
    top, right = cp.BLOCK_CIRCLES[block]
    return cp.BASE_VALUE[block] + s.circles[top] + s.circles[right]


@lru_cache(maxsize=4096)
def block_values(circles: tuple[int, ...]) -> tuple[int, ...]:
    """`block_value` of every block for the markers `circles` (asked on every legal-placement search)."""
    return tuple(cp.BASE_VALUE[b] + circles[top] + circles[right] for b, (top, right) in enumerate(cp.BLOCK_CIRCLES))


def standing(s: State, bid: int) -> Building:
    """Building `bid`, which the caller knows to stand (a demolished one is None)."""
    b = s.buildings[bid]
    assert b is not None, f"building {bid} is demolished"
    return b


def building_value(s: State, bid: int) -> int:
    return block_value(s, standing(s, bid).lots[0] // 4)


def live_buildings(s: State) -> list[int]:
    return [bid for bid, b in enumerate(s.buildings) if b is not None]


def buildings_adjacent(s: State, bid: int) -> set[int]:
    lots = standing(s, bid).lots
    around = {y for x in lots for y in cp.ADJACENT_LOTS[x]}
    found = {s.lot_building[y] for y in around} - {-1, bid}
    return found


def row_blocks(s: State, kind: str, number: int) -> tuple[int, ...] | None:
    """Blocks of the row a payout icon addresses (2.3); None when its marker is not on the board."""
    if kind == "w" and number <= 6:
        column = cp.COLUMN_OF_WEALTH[number]
        return tuple(6 * r + column for r in range(6))
    if kind == "p" and number <= 3:
        return tuple(6 * r + c for r in cp.BAND_ROWS[number] for c in range(6))
    if number in s.circles:
        return cp.CIRCLE_BLOCKS[s.circles.index(number)]
    return None


def payout_split(counts: list[int], number: int, n: int) -> list[int]:
    """Amount per seat for a row numbered `number` given buildings controlled there (4.3)."""
    table = list(cp.payout_table(number)[:n]) + [0] * 4
    ranked = sorted((c for c in set(counts) if c > 0), reverse=True)
    paid = [0] * n
    position = 0
    for count in ranked:
        group = [seat for seat in range(n) if counts[seat] == count]
        share = sum(table[position : position + len(group)]) // len(group)
        for seat in group:
            paid[seat] = share
        position += len(group)
    return paid


def row_counts(s: State, blocks: tuple[int, ...]) -> list[int]:
    counts = [0] * s.n
    inside = set(blocks)
    for b in s.buildings:
        if b is not None and b.owner >= 0 and b.lots[0] // 4 in inside:
            counts[b.owner] += 1
    return counts


def row_payout(s: State, kind: str, number: int) -> list[int]:
    """What a payout icon pays each seat now (nothing when its marker is not on the board)."""
    blocks = row_blocks(s, kind, number)
    return [0] * s.n if blocks is None else payout_split(row_counts(s, blocks), number, s.n)


def pay_row(s: State, kind: str, number: int) -> None:
    for seat, amount in enumerate(row_payout(s, kind, number)):
        if kind == "w":
            s.wealth[seat] += amount
        else:
            s.prestige[seat] += amount


# ===== setup (§3) ==============================================================================
def _stack(cards: list[int], special: int, variant: str, rng: Chance) -> list[int]:
    """A contract deck stacked per 3.1 step 4 / 3.4 (returned bottom first: the end is the top)."""
    others = [cards[i] for i in rng.permutation(len(cards))]
    above, mixed = cp.DECK_STACKING[variant]
    top, middle, bottom = others[:above], others[above : above + mixed] + [special], others[above + mixed :]
    middle = [middle[i] for i in rng.permutation(len(middle))]
    return list(reversed(top + middle + bottom))


def new_state(n: int, variant: str, rng: Chance) -> State:
    buildings: list[Building | None] = []
    lot_building = [-1] * cp.LOTS
    tiles = [list(row) for row in cp.TILES]
    for zone, lot in cp.STARTING_BUILDINGS:
        lot_building[lot] = len(buildings)
        buildings.append(Building(zone, 1, (lot,), NOBODY))
        tiles[zone][0] -= 1
    decks = []
    for deck in range(3):
        special = cp.EVENT_BASE + cp.SPECIAL_EVENT[deck]
        cards = [c for c in cp.deck_cards(deck) if c != special]
        decks.append(_stack(cards, special, variant, rng))
    permits = [int(i) for i in rng.permutation(cp.NUM_PERMITS)]
    bottom = permits[: len(permits) - cp.PLANNING_TOP_PERMITS] + list(range(cp.FIRST_PLANNING_EVENT, cp.PLANNING_CARDS))
    bottom = [bottom[i] for i in rng.permutation(len(bottom))]
    top = permits[len(permits) - cp.PLANNING_TOP_PERMITS :]
    planning_deck = bottom + top
    hands = [sorted(planning_deck.pop() for _ in range(seat + 1)) for seat in range(n)]
    planning_slots = [planning_deck.pop() for _ in range(4)]
    s = State(
        n=n,
        lot_building=lot_building,
        buildings=buildings,
        tiles=tiles,
        circles=[0] * cp.CIRCLES,
        wealth=[cp.STARTING_WEALTH[n]] * n,
        prestige=[0] * n,
        hands=hands,
        favors=[[] for _ in range(n)],
        vocations=[[0] * cp.VOCATIONS for _ in range(n)],
        voc_supply=list(cp.VOCATION_MARKERS),
        offices=[NOBODY] * 6,
        planning_deck=planning_deck,
        planning_slots=planning_slots,
        planning_discard=list(cp.URBAN_RENEWAL),
        decks=decks,
        slots=[-1] * cp.SLOTS,
    )
    s.planning_up = True
    for slot in range(cp.SLOTS):
        s.slots[slot] = _setup_draw(s, cp.TOWN)
    s.decks[cp.TOWN].append(_setup_draw(s, cp.TOWN))
    s.deck_up[cp.TOWN] = True
    if s.airport:  # the Airport came up in the deal: the City deck is active from the start and shows its top
        s.decks[cp.CITY].append(_setup_draw(s, cp.CITY))
        s.deck_up[cp.CITY] = True
    s.decision, s.decider = Decision.START_BUY, 0
    return s


def _setup_draw(s: State, deck: int) -> int:
    """The next contract card of the setup deal (3.1 step 7). Setup reveals trigger nothing, so an
    ordinary event revealed then leaves the game unresolved. The Airport comes into play instead: it
    opens the City deck, without which the Olympic Games could never come (with the short stacking,
    the four ordinary Town events among the first nine cards bring it into the deal). The deal never
    reaches the City deck's Sports Team: the City top is dealt past at most four ordinary events, and the
    Sports Team lies tenth or deeper."""
    while True:
        card = s.decks[deck].pop()
        if card < cp.EVENT_BASE:
            return card
        s.events_done.append(card - cp.EVENT_BASE)
        if card == cp.EVENT_BASE + cp.SPECIAL_EVENT[cp.TOWN]:
            s.airport = True


def starting_lots_left(s: State) -> list[int]:
    """The lots of the starting buildings nobody bought yet (none is demolished during the setup)."""
    starting = cast("list[Building]", s.buildings[: len(cp.STARTING_BUILDINGS)])
    return [b.lots[0] for b in starting if b.owner < 0]


def _set_owner(s: State, bid: int, owner: int) -> None:
    s.buildings[bid] = standing(s, bid)._replace(owner=owner)


def _start_buy(s: State, p: int, lot: int) -> None:
    bid = s.lot_building[lot]
    _set_owner(s, bid, p)
    s.wealth[p] -= building_value(s, bid)
    if starting_lots_left(s):
        s.decider = (p + 1) % s.n
        s.decision = Decision.START_BUY
        return
    richest = max(s.wealth)
    tied = [seat for seat in range(s.n) if s.wealth[seat] == richest]
    if len(tied) > 1:
        fours = [_media_tie_count(s, seat) for seat in tied]
        tied = [seat for seat, k in zip(tied, fours, strict=True) if k == max(fours)]
    if len(tied) > 1:
        _ask(s, Decision.MEDIA_TIE, 0, MediaTieContext(tied=tied))
        return
    _give_media(s, tied[0])


def _media_tie_count(s: State, seat: int) -> int:
    return sum(
        1
        for bid, b in enumerate(s.buildings)
        if b is not None and b.owner == seat and b.zone == cp.RES and building_value(s, bid) == cp.MEDIA_TIE_VALUE
    )


def _give_media(s: State, seat: int) -> None:
    s.vocations[seat][cp.MEDIA] += 1
    s.voc_supply[cp.MEDIA] -= 1
    s.ctx = {}
    s.active = 0
    _begin_turn(s)


# ===== turn (§4) ===============================================================================
def _begin_turn(s: State) -> None:
    p = s.active
    treasurer = s.offices[cp.TREASURER]
    if treasurer == p:
        for k in range(1, s.n):
            o = (p + k) % s.n
            x = min(2, s.wealth[o])
            s.wealth[o] -= x
            s.wealth[p] += x
    s.phase = Decision.INVEST
    s.ap = 0
    s.built_this_turn = False
    s.decision = NONE


def favor_capacity(s: State, seat: int) -> int:
    return cp.EXTRA_FAVOR_CAPACITY if s.extra_favor == seat else cp.FAVOR_CAPACITY


def deck_active(s: State, deck: int) -> bool:
    return deck == cp.TOWN or (deck == cp.CITY and s.airport) or (deck == cp.METRO and s.sports)


def contract_at(s: State, space: int) -> int:
    """Contract card id on contract space `space` (0-2 deck tops, 3-7 C5..C1), -1 if none."""
    if space < 3:
        return s.decks[space][-1] if s.deck_up[space] and s.decks[space] and deck_active(s, space) else -1
    return s.slots[space - 3]


def deck_tops(s: State) -> tuple[int, int, int]:
    """`contract_at` of the three deck spaces at once (an observation and the main mask read them all)."""
    decks, up = s.decks, s.deck_up
    town, city, metropolis = decks[cp.TOWN], decks[cp.CITY], decks[cp.METRO]
    return (
        town[-1] if up[cp.TOWN] and town else -1,  # the Town deck is always in play
        city[-1] if up[cp.CITY] and city and s.airport else -1,
        metropolis[-1] if up[cp.METRO] and metropolis and s.sports else -1,
    )


def planning_at(s: State, space: int) -> int:
    if space == 0:
        return s.planning_deck[-1] if s.planning_up and s.planning_deck else -1
    return s.planning_slots[space - 1]


def permit_totals(hand: list[int]) -> list[int]:
    """The permit value the hand holds for each zone (what building a contract of that zone may pay)."""
    totals = [0] * len(cp.ZONE_NAMES)
    for c in hand:
        if c < cp.NUM_PERMITS:
            value = cp.PERMIT_VALUE[c]
            for zone in cp.PERMIT_ZONES[c]:
                totals[zone] += value
    return totals


def bit_set(lots: tuple[int, ...]) -> int:
    """The lots as one integer, bit x for lot x (zoning and neighbour tests become integer tests)."""
    return sum(1 << x for x in lots)


# PLACEMENTS[size] by block, with the lots and the lots around as bit sets, so that a block too dear is
# passed over whole and a placement on empty ground with no neighbour is recognized by two integer tests
PLACEMENT_BITS = {
    size: tuple(
        tuple(
            (place, lots, around, water, forest, bit_set(lots), bit_set(around))
            for place, lots, around, water, forest in placements
            if place >> 2 == block
        )
        for block in range(cp.BLOCKS)
    )
    for size, placements in cp.PLACEMENTS.items()
}


# the blocks in id order, starting at each one (round to the one before it)
BLOCKS_FROM = tuple(tuple(range(first, cp.BLOCKS)) + tuple(range(first)) for first in range(cp.BLOCKS))
# the lots of every placement as a bit set, by its lots (a building stands on one of them)
FOOTPRINT_BITS = {
    lots: bits for by_block in PLACEMENT_BITS.values() for row in by_block for _, lots, *_, bits, _ in row
}


def _zone_lots(s: State) -> tuple[int, list[int], list[int]]:
    """The lots holding a building, and those of each zone's buildings, as bit sets; parks count in
    no zone (the zoning rule of 4.1 passes over them). Then per lot, the lots of the building on it
    (0: none), which a placement demolishing it must cover."""
    occupied, by_zone, cover = 0, [0] * len(cp.ZONE_NAMES), [0] * cp.LOTS
    for b in s.buildings:
        if b is not None:  # standing: `lot_building` names it on each of its lots
            zone, _size, lots, _owner = b
            bits = FOOTPRINT_BITS.get(lots) or bit_set(lots)
            occupied |= bits
            by_zone[zone] |= bits
            for x in lots:
                cover[x] = bits
    by_zone[cp.PARK] = 0
    return occupied, by_zone, cover


_URBAN_RENEWAL = frozenset(cp.URBAN_RENEWAL)


def legal_placements(s: State, seat: int, card: int, first_only: bool = False) -> dict[int, list[int]]:
    """Legal placements of contract `card` for `seat` (4.1 step 3): place id -> buildings demolished.

    The answers are read, never changed, by the callers, and kept on the state while the lots and the
    markers stay as they are: a turn asks the same questions for each of its decisions, and placing a
    building asks again what its legal mask asked. Within one match a building id always names the same
    zone, size and lots. Wealth matters only through the blocks it affords, and the seat, the Contractor
    and the owners only to a seat that may demolish: other seats share the answers, which stay while
    wealth changes between two block values. `first_only` asks whether there is one (the main
    decision's mask): the answer then holds one legal placement, or none."""
    return _placements(s, seat, card, first_only, _asking(s, seat))


# what one seat's questions about placements share (`_asking`): the memo's answers, the block values the
# seat affords, the demolition part of the key (None: it may not demolish), the search's bit sets
# and per contract, the block where a search for one placement last found it (where the next one starts)
Asking: TypeAlias = (
    "tuple[dict[tuple, dict[int, list[int]]], int, tuple | None, tuple[int, list[int], list[int]], dict[int, int]]"
)


def _asking(s: State, seat: int) -> Asking:
    """The placements memo brought up to date, and what `seat`'s questions to it share."""
    contractor = s.offices[cp.CONTRACTOR]
    memo = s.placements_memo
    if memo is None or memo[0] != s.lot_building or memo[1] != s.circles:
        block_value_steps = sorted(set(block_values(tuple(s.circles))))
        hints = {} if memo is None else memo[6]  # still a good guess after a building or a marker
        memo = s.placements_memo = (
            s.lot_building[:],
            s.circles[:],
            {},
            block_value_steps,
            _zone_lots(s),
            [None, ()],
            hints,
        )
    demolishing = None
    if contractor == seat or not _URBAN_RENEWAL.isdisjoint(s.hands[seat]):  # it may demolish
        owners = memo[5]  # each building's owner, and the records it was read from (immutable: compared as they are)
        if owners[0] != s.buildings:
            owners[:] = s.buildings[:], tuple([b and b.owner for b in s.buildings])
        demolishing = (seat, contractor, owners[1])
    return memo[2], bisect_right(memo[3], s.wealth[seat]), demolishing, memo[4], memo[6]  # bisect: values afforded


def _placements(s: State, seat: int, card: int, first_only: bool, asking: Asking) -> dict[int, list[int]]:
    """`legal_placements`, with what the seat's questions share."""
    answers, afforded, demolishing, bit_sets, hints = asking
    key = (card, first_only, afforded, demolishing)
    found = answers.get(key)
    if found is None:
        start = hints.get(card, 0) if first_only else 0
        if first_only and demolishing is not None:  # a placement on free lots will do; any seat's search is shared
            free = (card, True, afforded, None)
            found = answers.get(free)
            if found is None:
                found = answers[free] = _search_placements(s, seat, card, True, False, *bit_sets, start)
        if not found:
            found = _search_placements(s, seat, card, first_only, demolishing is not None, *bit_sets, start)
        if first_only and found:
            hints[card] = next(iter(found)) >> 2  # its block
        answers[key] = found
    return found


def _search_placements(
    s: State,
    seat: int,
    card: int,
    first_only: bool,
    may_demolish: bool,
    occupied: int,
    zone_lots: list[int],
    cover: list[int],
    first_block: int = 0,
) -> dict[int, list[int]]:
    """`legal_placements` searched (`first_only`: one legal placement, or none), block by block from
    `first_block` round to the one before it. The zoning test reads bit sets: the lots around a placement
    never hold a building it demolishes (those lie wholly inside it)."""
    zone, size, restriction = cp.CONTRACT_ZONE[card], cp.CONTRACT_SIZE[card], cp.CONTRACT_RESTRICTION[card]
    contractor = s.offices[cp.CONTRACTOR]
    kind, argument = restriction if restriction is not None else (-1, 0)
    wealth = s.wealth[seat]
    values = block_values(tuple(s.circles))
    lot_building, buildings = s.lot_building, cast("list[Building]", s.buildings)  # a lot names a standing building
    zoned_lots = sum(zone_lots)  # the zones' bit sets are disjoint
    # the restriction's tests, read once
    water_only, forest_only = kind == cp.ADJ_WATER, kind == cp.ADJ_FOREST
    zoning, apart_from = kind != cp.IGNORE_ZONING, zone_lots[argument] if kind == cp.NOT_ADJ else 0
    own_zone = zone_lots[zone]
    found: dict[int, list[int]] = {}
    by_block = PLACEMENT_BITS[size]
    for block in BLOCKS_FROM[first_block]:
        placements, value = by_block[block], values[block]
        if value > wealth or (kind == cp.MIN_VALUE and value < argument) or (kind == cp.MAX_VALUE and value > argument):
            continue
        for place, lots, _around, water, forest, lot_bits, around_bits in placements:
            if (water_only and not water) or (forest_only and not forest):
                continue
            demolished: list[int] = []
            if lot_bits & occupied:
                if not may_demolish:
                    continue
                ok = True
                for x in lots:
                    bid = lot_building[x]
                    if bid < 0 or bid in demolished:
                        continue
                    b = buildings[bid]
                    if (
                        b.size > size
                        or cover[x] & ~lot_bits  # not wholly under the placement
                        or (contractor != seat and contractor >= 0 and b.owner == contractor)
                    ):
                        ok = False
                        break
                    demolished.append(bid)
                if not ok:
                    continue
            if around_bits & occupied:
                zoned = around_bits & zoned_lots  # lots around holding a building other than a park
                if (zoning and zoned and not zoned & own_zone) or zoned & apart_from:
                    continue
            found[place] = demolished
            if first_only:
                return found
    return found


def _legal_invest(s: State, mask: np.ndarray) -> None:
    for c in s.hands[s.active]:
        if c < cp.NUM_PERMITS:
            mask[CARD + c] = True
    mask[PASS] = True


def _legal_main(s: State, mask: np.ndarray) -> None:
    p, ap = s.active, s.ap
    legal = [PASS]  # set in the mask at once
    legal += [TAKE_PLANNING + space for space in range(5) if cp.PLANNING_AP[space] <= ap and planning_at(s, space) >= 0]
    room = len(s.favors[p]) < favor_capacity(s, p)
    builds = []  # (action, contract)
    for space, card in enumerate((*deck_tops(s), *s.slots)):
        if cp.CONTRACT_AP[space] > ap or card < 0:
            continue
        if room:
            legal.append(TAKE_FAVOR + space)
        builds.append((BUILD + space, card))
    builds += [(BUILD_FAVOR + k, card) for k, card in enumerate(s.favors[p])]
    permits, tiles, asking = permit_totals(s.hands[p]), s.tiles, None
    for action, card in builds:  # enough permit value, a tile left, and a legal placement
        zone, size = cp.CONTRACT_ZONE[card], cp.CONTRACT_SIZE[card]
        if permits[zone] >= size and tiles[zone][size - 1] > 0:
            asking = asking or _asking(s, p)
            if _placements(s, p, card, True, asking):
                legal.append(action)
    mask[legal] = True


def building_card(s: State) -> int:
    """The contract card being built (PAY_PERMIT, PLACE)."""
    return cast(Build, s.build)["card"]


def _legal_pay_permit(s: State, mask: np.ndarray) -> None:
    zone = cp.CONTRACT_ZONE[building_card(s)]
    for c in s.hands[s.active]:
        if c < cp.NUM_PERMITS and zone in cp.PERMIT_ZONES[c]:
            mask[CARD + c] = True


def _legal_place(s: State, mask: np.ndarray) -> None:
    for place in legal_placements(s, s.active, building_card(s)):
        mask[LOT + place] = True


def _relative(s: State, seat: int) -> int:
    return PLAYER + (seat - s.decider) % s.n


def _legal_voc_source(s: State, mask: np.ndarray) -> None:
    voc = cast(VocSourceContext, s.ctx)["voc"]
    for seat in range(s.n):
        if seat != s.decider and s.vocations[seat][voc] > 0:
            mask[_relative(s, seat)] = True
    mask[PASS] = True


def _legal_two_options(s: State, mask: np.ndarray) -> None:
    mask[OPT_A] = mask[OPT_B] = True


def _legal_marker_place(s: State, mask: np.ndarray) -> None:
    for g in range(cp.CIRCLES):
        if s.circles[g] == 0:
            mask[CIRCLE + g] = True


def _legal_marker_src(s: State, mask: np.ndarray) -> None:
    for g in range(cp.CIRCLES):
        if s.circles[g]:
            mask[CIRCLE + g] = True
    mask[PASS] = True


def _legal_marker_dst(s: State, mask: np.ndarray) -> None:
    _legal_marker_place(s, mask)
    mask[PASS] = cast(MarkerMoveContext, s.ctx)["optional"]


def _legal_lots(s: State, mask: np.ndarray) -> None:
    for lot in cast(LotsContext, s.ctx)["lots"]:
        mask[LOT + lot] = True


def _legal_tie(s: State, mask: np.ndarray) -> None:
    for seat in cast(MediaTieContext, s.ctx)["tied"]:
        mask[_relative(s, seat)] = True


def _legal_pay_or_not(s: State, mask: np.ndarray) -> None:
    mask[OPT_A] = cast(AuctionContext, s.ctx)["affordable"]
    mask[OPT_B] = True


def _legal_start_buy(s: State, mask: np.ndarray) -> None:
    for lot in starting_lots_left(s):
        mask[LOT + lot] = True


LEGAL_BY_DECISION = {
    Decision.INVEST: _legal_invest,
    Decision.MAIN: _legal_main,
    Decision.PAY_PERMIT: _legal_pay_permit,
    Decision.PLACE: _legal_place,
    Decision.VOC_SOURCE: _legal_voc_source,
    Decision.VOC_PAYOUT: _legal_two_options,
    Decision.MARKER_PLACE: _legal_marker_place,
    Decision.MARKER_MOVE_SRC: _legal_marker_src,
    Decision.MARKER_MOVE_DST: _legal_marker_dst,
    Decision.PARK_LOT: _legal_lots,
    Decision.TRIBUTE_PAY: _legal_two_options,
    Decision.ELECTION_TIE: _legal_tie,
    Decision.MAYOR_PARK: _legal_lots,
    Decision.AUCTION: _legal_pay_or_not,
    Decision.PICK_BUILDING: _legal_lots,
    Decision.DISASTER_CHOICE: _legal_pay_or_not,
    Decision.BLIGHT_CHOICE: _legal_pay_or_not,
    Decision.START_BUY: _legal_start_buy,
    Decision.MEDIA_TIE: _legal_tie,
}


def legal_actions(s: State) -> np.ndarray:
    mask = np.zeros(NUM_ACTIONS, dtype=bool)
    if s.decision >= 0:
        LEGAL_BY_DECISION[s.decision](s, mask)
    return mask


# ===== applying an action ========================================================================
def apply_action(
    s: State, action: int, rng: Chance, auto_single: bool = True, max_turns: int = cp.TURN_LIMIT
) -> np.ndarray | None:
    """Apply one legal action, run the automatic procedure to the next decision (9.1). Returns the legal
    mask of that decision when playing single choices needed it (None otherwise), so that the caller
    need not compute it again."""
    while True:
        APPLY_BY_DECISION[s.decision](s, action, rng)
        run(s, rng)
        if s.turns >= max_turns and s.decision == Decision.INVEST:
            _game_over(s, truncated=True)
        if not auto_single or s.decision in (Decision.INVEST, Decision.MAIN, GAME_OVER):
            return None
        mask = legal_actions(s)
        legal = mask.nonzero()[0]
        if len(legal) != 1:
            return mask
        action = int(legal[0])


def run(s: State, rng: Chance) -> None:
    """Run tasks until a decision is pending; with none left, the active seat's phase decision."""
    while s.decision == NONE:
        if s.tasks:
            task = s.tasks.pop()
            TASKS[type(task)](s, task, rng)
        else:
            s.decision, s.decider = s.phase, s.active


def _ask(s: State, decision: int, seat: int, ctx: Context | None = None) -> None:
    s.decision, s.decider = decision, seat
    s.ctx = {} if ctx is None else ctx


def _done(s: State) -> None:
    s.decision = NONE
    s.ctx = {}  # a NoContext


def _apply_start_buy(s: State, action: int, rng: Chance) -> None:
    _start_buy(s, s.decider, action - LOT)


def _apply_media_tie(s: State, action: int, rng: Chance) -> None:
    _give_media(s, (s.decider + action - PLAYER) % s.n)


def _apply_invest(s: State, action: int, rng: Chance) -> None:
    p = s.active
    _done(s)
    if action == PASS:
        s.phase = Decision.MAIN
        s.ap = cp.UNION_BOSS_AP if s.offices[cp.UNION_BOSS] == p else cp.AP_PER_TURN
        return
    card = action - CARD
    s.hands[p].remove(card)
    s.planning_discard.append(card)
    s.wealth[p] += cp.INVESTMENT[card]


def _take_contract(s: State, space: int) -> int:
    if space < 3:
        s.deck_up[space] = False
        return s.decks[space].pop()
    card, s.slots[space - 3] = s.slots[space - 3], -1
    return card


def _apply_main(s: State, action: int, rng: Chance) -> None:
    p = s.active
    _done(s)
    if action == PASS:
        s.tasks.extend(END_OF_TURN)
        s.phase = NONE
        return
    if action < BUILD:
        space = action - TAKE_PLANNING
        s.ap -= cp.PLANNING_AP[space]
        if space == 0:
            card = s.planning_deck.pop()
            s.planning_up = False
        else:
            card, s.planning_slots[space - 1] = s.planning_slots[space - 1], -1
        s.hands[p].append(card)
        s.hands[p].sort()
    elif action < TAKE_FAVOR:
        space = action - BUILD
        s.ap -= cp.CONTRACT_AP[space]
        _start_build(s, _take_contract(s, space))
    elif action < BUILD_FAVOR:
        space = action - TAKE_FAVOR
        s.ap -= cp.CONTRACT_AP[space]
        s.favors[p].append(_take_contract(s, space))
    else:
        _start_build(s, s.favors[p].pop(action - BUILD_FAVOR))


def _start_build(s: State, card: int) -> None:
    s.build = Build(card=card, paid=0)
    _ask(s, Decision.PAY_PERMIT, s.active)


def _apply_pay_permit(s: State, action: int, rng: Chance) -> None:
    p, card, build = s.active, action - CARD, cast(Build, s.build)
    s.hands[p].remove(card)
    s.planning_discard.append(card)
    build["paid"] += cp.PERMIT_VALUE[card]
    if build["paid"] >= cp.CONTRACT_SIZE[build["card"]]:
        _ask(s, Decision.PLACE, p)


def _apply_place(s: State, action: int, rng: Chance) -> None:
    p, build = s.active, cast(Build, s.build)
    card = build["card"]
    place = action - LOT
    demolished = legal_placements(s, p, card)[place]
    zone, size = cp.CONTRACT_ZONE[card], cp.CONTRACT_SIZE[card]
    if demolished and s.offices[cp.CONTRACTOR] != p:
        renewal = min(c for c in s.hands[p] if c in cp.URBAN_RENEWAL)
        s.hands[p].remove(renewal)
        s.planning_discard.append(renewal)
    for bid in demolished:
        demolish(s, bid)
    block, variant = divmod(place, 4)
    s.wealth[p] -= block_value(s, block)
    bid = add_building(s, zone, size, tuple([4 * block + sub for sub in cp.FOOTPRINTS[size][variant]]), p)
    s.removed.append(card)
    bonus = sum(1 for other in buildings_adjacent(s, bid) if standing(s, other).zone == zone)
    if s.offices[cp.DISTRICT_ATTORNEY] == p and not s.built_this_turn:
        bonus *= 2
    s.built_this_turn = True
    s.prestige[p] += bonus
    build["building"] = bid
    s.tasks.append(BuildDone())
    for k in reversed(range(len(cp.CONTRACT_EFFECTS[card]))):
        s.tasks.append(EffectTask(card, k, bid))
    for voc, value in reversed(cp.CONTRACT_VOCATIONS[card]):
        s.tasks.append(Vocation(voc, value))
    _done(s)


def add_building(s: State, zone: int, size: int, lots: tuple[int, ...], owner: int) -> int:
    bid = len(s.buildings)
    s.buildings.append(Building(zone, size, lots, owner))
    for x in lots:
        s.lot_building[x] = bid
    s.tiles[zone][size - 1] -= 1
    return bid


def demolish(s: State, bid: int) -> None:
    """The tile leaves the game (5.4); its cube returns to its owner."""
    for x in standing(s, bid).lots:
        s.lot_building[x] = -1
    s.buildings[bid] = None


def _task_build_done(s: State, task: BuildDone, rng: Chance) -> None:
    s.build = None


# ----- vocations (4.1 step 6) -----------------------------------------------------------------
def _task_vocation(s: State, task: Vocation, rng: Chance) -> None:
    voc, value = task
    p = s.active
    s.tasks.append(VocPayout(voc, value))
    if s.voc_supply[voc] > 0:
        s.voc_supply[voc] -= 1
        s.vocations[p][voc] += 1
    elif any(s.vocations[o][voc] for o in range(s.n) if o != p):
        _ask(s, Decision.VOC_SOURCE, p, VocSourceContext(voc=voc))


def _apply_voc_source(s: State, action: int, rng: Chance) -> None:
    if action != PASS:
        victim = (s.decider + action - PLAYER) % s.n
        voc = cast(VocSourceContext, s.ctx)["voc"]
        s.vocations[victim][voc] -= 1
        s.vocations[s.decider][voc] += 1
    _done(s)


def _task_voc_payout(s: State, task: VocPayout, rng: Chance) -> None:
    voc, value = task
    chief = s.offices[cp.POLICE_CHIEF]
    asks: list[Task] = []
    for k in range(s.n):
        seat = (s.active + k) % s.n
        markers = s.vocations[seat][voc]
        if seat == chief:
            s.wealth[seat] += value * markers
            s.prestige[seat] += value * markers
        else:
            asks += [VocPayOne(seat, voc, value)] * markers
    s.tasks.extend(reversed(asks))


def _task_voc_pay_one(s: State, task: VocPayOne, rng: Chance) -> None:
    seat, voc, value = task
    _ask(s, Decision.VOC_PAYOUT, seat, VocPayoutContext(voc=voc, amount=value))


def _apply_voc_payout(s: State, action: int, rng: Chance) -> None:
    seat, amount = s.decider, cast(VocPayoutContext, s.ctx)["amount"]
    if action == OPT_A:
        s.wealth[seat] += amount
    else:
        s.prestige[seat] += amount
    _done(s)


# ----- contract text effects (5.2) ------------------------------------------------------------
def _matching(s: State, zones: tuple[int, ...], size: int, owner: int | None = None) -> list[int]:
    return [
        bid
        for bid, b in enumerate(s.buildings)
        if b is not None and b.zone in zones and (size == 0 or b.size == size) and (owner is None or b.owner == owner)
    ]


def _in_scope(s: State, bid: int, scope: int) -> set[int]:
    if scope == cp.ADJACENT:
        return buildings_adjacent(s, bid)
    if scope == cp.THESE_ROWS:
        r, c = divmod(standing(s, bid).lots[0] // 4, 6)
        return {
            other
            for other, b in enumerate(s.buildings)
            if b is not None and (b.lots[0] // 24 == r or b.lots[0] // 4 % 6 == c)
        }
    return set(live_buildings(s))


def _task_effect(s: State, task: EffectTask, rng: Chance) -> None:
    card, k, bid = task
    effect = cp.CONTRACT_EFFECTS[card][k]
    p = s.active
    if isinstance(effect, cp.Gain):
        s.wealth[p] += effect.wealth
        s.prestige[p] += effect.prestige
    elif isinstance(effect, cp.PerBuilding):
        scope_set = _in_scope(s, bid, effect.scope)
        seats = range(s.n) if effect.recipients == cp.EACH_OWN else (p,)
        for seat in seats:
            owner = None if effect.recipients == cp.ACTIVE_ALL else seat
            count = sum(1 for other in _matching(s, effect.zones, effect.size, owner) if other in scope_set)
            s.wealth[seat] += effect.wealth * count
            s.prestige[seat] += effect.prestige * count
    elif isinstance(effect, cp.Election):
        s.tasks.append(ElectionTask(effect.office))
    elif isinstance(effect, cp.WinElection):
        if office_in_play(s, effect.office):
            s.tasks.append(Elected(effect.office, p))
    elif isinstance(effect, cp.Marker):
        s.tasks.append(MarkerTask(effect.number, p))
    elif isinstance(effect, cp.ParkEffect):
        s.tasks.extend([ParkNear(bid, p)] * effect.parks)
    elif isinstance(effect, cp.ExtraFavor):
        s.extra_favor = p
    else:
        asks: list[Task] = []
        for k2 in range(1, s.n):
            seat = (p + k2) % s.n
            asks += [TributeOne(seat, effect.amount)] * len(_matching(s, effect.zones, effect.size, seat))
        s.tasks.extend(reversed(asks))


def _task_tribute_one(s: State, task: TributeOne, rng: Chance) -> None:
    seat, amount = task
    _ask(s, Decision.TRIBUTE_PAY, seat, TributeContext(amount=amount))


def _apply_tribute(s: State, action: int, rng: Chance) -> None:
    seat, builder, amount = s.decider, s.active, cast(TributeContext, s.ctx)["amount"]
    if action == OPT_A:
        paid = min(amount, s.wealth[seat])
        s.wealth[seat] -= paid
        s.wealth[builder] += paid
    else:
        paid = min(amount, s.prestige[seat])
        s.prestige[seat] -= paid
        s.prestige[builder] += paid
    _done(s)


def empty_lots(s: State) -> list[int]:
    return [x for x in range(cp.LOTS) if s.lot_building[x] < 0]


def _task_park_near(s: State, task: ParkNear, rng: Chance) -> None:
    bid, seat = task
    b = s.buildings[bid]
    if s.tiles[cp.PARK][0] <= 0 or b is None:
        return
    lots = sorted({y for x in b.lots for y in cp.ADJACENT_LOTS[x] if s.lot_building[y] < 0})
    if lots:
        _ask(s, Decision.PARK_LOT, seat, LotsContext(lots=lots))


def _task_park_anywhere(s: State, task: ParkAnywhere, rng: Chance) -> None:
    lots = empty_lots(s)
    if s.tiles[cp.PARK][0] > 0 and lots:
        _ask(s, Decision.MAYOR_PARK, task.seat, LotsContext(lots=lots))


def _apply_park(s: State, action: int, rng: Chance) -> None:
    add_building(s, cp.PARK, 1, (action - LOT,), s.decider)
    _done(s)


# ----- markers (2.3, 5.2 MARKER, Zoning Variance / Subway Line) -------------------------------
def _task_marker(s: State, task: MarkerTask, rng: Chance) -> None:
    number, seat = task
    if 0 not in s.circles:
        return
    if number in s.circles:
        _ask(s, Decision.MARKER_MOVE_DST, seat, MarkerMoveContext(marker=number, optional=True))
    else:
        _ask(s, Decision.MARKER_PLACE, seat, MarkerPlaceContext(marker=number))


def _apply_marker_place(s: State, action: int, rng: Chance) -> None:
    s.circles[action - CIRCLE] = cast(MarkerPlaceContext, s.ctx)["marker"]
    _done(s)


def _task_move_marker(s: State, task: MoveMarker, rng: Chance) -> None:
    if 0 in s.circles and any(s.circles):
        _ask(s, Decision.MARKER_MOVE_SRC, task.seat)


def _apply_marker_src(s: State, action: int, rng: Chance) -> None:
    if action == PASS:
        _done(s)
        return
    marker = s.circles[action - CIRCLE]
    _ask(s, Decision.MARKER_MOVE_DST, s.decider, MarkerMoveContext(marker=marker, optional=False))


def _apply_marker_dst(s: State, action: int, rng: Chance) -> None:
    if action != PASS:
        number = cast(MarkerMoveContext, s.ctx)["marker"]
        s.circles[s.circles.index(number)] = 0
        s.circles[action - CIRCLE] = number
    _done(s)


# ===== elections (4.3, 5.5) ====================================================================
def office_in_play(s: State, office: int) -> bool:
    if office == cp.MAYOR:
        return True
    if office == cp.CONTRACTOR:
        return s.sports
    return s.airport


def election_candidates(s: State, office: int) -> list[int]:
    """Seats tied for winning `office` after the stated tie-breaks (empty: nobody qualifies)."""
    keys: list[tuple[int, ...]]  # per seat, compared as a whole
    if office == cp.MAYOR:
        keys = [(sum(v),) for v in s.vocations]
        if max(keys) <= (0,):
            return []
    elif office == cp.CONTRACTOR:
        keys = [(-x,) for x in s.prestige]
    else:
        zone = cp.OFFICE_ZONE[office]  # the other offices each have a zone
        keys = [(0, 0)] * s.n
        for b in s.buildings:
            if b is not None and b.zone == zone and b.owner >= 0:
                value, count = keys[b.owner]
                keys[b.owner] = (max(value, block_value(s, b.lots[0] // 4)), count + 1)
        if max(keys)[1] == 0:
            return []
    best = max(keys)
    return [seat for seat in range(s.n) if keys[seat] == best]


def tie_decider(s: State, office: int) -> int:
    if office == cp.MAYOR:
        holders = [seat for seat in range(s.n) if s.vocations[seat][cp.MEDIA]]
        decider = holders[0] if holders else NOBODY
    else:
        decider = s.offices[cast(int, cp.TIE_DECIDER[office])]  # every office but the Mayor has its decider
    return decider if decider >= 0 else s.active


def _task_election(s: State, task: ElectionTask, rng: Chance) -> None:
    office = task.office
    if not office_in_play(s, office):
        return
    tied = election_candidates(s, office)
    if len(tied) == 1:
        s.tasks.append(Elected(office, tied[0]))
    elif tied:
        _ask(s, Decision.ELECTION_TIE, tie_decider(s, office), ElectionTieContext(office=office, tied=tied))


def _apply_election_tie(s: State, action: int, rng: Chance) -> None:
    office = cast(ElectionTieContext, s.ctx)["office"]
    seat = (s.decider + action - PLAYER) % s.n
    _done(s)
    s.tasks.append(Elected(office, seat))


def _task_elected(s: State, task: Elected, rng: Chance) -> None:
    office, seat = task
    s.offices[office] = seat
    if office == cp.CONTRACTOR:
        return
    if s.sports:
        s.tasks.append(ElectionTask(cp.CONTRACTOR))
    if office == cp.MAYOR:
        s.tasks.append(ParkAnywhere(seat))


def _task_ballot(s: State, task: Ballot, rng: Chance) -> None:
    s.pawn = (s.pawn + 1) % cp.POLITICIANS
    if s.pawn == cp.MAYOR or s.airport:
        s.tasks.append(ElectionTask(s.pawn))


def _task_payout(s: State, task: Payout, rng: Chance) -> None:
    pay_row(s, task.icon, task.number)


# ===== end of turn (4.2) =======================================================================
def _push_reveal_triggers(s: State, card: int) -> None:
    """A permit or Urban Renewal revealed: its election first, then its payout (4.3)."""
    if cp.WEALTH_PAYOUT[card]:
        s.tasks.append(Payout("w", cp.WEALTH_PAYOUT[card]))
    if cp.BALLOT[card]:
        s.tasks.append(Ballot())


def _planning_available(s: State, rng: Chance) -> bool:
    """Reshuffle an empty planning deck; False when no non-event card is left to draw (open point 25)."""
    if not s.planning_deck:
        if not any(c < cp.FIRST_PLANNING_EVENT for c in s.planning_discard):
            return False
        s.planning_deck = [s.planning_discard[i] for i in rng.permutation(len(s.planning_discard))]
        s.planning_discard = []
        s.planning_up = False
        s.planning_reshuffles += 1
    return any(c < cp.FIRST_PLANNING_EVENT for c in s.planning_deck + s.planning_discard)


def _task_slide_planning(s: State, task: SlidePlanning, rng: Chance) -> None:
    """Step 1: cards slide toward PL1 keeping their order; the face-up top slides in when there is room."""
    cards = [c for c in s.planning_slots if c >= 0]
    if s.planning_up and s.planning_deck and len(cards) < 4:
        cards.insert(0, s.planning_deck.pop())
        s.planning_up = False
    s.planning_slots = [-1] * (4 - len(cards)) + cards


def _task_refill_planning(s: State, task: RefillPlanning, rng: Chance) -> None:
    empty = [k for k in range(3, -1, -1) if s.planning_slots[k] < 0]  # PL1 is the cheapest
    if not empty or not _planning_available(s, rng):
        return
    s.tasks.append(RefillPlanning())
    card = s.planning_deck.pop()
    was_up, s.planning_up = s.planning_up, False
    if card >= cp.FIRST_PLANNING_EVENT:
        s.planning_discard.append(card)
        s.tasks.append(PlanningEventTask(card))
        return
    s.planning_slots[empty[0]] = card
    if not was_up:
        _push_reveal_triggers(s, card)


def _task_reveal_planning(s: State, task: RevealPlanning, rng: Chance) -> None:
    if s.planning_up or not _planning_available(s, rng):
        return
    card = s.planning_deck[-1]
    if card >= cp.FIRST_PLANNING_EVENT:
        s.planning_deck.pop()
        s.planning_discard.append(card)
        s.tasks.append(RevealPlanning())
        s.tasks.append(PlanningEventTask(card))
        return
    s.planning_up = True
    _push_reveal_triggers(s, card)


def contract_chains(s: State) -> list[tuple[int, list[int]]]:
    """(deck, slots it feeds in order from the deck toward C1) under the current routing (2.5)."""
    town, city = cp.TOWN, cp.CITY
    if not s.airport:
        return [(town, [0, 1, 2, 3, 4])]
    city_open = bool(s.decks[city])
    if not s.sports:
        return [(town, [0]), (city, [1, 2, 3, 4])] if city_open else [(town, [0, 1, 2, 3, 4])]
    head = [(town, [0]), (city, [1])] if city_open else [(town, [0, 1])]
    return [*head, (cp.METRO, [2, 3, 4])]


def _task_slide_contracts(s: State, task: SlideContracts, rng: Chance) -> None:
    for deck, chain in contract_chains(s):
        held = [s.slots[k] for k in chain if s.slots[k] >= 0]
        if s.deck_up[deck] and s.decks[deck] and len(held) < len(chain):
            held.insert(0, s.decks[deck].pop())
            s.deck_up[deck] = False
        for k, card in zip(chain, [-1] * (len(chain) - len(held)) + held, strict=True):
            s.slots[k] = card


def _task_refill_contracts(s: State, task: RefillContracts, rng: Chance) -> None:
    for k in range(cp.SLOTS - 1, -1, -1):  # C1 is the cheapest
        if s.slots[k] >= 0:
            continue
        deck = next(d for d, chain in contract_chains(s) if k in chain)
        if not s.decks[deck]:
            continue
        s.tasks.append(RefillContracts())
        card = s.decks[deck].pop()
        was_up, s.deck_up[deck] = s.deck_up[deck], False
        if card >= cp.EVENT_BASE:
            s.events_done.append(card - cp.EVENT_BASE)
            s.tasks.append(ContractEventTask(card - cp.EVENT_BASE))
            return
        s.slots[k] = card
        if cp.CONTRACT_PAYOUT[card] and not was_up:
            s.tasks.append(Payout("p", cp.CONTRACT_PAYOUT[card]))
        return


def _task_reveal_contract(s: State, task: RevealContract, rng: Chance) -> None:
    deck = task.deck
    if not deck_active(s, deck) or s.deck_up[deck] or not s.decks[deck]:
        return
    card = s.decks[deck][-1]
    if card >= cp.EVENT_BASE:
        s.decks[deck].pop()
        s.events_done.append(card - cp.EVENT_BASE)
        s.tasks.append(RevealContract(deck))
        s.tasks.append(ContractEventTask(card - cp.EVENT_BASE))
        return
    s.deck_up[deck] = True
    if cp.CONTRACT_PAYOUT[card]:
        s.tasks.append(Payout("p", cp.CONTRACT_PAYOUT[card]))


def _task_next_turn(s: State, task: NextTurn, rng: Chance) -> None:
    s.turns += 1
    s.active = (s.active + 1) % s.n
    _begin_turn(s)


# ===== events (5.6, 5.7) =======================================================================
def _clockwise(s: State) -> list[int]:
    return [(s.active + k) % s.n for k in range(s.n)]


def _controlled(s: State, seat: int) -> list[Building]:
    return [b for b in s.buildings if b is not None and b.owner == seat]


def _controlled_ids(s: State, seat: int) -> list[int]:
    return [bid for bid, b in enumerate(s.buildings) if b is not None and b.owner == seat]


def _task_planning_event(s: State, task: PlanningEventTask, rng: Chance) -> None:
    _, _, kind, arg = cp.PLANNING_EVENTS[task.card - cp.FIRST_PLANNING_EVENT]
    if kind == cp.LUXURY_TAX:
        for seat in range(s.n):
            s.wealth[seat] -= min(arg, s.wealth[seat])
    elif kind == cp.AUCTION:
        s.tasks.extend([AuctionOne(seat, arg) for seat in reversed(_clockwise(s))])
    elif kind == cp.URBAN_BLIGHT:
        _pick_extreme(s, lowest=True, purpose="blight")
    elif kind == cp.LOCAL_HEADLINES:
        _pick_extreme(s, lowest=False, purpose="headlines")
    elif kind == cp.SPECIAL_ELECTION:
        s.tasks.append(Ballot())
    elif kind == cp.HOLD_ELECTION:
        s.tasks.append(ElectionTask(arg))
    elif kind == cp.INCOME_PER_ZONE:
        for seat in range(s.n):
            s.wealth[seat] += sum(1 for b in _controlled(s, seat) if b.zone == arg)
    elif kind == cp.PRESTIGE_PER_PARK:
        for seat in range(s.n):
            s.prestige[seat] += arg * sum(1 for b in _controlled(s, seat) if b.zone == cp.PARK)
    elif kind == cp.TAX_PER_SIZE:
        for seat in range(s.n):
            due = sum(1 for b in _controlled(s, seat) if b.size == arg)
            s.wealth[seat] -= min(due, s.wealth[seat])
    elif kind == cp.MOVE_MARKER:
        s.tasks.append(MoveMarker(s.active))
    elif kind == cp.MEDIA_BONUS:
        _media_bonus(s, arg, arg)


def _media_bonus(s: State, wealth: int, prestige: int) -> None:
    for seat in range(s.n):
        if s.vocations[seat][cp.MEDIA]:
            s.wealth[seat] += wealth
            s.prestige[seat] += prestige


def _pick_extreme(s: State, lowest: bool, purpose: str) -> None:
    """Urban Blight / Local Headlines: the lowest / highest-value building, the active seat picks among tied."""
    everything = live_buildings(s)
    if not everything:
        return
    values = {bid: block_value(s, b.lots[0] // 4) for bid, b in enumerate(s.buildings) if b is not None}
    target = min(values.values()) if lowest else max(values.values())
    tied = [bid for bid in everything if values[bid] == target]
    if len(tied) == 1:
        s.tasks.append(PICKED[purpose](tied[0]))
    else:
        _ask(s, Decision.PICK_BUILDING, s.active, PickBuildingContext(purpose=purpose, lots=_lots_of(s, tied)))


def _lots_of(s: State, bids: list[int]) -> list[int]:
    return sorted(x for bid in bids for x in standing(s, bid).lots)


def _apply_pick_building(s: State, action: int, rng: Chance) -> None:
    bid = s.lot_building[action - LOT]
    purpose = cast(PickBuildingContext, s.ctx)["purpose"]
    _done(s)
    s.tasks.append(PICKED[purpose](bid))


def _task_blight(s: State, task: Blight, rng: Chance) -> None:
    bid = task.building
    owner = standing(s, bid).owner
    if owner < 0:
        demolish(s, bid)
    else:
        _ask(s, Decision.BLIGHT_CHOICE, owner, BlightContext(building=bid, affordable=s.prestige[owner] >= 3))


def _apply_blight_choice(s: State, action: int, rng: Chance) -> None:
    if action == OPT_A:
        s.prestige[s.decider] -= 3
    else:
        demolish(s, cast(BlightContext, s.ctx)["building"])
    _done(s)


def _task_headlines(s: State, task: Headlines, rng: Chance) -> None:
    owner = standing(s, task.building).owner
    if owner >= 0:
        s.prestige[owner] += 3


def _task_auction_one(s: State, task: AuctionOne, rng: Chance) -> None:
    seat, price = task
    if s.wealth[seat] >= price and s.tiles[cp.PARK][0] > 0 and empty_lots(s):
        _ask(s, Decision.AUCTION, seat, AuctionContext(affordable=True, price=price))


def _apply_auction(s: State, action: int, rng: Chance) -> None:
    seat, price = s.decider, cast(AuctionContext, s.ctx)["price"]
    _done(s)
    if action == OPT_A:
        s.wealth[seat] -= price
        s.tasks.append(ParkAnywhere(seat))


def _task_contract_event(s: State, task: ContractEventTask, rng: Chance) -> None:
    kind, args = cp.CONTRACT_EVENTS[task.event].kind, cp.CONTRACT_EVENTS[task.event].args
    if kind == cp.AIRPORT:
        s.airport = True
    elif kind == cp.SPORTS_TEAM:
        s.sports = True
    elif kind == cp.OLYMPIC_GAMES:
        final_scoring(s)
    elif kind == cp.DISASTER:
        s.tasks.extend([DisasterOne(seat, task.event) for seat in reversed(_clockwise(s))])
    elif kind == cp.PLACE_MARKER:
        s.tasks.append(MarkerTask(args[0], s.active))
    elif kind == cp.HOLD_ELECTIONS:
        s.tasks.extend([ElectionTask(office) for office in reversed(args)])
    elif kind == cp.INCOME_NEAR_FOREST:
        for seat in range(s.n):
            s.wealth[seat] += args[0] * sum(1 for b in _controlled(s, seat) if any(cp.LOT_FOREST[x] for x in b.lots))
    elif kind == cp.RELOCATION:
        wealth, prestige = args
        _media_bonus(s, wealth, prestige)
        treasurer = s.offices[cp.TREASURER]
        targets = [bid for bid in _matching(s, (cp.COM,), 0) if standing(s, bid).owner >= 0]
        if treasurer >= 0 and targets:
            context = PickBuildingContext(purpose="relocate", lots=_lots_of(s, targets))
            _ask(s, Decision.PICK_BUILDING, treasurer, context)
    elif kind == cp.UNION_STRIKE:
        boss = s.offices[cp.UNION_BOSS]
        if boss >= 0:
            s.wealth[boss] += args[0] * len(_matching(s, (cp.IND,), 0))
        s.tasks.append(ElectionTask(cp.UNION_BOSS))
    elif kind == cp.PRESTIGE_PER_BIG_ZONE:
        zone, minimum, each = args
        for seat in range(s.n):
            s.prestige[seat] += each * sum(1 for b in _controlled(s, seat) if b.zone == zone and b.size >= minimum)
    elif kind == cp.SCANDAL:
        mayor = s.offices[cp.MAYOR]
        if mayor >= 0:
            s.prestige[mayor] -= min(args[0], s.prestige[mayor])
        s.tasks.append(ElectionTask(cp.MAYOR))
    elif kind == cp.MOVE_MARKER:
        s.tasks.append(MoveMarker(s.active))


def _task_relocate(s: State, task: Relocate, rng: Chance) -> None:
    _set_owner(s, task.building, NOBODY)


def disaster_targets(s: State, seat: int, event: int) -> list[int]:
    disaster = cp.DISASTERS[event]
    found = []
    for bid in _controlled_ids(s, seat):
        b = standing(s, bid)
        hit = any(cp.LOT_WATER[x] for x in b.lots) if disaster.by_water else b.size == disaster.size
        if hit:
            found.append(bid)
    return found


def _task_disaster_one(s: State, task: DisasterOne, rng: Chance) -> None:
    seat, event = task
    if not disaster_targets(s, seat, event):
        return
    disaster = cp.DISASTERS[event]
    affordable = s.wealth[seat] >= disaster.wealth and s.prestige[seat] >= disaster.prestige
    _ask(s, Decision.DISASTER_CHOICE, seat, DisasterContext(event=event, affordable=affordable))


def _apply_disaster_choice(s: State, action: int, rng: Chance) -> None:
    seat, event = s.decider, cast(DisasterContext, s.ctx)["event"]
    _done(s)
    if action == OPT_A:
        s.wealth[seat] -= cp.DISASTERS[event].wealth
        s.prestige[seat] -= cp.DISASTERS[event].prestige
    else:
        lots = _lots_of(s, disaster_targets(s, seat, event))
        _ask(s, Decision.PICK_BUILDING, seat, PickBuildingContext(purpose="demolish", lots=lots))


def _task_demolish(s: State, task: Demolish, rng: Chance) -> None:
    demolish(s, task.building)


# ===== end of the game (§6) ======================================================================
def final_payouts(s: State) -> list[list[tuple[str, int]]]:
    """Per seat, what the final scoring pays it: the prestige rows' last payout, 1 prestige per full
    10 wealth and the bonus of each office it holds. They depend on the board and the wealth alone, so
    they read the same before and after they are paid."""
    numbers = (3, 1, 2, *(marker for marker in s.circles if marker in cp.PRESTIGE_MARKERS))
    rows = [sum(paid) for paid in zip(*(row_payout(s, "p", number) for number in numbers), strict=True)]
    parts = [
        [
            ("prestige from the rows' last payout", rows[seat]),
            ("prestige for each full 10 wealth", s.wealth[seat] // 10),
        ]
        for seat in range(s.n)
    ]
    for office, seat in enumerate(s.offices):
        if seat >= 0:
            parts[seat].append((f"prestige as {cp.OFFICE_NAMES[office]}", office_bonus(s, office, seat)))
    return parts


def final_scoring(s: State) -> None:
    for seat, parts in enumerate(final_payouts(s)):
        s.prestige[seat] += sum(points for _, points in parts)
    _game_over(s)


def office_bonus(s: State, office: int, seat: int) -> int:
    if office == cp.CONTRACTOR:
        return 0
    if office == cp.MAYOR:
        return sum(
            1
            for bid in _controlled_ids(s, seat)
            if standing(s, bid).zone != cp.PARK
            and any(standing(s, other).zone == cp.PARK for other in buildings_adjacent(s, bid))
        )
    return len(_matching(s, (cast(int, cp.OFFICE_BONUS_ZONE[office]),), 0))  # the other offices' zone


def standing_keys(s: State) -> list[tuple[int, int]]:
    """Per seat: prestige, then wealth (6.4)."""
    return [(s.prestige[seat], s.wealth[seat]) for seat in range(s.n)]


def ranking_winners(s: State) -> list[int]:
    """Most prestige, then most wealth; a surviving tie shares the victory (6.4)."""
    return leaders(standing_keys(s))


def _game_over(s: State, truncated: bool = False) -> None:
    s.winners = ranking_winners(s)
    s.truncated = truncated
    s.tasks = []
    s.decision = GAME_OVER
    s.decider = -1
    s.build = None


# what a picked building (PICK_BUILDING) goes to, by the context's purpose
PICKED: dict[str, type[Blight | Headlines | Relocate | Demolish]] = {
    "blight": Blight,
    "headlines": Headlines,
    "relocate": Relocate,
    "demolish": Demolish,
}

# each task record type: its name in the JSON form and its handler
TASK_NAMES: dict[type[Task], str] = {
    BuildDone: "build_done",
    Vocation: "vocation",
    VocPayout: "voc_payout",
    VocPayOne: "voc_pay_one",
    EffectTask: "effect",
    TributeOne: "tribute_one",
    ParkNear: "park_near",
    ParkAnywhere: "park_anywhere",
    MarkerTask: "marker",
    MoveMarker: "move_marker",
    ElectionTask: "election",
    Elected: "elected",
    Ballot: "ballot",
    Payout: "payout",
    SlidePlanning: "slide_planning",
    RefillPlanning: "refill_planning",
    RevealPlanning: "reveal_planning",
    SlideContracts: "slide_contracts",
    RefillContracts: "refill_contracts",
    RevealContract: "reveal_contract",
    NextTurn: "next_turn",
    PlanningEventTask: "planning_event",
    Blight: "blight",
    Headlines: "headlines",
    AuctionOne: "auction_one",
    ContractEventTask: "contract_event",
    Relocate: "relocate",
    DisasterOne: "disaster_one",
    Demolish: "demolish",
}
TASK_TYPES: dict[str, type[Task]] = {name: kind for kind, name in TASK_NAMES.items()}
TASKS: dict[type[Task], Callable[[State, Any, Chance], None]] = {
    BuildDone: _task_build_done,
    Vocation: _task_vocation,
    VocPayout: _task_voc_payout,
    VocPayOne: _task_voc_pay_one,
    EffectTask: _task_effect,
    TributeOne: _task_tribute_one,
    ParkNear: _task_park_near,
    ParkAnywhere: _task_park_anywhere,
    MarkerTask: _task_marker,
    MoveMarker: _task_move_marker,
    ElectionTask: _task_election,
    Elected: _task_elected,
    Ballot: _task_ballot,
    Payout: _task_payout,
    SlidePlanning: _task_slide_planning,
    RefillPlanning: _task_refill_planning,
    RevealPlanning: _task_reveal_planning,
    SlideContracts: _task_slide_contracts,
    RefillContracts: _task_refill_contracts,
    RevealContract: _task_reveal_contract,
    NextTurn: _task_next_turn,
    PlanningEventTask: _task_planning_event,
    Blight: _task_blight,
    Headlines: _task_headlines,
    AuctionOne: _task_auction_one,
    ContractEventTask: _task_contract_event,
    Relocate: _task_relocate,
    DisasterOne: _task_disaster_one,
    Demolish: _task_demolish,
}

APPLY_BY_DECISION = {
    Decision.INVEST: _apply_invest,
    Decision.MAIN: _apply_main,
    Decision.PAY_PERMIT: _apply_pay_permit,
    Decision.PLACE: _apply_place,
    Decision.VOC_SOURCE: _apply_voc_source,
    Decision.VOC_PAYOUT: _apply_voc_payout,
    Decision.MARKER_PLACE: _apply_marker_place,
    Decision.MARKER_MOVE_SRC: _apply_marker_src,
    Decision.MARKER_MOVE_DST: _apply_marker_dst,
    Decision.PARK_LOT: _apply_park,
    Decision.TRIBUTE_PAY: _apply_tribute,
    Decision.ELECTION_TIE: _apply_election_tie,
    Decision.MAYOR_PARK: _apply_park,
    Decision.AUCTION: _apply_auction,
    Decision.PICK_BUILDING: _apply_pick_building,
    Decision.DISASTER_CHOICE: _apply_disaster_choice,
    Decision.BLIGHT_CHOICE: _apply_blight_choice,
    Decision.START_BUY: _apply_start_buy,
    Decision.MEDIA_TIE: _apply_media_tie,
}
