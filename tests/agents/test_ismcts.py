"""ISMCTSAgent: a correct search on a toy game, determinism, budgets, hidden information, specs."""

from __future__ import annotations

import numpy as np
import pytest

from city_envs import GAMES, make_game
from city_envs.agents.ismcts import ISMCTSAgent
from city_envs.agents.registry import HEURISTICS, make_agent
from city_envs.core.infoset import InfoSet
from tests.core.nim_toy import Nim

# Nim has no heuristic: no hints, and every seat searched
UNGUIDED = {"bias": 0.0, "opponents": "search"}


def test_finds_the_winning_move_in_nim():
    """From a heap of 6 the only winning move takes 2 (leaving a multiple of 4)."""
    agent = ISMCTSAgent(seed=0, iters=400, rollout="random", max_rollout=None, **UNGUIDED)
    game = Nim(2, seed=0, heap=6)
    assert agent.act(InfoSet(game, 0)) == 1


def test_answers_every_reply_in_nim():
    """After 9 -> 8 and any reply, the search takes what leaves 4."""
    for reply in range(3):
        game = Nim(2, seed=0, heap=9)
        game.apply(0)
        game.apply(reply)
        agent = ISMCTSAgent(seed=1, iters=300, rollout="random", max_rollout=None, **UNGUIDED)
        assert agent.act(InfoSet(game, 0)) == 2 - reply


class TakeOne:
    """A deliberately poor Nim heuristic: always take one stone."""

    def __init__(self, seed=None) -> None:
        pass

    def act(self, info_set: InfoSet) -> int:
        return 0


class TakeTwo(TakeOne):
    """A Nim heuristic whose move is not the lowest action id."""

    def act(self, info_set: InfoSet) -> int:
        return 1


@pytest.fixture
def nim_heuristic(monkeypatch):
    """Register `TakeOne` as Nim's heuristic so the search can ask it for hints and rollouts."""
    monkeypatch.setitem(HEURISTICS, "nim", "tests.agents.test_ismcts:TakeOne")


def test_with_one_iteration_the_bias_plays_the_heuristic_move(nim_heuristic):
    """The hinted move is expanded first, so one iteration plays it (the best move here takes 2)."""
    game = Nim(2, seed=0, heap=6)
    assert ISMCTSAgent(seed=0, iters=1, rollout="random", bias=1.0, opponents="search").act(InfoSet(game, 0)) == 0


def test_a_budget_below_the_number_of_moves_plays_the_heuristic_move(monkeypatch):
    """Three iterations try each of Nim's three moves once: with every move at one visit, the hint
    (not the lowest id, nor a lucky single rollout) is played."""
    monkeypatch.setitem(HEURISTICS, "nim", "tests.agents.test_ismcts:TakeTwo")
    for seed in range(8):
        agent = ISMCTSAgent(seed=seed, iters=3, rollout="random", max_rollout=None, opponents="search")
        assert agent.act(InfoSet(Nim(2, seed=0, heap=9), 0)) == 1


def test_the_search_overrules_a_losing_hint(nim_heuristic):
    """From 6, taking one loses against best play; with enough iterations the bias does not stop the
    search from finding the winning move (take 2)."""
    agent = ISMCTSAgent(seed=0, iters=600, rollout="random", max_rollout=None, bias=1.0, opponents="search")
    assert agent.act(InfoSet(Nim(2, seed=0, heap=6), 0)) == 1


def test_with_heuristic_opponents_it_exploits_the_model(nim_heuristic):
    """From 4 the first player loses against best play, but not against `TakeOne`: a search that
    models the other seat as its heuristic expects to win, the full max-n search expects to lose."""

    def best_value(opponents: str) -> float:
        agent = ISMCTSAgent(seed=0, iters=300, rollout="heuristic", max_rollout=None, opponents=opponents)
        move = agent.act(InfoSet(Nim(2, seed=0, heap=4), 0))
        return agent.last_values[move]

    assert best_value("heuristic") > 0.8
    assert best_value("search") < 0.0


def test_plays_the_forced_move_without_searching():
    game = Nim(2, seed=0, heap=1)
    agent = ISMCTSAgent(seed=0, iters=50, rollout="random", **UNGUIDED)
    assert agent.act(InfoSet(game, 0)) == 0 and agent.last_iterations == 0


