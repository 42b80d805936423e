"""SelfPlayVecEnv's transitions from the native batch: the trainer's SB3 `VecEnv`.

`BatchVecEnv` takes SelfPlayVecEnv's arguments and gives the same observations, masks, rewards, dones
and infos for the same seed (`city_envs/core/vector.py` says how the batch reproduces the slots'
draws), but plays the random and heuristic opponents inside the native engine with the GIL released.
Snapshot opponents (the pool's `self` kind) move in SelfPlayVecEnv's rounds: each round the batch hands
over the matches waiting on a snapshot, and each snapshot is evaluated in one forward pass over the
same rows SelfPlayVecEnv evaluates together (torch gives a row other last bits in a batch of another
size), its softmax computed as `pick_action` computes it; the seat's generator then samples in C++. Its
`get_state` is SelfPlayVecEnv's, so a checkpoint resumes on either env. A privileged critic (every
seat's observation for the learner) needs SelfPlayVecEnv.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import gymnasium as gym
import numpy as np

from city_envs.agents.policy_agent import batch_logits, load_policy
from city_envs.core.vector import NativeBatch
from city_envs.training.config import REWARDS
from city_envs.training.pool import OpponentPool
from city_envs.training.vec_env import SlotsVecEnv, StepResult, check_env_state


def batch_supports(privileged: bool = False) -> bool:
    """Whether `BatchVecEnv` can give the learner its observations: not a privileged critic's."""
    return not privileged


def softmax_rows(logits: np.ndarray) -> np.ndarray:
    """`pick_action`'s sampling distribution of each row of masked logits, in its float32 arithmetic."""
    probs = np.exp(logits - logits.max(axis=1, keepdims=True))
    return probs / probs.sum(axis=1, keepdims=True)


class BatchVecEnv(SlotsVecEnv):
    """`n_envs` matches of `game` against `pool`'s native opponents (see the module docstring)."""

    render_mode = None  # training matches are not drawn

    def __init__(
        self,
        game: str,
        players: int,
        n_envs: int,
        seed: int,
        pool: OpponentPool,
        options: dict | None = None,
        reward: str = "win",
        score_scale: float = 0.0,
        first_index: int = 0,
        privileged: bool = False,
    ) -> None:
        if reward not in REWARDS:
            raise ValueError(f"invalid reward {reward!r}; allowed: {', '.join(REWARDS)}")
        if not batch_supports(privileged):
            raise ValueError("the native batch gives no privileged critic's observations: use SelfPlayVecEnv")
        self.pool = pool
        self.batch = NativeBatch(game, players, n_envs, seed, pool.weights, options, reward, score_scale, first_index)
        self.game_name, self.players, self.privileged = game, self.batch.players, False
        self.indices = [first_index + i for i in range(n_envs)]
        observation_space = gym.spaces.Box(-np.inf, np.inf, (self.batch.observation_size,), np.float32)
        super().__init__(n_envs, observation_space, gym.spaces.Discrete(self.batch.num_actions))
        self._actions: np.ndarray | None = None
        self._kinds: list[list[str]] = [[] for _ in range(n_envs)]
        self._probabilities = np.zeros((n_envs, self.batch.num_actions), dtype=np.float32)

    def _sync_pool(self) -> None:
        """The pool's current snapshots for the matches the batch starts next."""
        if self.batch.snapshots != self.pool.snapshots:
            self.batch.set_snapshots(self.pool.snapshots)

    def _answer(self, count: int) -> None:
        """Play the batch's snapshot requests, round after round, until its reset or step is done."""
        batch = self.batch
        while count:
            rows: dict[str, list[int]] = defaultdict(list)
            for row, snapshot in enumerate(batch.request_snapshots(count)):
                rows[snapshot].append(row)
            for snapshot, picked in rows.items():
                index = np.asarray(picked)
                logits = batch_logits(
                    load_policy(snapshot), batch.request_observations[index], batch.request_masks[index]
                )
                self._probabilities[index] = softmax_rows(logits)
            count = batch.answer(self._probabilities[:count])

    def reset(self) -> np.ndarray:
        self._sync_pool()
        self._answer(self.batch.reset())
        self._kinds = [self.batch.seat_kinds(i) for i in range(self.num_envs)]
        return self.batch.observations.copy()

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions)

    def step(self, actions: np.ndarray) -> StepResult:
        """VecEnv's `step`, with this env's narrower result: its observations are never a dict or tuple."""
        self.step_async(actions)
        return self.step_wait()

    def step_wait(self) -> StepResult:
        actions, self._actions = self._actions, None
        if actions is None or len(actions) != self.num_envs:
            raise ValueError(f"step needs one action per env ({self.num_envs})")
        batch = self.batch
        self._sync_pool()
        self._answer(batch.step(actions))
        dones = batch.terminated | batch.truncated
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        for i in np.flatnonzero(dones).tolist():
            infos[i] = {
                "terminal_observation": batch.final_observations[i].copy(),
                "TimeLimit.truncated": False,  # as SelfPlayVecEnv reports a match stopped by its safety valve
                "win": float(batch.wins[i]),
                "opponents": [kind for kind in self._kinds[i]],
            }
            self._kinds[i] = batch.seat_kinds(i)
        # copies: SB3 keeps the previous step's arrays while the batch overwrites its own
        return batch.observations.copy(), batch.rewards.copy(), dones, infos

    def action_masks(self) -> np.ndarray:
        return self.batch.masks.copy()

    def close(self) -> None:
        pass

    def get_state(self) -> dict:
        """Everything that decides the env's future, as SelfPlayVecEnv's `get_state` writes it."""
        return {
            "game": self.game_name,
            "players": self.players,
            "seed": self.batch.seed,
            "indices": self.indices,
            "privileged": False,
            "slots": self.batch.slot_states(),
        }

    def set_state(self, state: dict) -> np.ndarray:
        """Restore `get_state` (of this env or a SelfPlayVecEnv of the same arguments); returns the
        observations."""
        check_env_state(state, self.game_name, self.players, self.indices, False)
        self.batch.set_slot_states(state["slots"])
        self._kinds = [self.batch.seat_kinds(i) for i in range(self.num_envs)]
        return self.batch.observations.copy()
