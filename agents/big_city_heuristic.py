"""A rule-based Big City player (the strategy notes in docs/games/big_city.md).

It reads only its seat's information set: the seat's State (`InfoSet.seat_state`: its own hand, the
public board and turn), on which the pure rule functions value moves, and the legal action ids; the
view is built only for what that State leaves out (pile sizes, cards it returned, the others' card
counts), on the few decisions that use them. The generator only breaks exact ties.

- Building: every legal build is scored exactly as the rules would score it now; the best is built
  when it is worth at least `GOOD_BUILD`, or at least `FAIR_BUILD` when nothing better is in sight.
- City Hall: built as soon as no good build is open (it unlocks trams, tiles, specials and the x2).
- Trams: laid on a street next to held plots when the best build's value gains at least `TRAM_GAIN`.
- Neighbourhoods: a tile is placed when the seat holds at least two of its cards, where its held
  plots touch most held plots already in the city (pairs and lines), the most compact way.
- Parks go next to held free plots; factories go where rivals hold most cards, away from held plots.
- Draws: piles whose free plots touch held plots, never a pile holding only cards it returned itself.
  Exchange: dead, isolated or unusable cards, until turn `LAST_EXCHANGE_TURN` (so a match always ends).
- Passing: when leading and everyone else has just passed, or when nothing is useful.
"""

from __future__ import annotations

from functools import cached_property
from typing import ClassVar, NamedTuple

import numpy as np

from city_envs.agents.base import TIE_TOLERANCE, HeuristicAgent
from city_envs.big_city import components as cp
from city_envs.big_city import rules as r
from city_envs.big_city.rules import State
from city_envs.core.infoset import InfoSet

GOOD_BUILD = 5
FAIR_BUILD = 3
TRAM_GAIN = 3
WEAK_CARD = 2.5  # cards less useful than this are exchanged
# Exchanging is the only move that uses nothing up, so two seats that swap useless cards could go on
# for ever; past this turn the heuristic stops exchanging and the match can only move to its end.
# Heuristic matches last 65 turns at most (480 two-player matches), so this never binds in them.
LAST_EXCHANGE_TURN = 150


class Build(NamedTuple):
    """A legal build and what it scores now."""

    points: int
    kind: int
    placement: tuple[int, ...]


class TileOption(NamedTuple):
    """A legal placement of a neighbourhood tile and what it is worth to this seat."""

    worth: float
    rotation: int
    edge: int
    ax: int
    ay: int


class SeatMemo:
    """What the agent knows of the board that depends on its own hand (the scores of the placements its
    plots allow), kept for its next decisions. It stays with the agent: the board's memo, shared by
    every seat's state and by copies of the match, holds only public entries.

    A placement's entries depend on the board alone (`r.placement_facts`: the pieces beside it, trams
    along it, City Hall beside it, the outskirts), so when the board grows by pieces and trams on the
    same tiles only the entries of placements that touch what was laid are dropped; new tiles drop all.
    Entries keyed ("tile", ...) hold for one board."""

    __slots__ = ("board", "player", "entries", "tiles", "pieces", "trams")

    def __init__(self) -> None:
        self.board: dict | None = None
        self.player = -1
        self.entries: dict = {}
        self.tiles: list = []
        self.pieces: list = []
        self.trams: set = set()

    def on(self, s: State, player: int) -> dict:
        """The entries for seat state `s` of `player` (a board is known by its public memo)."""
        if s.memo is self.board and player == self.player:
            return self.entries
        old = self.pieces
        if (
            player == self.player
            and self.entries
            and s.tiles == self.tiles
            and s.pieces[: len(old)] == old
            and self.trams <= s.tram_set
        ):
            changed = _touched_plots(s, s.pieces[len(old) :], s.tram_set - self.trams)
            self.entries = {
                key: value for key, value in self.entries.items() if key[0] != "tile" and changed.isdisjoint(key[-1])
            }
        else:
            self.entries = {}
        self.board, self.player, self.tiles, self.pieces, self.trams = s.memo, player, s.tiles, s.pieces, s.tram_set
        return self.entries


