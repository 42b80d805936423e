"""Network-guided ISMCTS (`ismcts:net=...`): specs and their errors, PUCT on a toy game, masks, per-seat
leaf values, determinism, full matches of every game, and hidden information."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")
import torch  # noqa: E402

from city_envs import GAMES, cli, make_game  # noqa: E402
from city_envs.agents.guided_ismcts import GuidedISMCTSAgent, LeafEvaluator, Node, reward_settings  # noqa: E402
from city_envs.agents.policy_agent import baseline_path  # noqa: E402
from city_envs.agents.policy_file import PolicyFileError, build_policy, read_metadata, save_policy  # noqa: E402
from city_envs.agents.registry import make_agent  # noqa: E402
from city_envs.core.game import Game  # noqa: E402
from city_envs.core.infoset import InfoSet  # noqa: E402
from city_envs.core.privileged import all_seats_observation, all_seats_size  # noqa: E402
from tests.core.nim_toy import Nim  # noqa: E402

TINY = "ismcts:net=ppo:iters=4:batch=2"


def decision_point(name: str, players: int = 2, seed: int = 3, moves: int = 6) -> Game:
    """A match a few random moves in, at a decision with at least two legal moves."""
    game = make_game(name, players, seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(moves):
        game.apply(int(rng.choice(game.legal_action_ids())))
    while len(game.legal_action_ids()) < 2:
        game.apply(int(rng.choice(game.legal_action_ids())))
    return game


def with_metadata(tmp_path: Path, source: Path, **extra: str) -> Path:
    """A copy of a policy file with `extra` metadata keys added (no training config beside it)."""
    from safetensors import safe_open
    from safetensors.torch import load_file, save_file

    with safe_open(str(source), framework="pt") as handle:
        metadata = dict(handle.metadata())
    out = tmp_path / source.name
    save_file(load_file(str(source)), str(out), metadata={**metadata, **extra})
    return out


class Flat:
    """A stand-in network: uniform priors, a fixed value per seat at every open leaf."""

    def __init__(self, values: list[float], num_actions: int) -> None:
        self.values, self.num_actions = np.asarray(values, dtype=float), num_actions

    def evaluate(self, games: list[Game]) -> tuple[np.ndarray, np.ndarray]:
        return np.zeros((len(games), self.num_actions)), np.tile(self.values, (len(games), 1))

    def final_values(self, game: Game) -> np.ndarray:
        return np.asarray(game.returns(), dtype=float)


def with_network(agent: GuidedISMCTSAgent, network, game_name: str, players: int) -> GuidedISMCTSAgent:
    agent._evaluator, agent._evaluator_for = network, (game_name, players)
    return agent


# ----- the search itself ------------------------------------------------------------------------------
def test_finds_the_winning_move_in_nim_from_end_values_alone():
    """With no knowledge in the network (uniform priors, value 0), the ends of the match decide: from a
    heap of 6 the only winning move takes 2, and after 9 -> 8 and any reply the search leaves 4."""
    agent = with_network(GuidedISMCTSAgent(seed=0, iters=300, batch=1), Flat([0.0, 0.0], 3), "nim", 2)
    assert agent.act(InfoSet(Nim(2, seed=0, heap=6), 0)) == 1
    for reply in range(3):
        game = Nim(2, seed=0, heap=9)
        game.apply(0)
        game.apply(reply)
        agent = with_network(GuidedISMCTSAgent(seed=1, iters=300, batch=4), Flat([0.0, 0.0], 3), "nim", 2)
        assert agent.act(InfoSet(game, 0)) == 2 - reply


def test_a_time_budget_runs_whole_batches_and_at_least_one():
    agent = with_network(GuidedISMCTSAgent(seed=0, iters=None, seconds=0.05, batch=3), Flat([0.0, 0.0], 3), "nim", 2)
    assert agent.act(InfoSet(Nim(2, seed=0, heap=10), 0)) in (0, 1, 2)
    assert agent.last_iterations >= 3 and agent.last_iterations % 3 == 0
    assert sum(agent.last_visits.values()) == agent.last_iterations


@pytest.mark.parametrize("name", ["metropolys", "citadels"])
def test_leaf_values_are_credited_to_each_seat_and_virtual_losses_undone(name):
    """Every move's mean is the value of the seat that made it (0.25 for seat 0, -0.75 for seat 1)."""
    game = decision_point(name)
    me = game.current_player()
    agent = GuidedISMCTSAgent(seed=0, iters=1, batch=3)
    network = Flat([0.25, -0.75], game.num_actions)
    root = Node()
    agent._evaluate(network, [(game.determinize(me, agent.rng), root, [])])
    for _ in range(8):
        agent._evaluate(network, [agent._descend(game.determinize(me, agent.rng), root) for _ in range(3)])
    checked, stack = 0, [root]
    while stack:
        node = stack.pop()
        for seat, moves in node.moves.items():
            tried = moves.visits > 0
            assert np.allclose(moves.totals[tried] / moves.visits[tried], network.values[seat])
            checked += int(tried.sum())
            stack.extend(moves.children.values())
    assert checked > 3 and root.moves[me].visits.sum() == 24


