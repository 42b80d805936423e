"""The worked examples E1-E9 of Metropolys, hand-worked from the rules.

Positions are written into a fresh game's state (`built` buildings leave their owner's supply);
every action then goes through `Game.apply`, and every number the example states is asserted.
"""

from __future__ import annotations

from city_envs.metropolys import components as cp
from city_envs.metropolys import rules
from city_envs.metropolys.game import Metropolys

from ..game_helpers import legal
from .helpers import build, check_state


def nbhd_ids(game: Metropolys) -> set[int]:
    return {a for a in legal(game) if a < rules.VALUE_ACTION} | ({rules.PASS} & legal(game))


def value_ids(game: Metropolys) -> set[int]:
    return {a for a in legal(game) if rules.VALUE_ACTION <= a < rules.PASS}


def test_e1_legal_masks():
    """E1: after A's opening bid 4 on 9, B may bid on 4 or 10 (3 and 8 are built) or pass, with values
    5..13; after B's 6 on 10, C may bid on 5, 11, 13, 14 or pass, with its available values 7..13."""
    game = Metropolys(4, seed=0, layout="first_game")
    build(game, 2, {3: 1})
    build(game, 3, {8: 1})
    game.apply(9)
    game.apply(58)
    assert game.current_player() == 1
    assert nbhd_ids(game) == {4, 10, 68} == legal(game)
    game.apply(10)
    assert value_ids(game) == set(range(59, 68)) == legal(game)
    game.apply(60)
    assert game.current_player() == 2
    assert legal(game) == {5, 11, 13, 14, 68}
    game.apply(5)
    assert legal(game) == set(range(61, 68))


def test_e2_dead_end_opening_builds_at_once():
    """E2: B opens 1 on the dead end 21 whose only neighbour is built: everyone passes automatically
    and B builds; B opens the next call."""
    game = Metropolys(4, seed=0, start_player=1)
    build(game, 0, {20: 5})
    assert 1 << 0 & game.state.supply[1]
    game.apply(21)
    game.apply(55)  # value 1
    s = game.state
    assert game.history == [21, 55]  # no decision was asked of C, D or A
    assert s.owner[21] == 1 and s.built_value[21] == 1 and s.built[1] == 1
    assert s.tokens[1] == [0, 0, 0]
    assert game.current_player() == 1 and s.bids == [] and game.decision_name() == "NBHD"
    assert 68 not in legal(game)


def test_e3_a_full_call():
    """E3: the example's first call, seat by seat, with the Subway card going to Red."""
    blue, gray, red, white = range(4)
    game = Metropolys(4, seed=0, layout="first_game")
    s = game.state
    assert s.token[38] == cp.TRENDY and s.token[42] == cp.SUBWAY and s.token[33] == cp.SUBWAY
    for seat, nb, value in ((blue, 37, 3), (gray, 38, 7), (red, 42, 9), (white, 43, 10)):
        assert game.current_player() == seat
        game.apply(nb)
        game.apply(rules.VALUE_ACTION + value - 1)
    assert game.current_player() == blue and legal(game) == {33, 44, 68}
    game.apply(68)
    assert game.current_player() == gray
    game.apply(68)
    assert game.current_player() == red
    game.apply(33)  # across the bridge 43-33
    game.apply(rules.VALUE_ACTION + 11 - 1)
    assert game.current_player() == white and 68 in legal(game)
    game.apply(68)
    assert s.owner[33] == red and s.built_value[33] == 11
    assert s.tokens[red] == [0, 1, 0] and s.subway_card == red
    assert [rules.values_of(s.supply[seat]) for seat in (blue, gray, white)] == [list(range(1, 14))] * 3
    assert rules.values_of(s.supply[red]) == [*range(1, 11), 12, 13]
    assert s.token[38] == cp.TRENDY and s.token[42] == cp.SUBWAY
    assert game.current_player() == red and s.bids == [] and s.calls == 1
    check_state(game)


def test_e4_card_movements():
    """E4: the Subway card needs strictly more tokens; the Arch card follows the last taker."""
    game = Metropolys(3, seed=0)
    s = game.state
    holders = []
    for seat, kind in ((1, cp.SUBWAY), (2, cp.SUBWAY), (2, cp.ARCH), (2, cp.SUBWAY), (1, cp.SUBWAY), (0, cp.ARCH)):
        rules._take_token(s, seat, kind)
        holders.append((s.subway_card, s.arch_card))
    assert holders == [(1, -1), (1, -1), (1, 2), (2, 2), (2, 2), (2, 0)]
    assert [rules.token_points(s, seat) for seat in range(3)] == [-3, 2, 4]


def end_state(n: int, version: str, removed: str | None = None) -> Metropolys:
    game = Metropolys(n, seed=0, version=version, removed_districts=removed)
    s = game.state
    s.token = [cp.NO_TOKEN] * cp.NUM_NBHDS
    s.decision, s.actor = rules.GAME_OVER, -1
    return game


def test_e5_family_final_scoring():
    """E5: A 26, B 37, C 43, D 29; C wins."""
    game = end_state(4, "family")
    s = game.state
    plans = [
        (cp.FAMILY_STATUES, [0, 1, 5, 7, 9, 12, 15, 19, 22, 26, 30, 33, 38], [2, 3, 1]),
        (cp.FAMILY_LAKES, [2, 3, 8, 13, 16, 20, 27, 29, 37, 41, 48, 51], [1, 2, 2]),
        (cp.FAMILY_BRIDGES, [6, 14, 24, 25, 34, 39, 43, 44, 45, 47, 53], [3, 1, 0]),
        (cp.FAMILY_BORDERS, [10, 11, 18, 31, 32, 35, 36, 40, 42, 46, 50, 54], [2, 3, 1]),
    ]
    for seat, (card, nbhds, tokens) in enumerate(plans):
        s.family_card[seat] = card
        build(game, seat, {nb: v + 1 for v, nb in enumerate(nbhds)})
        s.tokens[seat] = tokens
    s.subway_card, s.arch_card = 0, 1
    assert [rules.family_points(card, nbhds) for card, nbhds, _ in plans] == [15, 36, 33, 21]
    assert game.scores() == [26, 37, 43, 29]
    assert game.winners() == [2]
    assert game.returns()[2] == 1.0


