"""An actor-critic whose actions on board entities are scored by one shared network.

A flat policy head learns the logit of "move to position 17" from a latent vector that has to carry
what is at every position; the same judgement (can my hand pay there? is a dragon there?) is learnt
21 times over, once per output row, and a clone of a heuristic stalls on exactly those choices. Here,
as DouZero scores each candidate move with one network, a small MLP reads one entity's rows of the
observation (`EntityLayout`), the entity's index (one-hot), the layout's context values (read by every
entity alike) and the actor's latent vector, and writes one score per action group; the score of
entity k in group g is added to the flat logit of action `action_starts[g] + k`. Everything else is
sb3-contrib's `MaskableActorCriticPolicy`, so MaskablePPO, the warm start and the policy file format
use it as they use the plain one.

The head's spec is plain JSON (the layout plus `hidden`, the shared MLP's layer sizes; checked by
`network_spec.check_entity_head`); a policy file stores it, so loading a file builds the same network
and runs no code.
"""

from __future__ import annotations

from typing import Any, cast

import torch
from gymnasium import spaces
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import MlpExtractor
from torch import nn
from torch.nn import functional

from city_envs.agents.network_spec import check_entity_head


def row_indices(spec: dict) -> list[list[int]]:
    """Entity k's observation indices: its row of every block, joined."""
    return [
        [offset + k * width + j for offset, width in spec["rows"] for j in range(width)] for k in range(spec["count"])
    ]


def context_indices(spec: dict) -> list[int]:
    """The observation indices the context slices name, in order."""
    return [i for begin, stop, step in spec["context"] for i in range(begin, stop, step)]


class EntityMlpExtractor(MlpExtractor):
    """SB3's extractor, whose actor output also carries the raw features (the entity rows live there)."""

    def __init__(self, feature_dim: int, *args: Any, **kwargs: Any) -> None:
        super().__init__(feature_dim, *args, **kwargs)
        self.feature_dim = feature_dim
        self.latent_dim_pi += feature_dim

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        return torch.cat([self.policy_net(features), features], dim=1)


class EntityActionNet(nn.Module):
    """Flat logits from the latent vector, plus the shared score of each entity's actions."""

    # buffers (`register_buffer`), declared so that they read as tensors rather than as Module attributes
    rows: torch.Tensor
    context: torch.Tensor
    targets: torch.Tensor

    def __init__(self, latent_dim: int, num_actions: int, spec: dict, activation_fn: type[nn.Module]) -> None:
        super().__init__()
        self.latent_dim, self.spec = latent_dim, spec
        self.flat = nn.Linear(latent_dim, num_actions)
        count = spec["count"]
        rows, context = row_indices(spec), context_indices(spec)
        layers: list[nn.Module] = []
        size = len(rows[0]) + count + len(context) + latent_dim
        for hidden in spec["hidden"]:
            layers += [nn.Linear(size, hidden), activation_fn()]
            size = hidden
        last = nn.Linear(size, len(spec["action_starts"]))
        self.scorer = nn.Sequential(*layers, last)
        self.register_buffer("rows", torch.tensor(rows, dtype=torch.long), persistent=False)
        self.register_buffer("context", torch.tensor(context, dtype=torch.long), persistent=False)
        # group-major, as the scores are flattened: action_starts[g] + k
        index = [start + k for start in spec["action_starts"] for k in range(count)]
        self.register_buffer("targets", torch.tensor(index, dtype=torch.long), persistent=False)
        for output in (self.flat, last):
            nn.init.orthogonal_(output.weight, gain=0.01)
            nn.init.zeros_(output.bias)

    def forward(self, latent_and_features: torch.Tensor) -> torch.Tensor:
        latent = latent_and_features[:, : self.latent_dim]
        features = latent_and_features[:, self.latent_dim :]
        batch, count = latent.shape[0], self.spec["count"]
        rows = features[:, self.rows]  # (batch, count, features of one entity)
        shared = torch.cat([features[:, self.context], latent], dim=1)  # (batch, context + latent)
        # The scorer's first layer reads [entity row, one-hot index, shared] for every entity. Split by
        # those parts, it is the row's product per entity, the index's column, and the shared part's
        # product once per sample: the same sum without copying the shared inputs to every entity.
        first = cast(nn.Linear, self.scorer[0])
        on_rows, on_index, on_shared = first.weight.split([rows.shape[2], count, shared.shape[1]], dim=1)
        hidden = (
            functional.linear(rows, on_rows)
            + on_index.T
            + functional.linear(shared, on_shared, first.bias).unsqueeze(1)
        )
        scores = self.scorer[1:](hidden).transpose(1, 2).reshape(batch, -1)  # (batch, groups * count)
        return self.flat(latent).index_add(1, self.targets, scores)


class EntityActorCriticPolicy(MaskableActorCriticPolicy):
    """`MaskableActorCriticPolicy` with the entity head as its action net (`entity_head`: the spec)."""

    def __init__(self, *args: Any, entity_head: dict, **kwargs: Any) -> None:
        self.entity_head = dict(entity_head)
        super().__init__(*args, **kwargs)

    def _build_mlp_extractor(self) -> None:
        self.mlp_extractor = EntityMlpExtractor(
            self.features_dim, net_arch=self.net_arch, activation_fn=self.activation_fn, device=self.device
        )

    def _build(self, lr_schedule) -> None:
        super()._build(lr_schedule)
        # the raw features the actor hands on are the seat's observation (all of the input, or its first
        # block under a privileged critic): the head's rows index into them
        seat_size = cast(int, self.mlp_extractor.feature_dim)
        latent_dim = self.mlp_extractor.latent_dim_pi - seat_size
        if not isinstance(self.action_space, spaces.Discrete):
            raise TypeError(f"the entity head scores a Discrete action space, not {self.action_space}")
        num_actions = int(self.action_space.n)
        spec = check_entity_head(self.entity_head, seat_size, num_actions)
        self.action_net = EntityActionNet(latent_dim, num_actions, spec, self.activation_fn)
        # SB3 types optimizer_class as type[Optimizer], whose base __init__ has no `lr` (every concrete
        # optimizer has); SB3's own _build ignores the same call
        self.optimizer = self.optimizer_class(
            self.parameters(),
            lr=lr_schedule(1),  # type: ignore[call-arg]
            **self.optimizer_kwargs,
        )

    def _get_constructor_parameters(self) -> dict[str, Any]:
        return {**super()._get_constructor_parameters(), "entity_head": self.entity_head}
