"""Shared helpers for the Metropolys property tests: random play and invariant checks.

Counts below are copied from the rules (docs/games/metropolys.md), not imported from the
engine, so the checks are an independent recount.
"""

from __future__ import annotations

import numpy as np

from city_envs.metropolys import components as cp
from city_envs.metropolys import rules as r
from city_envs.metropolys.game import Metropolys

from .. import game_helpers
from ..game_helpers import validate_now

COUNTS = (2, 3, 4)
VERSIONS = ("family", "expert")
# tokens per player count (trendy, subway, archaeological)
SPEC_TOKENS = {4: (9, 9, 9), 3: (8, 7, 7), 2: (5, 6, 6)}
SPEC_DEAD_ENDS = {11, 21, 28, 35}
SPEC_DISTRICT_SIZES = (15, 10, 10, 10, 10)
ALL_VALUES = (1 << 13) - 1


def build(game: Metropolys, seat: int, placements: dict[int, int]) -> None:
    """Put `seat`'s buildings {neighbourhood: value} on the board as built."""
    s = game.state
    for nb, value in placements.items():
        s.owner[nb] = seat
        s.built_value[nb] = value
        s.supply[seat] &= ~(1 << (value - 1))
        s.built[seat] += 1
        s.token[nb] = cp.NO_TOKEN
    s.board_memo = None
    s.view_memo = None
    game._mask = None


def mid_game_states(n: int, seeds, version: str = "family", per_game: int = 3) -> list[Metropolys]:
    """Clones taken at random points of random games (both decision kinds appear)."""
    return game_helpers.mid_game_states(Metropolys, n, seeds, per_game, horizon=60 * n, version=version)


def secret_cards(game: Metropolys, seat: int) -> tuple[int, int, int]:
    """`seat`'s family, colour and area cards (-1 where the version deals none)."""
    s = game.state
    return s.family_card[seat], s.colour_card[seat], s.area_card[seat]


def check_state(game: Metropolys) -> None:
    """Every invariant a reachable state satisfies."""
    if validate_now(game):  # the product's own check (on a stride of steps: it is costly); then an independent recount
        game.validate()
    s = game.state
    n = s.n
    in_play_count = sum(s.in_play)
    assert in_play_count == 15 + 10 * (4 - len(s.removed)) == 55 - 10 * len(s.removed)
    assert len(s.removed) == {4: 0, 3: 1, 2: 2}[n]
    # buildings: each value of each seat is in exactly one place
    for seat in range(n):
        built_values = [s.built_value[nb] for nb in range(55) if s.owner[nb] == seat]
        bid_values = [v for who, _, v in s.bids if who == seat]
        masks = [1 << (v - 1) for v in built_values + bid_values]
        assert sum(masks) | s.supply[seat] == ALL_VALUES
        assert sum(masks) & s.supply[seat] == 0 and len(set(masks)) == len(masks)
        assert s.built[seat] == len(built_values) <= 13
    # the board
    for nb in range(55):
        if not s.in_play[nb]:
            assert s.owner[nb] < 0 and s.bid_owner[nb] < 0 and s.token[nb] == cp.NO_TOKEN
        if nb in SPEC_DEAD_ENDS:
            assert s.token[nb] == cp.NO_TOKEN
        if s.owner[nb] >= 0:
            assert s.token[nb] == cp.NO_TOKEN and s.bid_owner[nb] < 0 and 1 <= s.built_value[nb] <= 13
    # tokens conserved
    for kind in (cp.TRENDY, cp.SUBWAY, cp.ARCH):
        on_board = sum(t == kind for t in s.token)
        taken = sum(s.tokens[seat][kind - 1] for seat in range(n))
        assert on_board + taken == SPEC_TOKENS[n][kind - 1]
    # cards
    subway = [s.tokens[seat][1] for seat in range(n)]
    if s.subway_card < 0:
        assert max(subway) == 0
    else:
        assert subway[s.subway_card] == max(subway) >= 1
    arch = [s.tokens[seat][2] for seat in range(n)]
    assert (s.arch_card >= 0) == (max(arch) >= 1)
    # the call: a chain of adjacent bids with increasing values, mirrored on the board
    assert sum(o >= 0 for o in s.bid_owner) == len(s.bids)
    for i, (seat, nb, value) in enumerate(s.bids):
        assert s.bid_owner[nb] == seat and s.bid_value[nb] == value and s.in_play[nb]
        if i:
            assert nb in cp.ADJ[s.bids[i - 1][1]] and value > s.bids[i - 1][2]
    assert s.calls == sum(s.built)
    if game.is_over():
        assert max(s.built) == 13 and s.bids == [] and game.current_player() == -1
        assert abs(sum(game.returns())) < 1e-9
        assert game.scores() == [float(recount_score(s, seat)) for seat in range(n)]
    else:
        assert max(s.built) < 13
        mask = game.legal_actions()
        assert mask.any()
        ids = set(np.flatnonzero(mask).tolist())
        if s.decision == r.Decision.NBHD:
            assert ids <= set(range(55)) | {68} and (68 in ids) == bool(s.bids)
            assert ids - {68}, "a presented NBHD decision always has a neighbourhood to bid on"
        else:
            assert ids <= set(range(55, 68)) and s.chosen >= 0
        assert s.actor not in {seat for seat in range(n) if s.passed >> seat & 1}


def recount_score(s, seat: int) -> int:
    """Independent recount of tokens, cards, family cards, Neighbourhood colour and highest building."""
    mine = [nb for nb in range(55) if s.owner[nb] == seat]
    trendy, subway, arch = s.tokens[seat]
    total = 3 * trendy + subway - arch + 3 * (s.subway_card == seat) - 2 * (s.arch_card == seat)
    if s.version == "family":
        qualifying = cp.FAMILY_QUALIFYING[s.family_card[seat]]
        return total + 3 * sum(nb in qualifying for nb in mine)
    total += 2 * sum(cp.COLOUR[nb] == s.colour_card[seat] for nb in mine)
    total += r.area_points(s.area_card[seat], mine)  # set packing: checked by the worked examples
    for district in range(5):
        lists = {}
        for nb in range(55):
            if s.owner[nb] >= 0 and cp.DISTRICT[nb] == district:
                value = s.built_value[nb]
                lists.setdefault(s.owner[nb], []).append(0 if value <= 5 else 1 if value <= 9 else 2)
        ranked = {who: sorted(h, reverse=True) for who, h in lists.items()}
        if seat in ranked and all(not _beats(other, ranked[seat]) for other in ranked.values()):
            total += 5
    return total


def _beats(a: list[int], b: list[int]) -> bool:
    """a beats b: first differing class higher, or b is a proper prefix of a (6.3)."""
    for x, y in zip(a, b, strict=False):
        if x != y:
            return x > y
    return len(a) > len(b)