def test_e6_expert_final_scoring():
    """E6: 2 players, South and West removed: Red 39 (highest 10, blue 8, Statues 14, tokens 7),
    Blue 29 (highest 5, orange 6, Lakes 10, tokens 8); Red wins."""
    game = end_state(2, "expert", "south,west")
    s = game.state
    red, blue = 0, 1
    build(game, red, {0: 13, 2: 1, 3: 5, 4: 2, 9: 8, 10: 12, 13: 3, 17: 11, 18: 4, 23: 6, 25: 7, 30: 9, 31: 10})
    build(game, blue, {5: 13, 6: 2, 7: 12, 8: 1, 12: 3, 14: 4, 15: 11, 16: 5, 19: 10, 20: 6, 26: 9, 27: 8})
    s.colour_card = [cp.BLUE, cp.ORANGE]
    s.area_card = [cp.EXPERT_STATUES, cp.EXPERT_LAKES]
    s.tokens = [[2, 2, 1], [2, 3, 2]]
    s.subway_card, s.arch_card = blue, blue
    assert rules.highest_building_winners(s, cp.CENTRE) == [red]
    assert rules.highest_building_winners(s, cp.NORTH) == [blue]
    assert rules.highest_building_winners(s, cp.EAST) == [red]
    red_nbhds, blue_nbhds = rules.buildings_of(s, red), rules.buildings_of(s, blue)
    assert rules.colour_points(cp.BLUE, red_nbhds) == 8 and rules.colour_points(cp.ORANGE, blue_nbhds) == 6
    assert rules.area_points(cp.EXPERT_STATUES, red_nbhds) == 14
    assert rules.area_points(cp.EXPERT_LAKES, blue_nbhds) == 10
    assert rules.token_points(s, red) == 7 and rules.token_points(s, blue) == 8
    assert game.scores() == [39, 29] and game.winners() == [red]


def test_e7_expert_set_counting():
    """E7: Bridges 4 then 8 with 7 added; a 4-path gives 1 chain; overlapping statues 1; Districts 2."""
    assert rules.area_points(cp.EXPERT_BRIDGES, [12, 36, 52, 54]) == 4
    assert rules.area_points(cp.EXPERT_BRIDGES, [7, 12, 36, 52, 54]) == 8
    assert rules.area_points(cp.EXPERT_CHAINS, [15, 16, 17, 18]) == 4
    assert rules.area_points(cp.EXPERT_STATUES, [0, 2, 3, 4, 9]) == 7
    north, centre, east = [15, 16, 17, 18], [0, 1, 2], [25, 26]
    assert rules.area_points(cp.EXPERT_DISTRICTS, north + centre + east) == 8


def test_e8_two_player_first_game_setup():
    """E8: South and West removed: ids 0-34 in play, 5 T / 6 S / 6 A on the listed spots, a 3-card
    family deck without Borders, and bids next to 14 may go to 10, 13, 33 only."""
    game = Metropolys(2, seed=0, layout="first_game", removed_districts="south,west")
    s = game.state
    assert [nb for nb in range(55) if s.in_play[nb]] == list(range(35))
    spots = {kind: sorted(nb for nb in range(55) if s.token[nb] == kind) for kind in (cp.TRENDY, cp.SUBWAY, cp.ARCH)}
    assert spots == {
        cp.TRENDY: [3, 7, 10, 17, 30],
        cp.SUBWAY: [0, 5, 19, 23, 26, 33],
        cp.ARCH: [9, 13, 15, 22, 25, 31],
    }
    dealt = set()
    for seed in range(30):
        cards = Metropolys(2, seed=seed, layout="first_game", removed_districts="south,west").state.family_card
        assert len(set(cards)) == 2
        dealt |= set(cards)
    assert dealt == {cp.FAMILY_BRIDGES, cp.FAMILY_LAKES, cp.FAMILY_STATUES}
    game.apply(14)
    game.apply(55)
    assert legal(game) == {10, 13, 33, 68}


def test_e9_end_trigger():
    """E9: P1's 13th building (2 on 23) ends the game at once; the subway tie leaves the card with P0."""
    game = Metropolys(3, seed=0, layout="first_game", removed_districts="south", start_player=1)
    s = game.state
    assert s.token[23] == cp.SUBWAY and all(s.owner[nb] < 0 for nb in (17, 18, 23, 24, 25))
    p1_spots = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12]
    build(game, 1, {nb: v for nb, v in zip(p1_spots, [1, *range(3, 14)], strict=True)})
    assert rules.values_of(s.supply[1]) == [2]
    s.tokens[0][1], s.tokens[1][1] = 2, 1
    s.subway_card = 0
    game._mask = None
    game.apply(23)
    game.apply(56)  # value 2
    assert game.current_player() == 2 and legal(game) == {17, 18, 24, 25, 68}
    game.apply(68)
    assert game.current_player() == 0
    game.apply(68)
    assert game.is_over() and game.current_player() == -1 and not game.legal_actions().any()
    assert s.built[1] == 13 and s.owner[23] == 1 and s.tokens[1][1] == 2 and s.subway_card == 0
    assert s.calls == 1 and s.bids == []
    assert game.history == [23, 56, 68, 68]
