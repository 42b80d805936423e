"""Every invariant of a Big City state, checked field by field (`BigCity.validate()`).

Only the plain fields are read, never the derived geometry, so the check can run before
`rules.rebuild_derived` builds that geometry from them.
"""

from __future__ import annotations

from typing import Any

from city_envs.big_city import components as cp
from city_envs.big_city import rules as r
from city_envs.core.validation import (
    InvalidStateError,
    check_bool,
    check_bools,
    check_distinct,
    check_int,
    check_ints,
    check_list,
    check_multiset,
    check_seats,
    require,
)

_FACILITY_CARD = {kind: card for card, kind in cp.FACILITY_OF_CARD.items()}


def state_from_json(data: dict) -> r.State:
    """The state `BigCity.to_dict` wrote: its tile and piece lists made records again. A list that cannot
    be one is refused here, naming it; `validate_state` checks the values."""
    fields = {name for name in r.State.__dataclass_fields__ if name not in r.DERIVED_FIELDS}
    require(
        isinstance(data, dict) and set(data) == fields,
        "state",
        f"keys {sorted(map(str, data)) if isinstance(data, dict) else data!r}, not {sorted(fields)}",
    )
    return r.State(**dict(data, tiles=tiles_from_json(data["tiles"]), pieces=pieces_from_json(data["pieces"])))


def tiles_from_json(rows: Any) -> list[r.Tile | None]:
    check_list("tiles", rows)
    tiles: list[r.Tile | None] = []
    for n, row in enumerate(rows):
        if row is None:
            tiles.append(None)
            continue
        require(isinstance(row, list) and len(row) == 3, f"tiles[{n}]", f"{row!r} is not [rotation, ax, ay]")
        tiles.append(r.Tile(*row))
    return tiles


def pieces_from_json(rows: Any) -> list[r.Piece]:
    check_list("pieces", rows)
    pieces = []
    for index, row in enumerate(rows):
        require(
            isinstance(row, list) and len(row) == 4 and isinstance(row[2], list),
            f"pieces[{index}]",
            f"{row!r} is not [kind, owner, plots, points]",
        )
        kind, owner, plots, points = row
        pieces.append(r.Piece(kind, owner, tuple(plots), points))
    return pieces


def validate_state(s: r.State, num_players: int) -> None:
    n = s.n
    check_seats(n, num_players)
    require(s.hand_limit == cp.HAND_LIMIT[n], "hand_limit", f"{s.hand_limit!r}, not {cp.HAND_LIMIT[n]} for {n} players")
    _check_tiles(s)
    _check_cards(s, n)
    _check_pieces(s, n)
    _check_turn(s, n)


def piece_size(kind: int) -> int:
    return cp.KIND_SIZE[kind] if kind < cp.NUM_KINDS else len(cp.FACILITY_SHAPES[kind])


def _check_tiles(s: r.State) -> None:
    """Placed tiles put their plots where their layout says, on distinct cells of the grid."""
    check_list("tiles", s.tiles, cp.NUM_TILES)
    check_ints("px", s.px, cp.NUM_PLOTS, -1, cp.GRID - 1)
    check_ints("py", s.py, cp.NUM_PLOTS, -1, cp.GRID - 1)
    require(s.tiles[cp.START_TILE - 1] == r.Tile(0, *cp.START_ANCHOR), "tiles", "the start tile is not at its place")
    for number in range(1, cp.NUM_TILES + 1):
        placed = s.tiles[number - 1]
        field = f"tiles[{number - 1}]"
        plots = cp.TILE_PLOTS[number]
        if placed is None:
            require(all(s.px[p] == -1 and s.py[p] == -1 for p in plots), "px", f"plots of unplaced tile {number}")
            continue
        require(type(placed) is r.Tile, field, f"{placed!r} is not a Tile")
        check_int(f"{field}.rotation", placed.rotation, 0, len(cp.LAYOUTS[number]) - 1)
        check_int(f"{field}.ax", placed.ax)
        check_int(f"{field}.ay", placed.ay)
        for k, (c, w) in enumerate(cp.LAYOUTS[number][placed.rotation].cells):
            p = cp.OFFSET[number] + k
            if s.px[p] != placed.ax + c or s.py[p] != placed.ay + w:
                raise InvalidStateError(f"px[{p}]", f"plot {cp.PLOT_NUMBER[p]} is not where tile {number} puts it")
    check_distinct("px", [(s.px[p], s.py[p]) for p in range(cp.NUM_PLOTS) if s.px[p] >= 0])


