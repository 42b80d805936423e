"""Shared helpers for the Big City tests: random play, invariant checks, positions.

Counts are copied from the rules (docs/games/big_city.md), not imported from the
engine, so the checks are an independent recount.
"""

from __future__ import annotations

from city_envs.big_city import components as cp
from city_envs.big_city import rules
from city_envs.big_city.game import BigCity
from city_envs.big_city.view import pile_counts

from .. import game_helpers
from ..game_helpers import validate_now

COUNTS = (2, 3, 4, 5)
SPEC_PIECES = {
    "RES1": 8,
    "RES2": 6,
    "RES3": 3,
    "BUS1": 8,
    "BUS2": 6,
    "BUS3": 3,
    "CITY_HALL": 1,
    "CHURCH": 2,
    "CINEMA": 4,
    "POST_OFFICE": 2,
    "BANK": 3,
    "SHOPPING_CENTER": 2,
}
SPEC_HAND = {2: 5, 3: 5, 4: 5, 5: 6}
# reference layout L3 of the worked examples: tile 1 r0 at (25,25); tile 2 r0 at (25,23); tile 3 r0 at (28,25)
L3 = ((1, 0, 25, 25), (2, 0, 25, 23), (3, 0, 28, 25))
# layout of E5: a hole at (28,25) and (28,26)
E5 = ((1, 0, 25, 25), (2, 0, 25, 23), (4, 1, 29, 23), (3, 0, 28, 27))


def idx(number: int) -> int:
    return cp.plot_index(number)


def mid_game_states(n: int, seeds, per_game: int = 3) -> list[BigCity]:
    """Clones at random points of random games, every decision kind included over enough seeds."""
    return game_helpers.mid_game_states(BigCity, n, seeds, per_game, horizon=300)


def card_places(game: BigCity) -> list[int]:
    """Every card id, once per place it is in (hands, piles, out, pending exchange)."""
    s = game.state
    cards = [c for h in s.hands for c in h] + [c for pile in s.piles for c in pile] + list(s.exchange)
    return cards + [c for c in range(72) if s.out[c]]


def recount_points(game: BigCity) -> list[int]:
    totals = [0] * game.num_players
    for piece in game.state.pieces:
        totals[piece.owner] += piece.points
    return totals


def check_state(game: BigCity) -> None:
    """Every invariant a reachable state satisfies."""
    if validate_now(game):  # the product's own check (on a stride of steps: it is costly); then an independent recount
        game.validate()
    s = game.state
    n = s.n
    assert sorted(card_places(game)) == list(range(72))
    assert all(len(k) == len(p) for k, p in zip(s.pile_known, s.piles, strict=True))
    assert all(len(h) <= SPEC_HAND[n] for h in s.hands)
    assert all(rules.cp.CARD_PILE[c] == i + 1 for i, pile in enumerate(s.piles) for c in pile)
    kinds = [piece.kind for piece in s.pieces]
    for kind, count in enumerate(SPEC_PIECES.values()):
        assert s.supply[kind] >= 0 and s.supply[kind] + kinds.count(kind) == count
    for facility in range(12, 16):
        assert kinds.count(facility) <= 1
    assert 0 <= len(s.trams) <= 17 and len(set(s.trams)) == len(s.trams)
    occupied = [p for p in range(68) if s.occupant[p] >= 0]
    assert sorted(occupied) == sorted(q for piece in s.pieces for q in piece.plots)
    for p in occupied:
        assert s.px[p] >= 0 and p in s.pieces[s.occupant[p]].plots
    cells = [(s.px[p], s.py[p]) for p in range(68) if s.px[p] >= 0]
    assert len(set(cells)) == len(cells) and all(0 <= x <= 52 and 0 <= y <= 52 for x, y in cells)
    assert s.scores == recount_points(game)
    assert min(s.scores) >= 0
    assert all(p.points >= 0 for p in s.pieces)
    if game.is_over():
        assert game.current_player() == -1 and s.winners
        assert abs(sum(game.returns())) < 1e-9
        assert s.winners == [q for q in range(n) if s.scores[q] == max(s.scores)]
    else:
        assert game.legal_actions().any()
        assert s.turns < 600


