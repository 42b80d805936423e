"""What one seat of Big City may know, its tensor encoding, determinization.

Public: the city (tiles, pieces and owners, trams), scores, the supply, pile sizes, the number of
cards each seat holds from each pile, every card played or discarded, the pending public choices
and how many cards of each pile the active seat has set aside for an exchange. Private: the seat's
own hand, its own exchange choices, and the cards it returned to pile bottoms (where they are).
Hidden from everyone: the order of the other cards in each pile.

Observation for seat p: float32, 3787 values; seats relative (0 = p). A 54 x 54 board
planes (9.4) are replaced by a per-plot table: the plot index is a stable identity, and each plot's
four sides say what lies across them, which carries the whole geometry in 68 rows.

| offset | block | contents |
|---|---|---|
| 0    | plots (68 x 53) | per plot idx: placed; x/53; y/53; tile one-hot (8); ordinal/9; occupant one-hot
|      |                 | (residence, business, City Hall, church, cinema, post office, bank, shopping center,
|      |                 | park, factory, free) (11); owner relative seat (5); piece size/4; outskirts; per side
|      |                 | N, E, S, W: [plot across, exterior across, hole across, tram] (16); card in my hand;
|      |                 | card out (public); card known by me in a pile; dead; next to plot 15; selected in
|      |                 | the pending placement; in my pending exchange |
| 3604 | special cards (4 x 4) | per card 68-71: in my hand, played, known by me in a pile, in my exchange |
| 3620 | players (5 x 14) | present, score/100, cards held per pile/3 (8), hand size/6, last turn a pass,
|      |                  | active, cards set aside for the exchange/6 |
| 3690 | global (97) | pile sizes/9 (8); drawn this turn per pile/2 (8); supply per building kind (12);
|      |             | trams left/17; tiles placed (8); initial tiles still to place (8); City Hall built;
|      |             | consecutive passes/N; player count one-hot 2-5 (4); decision one-hot (12); chosen
|      |             | building kind (12); chosen facility (4); chosen tile (8); chosen rotation (4); chosen
|      |             | edge/271; trams laid this action/2; first tram; cards left the hand; dead cards
|      |             | discarded; turns/600 |
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from city_envs.big_city import components as cp
from city_envs.big_city import rules as r
from city_envs.big_city.rules import State
from city_envs.core.game import EntityLayout
from city_envs.core.memo import BoundedMemo

PLOT_WIDTH = 53
PLOTS, SPECIAL, PLAYERS, GLOBAL = 0, 3604, 3620, 3690
OBS_SIZE = 3787
PLAYER_WIDTH = 14
# columns inside a plot row
OCCUPANT, OWNER, SIZE, OUTSKIRTS, SIDES = 12, 23, 28, 29, 30
MINE, OUT, KNOWN, DEAD, CHA, SELECTED, EXCHANGING = 46, 47, 48, 49, 50, 51, 52
# occupant column per piece kind
OCCUPANT_COLUMN = {**{k: 0 for k in cp.RESIDENCES}, **{k: 1 for k in cp.BUSINESSES}, cp.CITY_HALL: 2,
                   cp.CHURCH: 3, cp.CINEMA: 4, cp.POST_OFFICE: 5, cp.BANK: 6, cp.SHOPPING_CENTER: 7,
                   cp.PARK2: 8, cp.PARK3: 8, cp.FACTORY_L: 9, cp.FACTORY_4: 9}
FREE_COLUMN = 10
# entity k is plot k: action k picks it on the board, or names its card in the hand (plot card k is plot k's)
ENTITY_LAYOUT = EntityLayout(
    count=cp.NUM_PLOTS, rows=((PLOTS, PLOT_WIDTH),), action_starts=(r.CARD,),
    context=((SPECIAL, PLAYERS + PLAYER_WIDTH, 1), (GLOBAL, OBS_SIZE, 1)),
)


@lru_cache(maxsize=1)
def _static_plots() -> np.ndarray:
    rows = np.zeros((cp.NUM_PLOTS, PLOT_WIDTH), dtype=np.float32)
    for p in range(cp.NUM_PLOTS):
        rows[p, 3 + cp.PLOT_TILE[p] - 1] = 1.0
        rows[p, 11] = cp.PLOT_ORDINAL[p] / 9.0
    rows.flags.writeable = False
    return rows


def _geometry_block(s: State) -> tuple[np.ndarray, dict, np.ndarray]:
    """What depends on the tiles alone: the plot rows' geometry columns, the plots beside each street
    (key -> [(plot, side)]) and the placed plots; memoized until a tile is placed."""
    if "plots" not in s.geo:
        rows = _static_plots().copy()
        beside: dict[int, list[tuple[int, int]]] = {}
        for p in range(cp.NUM_PLOTS):
            if s.px[p] < 0:
                continue
            row = rows[p]
            x, y = s.px[p], s.py[p]
            row[0] = 1.0
            row[1], row[2] = x / 53.0, y / 53.0
            row[OUTSKIRTS] = s.outskirts[p]
            for side, (dx, dy) in enumerate(cp.DIRS):
                across = r.cell_index(x + dx, y + dy)
                base = SIDES + 4 * side
                if s.grid[across] >= 0:
                    row[base] = 1.0
                elif across in s.exterior:
                    row[base + 1] = 1.0
                elif across in s.holes:
                    row[base + 2] = 1.0
                beside.setdefault(r.side_key(x, y, side), []).append((p, side))
        placed = np.array([x >= 0 for x in s.px])
        rows.flags.writeable = False
        s.geo["plots"] = (rows, beside, placed)
    return s.geo["plots"]


def board_block(s: State) -> np.ndarray:
    """The public city per plot, owners by absolute seat; memoized until a tile, piece or tram is laid."""
    if "board" not in s.memo:
        geometry, beside, placed = _geometry_block(s)
        rows = geometry.copy()
        rows[placed, OCCUPANT + FREE_COLUMN] = 1.0
        for kind, owner, plots, _ in s.pieces:
            for p in plots:
                row = rows[p]
                row[OCCUPANT + FREE_COLUMN] = 0.0
                row[OCCUPANT + OCCUPANT_COLUMN[kind]] = 1.0
                row[OWNER + owner] = 1.0
                row[SIZE] = len(plots) / 4.0
                row[DEAD] = kind >= cp.PARK2
        for key in s.trams:
            for p, side in beside[key]:
                rows[p, SIDES + 4 * side + 3] = 1.0
        if r.city_hall_built(s):
            for side in range(4):
                q = r.neighbour(s, cp.CITY_HALL_PLOT, side)
                if q >= 0:
                    rows[q, CHA] = 1.0
        rows.flags.writeable = False
        s.memo["board"] = rows
    return s.memo["board"]


@lru_cache(maxsize=25)  # one per (player count, seat)
def _owner_columns(n: int, p: int) -> tuple[np.ndarray, np.ndarray]:
    """Target and source columns that turn absolute owners into seats relative to p."""
    targets = [c for c in range(PLOT_WIDTH) if not OWNER + n <= c < OWNER + 5]
    sources = [OWNER + (p + c - OWNER) % n if OWNER <= c < OWNER + n else c for c in targets]
    return np.array(targets), np.array(sources)


@lru_cache(maxsize=1024)
def _cards_out(out: tuple[bool, ...]) -> tuple[np.ndarray, np.ndarray]:
    """The plot cards and the special cards (as 0..3) played or discarded face up."""
    cards = np.flatnonzero(out)
    return cards[cards < cp.NUM_PLOTS], cards[cards >= cp.NUM_PLOTS] - cp.PARK2_CARD


def observation(s: State, p: int) -> np.ndarray:
    obs = np.zeros(OBS_SIZE, dtype=np.float32)
    n = s.n
    plots = obs[PLOTS:SPECIAL].reshape(cp.NUM_PLOTS, PLOT_WIDTH)
    key = ("board", p)
    if key not in s.memo:  # the board as seat p sees it (owners relative to p), memoized with the board
        targets, sources = _owner_columns(n, p)
        mine = np.zeros((cp.NUM_PLOTS, PLOT_WIDTH), dtype=np.float32)
        mine[:, targets] = board_block(s)[:, sources]
        mine.flags.writeable = False
        s.memo[key] = mine
    plots[:] = s.memo[key]
    special = obs[SPECIAL:PLAYERS].reshape(4, 4)
    for c in s.hands[p]:
        if c < cp.NUM_PLOTS:
            plots[c, MINE] = 1.0
        else:
            special[c - cp.PARK2_CARD, 0] = 1.0
    out_plots, out_specials = _cards_out(tuple(s.out))
    plots[out_plots, OUT] = 1.0
    special[out_specials, 1] = 1.0
    for i in range(8):
        if p not in s.pile_known[i]:
            continue
        for c, seat in zip(s.piles[i], s.pile_known[i], strict=True):
            if seat == p:
                if c < cp.NUM_PLOTS:
                    plots[c, KNOWN] = 1.0
                else:
                    special[c - cp.PARK2_CARD, 2] = 1.0
    for c in s.selected:
        plots[c, SELECTED] = 1.0
    if s.active == p:
        for c in s.exchange:
            if c < cp.NUM_PLOTS:
                plots[c, EXCHANGING] = 1.0
            else:
                special[c - cp.PARK2_CARD, 3] = 1.0
    rows = []
    for o in range(n):
        seat = (p + o) % n
        per_pile = [0.0] * 8
        for c in s.hands[seat]:
            per_pile[cp.CARD_PILE[c] - 1] += 1.0 / 3.0
        active = seat == s.active
        rows += (1.0, s.scores[seat] / 100.0, *per_pile, len(s.hands[seat]) / 6.0, s.last_pass[seat], active,
                 (len(s.exchange) if active else 0) / 6.0)
    obs[PLAYERS:PLAYERS + n * PLAYER_WIDTH] = rows
    g = obs[GLOBAL:]
    g[0:37] = [*[len(pile) / 9.0 for pile in s.piles], *[drawn * 0.5 for drawn in s.drawn],
               *[left / count for left, count in zip(s.supply, cp.KIND_COUNT, strict=True)],
               r.trams_left(s) / cp.NUM_TRAMS, *[t is not None for t in s.tiles]]
    for tile in s.setup_tiles:
        g[37 + tile - 1] = 1.0
    g[45] = r.city_hall_built(s)
    g[46] = s.passes / n
    g[47 + n - 2] = 1.0
    if s.decision >= 0:
        g[51 + s.decision] = 1.0
    if s.kind >= 0:
        if s.kind < cp.NUM_KINDS:
            g[63 + s.kind] = 1.0
        else:
            g[75 + s.kind - cp.PARK2] = 1.0
    if s.tile:
        g[79 + s.tile - 1] = 1.0
    if s.rotation >= 0:
        g[87 + s.rotation] = 1.0
    g[91] = (s.edge + 1) / 272.0
    g[92] = s.trams_this_action / 2.0
    g[93] = s.first_tram
    g[94] = s.may_draw
    g[95] = s.dead_discarded
    g[96] = s.turns / cp.MAX_TURNS
    return obs


# ===== structured view =========================================================================
def pile_counts(cards: list[int]) -> list[int]:
    counts = [0] * 8
    for c in cards:
        counts[cp.CARD_PILE[c] - 1] += 1
    return counts


def view(s: State, p: int) -> dict:
    """Plain data of what seat p knows; the observation encodes exactly this."""
    mine = s.active == p
    return {
        "game": "big_city",
        "player": p,
        "num_players": s.n,
        "hand_limit": s.hand_limit,
        "decision": r.DECISION_NAMES[s.decision] if s.decision >= 0 else "GAME_OVER",
        "active": s.active,
        "tiles": [None if t is None else list(t) for t in s.tiles],
        "plot_xy": [[s.px[q], s.py[q]] for q in range(cp.NUM_PLOTS)],
        "outskirts": list(s.outskirts),
        "pieces": [[kind, owner, list(plots), points] for kind, owner, plots, points in s.pieces],
        "trams": sorted(s.trams),
        "supply": list(s.supply),
        "trams_left": r.trams_left(s),
        "scores": list(s.scores),
        "hand": sorted(s.hands[p]),
        "hand_counts": [pile_counts(h) for h in s.hands],
        "pile_sizes": [len(pile) for pile in s.piles],
        "known_in_piles": sorted(c for i in range(8) for c, seat in zip(s.piles[i], s.pile_known[i], strict=True)
                                 if seat == p),
        "out": [c for c in range(cp.NUM_CARDS) if s.out[c]],
        "setup_tiles": list(s.setup_tiles),
        "setup_order": list(s.setup_order),
        "turns": s.turns,
        "passes": s.passes,
        "last_pass": list(s.last_pass),
        "turn": {"drawn": list(s.drawn), "may_draw": s.may_draw, "dead_discarded": s.dead_discarded,
                 "main_action": s.main_action, "kind": s.kind, "card": s.card, "tile": s.tile,
                 "rotation": s.rotation, "edge": s.edge, "selected": list(s.selected),
                 "trams_this_action": s.trams_this_action, "first_tram": s.first_tram,
                 "exchange": sorted(s.exchange) if mine else None,
                 "exchange_counts": pile_counts(s.exchange)},
        "winners": list(s.winners) if s.decision == r.GAME_OVER else None,
    }


# ===== copies and determinization ==============================================================
def copy_state(s: State) -> State:
    """Structured copy: every mutable field is rebuilt; derived data that is only ever replaced is shared."""
    return State(
        n=s.n, hand_limit=s.hand_limit, tiles=[None if t is None else list(t) for t in s.tiles], px=list(s.px),
        py=list(s.py), occupant=list(s.occupant),
        pieces=[[kind, owner, list(plots), points] for kind, owner, plots, points in s.pieces], trams=list(s.trams),
        supply=list(s.supply), hands=[list(h) for h in s.hands], piles=[list(pile) for pile in s.piles],
        pile_known=[list(k) for k in s.pile_known], out=list(s.out), scores=list(s.scores),
        setup_tiles=list(s.setup_tiles), setup_order=list(s.setup_order), active=s.active, decision=s.decision,
        turns=s.turns, passes=s.passes, drawn=list(s.drawn), may_draw=s.may_draw, dead_discarded=s.dead_discarded,
        main_action=s.main_action, kind=s.kind, card=s.card, tile=s.tile, rotation=s.rotation, edge=s.edge,
        selected=list(s.selected), exchange=list(s.exchange), trams_this_action=s.trams_this_action,
        first_tram=s.first_tram, last_pass=list(s.last_pass), winners=list(s.winners), truncated=s.truncated,
        grid=s.grid, outskirts=s.outskirts, holes=s.holes, exterior=s.exterior, covered=set(s.covered),
        tram_set=set(s.tram_set), memo=s.memo, geo=s.geo,
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

    if s.decision == r.DEAD_DISCARD:
        candidates = [(c,) for c in range(cp.NUM_PLOTS) if r.is_dead(s, c) and not s.out[c]]
    elif s.decision == r.BUILD_SELECT:
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
    fixed = set(s.selected) if (q != p and s.decision == r.BUILD_SELECT) else set()
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
    """A State holding exactly what view `v` says: the seat's own hand, the others' hands empty, the
    piles anonymous. Agents evaluate moves on it with the pure rule functions (points, placements)."""
    n = v["num_players"]
    me = v["player"]
    out = set(v["out"])
    s = State(
        n=n, hand_limit=v["hand_limit"], tiles=[None if t is None else list(t) for t in v["tiles"]],
        px=[xy[0] for xy in v["plot_xy"]], py=[xy[1] for xy in v["plot_xy"]], occupant=[-1] * cp.NUM_PLOTS,
        pieces=[[kind, owner, list(plots), points] for kind, owner, plots, points in v["pieces"]],
        trams=list(v["trams"]), supply=list(v["supply"]), hands=[list(v["hand"]) if q == me else [] for q in range(n)],
        piles=[[] for _ in range(8)], pile_known=[[] for _ in range(8)],
        out=[c in out for c in range(cp.NUM_CARDS)], scores=list(v["scores"]),
        setup_tiles=list(v["setup_tiles"]), setup_order=list(v["setup_order"]), active=v["active"],
        last_pass=list(v["last_pass"]),
    )
    for index, piece in enumerate(s.pieces):
        for p in piece[2]:
            s.occupant[p] = index
    tiles = tuple(None if t is None else tuple(t) for t in v["tiles"])
    board = (tiles, tuple((kind, owner, tuple(plots), points) for kind, owner, plots, points in v["pieces"]),
             tuple(v["trams"]))
    known = _SEAT_BOARDS.get(board)
    if known is None:
        geometry = _SEAT_GEOMETRY.get(tiles)
        if geometry is None:
            r.rebuild_derived(s)
            geometry = (s.grid, s.outskirts, s.holes, s.exterior, s.geo)
            _SEAT_GEOMETRY.put(tiles, geometry)
        else:
            s.grid, s.outskirts, s.holes, s.exterior, s.geo = geometry
            r.rebuild_piece_derived(s)
        _SEAT_BOARDS.put(board, (geometry, frozenset(s.covered), s.memo))
    else:
        geometry, covered, s.memo = known
        s.grid, s.outskirts, s.holes, s.exterior, s.geo = geometry
        s.covered, s.tram_set = set(covered), set(s.trams)
    return s


# What `seat_state` derives from the public board, kept for the next views of the same board (an agent
# asks once per decision, and most decisions leave the board as it was): geometry by the tiles, the
# pieces' covered edges and the board memo by tiles, pieces and trams. Only public data goes in.
_SEAT_GEOMETRY = BoundedMemo(64)
_SEAT_BOARDS = BoundedMemo(256)