@pytest.mark.parametrize("name", ["metropolys", "citadels"])
@pytest.mark.parametrize("temperature", [0, 1])
def test_search_hands_out_the_root_visits_that_act_chooses_from(name, temperature):
    """`search` counts every iteration on the seat's legal moves, and `choose` on it is `act`'s move, with
    the generator left where `act` leaves it."""
    game = decision_point(name)
    seat, legal = game.current_player(), game.legal_action_ids()
    spec = f"ismcts:net=ppo:iters=12:batch=3:temperature={temperature}"
    searcher, player = make_agent(spec, name, 5), make_agent(spec, name, 5)
    stats = searcher.search(InfoSet(game, seat))
    assert stats.visits.shape == stats.logits.shape == (game.num_actions,)
    assert stats.visits.sum() == 12 and set(np.flatnonzero(stats.visits)) <= set(legal)
    assert {a: int(v) for a, v in enumerate(stats.visits) if v} == {a: v for a, v in searcher.last_visits.items() if v}
    assert searcher.choose(stats, legal) == player.act(InfoSet(game, seat))
    assert searcher.rng.bit_generator.state == player.rng.bit_generator.state


def test_a_forced_move_is_not_searched_and_draws_nothing():
    agent = with_network(GuidedISMCTSAgent(seed=0, iters=50, temperature=1), Flat([0.0, 0.0], 3), "nim", 2)
    before = agent.rng.bit_generator.state
    stats = agent.search(InfoSet(Nim(2, seed=0, heap=1), 0))
    assert stats.visits.tolist() == [1.0, 0.0, 0.0] and agent.choose(stats, [0]) == 0
    assert agent.last_iterations == 0 and agent.rng.bit_generator.state == before


class PreferIllegal(LeafEvaluator):
    """The real network, but every illegal action gets by far the largest logit."""

    def evaluate(self, games):
        logits, values = super().evaluate(games)
        for row, game in zip(logits, games, strict=True):
            row[~game.legal_actions()] = 1e3
        return logits, values


@pytest.mark.parametrize("name", ["metropolys", "citadels"])
def test_priors_cover_only_the_legal_moves(name):
    """Priors are a softmax over the moves legal in the determinization: applying an illegal one would raise."""
    game = decision_point(name)
    network = PreferIllegal(baseline_path(name, 2), name, 2)
    agent = with_network(GuidedISMCTSAgent(seed=0, iters=40, batch=4), network, name, 2)
    assert agent.act(InfoSet(game, game.current_player())) in game.legal_action_ids()
    assert agent.last_iterations == 40


