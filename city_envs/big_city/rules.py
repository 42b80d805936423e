"""Big City rules: state, geometry, legal actions, transitions (docs/games/big_city.md).

Flat action space, 389 ids (the action table in docs/games/big_city.md):

| ids     | action       | decoding                                                | decision kinds               |
|---------|--------------|---------------------------------------------------------|------------------------------|
| 0-71    | CARD/PLOT k  | board phases: plot idx k; hand phases: card k           | BUILD_SELECT, PIECE_SELECT   |
|         |              | (68-71: park/factory cards; MAIN: play it)  | DEAD_DISCARD, EXCHANGE_SELECT, MAIN |
| 72-83   | BUILD b      | b = id - 72 (kinds of components.py)                    | MAIN                         |
| 84      | TRAM         | lay one or two tram segments                            | MAIN                         |
| 85-92   | TILE n       | n = id - 84 (85, tile 1, is never legal)                | MAIN, SETUP_TILE             |
| 93      | EXCHANGE     | return cards to pile bottoms, then draw                 | MAIN                         |
| 94      | PASS         |                                                         | MAIN                         |
| 95      | DONE         | stop discards / trams / exchange | DEAD_DISCARD, TRAM_EDGE_OPT, EXCHANGE_SELECT |
| 96-99   | ROTATION r   | r = id - 96 quarter turns clockwise                     | TILE_ROTATION                |
| 100-371 | EDGE e       | e = id - 100 = 4 * idx(p) + side (N, E, S, W)           | TRAM_EDGE(_OPT), TILE_EDGE   |
| 372-380 | LOCAL_CELL j | the new tile's plot 10n + j + 1 goes across edge e      | TILE_CELL                    |
| 381-388 | PILE i       | i = id - 380: draw the top card of pile i               | DRAW                         |

Decision kinds: `Decision` below. Every mask guarantees that the chosen prefix can be completed
(9.3). Phases without a decision are skipped: DEAD_DISCARD without a dead card in hand, DRAW when
nothing may be drawn, the optional second tram when none can be laid.

Geometry (2.7): a plot occupies one cell (x, y) of the 53 x 53 grid. Trams are stored as geometric
edges: key 2 * (54 * y + x) is the north side of cell (x, y), key 2 * (54 * y + x) + 1 its west
side; the canonical edge id of the action space is computed from the plots on either side.
A tile's contact edge in TILE_EDGE is named from the plot already in the city (4 * idx(q) + side).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple, cast

import numpy as np

from city_envs.big_city import components as cp
from city_envs.core.decisions import DecisionTable
from city_envs.core.game import leaders

# ----- action ids ------------------------------------------------------------------------------
CARD = 0
BUILD = 72
TRAM = 84
TILE = 84  # TILE n = 84 + n
EXCHANGE = 93
PASS = 94
DONE = 95
ROTATION = 96
EDGE = 100
LOCAL_CELL = 372
PILE = 380  # PILE i = 380 + i
NUM_ACTIONS = 389


# ----- decision kinds --------------------------------------------------------------------------
class Decision(DecisionTable):
    """The kinds of pending decision. The ids are what observations one-hot and recorded matches
    store, so they never change; the names are what logs, the web page and the docs show."""

    SETUP_TILE = 0
    TILE_ROTATION = 1
    TILE_EDGE = 2
    TILE_CELL = 3
    DEAD_DISCARD = 4
    MAIN = 5
    BUILD_SELECT = 6
    PIECE_SELECT = 7
    TRAM_EDGE = 8
    TRAM_EDGE_OPT = 9
    EXCHANGE_SELECT = 10
    DRAW = 11


GAME_OVER = -1

PAD = 55  # the cell grid is stored padded by one cell on every side
VERTEX_ROW = 54


def cell_index(x: int, y: int) -> int:
    return (y + 1) * PAD + x + 1


def side_key(x: int, y: int, side: int) -> int:
    """Geometric key of one side of cell (x, y)."""
    if side == cp.N:
        return 2 * (VERTEX_ROW * y + x)
    if side == cp.S:
        return 2 * (VERTEX_ROW * (y + 1) + x)
    if side == cp.W:
        return 2 * (VERTEX_ROW * y + x) + 1
    return 2 * (VERTEX_ROW * y + x + 1) + 1


def key_vertices(key: int) -> tuple[int, int]:
    """The two lattice points (as 54 * y + x) at the ends of an edge."""
    v = key >> 1
    return (v, v + 1) if key % 2 == 0 else (v, v + VERTEX_ROW)


class Tile(NamedTuple):
    """A placed neighbourhood tile: its rotation and the cell of its plot ordinal 1 (the anchor).
    Immutable, so copies of the state share it; the JSON form is the list [rotation, ax, ay]."""

    rotation: int  # quarter turns clockwise
    ax: int
    ay: int


class Piece(NamedTuple):
    """A piece in the city: a building (kinds 0-11) or a park or factory (12-15). Immutable (the rules
    never change a laid piece), so copies of the state and seat states share it; the JSON form is
    the list [kind, owner, plots, points]."""

    kind: int
    owner: int  # the seat that built it, or that played the park's or factory's card
    plots: tuple[int, ...]  # sorted plot indices
    points: int  # fixed at placement; 0 for parks and factories


_UNSET = cast(Any, None)  # a derived field's value until `rebuild_derived` fills it


@dataclass
class State:
    """Everything that changes during a match; plain data mirrored by `to_dict`.

    Piles list their cards bottom first (the top is the end); `pile_known[i][j]` is the seat that
    returned the card `piles[i][j]` to the bottom (it alone knows it) or -1. Tiles and pieces are
    records (`Tile`, `Piece`). There is no free context: what a pending decision has chosen so far is
    in its own typed fields (kind, card, tile, rotation, edge, selected, exchange).
    """

    n: int
    hand_limit: int
    tiles: list[Tile | None]  # per tile n - 1
    px: list[int]  # per plot: x, or -1 when its tile is not placed
    py: list[int]
    occupant: list[int]  # per plot: piece index or -1
    pieces: list[Piece]
    trams: list[int]  # geometric edge keys in the order laid
    supply: list[int]  # per building kind
    hands: list[list[int]]
    piles: list[list[int]]
    pile_known: list[list[int]]
    out: list[bool]  # per card: played or discarded face up
    scores: list[int]
    setup_tiles: list[int]  # the initial set still to place
    setup_order: list[int]  # seats still to place an initial tile, next first
    active: int = 0
    decision: int = Decision.SETUP_TILE
    turns: int = 0
    passes: int = 0  # consecutive pure passes
    drawn: list[int] = field(default_factory=lambda: [0] * 8)
    may_draw: bool = False  # cards left the hand this turn
    dead_discarded: bool = False
    main_action: int = -1
    kind: int = -1  # building kind (BUILD_SELECT) or facility kind (PIECE_SELECT)
    card: int = -1  # the special card being played
    tile: int = 0
    rotation: int = -1
    edge: int = -1
    selected: list[int] = field(default_factory=list)  # plots chosen so far
    exchange: list[int] = field(default_factory=list)  # cards chosen for the exchange (hidden)
    trams_this_action: int = 0
    first_tram: bool = False  # this action lays the very first segment
    last_pass: list[bool] = field(default_factory=list)
    winners: list[int] = field(default_factory=list)
    truncated: bool = False
    # derived from the fields above, never serialized; copies share what is never mutated. Each starts as
    # None (typed as its value for the checker: `rebuild_derived` fills them before any rule reads them)
    grid: list = field(default=_UNSET, compare=False, repr=False)
    outskirts: list = field(default=_UNSET, compare=False, repr=False)
    holes: frozenset = field(default=_UNSET, compare=False, repr=False)
    exterior: frozenset = field(default=_UNSET, compare=False, repr=False)
    covered: set = field(default=_UNSET, compare=False, repr=False)  # internal edges of multi-plot pieces
    tram_set: set = field(default=_UNSET, compare=False, repr=False)
    # pure functions of the board (tiles, pieces, trams), filled lazily; replaced, never cleared, when
    # the board changes, so copies can share it: ("facility", kind) -> placements (("facility before",
    # kind): those of the last board of the same tiles), "trams" -> tram_edges, "tram possible" -> whether
    # there is one, "board" -> view.board_block (a new memo of the same tiles keeps the last one as "board
    # before"), ("observation", seat) -> view's base; public, like everything here, for agents' seat
    # states share this memo (what depends on a hand stays with the agent)
    memo: dict = field(default=_UNSET, compare=False, repr=False)
    # the same for what depends on the tiles alone: "touch", "tiles" (W, H) -> tile_options, "anchors"
    # (W, H) -> rectangle_anchors, "images" -> _city_images, "neighbours", "keys", "streets", "plots", "plot_xy"
    geo: dict = field(default=_UNSET, compare=False, repr=False)


DERIVED_FIELDS = ("grid", "outskirts", "holes", "exterior", "covered", "tram_set", "memo", "geo")  # not saved


# ===== setup (§3) ==============================================================================
def new_state(n: int, rng: np.random.Generator) -> State:
    piles = []
    for i in range(1, 9):
        cards = list(cp.PILE_CARDS[i])
        piles.append([cards[j] for j in rng.permutation(len(cards))])
    hand_limit = cp.HAND_LIMIT[n]
    hands: list[list[int]] = [[] for _ in range(n)]
    for i in range(hand_limit):
        for seat in range(n):
            hands[seat].append(piles[i].pop())
    s = State(
        n=n,
        hand_limit=hand_limit,
        tiles=[None] * cp.NUM_TILES,
        px=[-1] * cp.NUM_PLOTS,
        py=[-1] * cp.NUM_PLOTS,
        occupant=[-1] * cp.NUM_PLOTS,
        pieces=[],
        trams=[],
        supply=list(cp.KIND_COUNT),
        hands=hands,
        piles=piles,
        pile_known=[[-1] * len(p) for p in piles],
        out=[False] * cp.NUM_CARDS,
        scores=[0] * n,
        setup_tiles=list(cp.INITIAL_TILES[n]),
        setup_order=list(cp.INITIAL_ORDER[n]),
        last_pass=[False] * n,
    )
    ax, ay = cp.START_ANCHOR
    _put_tile(s, cp.START_TILE, 0, ax, ay)
    rebuild_derived(s)
    s.active = s.setup_order[0]
    return s


def _put_tile(s: State, n: int, r: int, ax: int, ay: int) -> None:
    s.tiles[n - 1] = Tile(r, ax, ay)
    for k, (c, w) in enumerate(cp.LAYOUTS[n][r].cells):
        p = cp.OFFSET[n] + k
        s.px[p], s.py[p] = ax + c, ay + w


# ===== derived geometry ========================================================================
def rebuild_derived(s: State) -> None:
    """Recompute every derived field from the plain state (after loading or a tile placement)."""
    _rebuild_grid(s)
    rebuild_piece_derived(s)


def rebuild_piece_derived(s: State) -> None:
    """Recompute what derives from the pieces and trams (the tiles' geometry is in place)."""
    s.covered = set()
    for piece in s.pieces:
        _cover(s, piece.plots)
    s.tram_set = set(s.trams)
    s.memo = {}


def _rebuild_grid(s: State) -> None:
    grid = [-1] * (PAD * PAD)
    for p in range(cp.NUM_PLOTS):
        if s.px[p] >= 0:
            grid[cell_index(s.px[p], s.py[p])] = p
    s.grid = grid
    s.geo = {}
    _recompute_outskirts(s)


def _recompute_outskirts(s: State) -> None:
    """Flood-fill the empty cells from outside the bounding box (orthogonal steps only) (2.7)."""
    placed = [p for p in range(cp.NUM_PLOTS) if s.px[p] >= 0]
    x0, x1 = min(s.px[p] for p in placed), max(s.px[p] for p in placed)
    y0, y1 = min(s.py[p] for p in placed), max(s.py[p] for p in placed)
    grid = s.grid
    # the ring one cell beyond the city's box is exterior; fill inwards through the empty cells of the box
    ring = [
        *range(cell_index(x0 - 1, y0 - 1), cell_index(x1 + 1, y0 - 1) + 1),
        *range(cell_index(x0 - 1, y1 + 1), cell_index(x1 + 1, y1 + 1) + 1),
    ]
    ring += [cell_index(x, y) for y in range(y0, y1 + 1) for x in (x0 - 1, x1 + 1)]
    box = [i for y in range(y0, y1 + 1) for i in range(cell_index(x0, y), cell_index(x1, y) + 1)]
    unreached = bytearray(PAD * PAD)  # the empty cells of the box the fill has not reached
    for i in box:
        if grid[i] < 0:
            unreached[i] = 1
    seen = bytearray(PAD * PAD)
    for i in ring:
        seen[i] = 1
    stack = list(ring)
    while stack:
        i = stack.pop()
        for j in (i + 1, i - 1, i + PAD, i - PAD):
            if unreached[j]:
                unreached[j] = 0
                seen[j] = 1
                stack.append(j)
    s.exterior = frozenset(ring + [i for i in box if seen[i]])
    s.holes = frozenset(i for i in box if unreached[i])
    outskirts = [False] * cp.NUM_PLOTS
    for p in placed:
        i = cell_index(s.px[p], s.py[p])
        outskirts[p] = bool(seen[i + 1] or seen[i - 1] or seen[i + PAD] or seen[i - PAD])
    s.outskirts = outskirts


def _cover(s: State, plots: tuple[int, ...]) -> None:
    """Mark the internal edges of a multi-plot piece."""
    for p in plots:
        for side in (cp.E, cp.S):
            q = neighbour(s, p, side)
            if q in plots:
                s.covered.add(side_key(s.px[p], s.py[p], side))


def neighbour(s: State, p: int, side: int) -> int:
    return neighbour_table(s)[p][side]


def neighbour_table(s: State) -> list[tuple[int, int, int, int]]:
    """Per placed plot, the plot across its N, E, S and W sides (-1 for none); memoized per city."""
    try:
        return s.geo["neighbours"]
    except KeyError:
        pass
    grid = s.grid
    table = []
    for x, y in zip(s.px, s.py, strict=True):
        if x < 0:
            table.append((-1, -1, -1, -1))
            continue
        i = (y + 1) * PAD + x + 1
        table.append((grid[i - PAD], grid[i + 1], grid[i + PAD], grid[i - 1]))
    s.geo["neighbours"] = table
    return table


def plot_key(s: State, p: int, side: int) -> int:
    return key_table(s)[p][side]


def key_table(s: State) -> list[tuple[int, int, int, int]]:
    """Per placed plot, the geometric keys of its N, E, S and W sides; memoized per city."""
    try:
        return s.geo["keys"]
    except KeyError:
        pass
    table: list = []  # () for a plot not placed
    for x, y in zip(s.px, s.py, strict=True):
        north = 2 * (VERTEX_ROW * y + x)
        table.append((north, north + 3, north + 2 * VERTEX_ROW, north + 1) if x >= 0 else ())
    s.geo["keys"] = table
    return table


def canonical_edge(s: State, p: int, side: int) -> int:
    """Edge id 4 * idx + side, named from the smaller plot index on either side (2.7)."""
    q = neighbour(s, p, side)
    if 0 <= q < p:
        return 4 * q + cp.OPPOSITE[side]
    return 4 * p + side


def street_edges(s: State) -> dict[int, int]:
    """Geometric key -> canonical edge id of every side of a placed plot (a street is named the same
    from either side, so the id depends on the key alone); memoized per city."""
    try:
        return s.geo["streets"]
    except KeyError:
        pass
    streets = {}
    table = neighbour_table(s)
    for p, keys in enumerate(key_table(s)):
        for side, key in enumerate(keys):
            if key not in streets:
                q = table[p][side]
                streets[key] = 4 * q + cp.OPPOSITE[side] if 0 <= q < p else 4 * p + side
    s.geo["streets"] = streets
    return streets


def trams_left(s: State) -> int:
    return cp.NUM_TRAMS - len(s.trams)


def city_hall_built(s: State) -> bool:
    return s.occupant[cp.CITY_HALL_PLOT] >= 0


def is_dead(s: State, card: int) -> bool:
    """A plot card whose plot a park or factory covers."""
    if card >= cp.NUM_PLOTS:
        return False
    piece = s.occupant[card]
    return piece >= 0 and s.pieces[piece].kind >= cp.PARK2


def dead_cards(s: State, seat: int) -> list[int]:
    return [c for c in s.hands[seat] if is_dead(s, c)]


# ===== buildings (2.6) =========================================================================
def _free(s: State, p: int) -> bool:
    return s.px[p] >= 0 and s.occupant[p] < 0


def shape_placements(s: State, plots: set[int], size: int) -> list[tuple[int, ...]]:
    """Sorted plot sets of `size` from `plots` in a straight line, no tram on an internal edge."""
    if size == 1:
        return [(p,) for p in sorted(plots)]
    out: list[tuple[int, ...]] = []
    trams = s.tram_set
    table, keys = neighbour_table(s), key_table(s)
    for p in plots:
        for side in (cp.E, cp.S):
            q = table[p][side]
            if q not in plots or keys[p][side] in trams:
                continue
            if size == 2:
                out.append((p, q) if p < q else (q, p))
                continue
            r = table[q][side]
            if r in plots and keys[q][side] not in trams:
                out.append(tuple(sorted((p, q, r))))
    out.sort()
    return out


# per piece kind: what it counts as beside a building (R, B, S, park, factory; City Hall none of these)
_NEIGHBOUR_CLASS = tuple(
    0
    if kind in cp.RESIDENCES
    else 1
    if kind in cp.BUSINESSES
    else 2
    if kind in cp.SPECIAL_BUILDINGS
    else 3
    if kind in cp.PARKS
    else 4
    if kind in cp.FACTORIES
    else 5
    for kind in range(cp.FACTORY_4 + 1)
)


def adjacent_pieces(s: State, plots: tuple[int, ...]) -> set[int]:
    table = neighbour_table(s)
    occupant = s.occupant
    return {occupant[q] for p in plots for q in table[p] if q >= 0 and occupant[q] >= 0 and q not in plots}


def neighbourhood_counts(s: State, plots: tuple[int, ...]) -> tuple[int, int, int, bool, bool]:
    """R, B, S (distinct adjacent residence, business, special pieces), next to a park, a factory."""
    counts = [0] * 6
    pieces = s.pieces
    for piece in adjacent_pieces(s, plots):
        counts[_NEIGHBOUR_CLASS[pieces[piece].kind]] += 1
    return counts[0], counts[1], counts[2], counts[3] > 0, counts[4] > 0


def on_tram(s: State, plots: tuple[int, ...]) -> bool:
    trams = s.tram_set
    if not trams:
        return False
    keys = key_table(s)
    return any(key in trams for p in plots for key in keys[p])


def next_to_city_hall(s: State, plots: tuple[int, ...]) -> bool:
    if not city_hall_built(s):
        return False
    table = neighbour_table(s)
    return any(cp.CITY_HALL_PLOT in table[p] for p in plots)


def special_allowed(s: State, kind: int, plots: tuple[int, ...], counts: dict | None = None) -> bool:
    """The prerequisites of a special building; `counts` caches neighbourhood counts across kinds."""
    rule = cp.BUILDING_RULES[kind]
    if rule.last_free_plot:
        tile = cp.PLOT_TILE[plots[0]]
        if any(s.occupant[q] < 0 for q in cp.TILE_PLOTS[tile] if q not in plots):
            return False
    if rule.min_res or rule.min_bus or rule.min_special:
        if counts is None:
            res, bus, special, _, _ = neighbourhood_counts(s, plots)
        else:
            if plots not in counts:
                counts[plots] = neighbourhood_counts(s, plots)
            res, bus, special, _, _ = counts[plots]
        return res >= rule.min_res and bus >= rule.min_bus and special >= rule.min_special
    return True


def building_points(s: State, kind: int, plots: tuple[int, ...]) -> int:
    """Points of a building placed now on `plots` (2.6, §5); fixed at placement."""
    if kind == cp.CITY_HALL:
        return 0
    return points_from_facts(kind, plots, placement_facts(s, plots))


class PlacementFacts(NamedTuple):
    """All that a building's points depend on besides its kind, so that the kinds that fit one
    placement share them: R, B, S, next to a park, a factory (`neighbourhood_counts`), on a tram,
    next to City Hall, on the outskirts."""

    res: int
    bus: int
    special: int
    park: bool
    factory: bool
    tram: bool
    city_hall: bool
    outskirts: bool


def placement_facts(s: State, plots: tuple[int, ...]) -> PlacementFacts:
    return PlacementFacts(
        *neighbourhood_counts(s, plots),
        on_tram(s, plots),
        next_to_city_hall(s, plots),
        any(s.outskirts[p] for p in plots),
    )


def points_from_facts(kind: int, plots: tuple[int, ...], facts: PlacementFacts) -> int:
    """`building_points` of a kind other than City Hall from its placement's `placement_facts`."""
    res, bus, special, park, factory, tram, city_hall, outskirts = facts
    if kind in cp.SPECIAL_BUILDINGS:
        rule = cp.BUILDING_RULES[kind]
        value = rule.base + rule.per_res * res + rule.per_bus * bus + rule.per_special * special
        if tram:
            value *= rule.tram_mult
        if city_hall:
            value *= rule.cha_mult
        return value
    base = cp.BASE_VALUE[len(plots)] + park - 2 * factory
    if kind in cp.RESIDENCES:
        return (base + outskirts) * (2 if tram else 1)
    return (base + (not outskirts)) * (1 + city_hall + tram)


def kind_placements(
    s: State, kind: int, plots: set[int], by_size: dict | None = None, counts: dict | None = None
) -> list[tuple[int, ...]]:
    """Legal placements of building `kind` on plots drawn from `plots` (free, placed plots).

    `by_size` caches the shape placements of one call site across kinds, `counts` the neighbourhood
    counts of `special_allowed`.
    """
    if s.supply[kind] <= 0:
        return []
    if kind == cp.CITY_HALL:
        return [(cp.CITY_HALL_PLOT,)] if cp.CITY_HALL_PLOT in plots else []
    if kind in cp.SPECIAL_BUILDINGS and not city_hall_built(s):
        return []
    size = cp.KIND_SIZE[kind]
    if by_size is not None and size in by_size:
        found = by_size[size]
    else:
        found = shape_placements(s, plots - {cp.CITY_HALL_PLOT}, size)
        if by_size is not None:
            by_size[size] = found
    if kind in cp.SPECIAL_BUILDINGS:
        found = [pl for pl in found if special_allowed(s, kind, pl, counts)]
    return found


def hand_plots(s: State, seat: int) -> set[int]:
    """Free, placed plots whose card the seat holds."""
    return {c for c in s.hands[seat] if c < cp.NUM_PLOTS and s.px[c] >= 0 and s.occupant[c] < 0}


def free_plots(s: State) -> set[int]:
    return {p for p in range(cp.NUM_PLOTS) if _free(s, p)}


# ===== parks and factories =====================================================================
def facility_placements(s: State, kind: int) -> list[tuple[int, ...]]:
    """Legal placements of park or factory `kind`, sorted; memoized with the board. A board grown by
    pieces and trams on the same tiles keeps the last board's as "facility before": a placement is only
    ever lost by them (its plots taken, a tram between two of them), so it is filtered from those."""
    key = ("facility", kind)
    found = s.memo.get(key)
    if found is None:
        before = s.memo.get(("facility before", kind))
        if before is None:
            found = sorted(set(_facility_candidates(s, kind)))
        else:
            found = [plots for plots in before if _facility_open(s, plots)]
        s.memo[key] = found
    return found


def facility_possible(s: State, kind: int) -> bool:
    """Is there a legal placement of park or factory `kind`? On a board grown from one whose placements
    are known, the first of them still open answers; otherwise all are found (`facility_placements`), so
    that the next boards of the same tiles need not scan the city again."""
    key = ("facility", kind)
    if key not in s.memo:
        before = s.memo.get(("facility before", kind))
        if before is not None:
            return any(_facility_open(s, plots) for plots in before)
    return bool(facility_placements(s, kind))


def _facility_open(s: State, plots: tuple[int, ...]) -> bool:
    """A placement legal on a smaller board of the same tiles is still legal: its plots free, no tram
    between two of them."""
    occupant, trams, table, keys = s.occupant, s.tram_set, neighbour_table(s), key_table(s)
    if any(occupant[q] >= 0 for q in plots):
        return False
    return not any(keys[a][side] in trams for a in plots for side in (cp.E, cp.S) if table[a][side] in plots)


def _facility_candidates(s: State, kind: int):
    """Legal placements of a park or factory, possibly repeated."""
    low, high = cp.FACILITY_OUTSKIRTS[kind]
    grid, trams, occupant, outskirts = s.grid, s.tram_set, s.occupant, s.outskirts
    table, keys = neighbour_table(s), key_table(s)
    size = len(grid)
    for p in range(cp.NUM_PLOTS):
        if s.px[p] < 0 or occupant[p] >= 0:
            continue
        origin = cell_index(s.px[p], s.py[p])
        for shape in FLAT_FACILITY_SHAPES[kind]:
            plots = []
            for offset in shape:
                i = origin + offset
                q = grid[i] if i < size else -1
                if q < 0 or occupant[q] >= 0:
                    break
                plots.append(q)
            else:
                if not low <= sum(outskirts[q] for q in plots) <= high:
                    continue
                if any(keys[a][side] in trams for a in plots for side in (cp.E, cp.S) if table[a][side] in plots):
                    continue
                yield tuple(sorted(plots))


# facility shapes as offsets in the padded cell list
FLAT_FACILITY_SHAPES = {
    kind: [[dy * PAD + dx for dx, dy in shape] for shape in shapes] for kind, shapes in cp.FACILITY_ORIENTATIONS.items()
}


# ===== trams ===================================================================================
def tram_edges(s: State) -> dict[int, int]:
    """Legal tram edges: canonical id -> geometric key (§4, TRAM)."""
    if "trams" not in s.memo:
        s.memo["trams"] = _tram_edges(s)
    return s.memo["trams"]


def tram_possible(s: State) -> bool:
    """Can a tram be laid? Memoized with the board, like `tram_edges`."""
    if "trams" in s.memo:
        return bool(s.memo["trams"])
    possible = s.memo.get("tram possible")
    if possible is None:
        possible = s.memo["tram possible"] = next(_tram_edge_items(s), None) is not None
    return possible


def _tram_edges(s: State) -> dict[int, int]:
    return dict(_tram_edge_items(s))


def _tram_edge_items(s: State):
    """(canonical id, geometric key) of the legal tram edges, possibly repeated."""
    streets, covered = street_edges(s), s.covered
    if not s.trams:  # the first segment: any street
        for keys in key_table(s):
            for key in keys:
                if key not in covered:
                    yield streets[key], key
        return
    vertices: set[int] = set()
    for key in s.trams:
        vertices.update(key_vertices(key))
    trams = s.tram_set
    for v in vertices:
        # the four edges at lattice point v = 54 * y + x: north sides of cells (x, y) and (x - 1, y),
        # west sides of cells (x, y) and (x, y - 1); a street has a plot on one side at least
        for key in (2 * v, 2 * v - 2, 2 * v + 1, 2 * v + 1 - 2 * VERTEX_ROW):
            if key in trams or key in covered:
                continue
            e = streets.get(key)
            if e is not None:
                yield e, key


# ===== neighbourhood tiles =====================================================================
def _touch_map(s: State) -> dict[int, int]:
    """Empty cell index -> the minimum contact edge (4 * idx(q) + side of q) of the plots around it."""
    if "touch" not in s.geo:
        touch: dict[int, int] = {}
        grid = s.grid
        steps = (-PAD, 1, PAD, -1)  # N, E, S, W
        for q, (x, y) in enumerate(zip(s.px, s.py, strict=True)):
            if x < 0:
                continue
            i = (y + 1) * PAD + x + 1
            for side, step in enumerate(steps):
                j = i + step
                if grid[j] < 0 and j not in touch:  # q and side only grow: the first edge is the minimum
                    touch[j] = 4 * q + side
        s.geo["touch"] = touch
    return s.geo["touch"]


def _placement_min_edge(s: State, n: int, r: int, ax: int, ay: int) -> int:
    """The minimum contact edge of a legal placement, or -1 if the placement is illegal."""
    grid = s.grid
    touch = _touch_map(s)
    touching = 0
    best = 1 << 20
    for c, w in cp.LAYOUTS[n][r].cells:
        x, y = ax + c, ay + w
        if not (0 <= x < cp.GRID and 0 <= y < cp.GRID):
            return -1
        i = cell_index(x, y)
        if grid[i] >= 0:
            return -1
        e = touch.get(i)
        if e is not None:
            touching += 1
            if e < best:
                best = e
    return best if touching >= 2 else -1


def tile_options(s: State, n: int, r: int) -> dict[tuple[int, int], int]:
    """Legal anchors of tile n at rotation r -> their minimum contact edge (memoized per city).

    Legality and contacts depend only on the rotated rectangle (W' x H'), so all tiles and rotations
    of one rectangle share the answer; it is computed for every anchor of the grid at once
    (`_placement_min_edge` is the same rule for one anchor).
    """
    layout = cp.LAYOUTS[n][r]
    return rectangle_options(s, layout.width, layout.height)


def rectangle_options(s: State, width: int, height: int) -> dict[tuple[int, int], int]:
    """`tile_options` of every tile that fills a width x height rectangle (memoized per city)."""
    key = ("tiles", width, height)
    if key not in s.geo:
        anchors = rectangle_anchors(s, width, height)
        cells = zip(anchors.x.tolist(), anchors.y.tolist(), strict=True)
        s.geo[key] = dict(zip(cells, anchors.edge.tolist(), strict=True))
    return s.geo[key]


class RectangleAnchors(NamedTuple):
    """The legal anchors of a W x H rectangle as arrays, in the order of `rectangle_options` (by y, then x)."""

    x: np.ndarray
    y: np.ndarray
    edge: np.ndarray  # the minimum contact edge
    touching: np.ndarray  # how many of its cells touch the city


def rectangle_anchors(s: State, width: int, height: int) -> RectangleAnchors:
    """`rectangle_options` as arrays, with how many cells of each placement touch the city (memoized per city)."""
    key = ("anchors", width, height)
    if key not in s.geo:
        s.geo[key] = _rectangle_anchors(s, width, height)
    return s.geo[key]


NO_CONTACT = 1 << 20


class CityImages(NamedTuple):
    """What every rectangle's anchors are found from (`_city_images`), per city."""

    occupied: np.ndarray  # integral image of the placed cells: [y, x] counts those above and left of (x, y)
    touched: np.ndarray  # the same for the empty cells beside the city
    contact: np.ndarray  # per cell: the minimum contact edge of an empty cell beside the city, else NO_CONTACT
    box: tuple[int, int, int, int]  # the city's x0, x1, y0, y1


def _city_images(s: State) -> CityImages:
    """The city's grids for `_rectangle_anchors`, memoized per city."""
    if "images" not in s.geo:
        px, py = np.array(s.px), np.array(s.py)
        placed = px >= 0
        xs, ys = px[placed], py[placed]
        occupied = np.zeros((cp.GRID + 1, cp.GRID + 1), dtype=np.int32)
        occupied[ys + 1, xs + 1] = 1
        touch = _touch_map(s)
        cells = np.fromiter(touch, dtype=np.int64, count=len(touch))
        edges = np.fromiter(touch.values(), dtype=np.int32, count=len(touch))
        cx, cy = cells % PAD - 1, cells // PAD - 1
        inside = (cx >= 0) & (cx < cp.GRID) & (cy >= 0) & (cy < cp.GRID)  # beside the city and in the grid
        cx, cy = cx[inside], cy[inside]
        contact = np.full((cp.GRID, cp.GRID), NO_CONTACT, dtype=np.int32)
        contact[cy, cx] = edges[inside]
        touched = np.zeros((cp.GRID + 1, cp.GRID + 1), dtype=np.int32)
        touched[cy + 1, cx + 1] = 1
        box = (int(xs.min()), int(xs.max()), int(ys.min()), int(ys.max()))
        s.geo["images"] = CityImages(occupied.cumsum(0).cumsum(1), touched.cumsum(0).cumsum(1), contact, box)
    return s.geo["images"]


def _rectangle_anchors(s: State, width: int, height: int) -> RectangleAnchors:
    """Every legal anchor of a W x H rectangle, its minimum contact edge and its touched cells, over a
    window of the grid around the city: box sums of occupied and touched cells (from the integral
    images), the minimum contact edge by a separable sliding min."""
    occupied, touched, contact, (x0, x1, y0, y1) = _city_images(s)
    ax_lo, ax_hi = max(0, x0 - width), min(cp.GRID - width, x1 + 1)
    ay_lo, ay_hi = max(0, y0 - height), min(cp.GRID - height, y1 + 1)
    cols, rows = ax_hi - ax_lo + 1, ay_hi - ay_lo + 1
    top, bottom, left, right = ay_lo, ay_lo + height, ax_lo, ax_lo + width

    def box_sum(table: np.ndarray) -> np.ndarray:
        return (
            table[bottom : bottom + rows, right : right + cols]
            - table[top : top + rows, right : right + cols]
            - table[bottom : bottom + rows, left : left + cols]
            + table[top : top + rows, left : left + cols]
        )

    touching = box_sum(touched)
    ys_, xs_ = np.nonzero((box_sum(occupied) == 0) & (touching >= 2))
    window = contact[top : top + rows + height - 1, left : left + cols + width - 1]
    across = window[:, :cols].copy()
    for c in range(1, width):
        np.minimum(across, window[:, c : c + cols], out=across)
    best = across[:rows].copy()
    for w in range(1, height):
        np.minimum(best, across[w : w + rows], out=best)
    return RectangleAnchors(xs_ + ax_lo, ys_ + ay_lo, best[ys_, xs_], touching[ys_, xs_])


def anchor_from(s: State, n: int, r: int, e: int, j: int) -> tuple[int, int]:
    """The anchor that puts plot 10n + j + 1 across edge e from e's named plot."""
    q, side = divmod(e, 4)
    dx, dy = cp.DIRS[side]
    c, w = cp.LAYOUTS[n][r].cells[j]
    return s.px[q] + dx - c, s.py[q] + dy - w


def _tile_cell_ok(s: State, j: int) -> bool:
    n, r, e = s.tile, s.rotation, s.edge
    if j >= len(cp.LAYOUTS[n][r].cells):
        return False
    return tile_options(s, n, r).get(anchor_from(s, n, r, e, j)) == e


# ===== legal actions, one function per decision kind ============================================
def legal_actions(s: State) -> np.ndarray:
    mask = np.zeros(NUM_ACTIONS, dtype=bool)
    LEGAL_BY_DECISION[s.decision](s, mask)
    return mask


def _legal_setup_tile(s: State, mask: np.ndarray) -> None:
    for n in s.setup_tiles:
        mask[TILE + n] = True


def _legal_rotation(s: State, mask: np.ndarray) -> None:
    by_shape: dict[tuple[int, int], bool] = {}  # rotations of one rectangle share the answer
    for r in range(4):
        layout = cp.LAYOUTS[s.tile][r]
        shape = (layout.width, layout.height)
        if shape not in by_shape:
            by_shape[shape] = has_anchor(s, s.tile, r)
        mask[ROTATION + r] = by_shape[shape]


def has_anchor(s: State, n: int, r: int) -> bool:
    """Does tile n have a legal placement at rotation r? (stops at the first one found)"""
    width, height, cells = cp.LAYOUTS[n][r]
    if ("tiles", width, height) in s.geo:
        return bool(s.geo[("tiles", width, height)])
    touch, grid = _touch_map(s), s.grid
    tried = set()
    for i in touch:
        for c, w in cells:
            anchor = i - w * PAD - c  # padded index of the anchor cell
            if anchor in tried:
                continue
            tried.add(anchor)
            ax, ay = anchor % PAD - 1, anchor // PAD - 1
            if not (0 <= ax <= cp.GRID - width and 0 <= ay <= cp.GRID - height):
                continue
            touching = 0
            for c2, w2 in cells:
                j = anchor + w2 * PAD + c2
                if grid[j] >= 0:
                    break
                touching += j in touch
            else:
                if touching >= 2:
                    return True
    return False


def _legal_tile_edge(s: State, mask: np.ndarray) -> None:
    for e in set(tile_options(s, s.tile, s.rotation).values()):
        mask[EDGE + e] = True


def _legal_tile_cell(s: State, mask: np.ndarray) -> None:
    for j in range(9):
        mask[LOCAL_CELL + j] = _tile_cell_ok(s, j)


def _legal_dead_discard(s: State, mask: np.ndarray) -> None:
    for c in dead_cards(s, s.active):
        mask[CARD + c] = True
    mask[DONE] = True


def main_options(s: State) -> list[int]:
    """Legal MAIN actions of the active seat."""
    p = s.active
    options = []
    hall = city_hall_built(s)
    if hall:
        options += [c for c in cp.SPECIAL_CARDS if c in s.hands[p] and facility_possible(s, cp.FACILITY_OF_CARD[c])]
    plots = hand_plots(s, p)
    usable = plots - {cp.CITY_HALL_PLOT}
    by_size: dict[int, list] = {}  # the kind_placements of each size, shared by the kinds of that size
    counts: dict = {}
    for kind, left in enumerate(s.supply):
        if left <= 0:
            continue
        if kind == cp.CITY_HALL:
            if cp.CITY_HALL_PLOT in plots:
                options.append(BUILD + kind)
            continue
        special = kind in cp.SPECIAL_BUILDINGS
        if special and not hall:
            continue
        size = cp.KIND_SIZE[kind]
        found = by_size.get(size)
        if found is None:
            found = by_size[size] = shape_placements(s, usable, size)
        if found and (not special or any(special_allowed(s, kind, pl, counts) for pl in found)):
            options.append(BUILD + kind)
    if hall and trams_left(s) > 0 and tram_possible(s):
        options.append(TRAM)
    if hall:
        options += [TILE + n for n in range(2, 9) if s.tiles[n - 1] is None]
    if s.hands[p] or (len(s.hands[p]) < s.hand_limit and any(s.piles)):
        options.append(EXCHANGE)
    options.append(PASS)
    return options


def _legal_main(s: State, mask: np.ndarray) -> None:
    for action in main_options(s):  # a few ids: one by one costs less than making an index array
        mask[action] = True


def selection_placements(s: State) -> list[tuple[int, ...]]:
    """Placements still open to the pending BUILD_SELECT or PIECE_SELECT."""
    if s.decision == Decision.BUILD_SELECT:
        found = kind_placements(s, s.kind, hand_plots(s, s.active) | set(s.selected))
    else:
        found = facility_placements(s, s.kind)
    k = len(s.selected)
    prefix = tuple(s.selected)
    return [pl for pl in found if pl[:k] == prefix]


def _legal_select(s: State, mask: np.ndarray) -> None:
    k = len(s.selected)
    for pl in selection_placements(s):
        mask[CARD + pl[k]] = True


def _legal_tram(s: State, mask: np.ndarray) -> None:
    for e in tram_edges(s):
        mask[EDGE + e] = True
    if s.decision == Decision.TRAM_EDGE_OPT:
        mask[DONE] = True


def _legal_exchange(s: State, mask: np.ndarray) -> None:
    for c in s.hands[s.active]:
        mask[CARD + c] = True
    mask[DONE] = bool(s.exchange) or (len(s.hands[s.active]) < s.hand_limit and any(s.piles))


def draw_piles(s: State) -> list[int]:
    if len(s.hands[s.active]) >= s.hand_limit:
        return []
    return [i for i, pile, drawn in zip(_PILE_IDS, s.piles, s.drawn, strict=True) if pile and drawn < _MAX_DRAWS]


_PILE_IDS = range(1, 9)
_MAX_DRAWS = cp.MAX_DRAWS_PER_PILE


def _legal_draw(s: State, mask: np.ndarray) -> None:
    for i in draw_piles(s):
        mask[PILE + i] = True


LEGAL_BY_DECISION = {
    Decision.SETUP_TILE: _legal_setup_tile,
    Decision.TILE_ROTATION: _legal_rotation,
    Decision.TILE_EDGE: _legal_tile_edge,
    Decision.TILE_CELL: _legal_tile_cell,
    Decision.DEAD_DISCARD: _legal_dead_discard,
    Decision.MAIN: _legal_main,
    Decision.BUILD_SELECT: _legal_select,
    Decision.PIECE_SELECT: _legal_select,
    Decision.TRAM_EDGE: _legal_tram,
    Decision.TRAM_EDGE_OPT: _legal_tram,
    Decision.EXCHANGE_SELECT: _legal_exchange,
    Decision.DRAW: _legal_draw,
}


# ===== transitions =============================================================================
def apply_action(s: State, action: int) -> None:
    """One legal action (validated by the caller), then the automatic steps and the end checks."""
    APPLY_BY_DECISION[s.decision](s, action)


def _apply_setup_tile(s: State, action: int) -> None:
    s.tile = action - TILE
    s.decision = Decision.TILE_ROTATION


def _apply_rotation(s: State, action: int) -> None:
    s.rotation = action - ROTATION
    s.decision = Decision.TILE_EDGE


def _apply_tile_edge(s: State, action: int) -> None:
    s.edge = action - EDGE
    s.decision = Decision.TILE_CELL


def _apply_tile_cell(s: State, action: int) -> None:
    n, r = s.tile, s.rotation
    ax, ay = anchor_from(s, n, r, s.edge, action - LOCAL_CELL)
    _put_tile(s, n, r, ax, ay)
    grid = list(s.grid)  # copies share the old grid
    for p in cp.TILE_PLOTS[n]:
        grid[cell_index(s.px[p], s.py[p])] = p
    s.grid = grid
    s.memo = {}
    s.geo = _grown_geometry(s, s.geo, cp.TILE_PLOTS[n])
    _recompute_outskirts(s)
    s.tile, s.rotation, s.edge = 0, -1, -1
    if s.setup_order:
        s.setup_order.pop(0)
        s.setup_tiles.remove(n)
        if s.setup_order:
            s.active = s.setup_order[0]
            s.decision = Decision.SETUP_TILE
        else:
            _begin_turn(s, 0)
    else:
        _end_action(s)


def _grown_geometry(s: State, old: dict, new: tuple[int, ...]) -> dict:
    """A new city's geometry memo (`State.geo`), seeded with the tables of the last city that a tile of
    plots `new` only extends: neighbours, side keys, street names and contact cells change only at the
    new plots and the cells around them, so they are updated there instead of derived afresh."""
    geo: dict = {}
    grid, px, py = s.grid, s.px, s.py
    cells = [cell_index(px[q], py[q]) for q in new]
    if "neighbours" in old:
        table = list(old["neighbours"])
        for q, i in zip(new, cells, strict=True):
            table[q] = around = (grid[i - PAD], grid[i + 1], grid[i + PAD], grid[i - 1])
            for side, p in enumerate(around):
                if p >= 0 and p not in new:  # an old plot now has q across its opposite side
                    sides = list(table[p])
                    sides[cp.OPPOSITE[side]] = q
                    table[p] = tuple(sides)
        geo["neighbours"] = table
    if "keys" in old:
        keys = list(old["keys"])
        for q in new:
            north = 2 * (VERTEX_ROW * py[q] + px[q])
            keys[q] = (north, north + 3, north + 2 * VERTEX_ROW, north + 1)
        geo["keys"] = keys
    if "streets" in old and "neighbours" in geo and "keys" in geo:
        streets = dict(old["streets"])
        for q in new:  # a street is named from the smaller plot on either side
            for side, (key, p) in enumerate(zip(geo["keys"][q], geo["neighbours"][q], strict=True)):
                streets[key] = 4 * p + cp.OPPOSITE[side] if 0 <= p < q else 4 * q + side
        geo["streets"] = streets
    if "touch" in old:
        touch = dict(old["touch"])
        for i in cells:
            touch.pop(i, None)
        for q, i in zip(new, cells, strict=True):
            for side, step in enumerate((-PAD, 1, PAD, -1)):
                j = i + step
                if grid[j] < 0 and 4 * q + side < touch.get(j, NO_CONTACT):
                    touch[j] = 4 * q + side
        geo["touch"] = touch
    return geo


def _apply_dead_discard(s: State, action: int) -> None:
    if action == DONE:
        s.decision = Decision.MAIN
        return
    s.hands[s.active].remove(action)
    s.out[action] = True
    s.may_draw = s.dead_discarded = True
    if not dead_cards(s, s.active):
        s.decision = Decision.MAIN


def _apply_main(s: State, action: int) -> None:
    s.main_action = action
    if action < BUILD:  # a park or factory card
        s.card = action
        s.kind = cp.FACILITY_OF_CARD[action]
        s.hands[s.active].remove(action)
        s.out[action] = True
        s.may_draw = True
        s.decision = Decision.PIECE_SELECT
    elif action < TRAM:
        s.kind = action - BUILD
        s.decision = Decision.BUILD_SELECT
    elif action == TRAM:
        s.first_tram = not s.trams
        s.decision = Decision.TRAM_EDGE
    elif action < EXCHANGE:
        s.tile = action - TILE
        s.decision = Decision.TILE_ROTATION
    elif action == EXCHANGE:
        s.decision = Decision.EXCHANGE_SELECT
    else:
        _end_action(s)


def _apply_select(s: State, action: int) -> None:
    s.selected.append(action)
    size = cp.KIND_SIZE[s.kind] if s.decision == Decision.BUILD_SELECT else len(cp.FACILITY_SHAPES[s.kind])
    if len(s.selected) < size:
        return
    plots = tuple(s.selected)
    p = s.active
    if s.decision == Decision.BUILD_SELECT:
        points = building_points(s, s.kind, plots)
        for c in plots:
            s.hands[p].remove(c)
            s.out[c] = True
        s.supply[s.kind] -= 1
        s.scores[p] += points
        s.may_draw = True
    else:
        points = 0
    piece = len(s.pieces)
    s.pieces.append(Piece(s.kind, p, plots, points))
    for q in plots:
        s.occupant[q] = piece
    _cover(s, plots)
    _board_grew(s)
    s.selected = []
    s.kind = s.card = -1
    _end_action(s)


def _board_grew(s: State) -> None:
    """A piece or a tram was laid on the same tiles: a new memo for the new board, which keeps the last
    board's block (view.board_block) so that the view adds what was laid since instead of starting over,
    and its park and factory placements (`facility_placements` filters them)."""
    old = s.memo
    block = old.get("board") or old.get("board before")
    memo: dict = {} if block is None else {"board before": block}
    s.memo = memo
    for kind in FLAT_FACILITY_SHAPES:
        found = old.get(("facility", kind), old.get(("facility before", kind)))
        if found is not None:
            memo[("facility before", kind)] = found


def _apply_tram(s: State, action: int) -> None:
    if action == DONE:
        _end_action(s)
        return
    key = tram_edges(s)[action - EDGE]
    s.trams.append(key)
    s.tram_set.add(key)
    _board_grew(s)
    s.trams_this_action += 1
    if s.first_tram or s.trams_this_action >= 2 or trams_left(s) <= 0 or not tram_edges(s):
        _end_action(s)
    else:
        s.decision = Decision.TRAM_EDGE_OPT


def _apply_exchange(s: State, action: int) -> None:
    p = s.active
    if action != DONE:
        s.hands[p].remove(action)
        s.exchange.append(action)
        return
    for c in s.exchange:  # each goes under the pile in turn: the last chosen ends lowest
        i = cp.CARD_PILE[c] - 1
        s.piles[i].insert(0, c)
        s.pile_known[i].insert(0, p)
    s.exchange = []
    s.may_draw = True
    _end_action(s)


def _apply_draw(s: State, action: int) -> None:
    i = action - PILE - 1
    s.hands[s.active].append(s.piles[i].pop())
    s.pile_known[i].pop()
    s.drawn[i] += 1
    if not draw_piles(s):
        _finish_turn(s)


APPLY_BY_DECISION = {
    Decision.SETUP_TILE: _apply_setup_tile,
    Decision.TILE_ROTATION: _apply_rotation,
    Decision.TILE_EDGE: _apply_tile_edge,
    Decision.TILE_CELL: _apply_tile_cell,
    Decision.DEAD_DISCARD: _apply_dead_discard,
    Decision.MAIN: _apply_main,
    Decision.BUILD_SELECT: _apply_select,
    Decision.PIECE_SELECT: _apply_select,
    Decision.TRAM_EDGE: _apply_tram,
    Decision.TRAM_EDGE_OPT: _apply_tram,
    Decision.EXCHANGE_SELECT: _apply_exchange,
    Decision.DRAW: _apply_draw,
}


# ===== turn structure (§4) =====================================================================
def city_full(s: State) -> bool:
    return all(t is not None for t in s.tiles) and all(o >= 0 for o in s.occupant)


def _end_action(s: State) -> None:
    """Steps D and E: the full-city end, then the draw (only when cards left the hand)."""
    if city_full(s):
        _game_over(s)
        return
    if s.may_draw and draw_piles(s):
        s.decision = Decision.DRAW
        return
    _finish_turn(s)


def _finish_turn(s: State) -> None:
    """Steps F and G: count pure passes, hand over to the next seat."""
    pure_pass = s.main_action == PASS and not s.dead_discarded
    s.passes = s.passes + 1 if pure_pass else 0
    s.last_pass[s.active] = s.main_action == PASS
    s.turns += 1
    if s.passes >= s.n:
        _game_over(s)
    elif s.turns >= cp.MAX_TURNS:
        _game_over(s, truncated=True)
    else:
        _begin_turn(s, (s.active + 1) % s.n)


def _begin_turn(s: State, seat: int) -> None:
    s.active = seat
    s.drawn = [0] * 8
    s.may_draw = s.dead_discarded = False
    s.main_action = -1
    s.trams_this_action = 0
    s.first_tram = False
    s.decision = Decision.DEAD_DISCARD if dead_cards(s, seat) else Decision.MAIN


# ===== end of the game (§6) =====================================================================
def standing_keys(s: State) -> list[tuple[float]]:
    """Per seat: the score alone (RECONSTRUCTED: the rules give no tie-break)."""
    return [(s.scores[seat],) for seat in range(s.n)]


def ranking_winners(s: State) -> list[int]:
    """Highest score; tied leaders share the victory."""
    return leaders(standing_keys(s))


def _game_over(s: State, truncated: bool = False) -> None:
    s.winners = ranking_winners(s)
    s.truncated = truncated
    s.decision = GAME_OVER
    s.active = -1
