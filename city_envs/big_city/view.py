"""What one seat of Big City may know, its tensor encoding, determinization.

Public: the city (tiles, pieces and owners, trams), scores, the supply, pile sizes, the number of
cards each seat holds from each pile, every card played or discarded, the pending public choices
and how many cards of each pile the active seat has set aside for an exchange. Private: the seat's
own hand, its own exchange choices, and the cards it returned to pile bottoms (where they are).
Hidden from everyone: the order of the other cards in each pile.

Observation for seat p: float32 values laid out by `LAYOUT` (docs/games/big_city.md shows the table);
seats relative (0 = p). A 54 x 54 board's planes are replaced by a per-plot table: the plot index is a
stable identity, and each plot's four sides say what lies across them, which carries the whole
geometry in 68 rows.
"""

from __future__ import annotations

import dataclasses
import struct
from functools import lru_cache
from itertools import compress
from typing import NamedTuple

import numpy as np

from city_envs.big_city import components as cp
from city_envs.big_city import rules as r
from city_envs.big_city.rules import State
from city_envs.core.game import EntityLayout
from city_envs.core.layout import Field, ObservationLayout, table, vector

_RELATIVE = ("me", "next", "second", "third", "fourth")  # seats in clockwise order from the observer
_OCCUPANTS = (
    "residence",
    "business",
    "city_hall",
    "church",
    "cinema",
    "post_office",
    "bank",
    "shopping_center",
    "park",
    "factory",
    "free",
)
_PILES = tuple(f"pile_{i}" for i in range(1, 9))
_TILES = tuple(f"tile_{t}" for t in range(1, cp.NUM_TILES + 1))
_FACILITIES = ("park_2", "park_3", "factory_l", "factory_4")
LAYOUT = ObservationLayout(
    table(
        "plots",
        cp.NUM_PLOTS,
        "per plot idx",
        Field("placed"),
        Field("x", doc="x/53"),
        Field("y", doc="y/53"),
        Field("tile", cp.NUM_TILES, "tile one-hot", _TILES),
        Field("ordinal", doc="ordinal/9"),
        Field(
            "occupant",
            len(_OCCUPANTS),
            "occupant one-hot (residence, business, City Hall, church, cinema, "
            "post office, bank, shopping center, park, factory, free)",
            _OCCUPANTS,
        ),
        Field("owner", 5, "owner by relative seat", _RELATIVE),
        Field("piece_size", doc="piece size/4"),
        Field("outskirts"),
        *(
            Field(
                f"side_{name}",
                4,
                f"side {name}: plot across, exterior across, hole across, tram",
                ("plot", "exterior", "hole", "tram"),
            )
            for name in cp.SIDE_NAMES
        ),
        Field("in_my_hand", doc="card in my hand"),
        Field("out", doc="card out (public)"),
        Field("returned", doc="card I returned to a pile"),
        Field("dead"),
        Field("beside_city_hall", doc="next to plot 15 (with City Hall built)"),
        Field("selected", doc="selected in the pending placement"),
        Field("exchanging", doc="in my pending exchange"),
    ),
    table(
        "special_cards",
        4,
        "per card 68-71",
        Field("in_my_hand", doc="in my hand"),
        Field("played"),
        Field("returned", doc="I returned it to a pile"),
        Field("exchanging", doc="in my pending exchange"),
    ),
    table(
        "players",
        5,
        "rows by relative seat",
        Field("present"),
        Field("score", doc="score/100"),
        Field("cards", 8, "cards held per pile/3", _PILES),
        Field("hand_size", doc="hand size/6"),
        Field("passed", doc="last turn a pass"),
        Field("active"),
        Field("set_aside", doc="cards set aside for the exchange/6"),
    ),
    vector(
        "global",
        "",
        Field("pile_sizes", 8, "pile sizes/9", _PILES),
        Field("drawn", 8, "drawn this turn per pile/2", _PILES),
        Field("supply", cp.NUM_KINDS, "supply per building kind", tuple(k.replace(" ", "_") for k in cp.KIND_NAMES)),
        Field("trams_left", doc=f"trams left/{cp.NUM_TRAMS}"),
        Field("tiles_placed", cp.NUM_TILES, "tiles placed", _TILES),
        Field("setup_tiles", cp.NUM_TILES, "initial tiles still to place", _TILES),
        Field("city_hall_built", doc="City Hall built"),
        Field("passes", doc="consecutive passes/N"),
        Field("player_count", 4, "player count one-hot 2-5", ("2", "3", "4", "5")),
        Field("decision", 12, "decision one-hot"),
        Field("kind", cp.NUM_KINDS, "chosen building kind", tuple(k.replace(" ", "_") for k in cp.KIND_NAMES)),
        Field("facility", 4, "chosen facility", _FACILITIES),
        Field("tile", cp.NUM_TILES, "chosen tile", _TILES),
        Field("rotation", 4, "chosen rotation"),
        Field("edge", doc="(chosen edge + 1)/272"),
        Field("trams_this_action", doc="trams laid this action/2"),
        Field("first_tram", doc="first tram"),
        Field("may_draw", doc="cards left the hand"),
        Field("dead_discarded", doc="dead cards discarded"),
        Field("turns", doc=f"turns/{cp.MAX_TURNS}"),
    ),
)
PLOTS, SPECIAL, PLAYERS, GLOBAL = LAYOUT.blocks
# where the encoder writes, bound once
_TILE, _ORDINAL, _OCCUPANT, _OWNER = (PLOTS.column(f) for f in ("tile", "ordinal", "occupant", "owner"))
_PLACED_XY = PLOTS.columns("placed", "y")
_SIZE, _OUTSKIRTS, _DEAD = PLOTS.column("piece_size"), PLOTS.column("outskirts"), PLOTS.column("dead")
_SIDES = tuple(PLOTS.column(f"side_{name}") for name in cp.SIDE_NAMES)  # each: plot, exterior, hole, tram
MINE, _OUT, _KNOWN, _CHA, _SELECTED, _EXCHANGING = (
    PLOTS.column(f) for f in ("in_my_hand", "out", "returned", "beside_city_hall", "selected", "exchanging")
)
_SPECIAL_MINE, _SPECIAL_OUT, _SPECIAL_KNOWN, _SPECIAL_EXCHANGING = (
    SPECIAL.column(f) for f in ("in_my_hand", "played", "returned", "exchanging")
)
_COUNTS = GLOBAL.span("pile_sizes", "tiles_placed")
_SETUP_TILES, _CITY_HALL, _PASSES, _PLAYER_COUNT, _DECISION, _KIND, _FACILITY, _CHOSEN_TILE, _ROTATION = (
    GLOBAL.index(f)
    for f in (
        "setup_tiles",
        "city_hall_built",
        "passes",
        "player_count",
        "decision",
        "kind",
        "facility",
        "tile",
        "rotation",
    )
)
_TURN_SCALARS = GLOBAL.span("edge", "turns")