def _check_cards(s: r.State, n: int) -> None:
    """Each of the 72 cards in exactly one place: a hand, a pile, the exchange, or out."""
    check_list("hands", s.hands, n)
    for seat in range(n):
        check_ints(f"hands[{seat}]", s.hands[seat], low=0, high=cp.NUM_CARDS - 1)
        require(len(s.hands[seat]) <= s.hand_limit, f"hands[{seat}]", f"{len(s.hands[seat])} cards, over the limit")
    check_list("piles", s.piles, 8)
    check_list("pile_known", s.pile_known, 8)
    for i in range(8):
        check_ints(f"piles[{i}]", s.piles[i], low=0, high=cp.NUM_CARDS - 1)
        check_ints(f"pile_known[{i}]", s.pile_known[i], len(s.piles[i]), -1, n - 1)
        require(all(cp.CARD_PILE[c] == i + 1 for c in s.piles[i]), f"piles[{i}]", "holds a card of another pile")
    check_ints("exchange", s.exchange, low=0, high=cp.NUM_CARDS - 1)
    check_bools("out", s.out, cp.NUM_CARDS)
    places = [c for hand in s.hands for c in hand] + [c for pile in s.piles for c in pile] + list(s.exchange)
    check_multiset("hands", places + [c for c in range(cp.NUM_CARDS) if s.out[c]], range(cp.NUM_CARDS))
    check_ints("drawn", s.drawn, 8, 0, cp.MAX_DRAWS_PER_PILE)


def _check_pieces(s: r.State, n: int) -> None:
    check_ints("occupant", s.occupant, cp.NUM_PLOTS, -1)
    check_list("pieces", s.pieces)
    kinds = []
    for index, piece in enumerate(s.pieces):
        field = f"pieces[{index}]"
        require(type(piece) is r.Piece and type(piece.plots) is tuple, field, f"{piece!r} is not a Piece")
        kind = check_int(f"{field}.kind", piece.kind, 0, cp.FACTORY_4)
        check_int(f"{field}.owner", piece.owner, 0, n - 1)
        check_ints(f"{field}.plots", list(piece.plots), piece_size(kind), 0, cp.NUM_PLOTS - 1)
        check_distinct(f"{field}.plots", piece.plots)
        check_int(f"{field}.points", piece.points, 0, 0 if kind >= cp.PARK2 else None)
        for p in piece.plots:
            if s.px[p] < 0 or s.occupant[p] != index:
                raise InvalidStateError(f"occupant[{p}]", f"disagrees with {field}")
            if kind < cp.PARK2 and not s.out[p]:
                raise InvalidStateError(f"out[{p}]", f"the card of plot {cp.PLOT_NUMBER[p]} built on is not out")
        if kind >= cp.PARK2:
            require(s.out[_FACILITY_CARD[kind]], f"out[{_FACILITY_CARD[kind]}]", "a facility built from no card")
        kinds.append(kind)
    for p, occupant in enumerate(s.occupant):
        if occupant >= len(s.pieces) or (occupant >= 0 and p not in s.pieces[occupant].plots):
            raise InvalidStateError(f"occupant[{p}]", f"{occupant} is not a piece standing on plot {cp.PLOT_NUMBER[p]}")
        if occupant < 0 and s.out[p]:
            raise InvalidStateError(f"out[{p}]", "a plot card out for a free plot")
    check_ints("supply", s.supply, cp.NUM_KINDS, 0)
    for kind in range(cp.NUM_KINDS):
        require(
            s.supply[kind] + kinds.count(kind) == cp.KIND_COUNT[kind],
            f"supply[{kind}]",
            f"{s.supply[kind]} in supply and {kinds.count(kind)} built, not {cp.KIND_COUNT[kind]} pieces",
        )
    for kind in range(cp.PARK2, cp.FACTORY_4 + 1):
        require(kinds.count(kind) <= 1, "pieces", f"facility {kind} built twice")
    check_ints("scores", s.scores, n, 0)
    for seat in range(n):
        total = sum(piece.points for piece in s.pieces if piece.owner == seat)
        require(s.scores[seat] == total, f"scores[{seat}]", f"{s.scores[seat]}, but its pieces are worth {total}")
    check_ints("trams", s.trams, low=0, high=2 * r.VERTEX_ROW * r.VERTEX_ROW)
    require(len(s.trams) <= cp.NUM_TRAMS, "trams", f"{len(s.trams)} segments, more than {cp.NUM_TRAMS}")
    check_distinct("trams", s.trams)
    streets = {r.side_key(s.px[p], s.py[p], side) for p in range(cp.NUM_PLOTS) if s.px[p] >= 0 for side in range(4)}
    network: set[int] = set()
    for i, key in enumerate(s.trams):
        require(key in streets, f"trams[{i}]", f"{key} is not a street of the city")
        ends = set(r.key_vertices(key))
        require(i == 0 or bool(ends & network), f"trams[{i}]", "not joined to the segments laid before it")
        network |= ends


