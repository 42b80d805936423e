"""Tianshou (2.x): a game as Tianshou's `PettingZooEnv` with its multi-agent policy manager, and the
single-seat masked DQN the benchmark trains (`train_dqn`).

Tianshou's `PettingZooEnv` passes each observation on as `{"agent_id", "obs", "mask"}`; its
`MultiAgentOffPolicyAlgorithm` (the multi-agent policy manager) routes each decision to the acting
seat's algorithm, and DQN's policy reads `obs.mask` to keep its choices (greedy and exploratory)
legal. In a turn-based game the manager stores each transition with the *next* seat's observation
and the reward of that one move, so a learner among other seats bootstraps from its opponents'
positions and misses the outcomes that fall on their moves: use it for several learners of one
team, or with care. `train_dqn` instead gives DQN one seat whose env plays the other seats
(`city_envs.single_agent.SingleAgentEnv`), so every transition runs from one of its turns to its next.
"""

from __future__ import annotations

import contextlib
import io
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, SupportsFloat

import gymnasium as gym
import numpy as np
import torch
from tianshou.algorithm import DQN, MARLRandomDiscreteMaskedOffPolicyAlgorithm, MultiAgentOffPolicyAlgorithm
from tianshou.algorithm.algorithm_base import OffPolicyAlgorithm
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.data import Collector, CollectStats, VectorReplayBuffer
from tianshou.data.types import RolloutBatchProtocol
from tianshou.env import DummyVectorEnv
from tianshou.env.pettingzoo_env import PettingZooEnv
from tianshou.trainer import OffPolicyTrainerParams
from tianshou.utils.net.common import Net

import city_envs
from city_envs.single_agent import SingleAgentEnv


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
    learner = DQN(policy=policy, optim=AdamOptimizerFactory(lr=lr), gamma=gamma, target_update_freq=target_update_freq)
    algorithms: list[OffPolicyAlgorithm] = [
        learner if seat == learner_seat else MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space)
        for seat in range(num_players)
    ]
    return MultiAgentOffPolicyAlgorithm(algorithms=algorithms, env=env)


class MaskedSeat(gym.Wrapper):
    """One seat of a match (`SingleAgentEnv`, the other seats played inside it) with its observation
    as Tianshou's masked DQN reads it: `{"obs": the seat's observation, "mask": its legal actions}`."""

    def __init__(self, env: SingleAgentEnv) -> None:
        super().__init__(env)
        self.observation_shape: tuple[int, ...] = env.game.observation_shape
        self.num_actions: int = env.game.num_actions
        self.observation_space = gym.spaces.Dict(
            {"obs": env.observation_space, "mask": gym.spaces.MultiBinary(self.num_actions)}
        )

    def reset(self, **kwargs: Any) -> tuple[dict, dict]:
        observation, info = self.env.reset(**kwargs)
        return {"obs": observation, "mask": info["action_mask"]}, info

    def step(self, action: Any) -> tuple[dict, SupportsFloat, bool, bool, dict]:
        observation, reward, terminated, truncated, info = self.env.step(int(action))
        return {"obs": observation, "mask": info["action_mask"]}, reward, terminated, truncated, info


def masked_seat_env(name: str, num_players: int, **options: Any) -> MaskedSeat:
    """A seat drawn for every episode, the others playing masked random moves inside the env."""
    return MaskedSeat(SingleAgentEnv(name, num_players, seat=None, **options))


