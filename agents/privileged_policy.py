"""An actor-critic whose critic reads every seat's observation while its actor reads the seat's own.

PerfectDou's "perfect training, imperfect execution": a value network that sees every hand estimates
a state's worth without the noise of what the seat cannot see, so PPO's advantages are sharper, and
only the actor is needed to play. The training env hands the learner `all_seats_observation`
(`city_envs/core/privileged.py`), whose first block is the seat's own observation; the actor's
layers read that block only, the critic's layers the whole vector. A policy file keeps both: the
actor plays from the seat's observation alone (its `observation_shape`), and the critic (metadata
`critic_input = "all_seats"`) values a match through `all_seats_observation`.

Everything else is sb3-contrib's `MaskableActorCriticPolicy` (or the entity head's policy), so
MaskablePPO, snapshots and the policy file format use it as they use the plain one.
"""

from __future__ import annotations

import math
from typing import Any

import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import MlpExtractor
from torch import nn

from city_envs.agents.entity_policy import EntityActorCriticPolicy
from city_envs.agents.network_spec import normalize_net_arch


class SeatActorMlpExtractor(MlpExtractor):
    """SB3's extractor with the actor's layers on the first `seat_size` features (the seat's own
    observation) and the critic's on all `critic_size` of them."""

    def __init__(
        self,
        seat_size: int,
        critic_size: int,
        net_arch: dict[str, list[int]],
        activation_fn: type[nn.Module],
        device: torch.device | str = "auto",
    ) -> None:
        super().__init__(seat_size, net_arch, activation_fn, device)
        critic = MlpExtractor(critic_size, {"pi": [], "vf": net_arch["vf"]}, activation_fn, device)
        self.value_net, self.latent_dim_vf = critic.value_net, critic.latent_dim_vf
        self.seat_size = seat_size

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        return self.policy_net(features[:, : self.seat_size])


class SeatEntityMlpExtractor(SeatActorMlpExtractor):
    """The same, whose actor output also carries the seat's raw observation, as the entity head reads
    it (`entity_policy.EntityMlpExtractor`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.feature_dim = self.seat_size
        self.latent_dim_pi += self.seat_size

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        seat = features[:, : self.seat_size]
        return torch.cat([self.policy_net(seat), seat], dim=1)


class PrivilegedActorCriticPolicy(MaskableActorCriticPolicy):
    """`MaskableActorCriticPolicy` whose critic reads `critic_size` inputs (every seat's observation)
    and whose actor reads the first `prod(seat_shape)` of them. Its observation space is the
    all-seats vector in training and the seat's own observation when loaded to play."""

    critic_input = "all_seats"

    def __init__(self, *args: Any, seat_shape: tuple[int, ...], critic_size: int, **kwargs: Any) -> None:
        self.seat_shape = tuple(int(n) for n in seat_shape)
        self.critic_size = int(critic_size)
        super().__init__(*args, **kwargs)

    def _build_mlp_extractor(self) -> None:
        self.mlp_extractor = SeatActorMlpExtractor(
            math.prod(self.seat_shape),
            self.critic_size,
            normalize_net_arch(self.net_arch),
            self.activation_fn,
            self.device,
        )

    def _get_constructor_parameters(self) -> dict[str, Any]:
        return {**super()._get_constructor_parameters(), "seat_shape": self.seat_shape, "critic_size": self.critic_size}


class PrivilegedEntityActorCriticPolicy(PrivilegedActorCriticPolicy, EntityActorCriticPolicy):
    """The privileged critic with the entity head as the actor's action net."""

    def _build_mlp_extractor(self) -> None:
        self.mlp_extractor = SeatEntityMlpExtractor(
            math.prod(self.seat_shape),
            self.critic_size,
            normalize_net_arch(self.net_arch),
            self.activation_fn,
            self.device,
        )


def widen_critic(seat_state: dict[str, torch.Tensor], policy: PrivilegedActorCriticPolicy) -> dict[str, torch.Tensor]:
    """A plain policy's state dict (critic on the seat's observation) made to fit `policy`: the critic's
    first layer keeps its weights on the seat's own block and gets zeros on the other seats', so the
    privileged critic starts out valuing every state as the plain one did (the warm start's critic is
    not lost) and learns from the other hands during PPO."""
    state = dict(seat_state)
    first = "mlp_extractor.value_net.0.weight" if normalize_net_arch(policy.net_arch)["vf"] else "value_net.weight"
    seat = state[first]
    wide = torch.zeros((seat.shape[0], policy.critic_size), dtype=seat.dtype)
    wide[:, : seat.shape[1]] = seat
    state[first] = wide
    return state