def test_leaf_values_are_the_critic_of_each_seat_plus_the_margin_earned():
    """The critic on each seat's own observation, plus score_scale x (own score - the others' mean)."""
    name = "metropolys"
    game = decision_point(name, moves=40)
    scores = np.asarray(game.scores(), dtype=float)
    assert scores.any()
    evaluator = LeafEvaluator(baseline_path(name, 2), name, 2)
    assert (evaluator.reward, evaluator.score_scale) == ("score", 0.02)
    _, values = evaluator.evaluate([game])
    with torch.no_grad():
        critic = evaluator.policy.predict_values(torch.as_tensor(np.stack([game.observation(s) for s in (0, 1)])))
    margins = 0.02 * (scores - scores[::-1])
    assert np.allclose(values[0], critic.numpy().ravel() + margins, atol=1e-5)
    assert np.allclose(evaluator.final_values(game), np.asarray(game.returns()) + margins)


def test_reward_settings_come_from_the_training_config_beside_the_file(tmp_path):
    source = baseline_path("citadels", 2)
    assert reward_settings(source) == ("score", 0.02)
    copy = with_metadata(tmp_path, source)
    assert reward_settings(copy) == ("win", 0.0)
    copy.with_suffix(".toml").write_text('reward = "lead"\nscore_scale = 0.5\n')
    assert reward_settings(copy) == ("lead", 0.5)
    copy.with_suffix(".toml").write_text('reward = "gold"\n')
    with pytest.raises(PolicyFileError, match="reward must be one of"):
        reward_settings(copy)


def test_a_privileged_files_critic_values_each_seat_from_every_seats_observation(tmp_path):
    """A privileged file (the trainer's `privileged_critic`, format 3) feeds its critic the all-seats
    input rotated to the valued seat; the search's leaf values are that critic's, seat by seat."""
    name, players = "citadels", 3
    probe = make_game(name, players, seed=0)
    torch.manual_seed(0)
    policy = build_policy(probe.observation_shape, probe.num_actions, [16], "tanh", None, all_seats_size(probe))
    path = save_policy(
        policy, tmp_path / "privileged.safetensors", game=name, players=players, net_arch=[16], activation="tanh"
    )
    evaluator = LeafEvaluator(path, name, players)
    assert evaluator.critic_input == "all_seats"
    game = decision_point(name, players)
    _, values = evaluator.evaluate([game])
    for seat in range(players):
        full = all_seats_observation(game, seat)
        assert np.array_equal(evaluator.critic_features(game, seat), full)
        with torch.no_grad():
            expected = float(policy.predict_values(torch.as_tensor(full[None])).item())
        assert values[0, seat] == pytest.approx(expected, abs=1e-5)
    with pytest.raises(PolicyFileError, match="cannot value a 2-player citadels one"):
        LeafEvaluator(path, name, 2)


def test_a_plain_file_marked_all_seats_is_refused(tmp_path):
    plain = baseline_path("metropolys", 2)  # a baseline trained without the privileged critic
    assert read_metadata(plain)["critic_input"] == "observation"
    path = with_metadata(tmp_path, plain, critic_input="all_seats")
    with pytest.raises(PolicyFileError, match="field 'critic_input' must be 'all_seats' in format version 3"):
        LeafEvaluator(path, "metropolys", 2)


