"""One test per Metropolys rule (docs/games/metropolys.md).

The worked examples (test_examples.py) and randomized invariants cover more; here each rule is
exercised on its own with exact values. Board facts are checked against the rulebook's own counts.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from city_envs.metropolys import components as cp
from city_envs.metropolys import rules
from city_envs.metropolys.game import Metropolys, allowed_removals

from ..game_helpers import legal
from .helpers import SPEC_TOKENS, build, check_state


def bid(game: Metropolys, nb: int, value: int) -> None:
    game.apply(nb)
    game.apply(rules.VALUE_ACTION + value - 1)


# ===== 2. components =============================================================================
def test_board_counts():
    """2.3 counts check: district sizes, 92 adjacency pairs (71 inside, 21 bridges), dead ends,
    colour balance, token-eligible spots per district."""
    assert [cp.DISTRICT.count(d) for d in range(5)] == [15, 10, 10, 10, 10]
    pairs = {(a, b) for a in range(55) for b in cp.ADJ[a] if a < b}
    assert len(pairs) == 92 and len(cp.BRIDGES) == 21 and all(a in cp.ADJ[b] for a, b in pairs)
    assert sorted(cp.DEAD_END) == [11, 21, 28, 35]
    for district in range(5):
        colours = [cp.COLOUR[nb] for nb in range(55) if cp.DISTRICT[nb] == district]
        assert [colours.count(c) for c in range(5)] == [3 if district == cp.CENTRE else 2] * 5
    eligible = [sum(nb in cp.TOKEN_OK for nb in range(55) if cp.DISTRICT[nb] == d) for d in range(5)]
    assert eligible == [14, 9, 9, 9, 10]


def test_derived_sets():
    """2.4: bridge ends 31, lake-side 28, statue-side 29, border 20, the listed bridges, S10 corrected."""
    assert sorted(cp.BRIDGE_END) == [
        0,
        1,
        5,
        6,
        7,
        12,
        13,
        14,
        15,
        18,
        19,
        22,
        23,
        24,
        25,
        26,
        30,
        33,
        34,
        36,
        38,
        39,
        40,
        43,
        44,
        45,
        47,
        49,
        52,
        53,
        54,
    ]
    assert len(cp.LAKE_SIDE) == 28 and len(cp.STATUE_SIDE) == 29 and len(cp.BORDER) == 20
    assert (6, 24) in cp.BRIDGES and (40, 53) in cp.BRIDGES and (33, 43) in cp.BRIDGES
    assert (46, 47, 48) in cp.STATUES
    assert all(b in cp.ADJ[a] for statue in cp.STATUES for a, b in itertools.combinations(statue, 2))


def test_height_classes():
    """2.2: 1-5 small, 6-9 medium, 10-13 tall."""
    assert [cp.HEIGHT_CLASS[v] for v in range(1, 14)] == [0] * 5 + [1] * 4 + [2] * 4


# ===== 3. setup ==================================================================================
@pytest.mark.parametrize("layout", ["random", "first_game"])
@pytest.mark.parametrize("n", [2, 3, 4])
def test_setup_tokens_for_every_removal(n, layout):
    """3.1-3.2, 2.5: removed districts are out of play; token counts per count; 7 in the Centre,
    5 per peripheral district, never on a dead end."""
    for removal in allowed_removals(n):
        game = Metropolys(n, seed=3, layout=layout, removed_districts=",".join(removal) or None)
        s = game.state
        removed = [cp.DISTRICT_NAMES.index(name) for name in removal]
        assert s.removed == sorted(removed)
        counts = [sum(t == kind for t in s.token) for kind in (cp.TRENDY, cp.SUBWAY, cp.ARCH)]
        assert tuple(counts) == SPEC_TOKENS[n]
        for district in range(5):
            spots = [nb for nb in range(55) if cp.DISTRICT[nb] == district and s.token[nb] != cp.NO_TOKEN]
            assert len(spots) == (0 if district in removed else 7 if district == cp.CENTRE else 5)
        assert all(s.token[nb] == cp.NO_TOKEN for nb in cp.DEAD_END)
        check_state(game)


def test_drawn_removals_are_allowed_ones():
    """3 setup: 3 players drop one peripheral district, 2 players an adjacent pair, drawn by the seed."""
    seen = {2: set(), 3: set()}
    for seed in range(60):
        for n in (2, 3):
            removed = tuple(Metropolys(n, seed=seed).state.removed)
            assert tuple(cp.DISTRICT_NAMES[d] for d in removed) in allowed_removals(n)
            seen[n].add(removed)
    assert len(seen[2]) == 4 and len(seen[3]) == 4
    assert Metropolys(4, seed=0).state.removed == []


def test_removed_district_is_not_biddable():
    """3.1: neighbourhoods of removed districts do not exist for the game."""
    game = Metropolys(3, seed=0, removed_districts="north")
    assert not legal(game) & set(range(15, 25)) and legal(game) >= set(range(0, 11)) - {11}


def test_secret_card_deals():
    """3.4: family one Area card each (no Borders at 2 players); expert one Neighbourhood and one expert
    Area card each, all different."""
    for seed in range(20):
        for n in (2, 3, 4):
            s = Metropolys(n, seed=seed).state
            assert len(set(s.family_card)) == n and s.colour_card == [-1] * n and s.area_card == [-1] * n
            assert n > 2 or cp.FAMILY_BORDERS not in s.family_card
            e = Metropolys(n, seed=seed, version="expert").state
            assert len(set(e.colour_card)) == n and len(set(e.area_card)) == n and e.family_card == [-1] * n


def test_supplies_and_start_player():
    """3.5-3.6: 13 buildings each; the start player opens (default seat 0)."""
    game = Metropolys(4, seed=0, start_player=2)
    assert game.state.supply == [(1 << 13) - 1] * 4 and game.current_player() == 2
    assert Metropolys(4, seed=0).current_player() == 0


# ===== 4. the call ===============================================================================
def test_opener_must_bid_anywhere_free_with_any_value():
    """4: the opener may bid on any free in-play neighbourhood with any available value; no pass."""
    game = Metropolys(4, seed=0)
    build(game, 1, {10: 4})
    assert legal(game) == set(range(55)) - {10}
    game.apply(30)
    assert legal(game) == set(range(55, 68))


def test_outbid_only_adjacent_free_and_higher():
    """4: an outbid goes on a free neighbour of the top bid with a strictly higher value."""
    game = Metropolys(3, seed=0)
    bid(game, 9, 6)
    assert legal(game) == {3, 4, 8, 10, 68}
    game.apply(8)
    assert legal(game) == set(range(55 + 6, 68))


def test_passing_is_final_and_outbid_players_bid_again():
    """4: a passed player never acts again in the call; an outbid player keeps bidding; earlier bids
    stay on the board blocking their neighbourhood."""
    game = Metropolys(3, seed=0)
    bid(game, 3, 1)  # seat 0
    bid(game, 4, 2)  # seat 1
    game.apply(68)  # seat 2 passes
    assert game.current_player() == 0
    assert 3 not in legal(game)  # seat 0's own earlier bid still blocks 3
    bid(game, 9, 3)  # seat 0 again
    assert game.current_player() == 1  # seat 2 is skipped
    bid(game, 8, 4)
    assert game.current_player() == 0


def test_forced_passes_are_automatic():
    """4, 8.12: a player without a higher value is passed over without a decision."""
    game = Metropolys(3, seed=0)
    game.state.supply[1] = 1 << 0  # seat 1 holds only value 1
    game._mask = None
    bid(game, 9, 5)
    assert game.current_player() == 2 and game.state.passed == 1 << 1


def test_call_resolution():
    """4 resolve: the top bidder builds, takes the token, the other bids return; the winner opens next."""
    game = Metropolys(2, seed=0, layout="first_game", removed_districts="south,west")
    s = game.state
    bid(game, 9, 2)  # seat 0 (9 carries an archaeological token)
    bid(game, 10, 5)  # seat 1 on 10 (a trendy token)
    game.apply(68)  # seat 0 passes
    assert s.owner[10] == 1 and s.built_value[10] == 5 and s.token[10] == cp.NO_TOKEN
    assert s.tokens[1] == [1, 0, 0] and s.owner[9] == -1 and s.token[9] == cp.ARCH
    assert rules.values_of(s.supply[0]) == list(range(1, 14))
    assert 5 not in rules.values_of(s.supply[1]) and s.built == [0, 1]
    assert game.current_player() == 1 and s.bids == [] and s.calls == 1


def test_no_free_neighbour_ends_the_call_at_once():
    """4 notes: a bid on a spot without free neighbours leaves nobody able to follow."""
    game = Metropolys(4, seed=0)
    build(game, 2, {10: 7})
    bid(game, 11, 1)  # the dead end 11: its only neighbour 10 is built
    assert game.state.owner[11] == 0 and game.current_player() == 0 and game.history == [11, 55]


def test_tokens_only_for_the_builder():
    """5.1: an unbuilt bid never takes a token."""
    game = Metropolys(2, seed=0, layout="first_game", removed_districts="south,west")
    bid(game, 3, 1)  # trendy token on 3
    bid(game, 0, 2)  # seat 1 outbids next door
    game.apply(68)
    assert game.state.token[3] == cp.TRENDY and game.state.tokens[0] == [0, 0, 0]


# ===== 5. cards ==================================================================================
def test_subway_card_needs_strictly_more():
    """5.2: the first taker gets it; equal counts never move it; strictly more does."""
    s = Metropolys(3, seed=0).state
    rules._take_token(s, 0, cp.SUBWAY)
    assert s.subway_card == 0
    rules._take_token(s, 1, cp.SUBWAY)
    assert s.subway_card == 0
    rules._take_token(s, 1, cp.SUBWAY)
    assert s.subway_card == 1


def test_arch_card_follows_the_last_taker():
    """5.3: whoever takes an archaeological token takes the card."""
    s = Metropolys(3, seed=0).state
    for seat in (2, 0, 0, 1):
        rules._take_token(s, seat, cp.ARCH)
        assert s.arch_card == seat


# ===== 6. scoring ================================================================================
def test_family_cards():
    """2.6, 8.7: +3 per building on a qualifying spot, once each; a bridge into a removed district still
    counts; Borders is the printed edge only."""
    assert rules.family_points(cp.FAMILY_STATUES, [3, 47]) == 6  # each next to two statues, counted once
    assert rules.family_points(cp.FAMILY_BRIDGES, [6]) == 3  # 6-24 and 6-25, even with North/East removed
    assert rules.family_points(cp.FAMILY_BORDERS, [44, 24]) == 3  # 24 is not on the printed edge
    assert rules.family_points(cp.FAMILY_LAKES, [21, 11]) == 3


def test_expert_neighbourhood_card():
    """2.7: +2 per own building of the card's colour."""
    assert rules.colour_points(cp.BLUE, [3, 6, 13, 0]) == 6