def _card_cells(plot_column: int, special_column: int) -> tuple[int, ...]:
    """Per card, the flat index of its plot row's `plot_column`, or of its special card row's."""
    return tuple(
        PLOTS.start + c * PLOTS.width + plot_column
        if c < cp.NUM_PLOTS
        else SPECIAL.start + (c - cp.PARK2_CARD) * SPECIAL.width + special_column
        for c in range(cp.NUM_CARDS)
    )


_IN_HAND_CELL = _card_cells(MINE, _SPECIAL_MINE)
_RETURNED_CELL = _card_cells(_KNOWN, _SPECIAL_KNOWN)
_OUT_CELL = _card_cells(_OUT, _SPECIAL_OUT)
_EXCHANGING_CELL = _card_cells(_EXCHANGING, _SPECIAL_EXCHANGING)
_SELECTED_CELL = tuple(PLOTS.start + p * PLOTS.width + _SELECTED for p in range(cp.NUM_PLOTS))
# occupant value per piece kind
OCCUPANT_COLUMN = {
    **{k: 0 for k in cp.RESIDENCES},
    **{k: 1 for k in cp.BUSINESSES},
    cp.CITY_HALL: 2,
    cp.CHURCH: 3,
    cp.CINEMA: 4,
    cp.POST_OFFICE: 5,
    cp.BANK: 6,
    cp.SHOPPING_CENTER: 7,
    cp.PARK2: 8,
    cp.PARK3: 8,
    cp.FACTORY_L: 9,
    cp.FACTORY_4: 9,
}
FREE_COLUMN = _OCCUPANTS.index("free")
# entity k is plot k: action k picks it on the board, or names its card in the hand (plot card k is plot k's)
ENTITY_LAYOUT = EntityLayout(
    count=cp.NUM_PLOTS,
    rows=(PLOTS.entity_rows(),),
    action_starts=(r.CARD,),
    context=((SPECIAL.start, PLAYERS.row_range(0)[1], 1), (GLOBAL.start, GLOBAL.stop, 1)),
)


