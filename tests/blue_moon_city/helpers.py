"""Shared helpers for the Blue Moon City tests: random play, invariant checks, positions.

Counts are copied from the rules (docs/games/blue_moon_city.md), not imported from the
engine, so the checks are an independent recount.
"""

from __future__ import annotations

from city_envs.blue_moon_city import components as cp
from city_envs.blue_moon_city import rules
from city_envs.blue_moon_city.game import BlueMoonCity

from .. import game_helpers
from ..game_helpers import validate_now

COUNTS = (2, 3, 4)
SPEC_COPIES = [4, 3, 3] * 7 + [10]
SPEC_SCALES = {2: 9, 3: 12, 4: 15}
SPEC_TARGET = {2: 6, 3: 5, 4: 4}
SPEC_OBELISK = {2: 11, 3: 13, 4: 13}


def mid_game_states(n: int, seeds, per_game: int = 3, **options) -> list[BlueMoonCity]:
    """Clones at random points of random games; PAY and DISCARD decisions included."""
    return game_helpers.mid_game_states(BlueMoonCity, n, seeds, per_game, horizon=400, **options)


def card_counts(game: BlueMoonCity) -> list[int]:
    s = game.state
    counts = list(s.discard)
    for card in s.deck + s.pending:
        counts[card] += 1
    for hand in s.hands:
        counts = [a + b for a, b in zip(counts, hand, strict=True)]
    if s.payment is not None:
        counts = [a + b for a, b in zip(counts, s.payment.committed, strict=True)]
    return counts


def check_state(game: BlueMoonCity) -> None:
    """Every invariant a reachable state satisfies."""
    if validate_now(game):  # the product's own check (on a stride of steps: it is costly); then an independent recount
        game.validate()
    s = game.state
    n = s.n
    assert card_counts(game) == SPEC_COPIES
    assert all(min(h) >= 0 for h in s.hands) and min(s.discard) >= 0
    assert min(s.crystals) >= 0 and min(s.markers) >= 0
    on_board = [sum(row.count(seat) for row in s.markers_on) for seat in range(n)]
    for seat in range(n):
        assert s.markers[seat] + on_board[seat] + s.obelisk.count(seat) == 10
        assert s.obelisk.count(seat) == s.offerings[seat]
    assert len(s.obelisk) <= SPEC_OBELISK[n]
    assert 0 < s.scale_supply and s.scale_supply + sum(s.scales) == SPEC_SCALES[n]
    for position in range(21):
        tile = s.tile_at[position]
        sections = len(rules.cp.SECTIONS[tile])
        assert all(seat == -1 for seat in s.markers_on[position][sections:])
        if s.complete[position]:
            assert all(seat == -1 for seat in s.markers_on[position])
    assert sorted(s.tile_at) == list(range(21)) and s.tile_at[10] == 0
    assert all(0 <= d <= 21 for d in s.dragons) and all(0 <= f <= 20 for f in s.figures)
    assert (s.payment is not None) == (s.decision == rules.Decision.PAY)
    if s.payment is not None:
        assert s.payment.total < s.payment.value
    if s.pending:
        assert s.decision in (rules.Decision.BUILD, rules.Decision.PAY, rules.Decision.DISCARD, rules.GAME_OVER)
    if game.is_over():
        assert game.current_player() == -1 and s.winners
        assert abs(sum(game.returns())) < 1e-9
        if max(s.offerings) >= SPEC_TARGET[n]:
            assert s.winners == [s.offerings.index(max(s.offerings))]
    else:
        assert max(s.offerings) < SPEC_TARGET[n]
        assert game.legal_actions().any()
        assert s.decision != rules.Decision.DISCARD or any(s.hands[s.active])


# ----- determinization ---------------------------------------------------------------------------
def hidden_from(game: BlueMoonCity, p: int) -> list[list[int]]:
    """What `determinize(p)` redeals: the other seats' hands."""
    return [hand for q, hand in enumerate(game.state.hands) if q != p]


def check_determinized(game: BlueMoonCity, twin: BlueMoonCity, p: int) -> None:
    """A redeal for seat `p` keeps p's hand and every card (section 7)."""
    assert twin.state.hands[p] == game.state.hands[p]
    assert card_counts(twin) == card_counts(game)


# ----- positions for rule tests ------------------------------------------------------------------
A, B, C, D = range(4)


def card(colour: int, value: int) -> int:
    return cp.card_type(colour, value)


def hand(*cards: int) -> list[int]:
    counts = [0] * cp.NUM_TYPES
    for x in cards:
        counts[x] += 1
    return counts


def position(n: int = 4, **hands: list[int]) -> BlueMoonCity:
    """A fresh game, seat A to move, with the given hands (others empty)."""
    game = BlueMoonCity(n, seed=0)
    s = game.state
    s.hands = [hands.get(name, [0] * cp.NUM_TYPES) for name in "ABCD"[:n]]
    game._mask = None
    return game


def stand_on(game: BlueMoonCity, where: int) -> None:
    """Put the active figure on `where` after its movement (phase B begins)."""
    s = game.state
    s.figures[s.active] = where
    rules._enter_phase_b(s)
    rules._settle(s, game.chance)
    game._mask = None


def place_tile(game: BlueMoonCity, tile: int, where: int) -> None:
    """Swap tiles so that `tile` stands on `where`."""
    s = game.state
    other = s.tile_at.index(tile)
    s.tile_at[other], s.tile_at[where] = s.tile_at[where], s.tile_at[other]
    s.city_memo = None


def tile_id(name: str) -> int:
    return cp.TILE_NAMES.index(name)
