"""TorchRL recipe: every game passes TorchRL's `check_env_specs` inside `PettingZooWrapper(use_mask=True)`,
plays whole matches of masked random moves, and a masked policy plays and takes a gradient step.
The env raises on illegal actions (its default), so every sampled action respected the mask."""

from __future__ import annotations

import pytest

pytest.importorskip("torch")
pytest.importorskip("torchrl")

import torch  # noqa: E402
from torchrl.envs.utils import check_env_specs  # noqa: E402

import city_envs  # noqa: E402
from city_envs.integrations.torchrl import masked_policy, torchrl_env  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::UserWarning")

CONFIGS = [(name, 2) for name in city_envs.GAMES] + [("citadels", 5), ("metropolys", 4)]
# The safety valves keep the random matches to a few hundred steps.
SHORT = {"citadels": {"max_rounds": 2}, "blue_moon_city": {"max_rounds": 2}, "urban_sprawl": {"max_turns": 12}}


@pytest.mark.parametrize(("name", "num_players"), CONFIGS)
def test_specs_and_random_masked_match(name, num_players):
    env = torchrl_env(name, num_players, seed=0, **SHORT.get(name, {}))
    assert set(env.group_map) == {f"player_{seat}" for seat in range(num_players)}
    check_env_specs(env)
    rollout = env.rollout(1000, break_when_any_done=True)
    assert rollout["next", "done"][-1].all(), "the random match reached its end"
    acting = torch.stack([rollout[group, "mask"] for group in env.group_map], dim=0).sum(dim=0)
    assert (acting == 1).all(), "exactly one seat acts at every step"


@pytest.mark.parametrize(("name", "num_players"), CONFIGS[:5])
def test_masked_policy_plays_and_learns(name, num_players):
    torch.manual_seed(0)
    env = torchrl_env(name, num_players, seed=1)
    policy = masked_policy(env, hidden=(32,))
    rollout = env.rollout(60, policy=policy, break_when_any_done=False)
    assert rollout.batch_size[0] == 60
    # a REINFORCE-style step on the acting seats' log-probabilities: gradients reach the shared network
    log_probs = torch.cat([rollout[group, "action_log_prob"][rollout[group, "mask"]] for group in env.group_map])
    assert len(log_probs) == 60 and torch.isfinite(log_probs).all()
    parameters = list(policy.parameters())
    before = [p.detach().clone() for p in parameters]
    optimizer = torch.optim.Adam(parameters, lr=1e-2)
    (-log_probs.mean()).backward()
    optimizer.step()
    assert any(not torch.equal(b, p) for b, p in zip(before, parameters, strict=True))