def _touched_plots(s: State, pieces: list[r.Piece], trams: set[int]) -> set[int]:
    """The plots whose placements' facts new `pieces` and `trams` may change: the pieces' plots and those
    beside them (R, B, S, park, factory, City Hall beside), the plots along the trams' streets."""
    table = r.neighbour_table(s)
    plots: set[int] = set()
    for piece in pieces:
        for p in piece.plots:
            plots.add(p)
            plots.update(table[p])
    streets = r.street_edges(s)
    for key in trams:
        q, side = divmod(streets[key], 4)
        plots.add(q)
        plots.add(table[q][side])
    return plots


class Table:
    """One seat's information in the shape the decisions need."""

    def __init__(self, info_set: InfoSet, seat_memo: SeatMemo) -> None:
        self.info_set = info_set
        self.me = info_set.player
        self.s: State = info_set.seat_state()
        self.hand: list[int] = self.s.hands[self.me]  # sorted, as views list it
        self.held = r.hand_plots(self.s, self.me)
        # this seat's memo (SeatMemo): ("points", kind, placement), ("tram points", kind, placement),
        # ("facts", placement) and ("tile", n, rotation, hand) -> the worth of each anchor
        self.placement_memo = seat_memo.on(self.s, self.me)

    @cached_property
    def v(self) -> dict:
        """The seat's view, built only when a decision needs what the seat's State leaves out."""
        return self.info_set.view()

    @cached_property
    def held_beside(self) -> list[int]:
        """Per plot, how many held plots lie beside it (each one a partner for a pair or a line)."""
        counts = [0] * cp.NUM_PLOTS
        for p in self.held:
            for q in r.neighbour_table(self.s)[p]:
                if q >= 0:
                    counts[q] += 1
        return counts

    # ----- builds -------------------------------------------------------------------------------
    def builds(self, kinds) -> list[Build]:
        """Every legal build of the given kinds."""
        out = []
        by_size: dict = {}
        counts: dict = {}
        for kind in kinds:
            if kind == cp.CITY_HALL:
                continue
            for placement in r.kind_placements(self.s, kind, self.held, by_size, counts):
                out.append(Build(self.points(kind, placement), kind, placement))
        return out

    def points(self, kind: int, placement: tuple[int, ...]) -> int:
        """`r.building_points` (kind not City Hall), kept with the placement's facts that the kinds
        share in this seat's memo of the board."""
        key = ("points", kind, placement)
        memo = self.placement_memo
        if key not in memo:
            facts_key = ("facts", placement)
            if facts_key not in memo:
                memo[facts_key] = r.placement_facts(self.s, placement)
            memo[key] = r.points_from_facts(kind, placement, memo[facts_key])
        return memo[key]

    def tram_points(self, kind: int, placement: tuple[int, ...]) -> int:
        """`points` once a tram runs along the placement (the rest of its facts stay as they are), kept
        in the same memo."""
        key = ("tram points", kind, placement)
        memo = self.placement_memo
        if key not in memo:
            self.points(kind, placement)
            memo[key] = r.points_from_facts(kind, placement, memo["facts", placement]._replace(tram=True))
        return memo[key]

    # ----- trams --------------------------------------------------------------------------------
    def tram_gains(self, builds: list[Build] | None = None) -> dict[int, int]:
        """Canonical edge id -> gain of the best build if a tram lay there (edges beside held plots);
        `builds`: every build now, when the caller has them."""
        s = self.s
        builds = self.builds(range(cp.NUM_KINDS)) if builds is None else builds
        base = max((b.points for b in builds), default=0)
        keys, table = r.key_table(s), r.neighbour_table(s)
        beside = {keys[p][side] for p in self.held for side in range(4)}
        # a tram changes only the builds with a plot beside it: they score as on a tram, unless it runs
        # between two of their plots, which forbids them (shape_placements)
        streets = []  # per build: its points, the streets along it, those inside it, its points on a tram
        for points, kind, placement in builds:
            sides = [(key, table[p][side] in placement) for p in placement for side, key in enumerate(keys[p])]
            along = {key for key, _ in sides}
            inside = {key for key, between in sides if between}
            streets.append((points, along, inside, self.tram_points(kind, placement)))
        gains = {}
        for e, key in r.tram_edges(s).items():
            if key not in beside:
                continue
            best = None
            for points, along, inside, on_tram in streets:
                if key in along:
                    if key in inside:
                        continue
                    points = on_tram
                best = points if best is None else max(best, points)
            gains[e] = (0 if best is None else best) - base
        return gains

    # ----- cards --------------------------------------------------------------------------------
    def usefulness(self, card: int) -> float:
        s = self.s
        if card >= cp.NUM_PLOTS:
            return 4.0
        if r.is_dead(s, card):
            return -10.0
        if card == cp.CITY_HALL_PLOT:
            return 6.0
        if s.px[card] < 0:
            return 2.0 if sum(cp.CARD_PILE[c] == cp.PLOT_TILE[card] for c in self.hand) >= 2 else 1.0
        partners = self.held_beside[card]
        single = max(self.points(cp.RES1, (card,)), self.points(cp.BUS1, (card,)))
        return single + 2.0 * partners

    def pile_worth(self, pile: int) -> float:
        s = self.s
        if s.tiles[pile - 1] is None:
            return 0.2
        worth = 0.0
        if pile == cp.PLOT_TILE[cp.CITY_HALL_PLOT] and not r.city_hall_built(s) and cp.CITY_HALL_PLOT not in self.hand:
            worth += 3.0  # card 15 is still somewhere: City Hall unlocks the rest of the game
        occupant, out, held, beside = s.occupant, s.out, self.held, self.held_beside
        for p in cp.TILE_PLOTS[pile]:
            if occupant[p] >= 0 or out[p] or p in held or p == cp.CITY_HALL_PLOT:
                continue
            worth += 0.1 + beside[p]
        return worth

    # ----- neighbourhoods -----------------------------------------------------------------------
    def best_tile_placements(self, n: int, rotations, edge: int) -> list[TileOption]:
        """The legal placements of tile n at the given rotations (across `edge` unless it is -1) worth the
        most (within TIE_TOLERANCE), by rotation then anchor: 3 per pair of a held plot of the city and a
        held plot of the tile beside it, 0.1 per cell touching the city. Scored for every anchor at once,
        kept in the seat's memo for the next decisions of the same placement."""
        s = self.s
        hand = tuple(self.hand)
        memo = self.placement_memo
        held_around = None  # per padded cell: the held plots of the city beside it
        scored = []  # per rotation: its anchors, the ones across `edge`, their worths
        for rot in rotations:
            layout = cp.LAYOUTS[n][rot]
            anchors = r.rectangle_anchors(s, layout.width, layout.height)
            key = ("tile", n, rot, hand)
            worth = memo.get(key)
            if worth is None:
                mine_new = [cp.PLOT_ORDINAL[c] - 1 for c in hand if c < cp.NUM_PLOTS and cp.PLOT_TILE[c] == n]
                if not (mine_new and self.held):
                    worth = 0.1 * anchors.touching
                else:
                    if held_around is None:
                        held_around = np.zeros(r.PAD * r.PAD, dtype=np.int64)
                        cells = [r.cell_index(s.px[p] - dx, s.py[p] - dy) for p in self.held for dx, dy in cp.DIRS]
                        np.add.at(held_around, cells, 1)
                    corner = (anchors.y + 1) * r.PAD + anchors.x + 1  # the anchor's padded cell
                    offsets = [w * r.PAD + c for c, w in (layout.cells[k] for k in mine_new)]
                    pairs = sum(held_around[corner + offset] for offset in offsets)
                    worth = 3.0 * pairs + 0.1 * anchors.touching
                memo[key] = worth
            chosen = np.flatnonzero(anchors.edge == edge) if edge >= 0 else np.arange(len(worth))
            scored.append((rot, anchors, chosen, worth[chosen]))
        top = max(worths.max() for *_, worths in scored if len(worths))
        out: list[TileOption] = []
        for rot, anchors, chosen, worths in scored:
            tied = worths >= top - TIE_TOLERANCE
            picked = chosen[tied]
            out += map(
                TileOption,
                worths[tied].tolist(),
                [rot] * len(picked),
                anchors.edge[picked].tolist(),
                anchors.x[picked].tolist(),
                anchors.y[picked].tolist(),
            )
        return out

    def local_cell(self, n: int, rotation: int, edge: int, ax: int, ay: int) -> int:
        """The first j whose `r.anchor_from(s, n, rotation, edge, j)` is (ax, ay)."""
        s = self.s
        q, side = divmod(edge, 4)
        dx, dy = cp.DIRS[side]
        return cp.LAYOUTS[n][rotation].cells.index((s.px[q] + dx - ax, s.py[q] + dy - ay))

    def my_cards_of(self, n: int) -> int:
        return sum(1 for c in self.hand if cp.CARD_PILE[c] == n and c < cp.NUM_PLOTS)

    # ----- parks and factories ------------------------------------------------------------------
    def facility_worth(self, kind: int, plots: tuple[int, ...]) -> float:
        s = self.s
        mine = set(self.hand)
        if any(p in mine for p in plots):
            return -10.0
        beside = {q for p in plots for side in range(4) if (q := r.neighbour(s, p, side)) in self.held}
        if kind in cp.PARKS:
            return float(len(beside))
        counts = self.v["hand_counts"]
        rivals = sum(counts[q][cp.PLOT_TILE[p] - 1] for p in plots for q in range(s.n) if q != self.me)
        return 0.3 * rivals - 2.0 * len(beside) + 0.1


