"""SelfPlayVecEnv's transitions from the native batch: the trainer's SB3 `VecEnv` when every opponent
is native (random or heuristic).

`BatchVecEnv` takes SelfPlayVecEnv's arguments and gives the same observations, masks, rewards, dones
and infos for the same seed (`city_envs/core/vector.py` says how the batch reproduces the slots'
draws), but plays each step's opponents in one native call with the GIL released. Its `get_state`
is SelfPlayVecEnv's, so a checkpoint resumes on either env. A pool that can draw snapshot opponents
(`self` weight above 0) or a privileged critic needs SelfPlayVecEnv.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

from city_envs.core.vector import NativeBatch
from city_envs.training.config import REWARDS
from city_envs.training.pool import OpponentPool
from city_envs.training.vec_env import SlotsVecEnv, StepResult, check_env_state


def batch_supports(pool: OpponentPool, privileged: bool = False) -> bool:
    """Whether `BatchVecEnv` can play this pool: no snapshot opponents and no privileged critic."""
    return pool.weights["self"] == 0 and not privileged


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
        if not batch_supports(pool, privileged):
            raise ValueError(
                "the native batch plays no snapshot opponents and no privileged critic: use SelfPlayVecEnv"
            )
        weights = {kind: pool.weights[kind] for kind in ("heuristic", "random")}
        self.batch = NativeBatch(game, players, n_envs, seed, weights, options, reward, score_scale, first_index)
        self.game_name, self.players, self.privileged = game, self.batch.players, False
        self.indices = [first_index + i for i in range(n_envs)]
        observation_space = gym.spaces.Box(-np.inf, np.inf, (self.batch.observation_size,), np.float32)
        super().__init__(n_envs, observation_space, gym.spaces.Discrete(self.batch.num_actions))
        self._actions: np.ndarray | None = None
        self._kinds: list[list[str]] = [[] for _ in range(n_envs)]

    def reset(self) -> np.ndarray:
        self.batch.reset()
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
        batch.step(actions)
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
        """Restore `get_state` (of this env or a SelfPlayVecEnv of the same arguments without snapshot
        opponents); returns the observations."""
        check_env_state(state, self.game_name, self.players, self.indices, False)
        self.batch.set_slot_states(state["slots"])
        self._kinds = [self.batch.seat_kinds(i) for i in range(self.num_envs)]
        return self.batch.observations.copy()