# ----- specs and their errors -------------------------------------------------------------------------
def test_spec_sets_every_parameter():
    agent = make_agent("ismcts:net=ppo:iters=7:c_puct=2.5:temperature=0.5:batch=3", "metropolys", 0)
    assert isinstance(agent, GuidedISMCTSAgent)
    assert (agent.net, agent.iters, agent.c_puct, agent.temperature, agent.batch) == ("ppo", 7, 2.5, 0.5, 3)
    timed = make_agent("ismcts:net=ppo:seconds=0.5", "metropolys", 0)
    assert (timed.iters, timed.seconds) == (None, 0.5)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("ismcts:net=ppo:iters=0", "iters must be"),
        ("ismcts:net=ppo:iters=2000000", "iters must be"),
        ("ismcts:net=ppo:c_puct=0", "c_puct must be"),
        ("ismcts:net=ppo:c_puct=nan", "c_puct must be"),
        ("ismcts:net=ppo:temperature=-1", "temperature must be"),
        ("ismcts:net=ppo:temperature=inf", "temperature must be"),
        ("ismcts:net=ppo:batch=0", "batch must be"),
        ("ismcts:net=ppo:iters=5:seconds=1", "exactly one budget"),
        ("ismcts:net=ppo:seconds=0", "seconds must be"),
        ("ismcts:net=ppo:rollout=random", "bad agent parameter 'rollout=random'"),
        ("ismcts:net=ppo:iters=x", "expected int"),
        ("ismcts:net=", "bad agent parameter 'net='"),
        ("ismcts:net=no/such/file.safetensors", "no policy file"),
        (f"ismcts:net={baseline_path('citadels', 2)}", "field 'game' is 'citadels'"),
    ],
)
def test_bad_specs_are_refused(spec, message):
    with pytest.raises(ValueError, match=message):
        make_agent(spec, "metropolys", 0)


def test_a_file_for_another_player_count_is_refused_before_play():
    agent = make_agent(f"ismcts:net={baseline_path('metropolys', 4)}", "metropolys", 0)
    with pytest.raises(PolicyFileError, match="field 'players' is 4"):
        agent.prepare(InfoSet(make_game("metropolys", 2, seed=0), 0))


def test_an_unknown_critic_input_is_refused_when_the_agent_is_built(tmp_path):
    path = with_metadata(tmp_path, baseline_path("metropolys", 2), critic_input="oracle")
    with pytest.raises(PolicyFileError, match="field 'critic_input' must be 'all_seats' in format version 3"):
        make_agent(f"ismcts:net={path}", "metropolys", 0)


def test_a_game_without_a_baseline_is_refused():
    with pytest.raises(PolicyFileError, match="no PPO baseline for nim"):
        GuidedISMCTSAgent(seed=0).act(InfoSet(Nim(2, seed=0, heap=6), 0))


def test_the_command_line_names_the_wrong_file_in_one_line(capsys):
    spec = f"ismcts:net={baseline_path('metropolys', 4)}"
    code = cli.main(["evaluate", "metropolys", "--agents", f"{spec},heuristic", "--games", "2", "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and "field 'players' is 4" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


# ----- determinism, full matches, hidden information -----------------------------------------------------
@pytest.mark.parametrize("name", GAMES)
def test_a_tiny_budget_is_deterministic_for_a_seed(name):
    game = decision_point(name)
    seat = game.current_player()
    for spec in (TINY, f"{TINY}:temperature=1"):
        choices = [make_agent(spec, name, 7).act(InfoSet(game, seat)) for _ in range(2)]
        assert choices[0] == choices[1] and choices[0] in game.legal_action_ids()


@pytest.mark.parametrize("name", GAMES)
def test_plays_full_matches_of_every_game(name):
    game = make_game(name, 2, seed=1)
    before = None
    agents = [make_agent("ismcts:net=ppo:iters=2:batch=2", name, 0), make_agent("random", name, 1)]
    while not game.is_over():
        seat = game.current_player()
        if seat == 0 and before is None:
            before = game.to_dict()
            action = agents[0].act(InfoSet(game, seat))
            assert game.to_dict() == before  # the search never touches the real match
        else:
            action = agents[seat].act(InfoSet(game, seat))
        game.apply(action)
    game.validate()


@pytest.mark.parametrize("name", ["citadels", "metropolys"])
def test_uses_only_what_the_seat_may_know(name):
    """Two matches that differ only in what the searching seat cannot see give the same choice."""
    game = decision_point(name, seed=11)
    seat = game.current_player()
    twin = game.determinize(seat, np.random.default_rng(99))
    assert np.array_equal(game.observation(seat), twin.observation(seat))
    assert twin.to_dict() != game.to_dict()
    choose = lambda g: make_agent("ismcts:net=ppo:iters=24:batch=4", name, 4).act(InfoSet(g, seat))  # noqa: E731
    assert choose(game) == choose(twin)
