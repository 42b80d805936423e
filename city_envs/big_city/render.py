"""Big City as text: action descriptions and the public city (render_mode="ansi")."""

from __future__ import annotations

from city_envs.big_city import components as cp
from city_envs.big_city import rules as r
from city_envs.big_city.rules import State

# one letter per piece kind on the text map (upper case; the owner's seat follows it)
KIND_LETTER = ("r", "R", "R", "b", "B", "B", "H", "C", "M", "P", "K", "S", "p", "p", "f", "f")


def piece_name(kind: int) -> str:
    return cp.KIND_NAMES[kind] if kind < cp.NUM_KINDS else cp.FACILITY_NAMES[kind - cp.PARK2]


def plots_text(plots) -> str:
    return "+".join(str(cp.PLOT_NUMBER[p]) for p in plots)


# where a plot across each side (N, E, S, W) of another lies on the drawn map (north is up)
SIDE_PLACE = ("above", "right of", "below", "left of")
TURNS = ("as printed", "turned a quarter turn clockwise", "turned half round", "turned three quarters clockwise")


def tile_label(n: int) -> str:
    size = cp.TILE_SIZE[n]
    plots = cp.TILE_PLOTS[n]
    name = "" if cp.TILE_NAMES[n - 1].startswith("tile") else f"{cp.TILE_NAMES[n - 1]}, "
    first, last = cp.PLOT_NUMBER[plots[0]], cp.PLOT_NUMBER[plots[-1]]
    return f"neighbourhood {n} ({name}{size.width} x {size.height} plots, {first}-{last})"


def rotation_text(n: int, rotation: int) -> str:
    """How tile n lies after `rotation` quarter turns: its frame and which plot is at the top left."""
    layout = cp.LAYOUTS[n][rotation]
    corner = 10 * n + layout.cells.index((0, 0)) + 1
    return f"{TURNS[rotation]}: {layout.width} wide x {layout.height} high, plot {corner} top left"


def street_text(s: State, e: int) -> str:
    """Edge e (plot q's side) as the street a person sees: between two plots, or at the city's rim."""
    q, side = divmod(e, 4)
    other = r.neighbour(s, q, side)
    if other >= 0:
        return f"the street between plots {cp.PLOT_NUMBER[q]} and {cp.PLOT_NUMBER[other]}"
    return f"the street {SIDE_PLACE[side]} plot {cp.PLOT_NUMBER[q]}"