class BigCityHeuristicAgent(HeuristicAgent):
    """The strategy of §11 (its docs page's Heuristic agent); `act` always returns a legal id."""

    HANDLERS: ClassVar[dict[str, str]] = {
        "SETUP_TILE": "_tile_choice",
        "TILE_ROTATION": "_tile_placement",
        "TILE_EDGE": "_tile_placement",
        "TILE_CELL": "_tile_placement",
        "DEAD_DISCARD": "_dead_discard",
        "MAIN": "_main",
        "BUILD_SELECT": "_select",
        "PIECE_SELECT": "_select",
        "TRAM_EDGE": "_tram",
        "TRAM_EDGE_OPT": "_tram",
        "EXCHANGE_SELECT": "_exchange",
        "DRAW": "_draw",
    }

    def __init__(self, seed: int | np.random.Generator | None = None, native: bool = True) -> None:
        super().__init__(seed, native)
        self.seat_memo = SeatMemo()

    def _choose(self, info_set: InfoSet, legal: list[int]) -> int:
        table = Table(info_set, self.seat_memo)
        action = getattr(self, self.HANDLERS[r.Decision.name_of(table.s.decision)])(table, legal)
        return action if action in legal else legal[-1]

    # ----- the main choice ----------------------------------------------------------------------
    def _main(self, table: Table, legal: list[int]) -> int:
        s = table.s
        kinds = [a - r.BUILD for a in legal if r.BUILD <= a < r.TRAM]
        # in MAIN the kinds with a placement are exactly the legal ones, so these are every build
        builds = table.builds(kinds)
        best = max(b.points for b in builds) if builds else -1
        # returned only when there are builds (best >= 0)
        build_action = (
            r.BUILD + self._best(builds, lambda b: b.points - 0.01 * cp.KIND_SIZE[b.kind]).kind if builds else r.PASS
        )
        scores = s.scores
        leading = scores[table.me] >= max(scores)
        if leading and s.passes == s.n - 1 and best < GOOD_BUILD:
            return r.PASS  # everyone else passed: end the game in the lead
        if best >= GOOD_BUILD:
            return build_action
        if r.BUILD + cp.CITY_HALL in legal:
            return r.BUILD + cp.CITY_HALL
        if r.TRAM in legal:
            gains = table.tram_gains(builds)
            if gains and max(gains.values()) >= TRAM_GAIN:
                return r.TRAM
        for card in cp.SPECIAL_CARDS:
            if card in legal:
                kind = cp.FACILITY_OF_CARD[card]
                if max(table.facility_worth(kind, pl) for pl in r.facility_placements(s, kind)) > 0:
                    return card
        tiles = [a for a in legal if r.TILE < a < r.EXCHANGE and table.my_cards_of(a - r.TILE) >= 2]
        if tiles:
            return self._best(tiles, lambda a: table.my_cards_of(a - r.TILE))
        if best >= FAIR_BUILD:
            return build_action
        # an exchange helps only if the piles hold cards this seat did not put there itself
        fresh = s.turns < LAST_EXCHANGE_TURN and sum(table.v["pile_sizes"]) > len(table.v["known_in_piles"])
        if fresh and r.EXCHANGE in legal and any(table.usefulness(c) < WEAK_CARD for c in table.hand):
            return r.EXCHANGE
        if builds:
            return build_action
        if fresh and r.EXCHANGE in legal and len(table.hand) < s.hand_limit:
            return r.EXCHANGE
        return r.PASS

    # ----- placing pieces -----------------------------------------------------------------------
    def _select(self, table: Table, legal: list[int]) -> int:
        s = table.s
        selected = tuple(s.selected)
        k = len(selected)
        kind = s.kind
        if s.decision == r.Decision.BUILD_SELECT:
            options = r.kind_placements(s, kind, table.held | set(selected))
            options = [pl for pl in options if pl[:k] == selected]
            choice = self._best(options, lambda pl: table.points(kind, pl))
        else:
            options = [pl for pl in r.facility_placements(s, kind) if pl[:k] == selected]
            choice = self._best(options, lambda pl: table.facility_worth(kind, pl))
        return choice[k]

    def _tram(self, table: Table, legal: list[int]) -> int:
        gains = {e: g for e, g in table.tram_gains().items() if r.EDGE + e in legal}
        if gains and max(gains.values()) > 0:
            return r.EDGE + self._best(sorted(gains), lambda e: gains[e])
        if r.DONE in legal:
            return r.DONE
        s = table.s
        spots = [(s.px[p], s.py[p]) for p in table.held] or [(s.px[cp.CITY_HALL_PLOT], s.py[cp.CITY_HALL_PLOT])]

        def closeness(a: int) -> float:
            p = (a - r.EDGE) // 4
            return -min(abs(s.px[p] - x) + abs(s.py[p] - y) for x, y in spots)

        return self._best([a for a in legal if r.EDGE <= a < r.LOCAL_CELL], closeness)

    # ----- neighbourhoods -----------------------------------------------------------------------
    def _tile_choice(self, table: Table, legal: list[int]) -> int:
        return self._best(legal, lambda a: table.my_cards_of(a - r.TILE))

    def _tile_placement(self, table: Table, legal: list[int]) -> int:
        s = table.s
        n, rotation, edge = s.tile, s.rotation, s.edge
        rotations = [a - r.ROTATION for a in legal] if rotation < 0 else [rotation]
        pick = self._best(table.best_tile_placements(n, rotations, edge), lambda o: o.worth)
        if s.decision == r.Decision.TILE_ROTATION:
            return r.ROTATION + pick.rotation
        if s.decision == r.Decision.TILE_EDGE:
            return r.EDGE + pick.edge
        return r.LOCAL_CELL + table.local_cell(n, pick.rotation, pick.edge, pick.ax, pick.ay)

    # ----- cards --------------------------------------------------------------------------------
    def _dead_discard(self, table: Table, legal: list[int]) -> int:
        return min(legal)  # a dead card (DONE, 95, comes last)

    def _exchange(self, table: Table, legal: list[int]) -> int:
        cards = [a for a in legal if a < r.BUILD]
        if cards:
            worst = min(cards, key=lambda c: (table.usefulness(c), c))
            if table.usefulness(worst) < WEAK_CARD or r.DONE not in legal:
                return worst
        return r.DONE

    def _draw(self, table: Table, legal: list[int]) -> int:
        """The best pile, but never one holding only cards this seat returned (drawing one back undoes
        the exchange) while another pile is open."""
        v = table.v
        mine = [0] * 8
        for card in v["known_in_piles"]:
            mine[cp.CARD_PILE[card] - 1] += 1
        fresh = [a for a in legal if v["pile_sizes"][a - r.PILE - 1] > mine[a - r.PILE - 1]]
        return self._best(
            fresh or legal, lambda a: table.pile_worth(a - r.PILE) + 0.01 * v["pile_sizes"][a - r.PILE - 1]
        )