@pytest.mark.parametrize("name", GAMES)
def test_same_seed_same_choice_and_a_legal_one(name):
    game = make_game(name, 2, seed=3)
    rng = np.random.default_rng(0)
    while len(game.legal_action_ids()) < 2:
        game.apply(int(rng.choice(game.legal_action_ids())))
    seat = game.current_player()
    choices = [make_agent("ismcts:iters=12:max_rollout=10", name, 7).act(InfoSet(game, seat)) for _ in range(2)]
    assert choices[0] == choices[1] and choices[0] in game.legal_action_ids()


@pytest.mark.parametrize("name", GAMES)
def test_search_never_touches_the_real_match(name):
    game = make_game(name, 3, seed=5)
    before = game.to_dict()
    seat = game.current_player()
    make_agent("ismcts:iters=8:max_rollout=20", name, 0).act(InfoSet(game, seat))
    assert game.to_dict() == before


def test_uses_only_what_the_seat_may_know():
    """Two matches that differ only in what the searching seat cannot see give the same choice."""
    game = make_game("citadels", 3, seed=11)
    seat = game.current_player()
    twin = game.determinize(seat, np.random.default_rng(99))
    assert np.array_equal(game.observation(seat), twin.observation(seat))
    choose = lambda g: make_agent("ismcts:iters=30:max_rollout=15", "citadels", 4).act(InfoSet(g, seat))  # noqa: E731
    assert choose(game) == choose(twin)


def test_time_budget_runs_at_least_one_iteration():
    game = Nim(2, seed=0, heap=10)
    agent = ISMCTSAgent(seed=0, iters=None, seconds=0.05, rollout="random", **UNGUIDED)
    assert agent.act(InfoSet(game, 0)) in (0, 1, 2) and agent.last_iterations >= 1


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"iters": None}, "exactly one budget"),
        ({"iters": 10, "seconds": 1.0}, "exactly one budget"),
        ({"iters": 0}, "positive"),
        ({"rollout": "greedy"}, "allowed: random, heuristic"),
        ({"max_rollout": -1}, "max_rollout"),
        ({"bias": -0.5}, "bias"),
        ({"opponents": "oracle"}, "allowed: search, heuristic"),
    ],
)
def test_bad_settings_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        ISMCTSAgent(seed=0, **kwargs)


def test_agent_specs():
    agent = make_agent("ismcts:seconds=0.5:c=1.2:rollout=random:max_rollout=15", "metropolys", 0)
    assert (agent.iters, agent.seconds, agent.exploration, agent.rollout, agent.max_rollout) == (
        None,
        0.5,
        1.2,
        "random",
        15,
    )
    assert make_agent("ismcts", "citadels", 0).iters == 200
    agent = make_agent("ismcts:iters=5:max_rollout=none:bias=0.5:opponents=heuristic", "citadels", 0)
    assert (agent.max_rollout, agent.bias, agent.opponents) == (None, 0.5, "heuristic")
    with pytest.raises(ValueError, match="no heuristic agent for 'nim'"):
        make_agent("ismcts:rollout=random", "nim", 0)  # hints and the opponent model need one
    assert not make_agent("ismcts:rollout=random:bias=0:opponents=search", "nim", 0).needs_heuristic
    with pytest.raises(ValueError, match="allowed: iters="):
        make_agent("ismcts:depth=3", "citadels", 0)
    with pytest.raises(ValueError, match="expected int"):
        make_agent("ismcts:iters=many", "citadels", 0)


def test_a_cut_rollout_is_valued_by_the_rulebook_standings():
    """Blue Moon City's score (offerings) is level for most of a match; its tie-break, crystals, says
    who is closer to the next offering, and that is what a rollout cut short is worth."""
    game = make_game("blue_moon_city", 3, seed=0, engine="python")  # its state is set by hand
    game.state.offerings = [1, 1, 0]
    game.state.crystals = [4, 9, 20]
    assert game.standings() == [(1, 4), (1, 9), (0, 20)]
    assert ISMCTSAgent._values(game) == [0.0, 1.0, -1.0]
    game.state.crystals = [9, 9, 20]
    assert ISMCTSAgent._values(game) == [0.5, 0.5, -1.0]