def choice_group(s: State, action: int) -> str:
    """Where a long list of choices shows `action`: a street (for a tram or a new neighbourhood) under the
    neighbourhood of the plot it is named from; "" for any other choice."""
    trams = s.decision in (r.Decision.TRAM_EDGE, r.Decision.TRAM_EDGE_OPT)
    if not (trams or s.decision == r.Decision.TILE_EDGE) or not r.EDGE <= action < r.LOCAL_CELL:
        return ""
    n = cp.PLOT_TILE[(action - r.EDGE) // 4]
    first, last = cp.PLOT_NUMBER[cp.TILE_PLOTS[n][0]], cp.PLOT_NUMBER[cp.TILE_PLOTS[n][-1]]
    return f"{'trams' if trams else 'streets'} of neighbourhood {n} (plots {first}-{last})"


def describe_action(s: State, action: int) -> str:
    d = s.decision
    if action < r.BUILD:
        if d in (r.Decision.BUILD_SELECT, r.Decision.PIECE_SELECT):
            what = piece_name(s.kind)
            return f"{what} on plot {cp.PLOT_NUMBER[action]}" + (" (completes it)" if _completes(s) else "")
        if d == r.Decision.MAIN:
            return f"play the {cp.card_name(action)} card"
        if d == r.Decision.DEAD_DISCARD:
            return f"discard the dead card {cp.card_name(action)}"
        return f"return card {cp.card_name(action)} to the bottom of pile {cp.CARD_PILE[action]}"
    if action < r.TRAM:
        return f"build a {cp.KIND_NAMES[action - r.BUILD]}"
    if action == r.TRAM:
        return "lay tram segments"
    if action < r.EXCHANGE:
        return f"place {tile_label(action - r.TILE)}"
    if action == r.EXCHANGE:
        return "exchange cards"
    if action == r.PASS:
        return "pass"
    if action == r.DONE:
        return {
            r.Decision.DEAD_DISCARD: "keep the remaining dead cards",
            r.Decision.TRAM_EDGE_OPT: "no second tram segment",
            r.Decision.EXCHANGE_SELECT: "end the exchange and draw",
        }.get(d, "done")
    if action < r.EDGE:
        return f"lay it {rotation_text(s.tile, action - r.ROTATION)}"
    if action < r.LOCAL_CELL:
        e = action - r.EDGE
        if d in (r.Decision.TRAM_EDGE, r.Decision.TRAM_EDGE_OPT):
            return f"tram on {street_text(s, e)}"
        q, side = divmod(e, 4)
        return f"put it {SIDE_PLACE[side]} plot {cp.PLOT_NUMBER[q]}"
    if action < r.PILE + 1:
        q, side = divmod(s.edge, 4)
        return f"its plot {10 * s.tile + action - r.LOCAL_CELL + 1} lands {SIDE_PLACE[side]} plot {cp.PLOT_NUMBER[q]}"
    return f"draw from pile {action - r.PILE}"


def describe_partial(s: State) -> str:
    """The acting seat's choices so far: the tile, its turn and where it touches; a piece's plots; the exchange."""
    d = s.decision
    if d in (r.Decision.TILE_ROTATION, r.Decision.TILE_EDGE, r.Decision.TILE_CELL):
        parts = [f"placing {tile_label(s.tile)}"]
        if d != r.Decision.TILE_ROTATION:
            parts.append(rotation_text(s.tile, s.rotation))
        if d == r.Decision.TILE_CELL:
            q, side = divmod(s.edge, 4)
            parts.append(f"{SIDE_PLACE[side]} plot {cp.PLOT_NUMBER[q]}")
        return "; ".join(parts)
    if d in (r.Decision.BUILD_SELECT, r.Decision.PIECE_SELECT):
        return f"{piece_name(s.kind)} on " + (f"plot(s) {plots_text(s.selected)}" if s.selected else "no plot yet")
    if d == r.Decision.EXCHANGE_SELECT and s.exchange:
        return f"set aside for the exchange: {hand_text(s.exchange)}"
    return ""


def _completes(s: State) -> bool:
    size = cp.KIND_SIZE[s.kind] if s.decision == r.Decision.BUILD_SELECT else len(cp.FACILITY_SHAPES[s.kind])
    return len(s.selected) + 1 == size


def describe_public_action(s: State, action: int) -> str:
    """The exchange hides which card goes back: the table sees only its pile."""
    if s.decision == r.Decision.EXCHANGE_SELECT and action < r.BUILD:
        return f"return a card to the bottom of pile {cp.CARD_PILE[action]}"
    return describe_action(s, action)


def hand_text(hand: list[int]) -> str:
    return ", ".join(cp.card_name(c) for c in sorted(hand)) or "empty"


def render_private(s: State, p: int) -> str:
    dead = [c for c in s.hands[p] if r.is_dead(s, c)]
    known = sorted(c for i in range(8) for c, seat in zip(s.piles[i], s.pile_known[i], strict=True) if seat == p)
    lines = [f"your hand: {hand_text(s.hands[p])}"]
    if dead:
        lines.append(f"dead cards: {hand_text(dead)}")
    if known:
        lines.append(f"you returned to pile bottoms: {hand_text(known)}")
    if s.active == p and s.exchange:
        lines.append(f"set aside for the exchange: {hand_text(s.exchange)}")
    return "\n".join(lines)


def city_map(s: State) -> list[str]:
    """The city's bounding box, one 6-character cell per plot: number, piece letter, owner seat."""
    placed = [p for p in range(cp.NUM_PLOTS) if s.px[p] >= 0]
    x0, x1 = min(s.px[p] for p in placed), max(s.px[p] for p in placed)
    y0, y1 = min(s.py[p] for p in placed), max(s.py[p] for p in placed)
    lines = []
    for y in range(y0, y1 + 1):
        cells = []
        for x in range(x0, x1 + 1):
            p = s.grid[r.cell_index(x, y)]
            if p < 0:
                cells.append("  ..  " if r.cell_index(x, y) in s.holes else "      ")
                continue
            piece = s.occupant[p]
            mark = "o" if s.outskirts[p] else " "
            if piece >= 0:
                kind, owner = s.pieces[piece].kind, s.pieces[piece].owner
                cells.append(f"{cp.PLOT_NUMBER[p]}{KIND_LETTER[kind]}{owner}{mark} ")
            else:
                cells.append(f"{cp.PLOT_NUMBER[p]}  {mark} ")
        lines.append("  " + "".join(cells).rstrip())
    return lines


def render_text(s: State) -> str:
    """The public city: what every seat can see (no hands, no pile order)."""
    hall = "built" if r.city_hall_built(s) else "not built"
    lines = [
        f"Big City, {s.n} players, turn {s.turns + 1}; City Hall {hall}; trams left {r.trams_left(s)}; "
        "cards left in piles 1-8: " + " ".join(str(len(pile)) for pile in s.piles)
    ]
    lines += city_map(s)
    lines.append(
        "  (plot number, piece: r/R residence, b/B business, H City Hall, C church, M cinema, P post "
        "office, K bank, S shopping center, p park, f factory, then the owner seat; o = outskirts)"
    )
    if s.trams:
        edges = sorted(r.canonical_edge(s, *_plot_side(s, key)) for key in s.trams)
        lines.append("  trams on edges " + ", ".join(map(str, edges)))
    for seat in range(s.n):
        mark = ">" if seat == s.active else " "
        counts = ", ".join(f"{c} from pile {i + 1}" for i, c in enumerate(_pile_counts(s.hands[seat])) if c)
        lines.append(f"{mark} seat {seat}: {s.scores[seat]} points, {len(s.hands[seat])} cards ({counts or 'none'})")
    if s.decision == r.GAME_OVER:
        reason = " (turn cap reached)" if s.truncated else ""
        lines.append(f"game over{reason}; winners: {', '.join(f'seat {w}' for w in s.winners)}")
    else:
        lines.append(f"seat {s.active} to decide: {r.Decision.name_of(s.decision)}")
        if s.selected:
            lines.append(f"  {piece_name(s.kind)} on {plots_text(s.selected)} so far")
    return "\n".join(lines)


def _pile_counts(cards: list[int]) -> list[int]:
    counts = [0] * 8
    for c in cards:
        counts[cp.CARD_PILE[c] - 1] += 1
    return counts


def _plot_side(s: State, key: int) -> tuple[int, int]:
    """A placed plot beside a tram edge and the side the edge is on."""
    v = key >> 1
    x, y = v % r.VERTEX_ROW, v // r.VERTEX_ROW
    if key % 2 == 0:
        options = ((x, y, cp.N), (x, y - 1, cp.S))
    else:
        options = ((x, y, cp.W), (x - 1, y, cp.E))
    for cx, cy, side in options:
        p = s.grid[r.cell_index(cx, cy)]
        if p >= 0:
            return p, side
    raise ValueError(f"tram edge {key} lies beside no plot")
