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
from city_envs.agents.policy_file import (  # noqa: E402
    PolicyFileError,
    build_policy,
    convert_sb3_zip,
    read_metadata,
    save_policy,
)
from city_envs.agents.random_agent import RandomAgent  # noqa: E402
from city_envs.agents.registry import make_agent  # noqa: E402
from city_envs.core.infoset import InfoSet  # noqa: E402


def untrained_policy(game: str = "citadels", arch=(32,)):
    probe = make_game(game, 2, seed=0)
    torch.manual_seed(3)
    return build_policy(probe.observation_shape, probe.num_actions, list(arch))


@pytest.fixture(scope="module")
def citadels_model(tmp_path_factory):
    """An untrained (randomly initialised) 2-player Citadels policy file: enough to test the plumbing."""
    path = tmp_path_factory.mktemp("model") / "citadels.safetensors"
    return str(save_policy(untrained_policy(), path, game="citadels", players=2, net_arch=[32], activation="tanh"))


def sb3_zip(path: Path) -> Path:
    from sb3_contrib import MaskablePPO

    from city_envs.training.pool import OpponentPool
    from city_envs.training.vec_env import SelfPlayVecEnv

    env = SelfPlayVecEnv("citadels", 2, 1, seed=0, pool=OpponentPool("citadels", {"random": 1.0}))
    model = MaskablePPO("MlpPolicy", env, seed=3, device="cpu", policy_kwargs={"net_arch": [32]})
    model.save(path)
    return path


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
    with pytest.raises(PolicyFileError, match="no policy file"):
        make_agent(f"ppo:{tmp_path / 'missing.safetensors'}", "citadels")
    (tmp_path / "junk.safetensors").write_bytes(b"not a safetensors file")
    with pytest.raises(PolicyFileError, match="not a safetensors policy file"):
        make_agent(f"ppo:{tmp_path / 'junk.safetensors'}", "citadels")
    from safetensors.torch import save_file

    save_file({"x": torch.zeros(2)}, str(tmp_path / "other.safetensors"), metadata={"format": "something-else"})
    with pytest.raises(PolicyFileError, match="not a city-envs policy"):
        make_agent(f"ppo:{tmp_path / 'other.safetensors'}", "citadels")
    with pytest.raises(ValueError, match="one path at most"):
        make_agent("ppo:a.safetensors:b.safetensors", "citadels")
    game = make_game("metropolys", 2, seed=0)
    with pytest.raises(PolicyFileError, match="field 'game' is 'citadels', but it is asked to play metropolys"):
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


def test_a_policy_file_holds_its_spaces_network_and_metadata(citadels_model):
    meta = read_metadata(citadels_model)
    assert (meta["game"], meta["players"], meta["num_actions"]) == ("citadels", 2, 376)
    assert meta["net_arch"] == {"pi": [32], "vf": [32]} and meta["observation_shape"] == (621,)


def test_a_pickled_sb3_zip_loads_only_when_trusted_and_converts_to_the_same_play(tmp_path):
    path = sb3_zip(tmp_path / "model.zip")
    with pytest.raises(PolicyFileError, match="can run any code"):
        make_agent(f"ppo:{path}", "citadels")
    trusted = make_agent(f"ppo:{path}:trust_pickle", "citadels", 0)
    converted = convert_sb3_zip(path, tmp_path / "model.safetensors", "citadels", 2)
    plain = make_agent(f"ppo:{converted}", "citadels", 0)
    game = make_game("citadels", 2, seed=3)
    for _ in range(30):
        handle = InfoSet(game, game.current_player())
        action = trusted.act(handle)
        assert plain.act(handle) == action
        game.apply(action)


def test_a_crafted_zip_runs_nothing_unless_trusted(tmp_path):
    """A zip whose data would run code when unpickled is refused before anything is read."""
    import zipfile

    class Payload:
        def __reduce__(self):
            return (Path.write_text, (tmp_path / "pwned", "ran"))

    crafted = tmp_path / "crafted.zip"
    with zipfile.ZipFile(crafted, "w") as archive:
        archive.writestr("data", pickle.dumps(Payload()))
    with pytest.raises(PolicyFileError, match="can run any code"):
        PolicyAgent(crafted)
    renamed = tmp_path / "crafted.safetensors"
    renamed.write_bytes(crafted.read_bytes())
    with pytest.raises(PolicyFileError):
        PolicyAgent(renamed)
    assert not (tmp_path / "pwned").exists()


def test_loading_a_policy_leaves_the_global_rngs_alone(tmp_path):
    copy = sb3_zip(tmp_path / "copy.zip")
    torch.manual_seed(11)
    np.random.seed(11)
    random.seed(11)
    expected = torch.rand(1), np.random.rand(), random.random()
    torch.manual_seed(11)
    np.random.seed(11)
    random.seed(11)
    load_policy(copy, trust_pickle=True)  # SB3's loader reseeds the globals; ours puts them back
    assert (torch.rand(1), np.random.rand(), random.random()) == expected
    # building the network of a policy file draws initial weights: that must not move the globals either
    path = save_policy(
        untrained_policy(), tmp_path / "p.safetensors", game="citadels", players=2, net_arch=[32], activation="tanh"
    )
    torch.manual_seed(11)
    load_policy(path)
    assert torch.rand(1) == expected[0]