def test_expert_area_packing_rules():
    """8.8: the star around 10 gives one chain; disjoint lake triples around one lake all count;
    districts once each; statues need all three; bridges are a matching."""
    assert rules.area_points(cp.EXPERT_CHAINS, [5, 9, 10, 11, 13, 14]) == 4
    assert rules.area_points(cp.EXPERT_CHAINS, [15, 16, 17, 18, 23, 24]) == 8
    assert rules.area_points(cp.EXPERT_LAKES, [7, 8, 9, 10, 12, 13]) == 10  # two triples around L2
    assert rules.area_points(cp.EXPERT_LAKES, [7, 8]) == 0
    assert rules.area_points(cp.EXPERT_DISTRICTS, list(range(15, 25))) == 4
    assert rules.area_points(cp.EXPERT_STATUES, [0, 2]) == 0
    assert rules.area_points(cp.EXPERT_BRIDGES, [0, 19, 22]) == 4


def test_highest_building_prefix_rule_and_ties():
    """6.3: lists of height classes compared lexicographically, a longer list wins over its prefix,
    identical best lists all score 5; a district nobody built in gives nothing."""
    game = Metropolys(3, seed=0, version="expert")
    s = game.state
    build(game, 0, {15: 12, 16: 11})  # [2, 2]
    build(game, 1, {17: 13, 18: 10, 19: 1})  # [2, 2, 0] beats its prefix
    build(game, 2, {0: 13})
    build(game, 0, {1: 12})  # Centre: seat 0 [2] and seat 2 [2] tie
    assert rules.highest_building_winners(s, cp.NORTH) == [1]
    assert rules.highest_building_winners(s, cp.CENTRE) == [0, 2]
    assert rules.highest_building_winners(s, cp.EAST) == []


def test_winner_tie_breaks():
    """6.4: highest total, then more buildings, then a shared victory."""
    game = Metropolys(3, seed=0)
    s = game.state
    s.family_card = [cp.FAMILY_LAKES, cp.FAMILY_LAKES, cp.FAMILY_LAKES]
    s.decision, s.actor = rules.GAME_OVER, -1
    s.tokens = [[1, 0, 0], [1, 0, 0], [0, 0, 0]]
    build(game, 0, {11: 1})
    build(game, 1, {24: 1, 44: 2})  # not lake-side: same 3 points, one more building
    assert game.scores() == [3, 3, 0] and game.winners() == [1]
    build(game, 0, {50: 2})
    assert game.winners() == [0, 1] and game.returns() == [0.5, 0.5, -1.0]


def test_game_ends_at_the_thirteenth_building():
    """6.1: the game ends the instant a player has built 13; the unbuilt buildings of others score nothing."""
    game = Metropolys(2, seed=0, removed_districts="south,west")
    build(game, 0, {nb: v for nb, v in zip(range(12), range(2, 14), strict=True)})
    bid(game, 30, 1)
    game.apply(68)
    assert game.is_over() and game.state.built[0] == 13 and game.current_player() == -1
    assert not np.any(game.legal_actions())
