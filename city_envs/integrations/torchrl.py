"""TorchRL: a game as TorchRL's `PettingZooWrapper(use_mask=True)`, and a masked policy for it.

An AEC env needs `use_mask=True`: each step, the seat that acts has `mask` True and its `action_mask`
is the game's; the other seats' actions are ignored. TorchRL puts each seat in its own group
(`player_0`, `player_1`, ...) and updates the action spec's mask, so `env.rand_action` and
`env.rollout()` without a policy play legal random moves. `masked_policy` samples every group's action
from a `MaskedCategorical` over one shared network (self-play), ready for TorchRL's losses.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tensordict.nn import TensorDictModule, TensorDictSequential
from torch import nn
from torchrl.envs.libs.pettingzoo import PettingZooWrapper
from torchrl.modules import MLP, MaskedCategorical, ProbabilisticActor

import city_envs


def torchrl_env(name: str, num_players: int, seed: int | None = None, **options: Any) -> PettingZooWrapper:
    """The game's wrapped PettingZoo env inside TorchRL's `PettingZooWrapper`, masks on."""
    return PettingZooWrapper(city_envs.make_env(name, num_players, **options), use_mask=True, seed=seed)


def masked_policy(env: PettingZooWrapper, hidden: Sequence[int] = (256, 256)) -> TensorDictSequential:
    """One actor per group over a shared MLP; writes (group, "action") and (group, "action_log_prob")."""
    first = next(iter(env.group_map))
    observation_size = env.observation_spec[first, "observation", "observation"].shape[-1]
    num_actions = env.full_action_spec[first, "action"].space.n
    network: nn.Module = MLP(in_features=observation_size, out_features=num_actions, num_cells=list(hidden))
    actors = []
    for group in env.group_map:
        logits = TensorDictModule(
            network, in_keys=[(group, "observation", "observation")], out_keys=[(group, "logits")]
        )
        actors.append(
            ProbabilisticActor(
                logits,
                in_keys={"logits": (group, "logits"), "mask": (group, "action_mask")},
                out_keys=[(group, "action")],
                distribution_class=MaskedCategorical,
                return_log_prob=True,
                log_prob_key=(group, "action_log_prob"),
            )
        )
    return TensorDictSequential(*actors)