@lru_cache(maxsize=1)
def _static_plots() -> np.ndarray:
    rows = np.zeros(PLOTS.shape, dtype=np.float32)
    for p in range(cp.NUM_PLOTS):
        rows[p, _TILE + cp.PLOT_TILE[p] - 1] = 1.0
        rows[p, _ORDINAL] = cp.PLOT_ORDINAL[p] / 9.0
    rows.flags.writeable = False
    return rows


_SIDE_STEPS = tuple(dy * r.PAD + dx for dx, dy in cp.DIRS)  # to the cell across each side, in the padded grid


class PlotGeometry(NamedTuple):
    """What of the plot table depends on the tiles alone (`_geometry_block`)."""

    rows: np.ndarray  # the plot rows with their geometry columns filled (read-only)
    beside: dict[int, list[tuple[int, int]]]  # street key -> the (plot, side) pairs along it
    empty: BoardRows  # the board with no piece and no tram: every placed plot free


class BoardRows(NamedTuple):
    """The public city per plot (`board_block`) and how many of the pieces and trams it shows."""

    rows: np.ndarray  # read-only
    pieces: int
    trams: int


def _geometry_block(s: State) -> PlotGeometry:
    """The plot rows' geometry, memoized until a tile is placed. The values that are one are flagged in
    a byte per value and added at once (numpy converts lists of Python numbers slowly)."""
    if "plots" not in s.geo:
        width = PLOTS.width
        ones = bytearray(PLOTS.size)
        free = bytearray(PLOTS.size)
        beside: dict[int, list[tuple[int, int]]] = {}
        placed: list[int] = []
        xs: list[int] = []
        ys: list[int] = []
        grid, exterior, holes, keys, outskirts = s.grid, s.exterior, s.holes, r.key_table(s), s.outskirts
        placed_column = _PLACED_XY.start
        for p, (x, y) in enumerate(zip(s.px, s.py, strict=True)):
            if x < 0:
                continue
            row = p * width
            ones[row + placed_column] = 1
            ones[row + _OUTSKIRTS] = outskirts[p]
            free[row + _OCCUPANT + FREE_COLUMN] = 1
            placed.append(p)
            xs.append(x)
            ys.append(y)
            cell = r.cell_index(x, y)
            for side, step in enumerate(_SIDE_STEPS):
                across = cell + step
                if grid[across] >= 0:  # plot, exterior, hole
                    ones[row + _SIDES[side]] = 1
                elif across in exterior:
                    ones[row + _SIDES[side] + 1] = 1
                elif across in holes:
                    ones[row + _SIDES[side] + 2] = 1
                beside.setdefault(keys[p][side], []).append((p, side))
        rows = _static_plots() + np.frombuffer(ones, dtype=np.uint8).reshape(PLOTS.shape)
        rows[placed, placed_column + 1] = np.array(xs) / 53.0
        rows[placed, placed_column + 2] = np.array(ys) / 53.0
        rows.flags.writeable = False
        empty = rows + np.frombuffer(free, dtype=np.uint8).reshape(PLOTS.shape)
        empty.flags.writeable = False
        s.geo["plots"] = PlotGeometry(rows, beside, BoardRows(empty, 0, 0))
    return s.geo["plots"]