class NewEntriesNullCheck(VectorReplayBuffer):
    """A `VectorReplayBuffer` whose `hasnull()` looks only at the entries added since it last answered.

    Tianshou's off-policy trainer asks after every collection, and the stock answer copies every
    stored transition (observations twice) to look for NaNs: once the buffer is full, up to about
    half of `train_dqn`'s time (docs/benchmark.md). An entry found clean stays so until an `add`
    overwrites it, and the trainer stops at the first NaN, so it stops at the same collection either way."""

    def __init__(self, total_size: int, buffer_num: int, **kwargs: Any) -> None:
        super().__init__(total_size, buffer_num, **kwargs)
        self._unchecked: list[np.ndarray] = []

    def add(
        self, batch: RolloutBatchProtocol, buffer_ids: np.ndarray | list[int] | None = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        added = super().add(batch, buffer_ids)
        self._unchecked.append(added[0])
        return added

    def hasnull(self) -> bool:
        if not self._unchecked:
            return False
        indices = np.unique(np.concatenate(self._unchecked))
        self._unchecked.clear()
        return bool(self[indices].hasnull())


def train_dqn(
    name: str,
    num_players: int,
    seed: int,
    steps: Sequence[int],
    out: Path,
    *,
    hidden: Sequence[int] = (256, 256),
    lr: float = 1e-4,
    gamma: float = 0.99,
    eps_training: float = 0.1,
    target_update_freq: int = 320,
    envs: int = 8,
    buffer_size: int = 20_000,
    steps_per_collect: int = 1_000,
    **options: Any,
) -> list[Path]:
    """Masked DQN for one seat against random seats (`masked_seat_env`), trained to each of `steps`
    (the learner's own moves) and saved at each as `q_<steps>.safetensors` (tensors and JSON metadata,
    nothing pickled) for `QNetworkAgent`. The envs are collected `steps_per_collect` steps at a time,
    then trained on a tenth as many minibatches (the trainer checks the new transitions for NaNs after
    each collection: `NewEntriesNullCheck`). Seeded (torch, numpy, the envs); a rerun of the same call
    gives the same networks on one torch thread."""
    from safetensors.torch import save_file

    if list(steps) != sorted(set(steps)) or steps[0] < 1:
        raise ValueError(f"steps must increase from at least 1, not {list(steps)}")
    torch.set_num_threads(1)  # small networks: more threads only contend
    torch.manual_seed(seed)
    np.random.seed(seed)
    probe = masked_seat_env(name, num_players, **options)
    net = Net(
        state_shape=probe.observation_shape,
        action_shape=probe.num_actions,
        hidden_sizes=list(hidden),
    )
    policy = DiscreteQLearningPolicy(
        model=net, action_space=probe.action_space, eps_training=eps_training, eps_inference=0.0
    )
    algorithm = DQN(
        policy=policy, optim=AdamOptimizerFactory(lr=lr), gamma=gamma, target_update_freq=target_update_freq
    )
    train_envs = DummyVectorEnv([lambda: masked_seat_env(name, num_players, **options) for _ in range(envs)])
    train_envs.seed(seed)
    collector = Collector[CollectStats](
        algorithm, train_envs, NewEntriesNullCheck(buffer_size, envs), exploration_noise=True
    )
    collector.reset()
    out.mkdir(parents=True, exist_ok=True)
    paths, done = [], 0
    for target in steps:
        # Tianshou 2.0 draws its gradient-update bar whatever `show_progress` says; the bar goes nowhere
        with contextlib.redirect_stderr(io.StringIO()):
            algorithm.run_training(
                OffPolicyTrainerParams(
                    training_collector=collector,
                    test_collector=None,
                    max_epochs=1,
                    epoch_num_steps=target - done,
                    collection_step_num_env_steps=steps_per_collect,
                    batch_size=64,
                    update_step_num_gradient_steps_per_sample=0.1,
                    test_in_training=False,
                    show_progress=False,
                    verbose=False,
                )
            )
        done = target
        path = out / f"q_{target:09d}.safetensors"
        metadata = {
            "game": name,
            "players": str(num_players),
            "hidden": json.dumps(list(hidden)),
            "observation_size": str(int(np.prod(probe.observation_shape))),
            "num_actions": str(probe.num_actions),
            "env_steps": str(target),
        }
        save_file({k: v.detach().contiguous() for k, v in net.state_dict().items()}, str(path), metadata=metadata)
        paths.append(path)
    return paths


def saved_networks(
    name: str, num_players: int, steps: Sequence[int], out: Path, hidden: Sequence[int] = (256, 256)
) -> list[Path] | None:
    """The Q-networks a finished `train_dqn` call of these arguments saved in `out`, one per step of
    `steps`, or None if one is missing, unreadable, or saved by another call (its game, players,
    network, step, or the game's observation and action sizes today in its metadata). Nothing else of
    the call is recorded: the caller vouches that the other settings are the same."""
    from safetensors import SafetensorError, safe_open

    probe = masked_seat_env(name, num_players)
    sizes = {"observation_size": str(int(np.prod(probe.observation_shape))), "num_actions": str(probe.num_actions)}
    paths = [out / f"q_{target:09d}.safetensors" for target in steps]
    for target, path in zip(steps, paths, strict=True):
        if not path.is_file():
            return None
        try:
            with safe_open(str(path), framework="pt") as handle:
                meta = handle.metadata() or {}
                for key in handle.keys():  # noqa: SIM118 - not a dict
                    handle.get_tensor(key)  # a file cut short fails here
        except (OSError, SafetensorError):
            return None
        wanted = {
            "game": name,
            "players": str(num_players),
            "hidden": json.dumps(list(hidden)),
            "env_steps": str(target),
            **sizes,
        }
        if any(meta.get(key) != value for key, value in wanted.items()):
            return None
    return paths


class QNetworkAgent:
    """Plays a Q-network saved by `train_dqn`: the legal action of highest value (`path=FILE` as an
    agent spec: `city_envs.integrations.tianshou:QNetworkAgent:path=FILE`)."""

    def __init__(self, seed: int | None = None, path: str = "") -> None:
        from safetensors import safe_open

        if not path or not Path(path).is_file():
            raise ValueError(f"QNetworkAgent needs path=FILE of a saved Q-network, not {path!r}")
        with safe_open(path, framework="pt") as handle:
            meta = handle.metadata() or {}
            tensors = {key: handle.get_tensor(key) for key in handle.keys()}  # noqa: SIM118 - not a dict
        try:
            self.game, self.players = meta["game"], int(meta["players"])
            self.net = Net(
                state_shape=(int(meta["observation_size"]),),
                action_shape=int(meta["num_actions"]),
                hidden_sizes=json.loads(meta["hidden"]),
            )
            self.net.load_state_dict(tensors)
        except (KeyError, ValueError, RuntimeError) as error:
            raise ValueError(f"{path} is not a Q-network saved by train_dqn ({error})") from None
        self.net.eval()
        self.path = path

    def prepare(self, info_set) -> None:
        if (info_set.game_name, info_set.num_players) != (self.game, self.players):
            raise ValueError(
                f"{self.path} is a Q-network for {self.game} with {self.players} players, not "
                f"{info_set.game_name} with {info_set.num_players}"
            )

    def act(self, info_set) -> int:
        with torch.no_grad():
            values = self.net(torch.as_tensor(info_set.observation(), dtype=torch.float32)[None])[0][0].numpy()
        return int(np.argmax(np.where(info_set.legal_actions(), values, -np.inf)))
