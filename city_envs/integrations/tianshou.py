"""Tianshou (2.x): a game as Tianshou's `PettingZooEnv`, and a multi-agent algorithm in which one seat
learns with masked DQN while the other seats play masked random moves.

Tianshou's `PettingZooEnv` passes each observation on as `{"agent_id", "obs", "mask"}`; its
`MultiAgentOffPolicyAlgorithm` (the multi-agent policy manager) routes each decision to the acting
seat's algorithm, and DQN's policy reads `obs.mask` to keep its choices (greedy and exploratory)
legal. Replace the random seats by other learners, or by frozen copies of the learner, for self-play.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tianshou.algorithm import DQN, MARLRandomDiscreteMaskedOffPolicyAlgorithm, MultiAgentOffPolicyAlgorithm
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.env.pettingzoo_env import PettingZooEnv
from tianshou.utils.net.common import Net

import city_envs


def tianshou_env(name: str, num_players: int, **options: Any) -> PettingZooEnv:
    """The game's wrapped PettingZoo env inside Tianshou's `PettingZooEnv`."""
    return PettingZooEnv(city_envs.make_env(name, num_players, **options))


def dqn_against_random(
    name: str,
    num_players: int,
    *,
    learner_seat: int = 0,
    hidden: Sequence[int] = (256, 256),
    lr: float = 1e-4,
    gamma: float = 0.99,
    eps_training: float = 0.1,
    target_update_freq: int = 320,
    **options: Any,
) -> MultiAgentOffPolicyAlgorithm:
    """Seat `learner_seat` learns with masked DQN, the others play masked random legal moves."""
    env = tianshou_env(name, num_players, **options)
    if not 0 <= learner_seat < num_players:
        raise ValueError(f"learner_seat must be a seat 0..{num_players - 1}, not {learner_seat!r}")
    net = Net(
        state_shape=env.observation_space["observation"].shape,
        action_shape=env.action_space.n,
        hidden_sizes=list(hidden),
    )
    policy = DiscreteQLearningPolicy(
        model=net, action_space=env.action_space, eps_training=eps_training, eps_inference=0.0
    )
    learner = DQN(
        policy=policy, optim=AdamOptimizerFactory(lr=lr), gamma=gamma, target_update_freq=target_update_freq
    )
    algorithms = [
        learner if seat == learner_seat else MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space)
        for seat in range(num_players)
    ]
    return MultiAgentOffPolicyAlgorithm(algorithms=algorithms, env=env)
