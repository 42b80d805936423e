"""Shared helpers for the Urban Sprawl tests: random play, invariant checks, position builders.

Counts are copied from the rules (docs/games/urban_sprawl.md), not imported from the
engine, so the checks are an independent recount.
"""

from __future__ import annotations

from city_envs.urban_sprawl import components as cp
from city_envs.urban_sprawl import rules, validation
from city_envs.urban_sprawl.game import UrbanSprawl
from city_envs.urban_sprawl.rules import State

from .. import game_helpers
from ..game_helpers import legal, validate_now

COUNTS = (2, 3, 4)
VARIANTS = ("standard", "long", "short")
SPEC_TILES = {0: 26, 1: 28, 2: 26, 3: 28, 4: 20}  # per zone CIV, COM, IND, RES, PARK
SPEC_VOCATIONS = [1, 2, 2, 3, 3, 4, 4, 5]


def mid_game_states(n: int, seeds, per_game: int = 3, **options) -> list[UrbanSprawl]:
    """Clones at random points of random games (every decision kind shows up over enough seeds)."""
    return game_helpers.mid_game_states(UrbanSprawl, n, seeds, per_game, horizon=700, **options)


def check_state(game: UrbanSprawl) -> None:
    """Every invariant a reachable state satisfies."""
    if validate_now(game):  # the product's own check (on a stride of steps: it is costly); then an independent recount
        game.validate()
    s = game.state
    n = s.n
    # planning cards: each of the 54 exactly once
    planning = [c for h in s.hands for c in h] + [c for c in s.planning_slots if c >= 0]
    planning += s.planning_deck + s.planning_discard
    assert sorted(planning) == list(range(54))
    # contract decks: each of the 111 cards exactly once
    contracts = [c for f in s.favors for c in f] + [c for c in s.slots if c >= 0] + s.removed
    contracts += [c for d in s.decks for c in d] + [96 + e for e in s.events_done]
    if s.build is not None and s.build.get("building") is None:
        contracts.append(s.build["card"])
    assert sorted(contracts) == list(range(111))
    # buildings and lots agree; tiles never exceed the supply of 128
    on_board = {z: 0 for z in range(5)}
    for bid, b in enumerate(s.buildings):
        if b is None:
            continue
        zone, size, lots, owner = b
        assert len(lots) == size and len({x // 4 for x in lots}) == 1
        assert all(s.lot_building[x] == bid for x in lots)
        assert -1 <= owner < n
        on_board[zone] += 1
    assert sum(1 for x in s.lot_building if x >= 0) == sum(b[1] for b in s.buildings if b is not None)
    for zone in range(5):
        assert min(s.tiles[zone]) >= 0
        assert sum(s.tiles[zone]) + on_board[zone] <= SPEC_TILES[zone]
    # vocations conserved
    for v in range(8):
        assert s.voc_supply[v] + sum(s.vocations[seat][v] for seat in range(n)) == SPEC_VOCATIONS[v]
        assert min(s.vocations[seat][v] for seat in range(n)) >= 0
    # markers: each at most once on the circles
    placed = [m for m in s.circles if m]
    assert len(placed) == len(set(placed)) and set(placed) <= set(range(4, 13))
    assert min(s.wealth) >= 0 and min(s.prestige) >= 0
    assert all(len(f) <= 2 for f in s.favors)
    assert 0 <= s.ap <= 8
    if not game.is_over():
        assert game.legal_actions().any()
        assert 0 <= game.current_player() < n
    else:
        assert abs(sum(game.returns())) < 1e-9
        keys = [(s.prestige[seat], s.wealth[seat]) for seat in range(n)]
        assert sorted(game.winners()) == [seat for seat in range(n) if keys[seat] == max(keys)]


# ----- determinization ---------------------------------------------------------------------------
def hidden_from(game: UrbanSprawl, p: int) -> tuple[list[list[int]], list[int]]:
    """What `determinize(p)` reorders: the contract decks and the planning deck."""
    return game.state.decks, game.state.planning_deck


def check_determinized(game: UrbanSprawl, twin: UrbanSprawl, p: int) -> None:
    """A reordering keeps every deck's cards, and the stacking of the special events (section 7)."""
    s, t = game.state, twin.state
    assert sorted(s.planning_deck) == sorted(t.planning_deck)
    assert all(sorted(a) == sorted(b) for a, b in zip(s.decks, t.decks, strict=True))
    assert_stacking_kept(game, twin)


def assert_stacking_kept(game: UrbanSprawl, twin: UrbanSprawl) -> None:
    """A still-hidden special event stays in its window; no planning event in the first 22 cards."""
    above, mixed = cp.DECK_STACKING[game.options["variant"]]
    for d, deck in enumerate(twin.state.decks):
        special = cp.EVENT_BASE + cp.SPECIAL_EVENT[d]
        if special in deck:
            position = 37 - deck.index(special)  # 1 = the original top
            assert above + 1 <= position <= above + mixed + 1
        assert deck[len(deck) - twin.state.deck_up[d] :] == game.state.decks[d][len(deck) - game.state.deck_up[d] :]
    t = twin.state
    if not t.planning_reshuffles:
        first_22 = t.planning_deck[max(0, len(t.planning_deck) - (22 - (50 - len(t.planning_deck)))) :]
        assert all(c < 36 for c in first_22)


# ----- position builders ------------------------------------------------------------------------
def bought(n: int, seed: int = 0, **options) -> UrbanSprawl:
    """A new game after the starting purchases (each seat buys the lowest-numbered lot left)."""
    game = UrbanSprawl(n, seed=seed, **options)
    while game.decision_name() in ("START_BUY", "MEDIA_TIE"):
        game.apply(min(legal(game)))
    return game


def clear_board(s: State) -> None:
    for bid in rules.live_buildings(s):
        rules.demolish(s, bid)


def put(s: State, zone: int, lots: list[int], owner: int) -> int:
    return rules.add_building(s, zone, len(lots), tuple(lots), owner)


def lot(i: int, j: int) -> int:
    return cp.lot_index(i, j)


def at_main(game: UrbanSprawl, seat: int, ap: int = 6) -> None:
    """Make `seat` the active seat in its AP phase with `ap` action points."""
    s = game.state
    s.active = s.decider = seat
    s.phase = s.decision = rules.Decision.MAIN
    s.ap = ap
    s.tasks, s.ctx, s.build = [], rules.NoContext(), None
    s.built_this_turn = False
    game._mask = None


def run_tasks(game: UrbanSprawl, *tasks: list) -> None:
    """Run procedure tasks, written in their JSON form (e.g. ["ballot"]), on the state until the next decision."""
    s = game.state
    s.decision = rules.NONE
    s.tasks.extend(reversed(validation.tasks_from_json([list(t) for t in tasks])))
    rules.run(s, game.rng)
    game._mask = None


def relative(game: UrbanSprawl, seat: int) -> int:
    """PLAYER action naming `seat` for the pending decider."""
    return rules.PLAYER + (seat - game.current_player()) % game.num_players


# ----- an independent recount of the final scoring (section 6) ------------------------------------
SPEC_BASE_ROW = (3, 3, 1, 1, 2, 2)  # prestige band value per block row
BONUS_ZONE = {1: 0, 2: 1, 3: 3, 4: 2}  # DA: CIV, Treasurer: COM, Police Chief: RES, Union Boss: IND


def expected_final_prestige(s: State, prestige_before: list[int]) -> list[int]:
    """Section 6 recounted from the final board, without the engine's scoring helpers."""
    n = s.n
    live = [b for b in s.buildings if b is not None]
    rows: list[tuple[int, list[int]]] = []
    for band in (3, 1, 2):
        rows.append((band, [6 * r + c for r in range(6) if SPEC_BASE_ROW[r] == band for c in range(6)]))
    for g, marker in enumerate(s.circles):
        if marker in (4, 5, 6):
            blocks = (
                [6 * r + c for r in range(6) for c in (2 * g, 2 * g + 1)]
                if g < 3
                else [6 * (g - 3) + c for c in range(6)]
            )
            rows.append((marker, blocks))
    total = list(prestige_before)
    for number, blocks in rows:
        counts = [sum(1 for b in live if b[3] == seat and b[2][0] // 4 in blocks) for seat in range(n)]
        table = [number, number // 2, number // 4, number // 8][:n] + [0, 0, 0, 0]
        position = 0
        for count in sorted({c for c in counts if c > 0}, reverse=True):
            group = [seat for seat in range(n) if counts[seat] == count]
            for seat in group:
                total[seat] += sum(table[position : position + len(group)]) // len(group)
            position += len(group)
    for seat in range(n):
        total[seat] += s.wealth[seat] // 10
    for office, seat in enumerate(s.offices[:5]):
        if seat < 0:
            continue
        if office == 0:
            parks = {x for b in live if b[0] == 4 for x in b[2]}
            total[seat] += sum(
                1
                for b in live
                if b[3] == seat and b[0] != 4 and any(y in parks for x in b[2] for y in cp.ADJACENT_LOTS[x])
            )
        else:
            total[seat] += sum(1 for b in live if b[0] == BONUS_ZONE[office])
    return total