def board_block(s: State) -> np.ndarray:
    """The public city per plot, owners by absolute seat; memoized until a tile, piece or tram is laid:
    the last board of the same tiles (or the empty one) with the pieces and trams laid since."""
    entry = s.memo.get("board")
    if entry is None:
        geometry = _geometry_block(s)
        start = s.memo.get("board before") or geometry.empty
        rows = start.rows.copy()
        for kind, owner, plots, _ in s.pieces[start.pieces :]:
            size, dead = len(plots) / 4.0, float(kind >= cp.PARK2)
            for p in plots:
                row = rows[p]
                row[_OCCUPANT + FREE_COLUMN] = 0.0
                row[_OCCUPANT + OCCUPANT_COLUMN[kind]] = 1.0
                row[_OWNER + owner] = 1.0
                row[_SIZE] = size
                row[_DEAD] = dead
            if cp.CITY_HALL_PLOT in plots:  # City Hall built: its neighbours are beside it
                for q in r.neighbour_table(s)[cp.CITY_HALL_PLOT]:
                    if q >= 0:
                        rows[q, _CHA] = 1.0
        for key in s.trams[start.trams :]:
            for p, side in geometry.beside[key]:
                rows[p, _SIDES[side] + 3] = 1.0  # the side's last value: a tram
        rows.flags.writeable = False
        entry = BoardRows(rows, len(s.pieces), len(s.trams))
        s.memo["board"] = entry
    return entry.rows


def _base(s: State, p: int) -> np.ndarray:
    """The observation's values that change only with the board and the cards out, for seat p (the
    board with owners relative to p, the cards out): memoized with the board, public like it."""
    entry = s.memo.get(("observation", p))
    if entry is None or entry[0] != s.out:
        base = np.zeros(LAYOUT.size, dtype=np.float32)
        board = board_block(s)
        plots = PLOTS.view(base)
        plots[:] = board
        if p:  # owner columns turned to seats relative to p (absent seats' columns stay zero)
            n = s.n
            plots[:, _OWNER : _OWNER + n - p] = board[:, _OWNER + p : _OWNER + n]
            plots[:, _OWNER + n - p : _OWNER + n] = board[:, _OWNER : _OWNER + p]
        for card in compress(range(cp.NUM_CARDS), s.out):
            base[_OUT_CELL[card]] = 1.0
        base.flags.writeable = False
        entry = (list(s.out), base)
        s.memo[("observation", p)] = entry
    return entry[1]


# the players table and the global block follow the card tables and are written from one list, packed
# as float32 by `struct` (numpy converts a list of Python numbers several times slower)
_TAIL = PLAYERS.start
_TAIL_ZEROS = [0.0] * (LAYOUT.size - _TAIL)
_TAIL_FLOATS = struct.Struct(f"={len(_TAIL_ZEROS)}f")
_T_COUNTS = slice(_COUNTS.start - _TAIL, _COUNTS.stop - _TAIL)
_T_SETUP_TILES, _T_CITY_HALL, _T_PASSES, _T_PLAYER_COUNT, _T_DECISION, _T_KIND, _T_FACILITY, _T_TILE, _T_ROTATION = (
    index - _TAIL
    for index in (
        _SETUP_TILES,
        _CITY_HALL,
        _PASSES,
        _PLAYER_COUNT,
        _DECISION,
        _KIND,
        _FACILITY,
        _CHOSEN_TILE,
        _ROTATION,
    )
)
_T_TURN_SCALARS = slice(_TURN_SCALARS.start - _TAIL, _TURN_SCALARS.stop - _TAIL)


