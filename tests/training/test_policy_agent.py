"""PolicyAgent and the `ppo` agent specs: legal, reproducible play through the information set."""

from __future__ import annotations

import pickle
import random
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

import torch  # noqa: E402

from city_envs import make_game  # noqa: E402
from city_envs.agents.base import play_game  # noqa: E402
from city_envs.agents.policy_agent import PolicyAgent, baseline_path, load_policy, masked_logits  # noqa: E402
from city_envs.agents.random_agent import RandomAgent  # noqa: E402
from city_envs.agents.registry import make_agent  # noqa: E402
from city_envs.core.infoset import InfoSet  # noqa: E402
from city_envs.training.selfplay import SelfPlayEnv, TrainConfig, save_policy  # noqa: E402


@pytest.fixture(scope="module")
def citadels_model(tmp_path_factory):
    """An untrained (randomly initialised) 2-player Citadels policy: enough to test the plumbing."""
    from sb3_contrib import MaskablePPO

    env = SelfPlayEnv(TrainConfig("citadels", pool_self=0.0))
    model = MaskablePPO("MlpPolicy", env, seed=3, device="cpu", policy_kwargs={"net_arch": [32]})
    return str(save_policy(model, tmp_path_factory.mktemp("model") / "citadels.zip"))


def test_greedy_play_picks_the_best_legal_logit_and_finishes_games(citadels_model):
    agent = PolicyAgent(citadels_model)
    game = make_game("citadels", 2, seed=4)
    handle = InfoSet(game, 0)
    policy = load_policy(citadels_model)
    while not game.is_over():
        if game.current_player() == 0:
            logits = masked_logits(policy, handle.observation(), handle.legal_actions())
            action = agent.act(handle)
            assert game.legal_actions()[action] and logits[action] == logits.max()
        else:
            action = RandomAgent(game.seed + len(game.history)).act(InfoSet(game, 1))
        game.apply(action)


def test_play_is_reproducible_greedy_or_sampled(citadels_model):
    def histories(greedy: bool) -> list[int]:
        game = make_game("citadels", 2, seed=9)
        play_game(game, [PolicyAgent(citadels_model, seed=1, greedy=greedy), RandomAgent(2)])
        return game.history

    assert histories(True) == histories(True)
    assert histories(False) == histories(False)


def test_registry_specs_build_policy_agents(citadels_model):
    agent = make_agent(f"ppo:{citadels_model}", "citadels", 0)
    assert isinstance(agent, PolicyAgent) and agent.greedy and agent.path == citadels_model
    assert make_agent("ppo", "citadels", 0).path is None  # the committed baseline, found per player count
    sampled = make_agent(f"ppo:{citadels_model}:sample", "citadels", 0)
    assert not sampled.greedy and sampled.path == citadels_model
    baseline_sampled = make_agent("ppo:sample", "citadels", 0)
    assert not baseline_sampled.greedy and baseline_sampled.path is None


def test_wrong_files_and_games_are_refused(citadels_model, tmp_path):
    with pytest.raises(ValueError, match="no PPO model"):
        make_agent(f"ppo:{tmp_path / 'missing.zip'}", "citadels")
    game = make_game("metropolys", 2, seed=0)
    with pytest.raises(ValueError, match="expects"):
        PolicyAgent(citadels_model).act(InfoSet(game, game.current_player()))
    seven = make_game("citadels", 7, seed=0)
    assert not baseline_path("citadels", 7).exists()
    with pytest.raises(ValueError, match="no PPO baseline for citadels with 7 players"):
        make_agent("ppo", "citadels").act(InfoSet(seven, seven.current_player()))


def test_a_pickled_agent_reloads_its_policy_and_continues_the_same(citadels_model):
    agent = PolicyAgent(citadels_model, seed=5, greedy=False)
    game = make_game("citadels", 2, seed=1)
    handle = InfoSet(game, game.current_player())
    twin = pickle.loads(pickle.dumps(agent))
    assert [agent.act(handle) for _ in range(5)] == [twin.act(handle) for _ in range(5)]


def test_loading_a_policy_leaves_the_global_rngs_alone(citadels_model, tmp_path):
    copy = tmp_path / "copy.zip"
    copy.write_bytes(Path(citadels_model).read_bytes())
    torch.manual_seed(11)
    np.random.seed(11)
    random.seed(11)
    expected = torch.rand(1), np.random.rand(), random.random()
    torch.manual_seed(11)
    np.random.seed(11)
    random.seed(11)
    load_policy(copy)  # a fresh path: really loaded, not cached
    assert (torch.rand(1), np.random.rand(), random.random()) == expected