# ----- determinization ---------------------------------------------------------------------------
def known_cards(game: BigCity, p: int) -> list[tuple[int, int, int]]:
    """(pile, place, card) of every card in the piles that seat `p` knows (it put them back)."""
    s = game.state
    return [
        (i, j, c)
        for i in range(8)
        for j, (c, seat) in enumerate(zip(s.piles[i], s.pile_known[i], strict=True))
        if seat == p
    ]


def hidden_from(game: BigCity, p: int) -> list[list[int]]:
    """What `determinize(p)` redeals: the other seats' hands."""
    return [hand for q, hand in enumerate(game.state.hands) if q != p]


def check_determinized(game: BigCity, twin: BigCity, p: int) -> None:
    """A redeal for seat `p` keeps p's hand and the cards p put back, every card once, and each hand's
    cards per pile (section 7)."""
    assert twin.state.hands[p] == game.state.hands[p]
    assert known_cards(twin, p) == known_cards(game, p)
    assert sorted(card_places(twin)) == list(range(72))
    assert [pile_counts(h) for h in twin.state.hands] == [pile_counts(h) for h in game.state.hands]


# ----- positions for rule tests ------------------------------------------------------------------
def position(
    n: int = 4, tiles=L3, hands: dict[int, list[int]] | None = None, hall: bool = False, seat: int = 0
) -> BigCity:
    """A game in seat `seat`'s main phase with the given tiles and hands (plot numbers or card ids >= 68).

    Every card not in a hand goes back to its pile, so the 72 cards stay conserved.
    """
    game = BigCity(n, seed=0)
    s = game.state
    s.tiles = [None] * 8
    s.px, s.py = [-1] * 68, [-1] * 68
    for tile, rotation, ax, ay in tiles:
        rules._put_tile(s, tile, rotation, ax, ay)
    s.setup_order, s.setup_tiles = [], []
    hands = hands or {}
    s.hands = [[card_id(c) for c in hands.get(q, [])] for q in range(n)]
    held = {c for h in s.hands for c in h}
    s.piles = [[c for c in cp.PILE_CARDS[i] if c not in held] for i in range(1, 9)]
    s.pile_known = [[-1] * len(pile) for pile in s.piles]
    rules.rebuild_derived(s)
    if hall:
        place(game, cp.CITY_HALL, [15], owner=seat)
    rules._begin_turn(s, seat)
    game._mask = None
    return game


def card_id(c: int) -> int:
    return c if c >= 68 else idx(c)


def place(game: BigCity, kind: int, numbers: list[int], owner: int = 0, points: int = 0) -> None:
    """Put a piece on the board directly (its plot cards leave the game)."""
    s = game.state
    plots = tuple(sorted(idx(x) for x in numbers))
    piece = len(s.pieces)
    s.pieces.append(rules.Piece(kind, owner, plots, points))
    s.scores[owner] += points
    for p in plots:
        s.occupant[p] = piece
        for pile, known in zip(s.piles, s.pile_known, strict=True):
            if p in pile:
                known.pop(pile.index(p))
                pile.remove(p)
        for h in s.hands:
            if p in h and kind < 12:
                h.remove(p)
        if kind < 12:
            s.out[p] = True
    if kind < 12:
        s.supply[kind] -= 1
    rules.rebuild_derived(s)
    game._mask = None


def tram(game: BigCity, number: int, side: int) -> None:
    s = game.state
    p = idx(number)
    s.trams.append(rules.plot_key(s, p, side))
    rules.rebuild_derived(s)
    game._mask = None


def build(game: BigCity, kind: int, numbers: list[int]) -> int:
    """Build through the action API; returns the points scored."""
    seat = game.current_player()
    before = game.state.scores[seat]
    game.apply(rules.BUILD + kind)
    for p in sorted(idx(x) for x in numbers):
        game.apply(p)
    return game.state.scores[seat] - before