def observation(s: State, p: int) -> np.ndarray:
    obs = _base(s, p).copy()
    n = s.n
    # the values set to one in the card tables
    ones = [_IN_HAND_CELL[c] for c in s.hands[p]]
    for pile, known in zip(s.piles, s.pile_known, strict=True):
        if p in known:
            ones += [_RETURNED_CELL[c] for c, seat in zip(pile, known, strict=True) if seat == p]
    ones += [_SELECTED_CELL[c] for c in s.selected]
    if s.active == p:
        ones += [_EXCHANGING_CELL[c] for c in s.exchange]
    for cell in ones:  # a few cells: one by one costs less than making an index array
        obs[cell] = 1.0
    tail: list[float] = []
    for o in range(n):
        seat = (p + o) % n
        per_pile = [0.0] * 8
        for c in s.hands[seat]:
            per_pile[cp.CARD_PILE[c] - 1] += 1.0 / 3.0
        active = seat == s.active
        tail += (
            1.0,
            s.scores[seat] / 100.0,
            *per_pile,
            len(s.hands[seat]) / 6.0,
            s.last_pass[seat],
            active,
            (len(s.exchange) if active else 0) / 6.0,
        )
    tail += _TAIL_ZEROS[len(tail) :]
    tail[_T_COUNTS] = [
        *[len(pile) / 9.0 for pile in s.piles],
        *[drawn * 0.5 for drawn in s.drawn],
        *[left / count for left, count in zip(s.supply, cp.KIND_COUNT, strict=True)],
        r.trams_left(s) / cp.NUM_TRAMS,
        *[t is not None for t in s.tiles],
    ]
    for tile in s.setup_tiles:
        tail[_T_SETUP_TILES + tile - 1] = 1.0
    tail[_T_CITY_HALL] = r.city_hall_built(s)
    tail[_T_PASSES] = s.passes / n
    tail[_T_PLAYER_COUNT + n - 2] = 1.0
    if s.decision >= 0:
        tail[_T_DECISION + s.decision] = 1.0
    if s.kind >= 0:
        tail[_T_KIND + s.kind if s.kind < cp.NUM_KINDS else _T_FACILITY + s.kind - cp.PARK2] = 1.0
    if s.tile:
        tail[_T_TILE + s.tile - 1] = 1.0
    if s.rotation >= 0:
        tail[_T_ROTATION + s.rotation] = 1.0
    tail[_T_TURN_SCALARS] = (
        (s.edge + 1) / 272.0,
        s.trams_this_action / 2.0,
        s.first_tram,
        s.may_draw,
        s.dead_discarded,
        s.turns / cp.MAX_TURNS,
    )
    obs[_TAIL:] = np.frombuffer(_TAIL_FLOATS.pack(*tail), dtype=np.float32)
    return obs


# ===== structured view =========================================================================
def tiles_json(tiles: list[r.Tile | None]) -> list[list[int] | None]:
    """Tiles as views and saved states show them: [rotation, ax, ay] or None."""
    return [None if t is None else [*t] for t in tiles]  # a Tile is (rotation, ax, ay)


def pieces_json(pieces: list[r.Piece]) -> list[list]:
    """Pieces as views and saved states show them: [kind, owner, plots, points]."""
    return [[kind, owner, list(plots), points] for kind, owner, plots, points in pieces]


_PILE_INDEX = tuple(pile - 1 for pile in cp.CARD_PILE)


def pile_counts(cards: list[int]) -> list[int]:
    counts = [0] * 8
    for c in cards:
        counts[_PILE_INDEX[c]] += 1
    return counts


def _plot_xy(s: State) -> list[list[int]]:
    """[x, y] per plot, memoized until a tile is placed (views hand out copies)."""
    if "plot_xy" not in s.geo:
        s.geo["plot_xy"] = [[x, y] for x, y in zip(s.px, s.py, strict=True)]
    return s.geo["plot_xy"]


