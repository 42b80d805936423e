"""What only the Big City heuristic does: its self-play games build a city (what every game's heuristic
does alike is in tests/agents/test_every_heuristic.py)."""

from __future__ import annotations

import pytest

from city_envs import make_game
from city_envs.agents.big_city_heuristic import LAST_EXCHANGE_TURN, BigCityHeuristicAgent
from city_envs.big_city import components as cp
from city_envs.big_city import rules
from city_envs.core.infoset import InfoSet
from city_envs.evaluation import evaluate, match_seeds

from .handles import heuristic_self_play


@pytest.mark.parametrize("n", [2, 5])
def test_self_play_builds_the_city_and_ends(n):
    for seed in range(2):
        game = heuristic_self_play(BigCityHeuristicAgent, "big_city", n, seed, seed * 5)
        s = game.state
        assert not game.is_truncated() and s.occupant[4] >= 0 and s.trams
        assert sum(t is not None for t in s.tiles) >= 7 and max(s.scores) >= 40


# matches (arena seed, match index) in which the heuristic used to hand a card back to an empty pile
# and draw it again every turn until the 600-turn cap, with the seeds the arena gives them
LOOPING_MATCHES = [(4, 55), (5, 16), (5, 31)]


@pytest.mark.parametrize(("run_seed", "match"), LOOPING_MATCHES)
def test_formerly_looping_matches_end_and_no_draw_takes_back_a_returned_card(run_seed, match):
    game_seed, agent_seeds = match_seeds(run_seed, match, 2)
    game = make_game("big_city", 2, seed=game_seed)
    agents = [BigCityHeuristicAgent(seed) for seed in agent_seeds]
    while not game.is_over():
        seat = game.current_player()
        handle = InfoSet(game, seat)
        action = agents[seat].act(handle)
        view = handle.view()
        if view["decision"] == "DRAW":
            mine = [sum(cp.CARD_PILE[c] == pile for c in view["known_in_piles"]) for pile in range(1, 9)]
            fresh = [
                a - rules.PILE
                for a in handle.legal_action_ids()
                if view["pile_sizes"][a - rules.PILE - 1] > mine[a - rules.PILE - 1]
            ]
            assert not fresh or action - rules.PILE in fresh, "drew back a card it had just returned"
        game.apply(action)
    assert not game.is_truncated() and game.state.turns < LAST_EXCHANGE_TURN


def test_no_exchange_once_the_match_has_run_long():
    """Past LAST_EXCHANGE_TURN the heuristic never exchanges, so every move it makes uses something up
    (pieces, cards, tram edges, tiles) or passes: a match cannot go on for ever. Checked on the
    positions of heuristic matches where it did exchange."""
    exchanges = 0
    for seed in range(3):
        game = make_game("big_city", 2, seed=seed)
        agents = [BigCityHeuristicAgent(seed), BigCityHeuristicAgent(seed + 1)]
        while not game.is_over():
            seat = game.current_player()
            action = agents[seat].act(InfoSet(game, seat))
            if action == rules.EXCHANGE and game.decision_name() == "MAIN":
                exchanges += 1
                data = game.to_dict()
                data["state"]["turns"] = LAST_EXCHANGE_TURN
                late = type(game).from_dict(data)  # either engine: the native one picks in C++
                assert BigCityHeuristicAgent(0).act(InfoSet(late, seat)) != rules.EXCHANGE
            game.apply(action)
    assert exchanges >= 3, "too few exchanges seen for the test to mean anything"


@pytest.mark.slow
@pytest.mark.parametrize("run_seed", [4, 5])
def test_sixty_heuristic_matches_end_without_truncation(run_seed):
    results = evaluate("big_city", 2, ["heuristic", "heuristic"], games=60, seed=run_seed)
    assert results["truncated"] == 0 and not results["failures"]


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_the_seat_memo_kept_across_boards_equals_fresh_scores(n):
    """The SeatMemo keeps a placement's facts and points while the board grows away from it: after each
    decision, every entry equals what the rules give on the board of that decision."""
    game = make_game("big_city", n, seed=n)
    agents = [BigCityHeuristicAgent(seed=10 * n + seat, native=False) for seat in range(n)]  # the memo is Python's
    checked = 0
    while not game.is_over():
        seat = game.current_player()
        action = agents[seat].act(InfoSet(game, seat))
        memo = agents[seat].seat_memo
        s = game.seat_state(seat)
        if memo.board is s.memo:  # the agent chose on this board (it does not think with one legal id)
            for key, value in memo.entries.items():
                if key[0] == "facts":
                    assert value == rules.placement_facts(s, key[1]), key
                elif key[0] == "points":
                    assert value == rules.building_points(s, key[1], key[2]), key
                elif key[0] == "tram points":
                    facts = rules.placement_facts(s, key[2])._replace(tram=True)
                    assert value == rules.points_from_facts(key[1], key[2], facts), key
                checked += 1
        game.apply(action)
    assert checked > 1000