def _check_turn(s: r.State, n: int) -> None:
    check_int("decision", s.decision, r.GAME_OVER, len(r.Decision.names) - 1)
    check_int("turns", s.turns, 0, cp.MAX_TURNS)
    check_int("passes", s.passes, 0, n)
    for name in ("may_draw", "dead_discarded", "first_tram", "truncated"):
        check_bool(name, getattr(s, name))
    check_bools("last_pass", s.last_pass, n)
    check_int("main_action", s.main_action, -1, r.DONE)
    check_int("kind", s.kind, -1, cp.FACTORY_4)
    check_int("card", s.card, -1, cp.NUM_CARDS - 1)
    check_int("tile", s.tile, 0, cp.NUM_TILES)
    check_int("rotation", s.rotation, -1, 3)
    check_int("edge", s.edge, -1)
    check_ints("selected", s.selected, low=0, high=cp.NUM_PLOTS - 1)
    check_distinct("selected", s.selected)
    check_int("trams_this_action", s.trams_this_action, 0, 2)
    check_ints("setup_tiles", s.setup_tiles, low=1, high=cp.NUM_TILES)
    require(set(s.setup_tiles) <= set(cp.INITIAL_TILES[n]), "setup_tiles", "not among this count's initial tiles")
    require(all(s.tiles[t - 1] is None for t in s.setup_tiles), "setup_tiles", "an initial tile placed twice")
    check_ints("setup_order", s.setup_order, low=0, high=n - 1)
    require(
        list(cp.INITIAL_ORDER[n])[len(cp.INITIAL_ORDER[n]) - len(s.setup_order) :] == s.setup_order,
        "setup_order",
        f"{s.setup_order} is not what is left of the initial order",
    )
    check_list("winners", s.winners)
    check_ints("winners", s.winners, low=0, high=n - 1)
    if s.decision == r.GAME_OVER:
        require(s.active == -1, "active", f"{s.active!r} acts although the game is over")
        require(s.winners == r.ranking_winners(s), "winners", f"{s.winners} are not the best scores")
        return
    require(not s.winners and not s.truncated, "winners", "decided before the end of the game")
    check_int("active", s.active, 0, n - 1)
    require(s.turns < cp.MAX_TURNS, "turns", "the turn cap is reached but the game goes on")
    require(
        not s.exchange or s.decision == r.Decision.EXCHANGE_SELECT, "exchange", "cards set aside outside an exchange"
    )
    require(
        not s.selected or s.decision in (r.Decision.BUILD_SELECT, r.Decision.PIECE_SELECT),
        "selected",
        "plots chosen outside a placement",
    )
    if s.setup_order:
        placing_tiles = (r.Decision.SETUP_TILE, r.Decision.TILE_ROTATION, r.Decision.TILE_EDGE, r.Decision.TILE_CELL)
        require(s.decision in placing_tiles, "decision", "the initial tiles are not all placed")
        require(s.active == s.setup_order[0], "active", f"seat {s.active}, but seat {s.setup_order[0]} places a tile")
    if s.decision in (r.Decision.BUILD_SELECT, r.Decision.PIECE_SELECT):
        low = 0 if s.decision == r.Decision.BUILD_SELECT else cp.PARK2
        check_int("kind", s.kind, low, cp.NUM_KINDS - 1 if low == 0 else cp.FACTORY_4)
        require(len(s.selected) < piece_size(s.kind), "selected", "more plots than the piece covers")
        if s.decision == r.Decision.BUILD_SELECT:
            require(s.supply[s.kind] > 0, "kind", "no piece of that kind is left")
            require(set(s.selected) <= set(s.hands[s.active]), "selected", "a plot whose card is not in hand")
        else:
            require(s.card == _FACILITY_CARD[s.kind] and s.out[s.card], "card", "not the card of the facility")
    if s.decision in (r.Decision.TILE_ROTATION, r.Decision.TILE_EDGE, r.Decision.TILE_CELL):
        check_int("tile", s.tile, 1, cp.NUM_TILES)
        require(s.tiles[s.tile - 1] is None, "tile", f"tile {s.tile} is placed already")