def view(s: State, p: int) -> dict:
    """Plain data of what seat p knows; the observation encodes exactly this."""
    mine = s.active == p
    return {
        "game": "big_city",
        "player": p,
        "num_players": s.n,
        "hand_limit": s.hand_limit,
        "decision": r.Decision.name_of(s.decision),
        "active": s.active,
        "tiles": tiles_json(s.tiles),
        "plot_xy": list(map(list.copy, _plot_xy(s))),
        "outskirts": list(s.outskirts),
        "pieces": pieces_json(s.pieces),
        "trams": sorted(s.trams),
        "supply": list(s.supply),
        "trams_left": r.trams_left(s),
        "scores": list(s.scores),
        "hand": sorted(s.hands[p]),
        "hand_counts": [pile_counts(h) for h in s.hands],
        "pile_sizes": [len(pile) for pile in s.piles],
        "known_in_piles": sorted(
            c
            for pile, known in zip(s.piles, s.pile_known, strict=True)
            if p in known  # most piles hold no card p returned
            for c, seat in zip(pile, known, strict=True)
            if seat == p
        ),
        "out": list(compress(range(cp.NUM_CARDS), s.out)),
        "setup_tiles": list(s.setup_tiles),
        "setup_order": list(s.setup_order),
        "turns": s.turns,
        "passes": s.passes,
        "last_pass": list(s.last_pass),
        "turn": {
            "drawn": list(s.drawn),
            "may_draw": s.may_draw,
            "dead_discarded": s.dead_discarded,
            "main_action": s.main_action,
            "kind": s.kind,
            "card": s.card,
            "tile": s.tile,
            "rotation": s.rotation,
            "edge": s.edge,
            "selected": list(s.selected),
            "trams_this_action": s.trams_this_action,
            "first_tram": s.first_tram,
            "exchange": sorted(s.exchange) if mine else None,
            "exchange_counts": pile_counts(s.exchange),
        },
        "winners": list(s.winners) if s.decision == r.GAME_OVER else None,
    }


# ===== copies and determinization ==============================================================
# derived from the board and only ever replaced, never written, when it changes (the memos are filled
# lazily with pure functions of the board they belong to, so a copy of the same board may add to them)
SHARED_BY_COPIES = frozenset({"grid", "outskirts", "memo", "geo"})


def copy_state(s: State) -> State:
    """Structured copy: every mutable field is rebuilt; derived data that is only ever replaced is shared."""
    return State(
        n=s.n,
        hand_limit=s.hand_limit,
        tiles=list(s.tiles),  # the records are immutable: shared
        px=list(s.px),
        py=list(s.py),
        occupant=list(s.occupant),
        pieces=list(s.pieces),
        trams=list(s.trams),
        supply=list(s.supply),
        hands=[list(h) for h in s.hands],
        piles=[list(pile) for pile in s.piles],
        pile_known=[list(k) for k in s.pile_known],
        out=list(s.out),
        scores=list(s.scores),
        setup_tiles=list(s.setup_tiles),
        setup_order=list(s.setup_order),
        active=s.active,
        decision=s.decision,
        turns=s.turns,
        passes=s.passes,
        drawn=list(s.drawn),
        may_draw=s.may_draw,
        dead_discarded=s.dead_discarded,
        main_action=s.main_action,
        kind=s.kind,
        card=s.card,
        tile=s.tile,
        rotation=s.rotation,
        edge=s.edge,
        selected=list(s.selected),
        exchange=list(s.exchange),
        trams_this_action=s.trams_this_action,
        first_tram=s.first_tram,
        last_pass=list(s.last_pass),
        winners=list(s.winners),
        truncated=s.truncated,
        grid=s.grid,
        outskirts=s.outskirts,
        holes=s.holes,
        exterior=s.exterior,
        covered=set(s.covered),
        tram_set=set(s.tram_set),
        memo=s.memo,
        geo=s.geo,
    )


def _required_options(s: State, p: int, slots_per_pile: list[int], pools: list[list[int]]) -> list[tuple[int, ...]]:
    """Card sets the active seat (not p) must hold for its pending public decision to be possible.

    A seat in DEAD_DISCARD holds a dead card; a seat in BUILD_SELECT holds the cards that complete
    a placement of its chosen kind. Only sets whose cards p cannot locate and whose piles match the
    seat's free hand slots are possible.
    """
    unknown = {c for pool in pools for c in pool}

    def fits(cards: tuple[int, ...]) -> bool:
        if not all(c in unknown for c in cards):
            return False
        need = pile_counts(list(cards))
        return all(need[i] <= slots_per_pile[i] for i in range(8))

    if s.decision == r.Decision.DEAD_DISCARD:
        candidates: list[tuple[int, ...]] = [(c,) for c in range(cp.NUM_PLOTS) if r.is_dead(s, c) and not s.out[c]]
    elif s.decision == r.Decision.BUILD_SELECT:
        k = len(s.selected)
        prefix = tuple(s.selected)
        free = r.free_plots(s)
        candidates = [pl[k:] for pl in r.kind_placements(s, s.kind, free) if pl[:k] == prefix]
    else:
        return []
    return [cards for cards in candidates if fits(cards)]


def determinize(s: State, p: int, rng: np.random.Generator) -> State:
    """Redeal what p cannot see: the others' hand cards (pile by pile), the active seat's exchange
    choices, and every pile card p did not return itself (p's returned cards keep their places).

    Each seat keeps its number of cards per pile. When another seat is in DEAD_DISCARD or
    BUILD_SELECT, its public choices prove it holds certain cards: one such set is drawn first.
    """
    twin = copy_state(s)
    q = s.active
    fixed = set(s.selected) if (q != p and s.decision == r.Decision.BUILD_SELECT) else set()
    slots = []  # (container, index, pile)
    for seat in range(s.n):
        if seat == p:
            continue
        for j, c in enumerate(twin.hands[seat]):
            if not (seat == q and c in fixed):
                slots.append((twin.hands[seat], j, cp.CARD_PILE[c] - 1))
    if q != p:
        slots += [(twin.exchange, j, cp.CARD_PILE[c] - 1) for j, c in enumerate(twin.exchange)]
    for i in range(8):
        slots += [(twin.piles[i], j, i) for j, seat in enumerate(twin.pile_known[i]) if seat != p]
    pools: list[list[int]] = [[] for _ in range(8)]
    for container, j, i in slots:
        pools[i].append(container[j])
    forced: list[int] = []
    if q >= 0 and q != p:
        hand_slots = pile_counts([c for c in s.hands[q] if c not in fixed])
        options = _required_options(s, p, hand_slots, pools)
        if options:
            forced = list(options[int(rng.integers(len(options)))])
    for c in forced:
        pools[cp.CARD_PILE[c] - 1].remove(c)
    pools = [[pool[j] for j in rng.permutation(len(pool))] for pool in pools]
    hand_q = twin.hands[q] if forced else None
    for container, j, i in slots:
        if container is hand_q:
            match = next((c for c in forced if cp.CARD_PILE[c] - 1 == i), None)
            if match is not None:
                forced.remove(match)
                container[j] = match
                continue
        container[j] = pools[i].pop()
    return twin


def seat_state(v: dict) -> State:
    """A State holding exactly what view `v` says: the seat's own hand (and its own exchange choices), the
    others' hands empty, the piles anonymous, the pending decision's public choices. Rebuilt from the
    view alone, board included: the reference that `seat_state_of` (what agents use) is tested equal to."""
    me = v["player"]
    turn = v["turn"]
    out = [False] * cp.NUM_CARDS
    for c in v["out"]:
        out[c] = True
    pieces = [r.Piece(kind, owner, tuple(plots), points) for kind, owner, plots, points in v["pieces"]]
    occupant = [-1] * cp.NUM_PLOTS
    for index, piece in enumerate(pieces):
        for plot in piece.plots:
            occupant[plot] = index
    fields = _SEAT_FIELDS.copy()  # the State's fields in their order, those not in a view at their defaults
    fields["n"] = n = v["num_players"]
    fields["hand_limit"] = v["hand_limit"]
    fields["tiles"] = [None if t is None else r.Tile(*t) for t in v["tiles"]]
    fields["px"] = [x for x, _ in v["plot_xy"]]
    fields["py"] = [y for _, y in v["plot_xy"]]
    fields["occupant"] = occupant
    fields["pieces"] = pieces
    fields["trams"] = list(v["trams"])
    fields["supply"] = list(v["supply"])
    fields["hands"] = [list(v["hand"]) if q == me else [] for q in range(n)]
    fields["piles"] = [[], [], [], [], [], [], [], []]
    fields["pile_known"] = [[], [], [], [], [], [], [], []]
    fields["out"] = out
    fields["scores"] = list(v["scores"])
    fields["setup_tiles"] = list(v["setup_tiles"])
    fields["setup_order"] = list(v["setup_order"])
    fields["active"] = v["active"]
    fields["decision"] = _DECISION_ID[v["decision"]]
    fields["turns"] = v["turns"]
    fields["passes"] = v["passes"]
    fields["drawn"] = list(turn["drawn"])
    for name in _TURN_SCALARS_OF_VIEW:
        fields[name] = turn[name]
    fields["selected"] = list(turn["selected"])
    fields["exchange"] = list(turn["exchange"] or ())
    fields["last_pass"] = list(v["last_pass"])
    fields["winners"] = list(v["winners"] or ())
    s = object.__new__(State)  # filled whole above: the dataclass __init__ costs as much as the rest together
    s.__dict__ = fields
    r.rebuild_derived(s)
    return s


def seat_state_of(s: State, p: int) -> State:
    """`seat_state(view(s, p))` read from the match itself, without building the view (most of an agent's
    decisions need only this). It copies exactly the fields `view` shows; the derived board fields are
    shared, as `seat_state` shares them (public, replaced and never changed when the board changes)."""
    mine = s.active == p
    fields = _SEAT_FIELDS.copy()  # the State's fields in their order (a copy is cheaper than a new dict)
    fields["n"] = n = s.n
    fields["hand_limit"] = s.hand_limit
    fields["tiles"] = list(s.tiles)
    fields["px"] = list(s.px)
    fields["py"] = list(s.py)
    fields["occupant"] = list(s.occupant)
    fields["pieces"] = list(s.pieces)
    fields["trams"] = sorted(s.trams)  # in the order views list them
    fields["supply"] = list(s.supply)
    fields["hands"] = [sorted(s.hands[p]) if q == p else [] for q in range(n)]
    fields["piles"] = [[], [], [], [], [], [], [], []]
    fields["pile_known"] = [[], [], [], [], [], [], [], []]
    fields["out"] = list(s.out)
    fields["scores"] = list(s.scores)
    fields["setup_tiles"] = list(s.setup_tiles)
    fields["setup_order"] = list(s.setup_order)
    fields["active"] = s.active
    fields["decision"] = s.decision
    fields["turns"] = s.turns
    fields["passes"] = s.passes
    fields["drawn"] = list(s.drawn)
    fields["may_draw"] = s.may_draw
    fields["dead_discarded"] = s.dead_discarded
    fields["main_action"] = s.main_action
    fields["kind"] = s.kind
    fields["card"] = s.card
    fields["tile"] = s.tile
    fields["rotation"] = s.rotation
    fields["edge"] = s.edge
    fields["selected"] = list(s.selected)
    fields["exchange"] = sorted(s.exchange) if mine else []
    fields["trams_this_action"] = s.trams_this_action
    fields["first_tram"] = s.first_tram
    fields["last_pass"] = list(s.last_pass)
    fields["winners"] = list(s.winners) if s.decision == r.GAME_OVER else []
    fields["grid"], fields["outskirts"], fields["holes"], fields["exterior"], fields["geo"] = (
        s.grid,
        s.outskirts,
        s.holes,
        s.exterior,
        s.geo,
    )
    fields["covered"], fields["tram_set"], fields["memo"] = set(s.covered), set(s.tram_set), s.memo
    seat = object.__new__(State)
    seat.__dict__ = fields
    return seat


# every field of State in order, those with a plain default at it (seat_state sets the others)
_SEAT_FIELDS = {f.name: None if f.default is dataclasses.MISSING else f.default for f in dataclasses.fields(State)}
_DECISION_ID = {**{name: i for i, name in enumerate(r.Decision.names)}, "GAME_OVER": r.GAME_OVER}
# the turn's plain values that a view shows under "turn" with the State's names
_TURN_SCALARS_OF_VIEW = (
    "may_draw",
    "dead_discarded",
    "main_action",
    "kind",
    "card",
    "tile",
    "rotation",
    "edge",
    "trams_this_action",
    "first_tram",
)
