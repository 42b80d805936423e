"""Training matches stepped in batches by the native engine, and a Gymnasium `VectorEnv` over them.

`NativeBatch` holds `num_envs` matches of one game and player count in C++ (`native/core/batch.hpp`): in
each the learner plays one seat (rotated every match) and opponents play the others: native random or
heuristic agents, or snapshots of the learner (network policies the caller evaluates). One `step` call
applies every slot's learner action, plays the opponents until each learner is to move again, rewards
the learners and starts a new match where one ended, with the GIL released; the results are written into
arrays the batch allocates once (each call overwrites them).

The batch plays what `training/vec_env.py`'s SelfPlayVecEnv plays with an opponent pool of the same
weights, decision for decision: slot i (index = first_index + i) draws from `default_rng([seed,
index])`; its k-th match seats the learner at (k + index) % players, is dealt from
`default_rng(rng.integers(2**63))`, and gives each other seat an opponent of a kind drawn by weight
(`OpponentPool.draw`) with its own generator `default_rng(rng.integers(2**63))` and, for a snapshot, one
of the pool's snapshots drawn uniformly (`set_snapshots`). Rewards are those of SelfPlayVecEnv: `win` the
terminal `returns()` of the learner's seat, `score` and `lead` add `score_scale` x the change of its
margin over the mean or best opponent score at each step.

Snapshot opponents move in SelfPlayVecEnv's rounds: when a round reaches matches whose seat to move is a
snapshot, `step` (or `reset`, or `answer`) returns their number and leaves them as requests
(`request_slots`, `request_seats`, `request_snapshots`, `request_observations`, `request_masks`, first
rows); the caller evaluates each snapshot once over its rows and hands `answer` each request's action
probabilities (`pick_action`'s softmax), from which the seat's generator samples as `rng.choice` does.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from city_envs.core.native import NativeGame, _native, native_class, rng_state, rng_words
from city_envs.core.registry import GAMES, game_class

# the opponent kinds a batch plays, in OpponentPool's order of kinds (its draw picks by that order)
OPPONENT_KINDS = ("self", "heuristic", "random")
NATIVE_KINDS = ("heuristic", "random")
REWARDS = ("win", "score", "lead")


def opponent_cdf(weights: Mapping[str, float], snapshots: int = 0) -> tuple[list[str], list[float]]:
    """The kinds with a positive weight and their cumulative weights, as `OpponentPool.draw`'s
    `rng.choice(len(kinds), p=p / p.sum())` computes them with `snapshots` snapshots in the pool (`self`
    only once there is one; uniform random play when all are 0)."""
    unknown = sorted(set(weights) - set(OPPONENT_KINDS))
    if unknown:
        raise ValueError(f"unknown opponent kinds {unknown}; a native batch plays: {', '.join(OPPONENT_KINDS)}")
    values = {kind: float(weights.get(kind, 0.0)) for kind in OPPONENT_KINDS}
    if not all(math.isfinite(value) and value >= 0 for value in values.values()):
        raise ValueError(f"opponent weights must be finite and >= 0: {dict(weights)}")
    if snapshots == 0:
        values["self"] = 0.0
    if sum(values.values()) <= 0:
        values["random"] = 1.0
    kinds = [kind for kind in OPPONENT_KINDS if values[kind] > 0]
    p = np.array([values[kind] for kind in kinds])
    cdf = (p / p.sum()).cumsum()
    cdf /= cdf[-1]
    return kinds, [float(value) for value in cdf]


def batch_available(game: str) -> bool:
    """Whether this installation has the native batch of `game` (a known game name)."""
    return _native is not None and hasattr(_native, f"{game_class(game, 'python').__name__}Batch")


class NativeBatch:
    """`num_envs` training matches of `game` stepped by the native engine (see the module docstring).

    `observations` (num_envs x observation size, float32) and `masks` (num_envs x actions, bool) hold
    each learner's pending decision; `step` also fills `rewards`, `terminated`, `truncated`, and for the
    slots whose match ended (and was replaced) `final_observations` and `wins` (the learner's share of
    the win). These arrays are the batch's own and each call overwrites them: copy what must outlive it.
    Snapshots are named by the caller (`set_snapshots`: e.g. policy file paths); requests and slot states
    give those names.
    """

    def __init__(
        self,
        game: str,
        players: int,
        num_envs: int,
        seed: int,
        opponents: Mapping[str, float] | None = None,
        options: Mapping[str, Any] | None = None,
        reward: str = "win",
        score_scale: float = 0.0,
        first_index: int = 0,
    ) -> None:
        if game not in GAMES:
            raise ValueError(f"unknown game {game!r}; allowed: {', '.join(GAMES)}")
        if reward not in REWARDS:
            raise ValueError(f"invalid reward {reward!r}; allowed: {', '.join(REWARDS)}")
        for name, value, high in (("seed", seed, 1 << 64), ("first_index", first_index, 1 << 32)):
            if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or not 0 <= value < high:
                raise ValueError(f"{name} must be an integer in 0..{high - 1}, not {value!r}")
        if not isinstance(num_envs, (int, np.integer)) or isinstance(num_envs, bool) or not 1 <= num_envs <= 1 << 20:
            raise ValueError(f"num_envs must be an integer in 1..{1 << 20}, not {num_envs!r}")
        if not math.isfinite(score_scale):
            raise ValueError(f"score_scale must be finite, not {score_scale!r}")
        reference = game_class(game, "python")
        self.players = reference.check_num_players(players)
        self.options = reference.check_options(dict(options or {}))
        cls = native_class(reference)
        batch_type = getattr(_native, f"{reference.__name__}Batch", None)
        if cls is None or batch_type is None:
            raise ValueError(f"the native batch of {game} is not available: this installation has no native engine")
        cls(self.players, seed=0, **self.options)  # options only the deal can judge fail here, with their words
        self.game_name, self.game_class = game, cls
        self.weights = dict({"heuristic": 1.0} if opponents is None else opponents)
        self.kinds, cdf = opponent_cdf(self.weights)
        self.seed, self.first_index, self.num_envs = int(seed), int(first_index), int(num_envs)
        self.reward, self.score_scale = reward, float(score_scale)
        self._batch = batch_type(
            self.players, json.dumps(self.options), self.seed, self.first_index, self.num_envs, self.kinds, cdf, reward,
            self.score_scale,
        )  # fmt: skip
        self.snapshots: list[str] = []  # the pool's snapshots a `self` seat draws from
        self._names: list[str] = []  # every snapshot name seen, by id
        self._ids: dict[str, int] = {}
        n, size, actions = self.num_envs, cls.observation_shape[0], cls.num_actions
        self.observations = np.zeros((n, size), dtype=np.float32)
        self.masks = np.zeros((n, actions), dtype=bool)
        self.rewards = np.zeros(n, dtype=np.float32)
        self.terminated = np.zeros(n, dtype=bool)
        self.truncated = np.zeros(n, dtype=bool)
        self.final_observations = np.zeros((n, size), dtype=np.float32)
        self.wins = np.zeros(n, dtype=np.float64)
        self.request_slots = np.zeros(n, dtype=np.int64)
        self.request_seats = np.zeros(n, dtype=np.int64)
        self._request_ids = np.zeros(n, dtype=np.int64)
        self.request_observations = np.zeros((n, size), dtype=np.float32)
        self.request_masks = np.zeros((n, actions), dtype=bool)
        self._arrays = (
            self.observations, self.masks, self.rewards, self.terminated, self.truncated, self.final_observations,
            self.wins, self.request_slots, self.request_seats, self._request_ids, self.request_observations,
            self.request_masks,
        )  # fmt: skip
        self._actions = np.zeros(n, dtype=np.int64)

    @property
    def observation_size(self) -> int:
        return int(self.game_class.observation_shape[0])

    @property
    def num_actions(self) -> int:
        return int(self.game_class.num_actions)

    def _id(self, name: str) -> int:
        if name not in self._ids:
            self._ids[name] = len(self._names)
            self._names.append(name)
        return self._ids[name]

    def set_snapshots(self, names: Sequence[str]) -> None:
        """The snapshots a `self` seat of the next matches draws from (uniformly, by position, as
        `OpponentPool.draw` draws from its `snapshots`); `self` has weight only while there is one."""
        names = [str(name) for name in names]
        kinds, cdf = opponent_cdf(self.weights, len(names))
        self._batch.set_pool(kinds, cdf, [self._id(name) for name in names])
        self.snapshots = names

    def request_snapshots(self, count: int) -> list[str]:
        """The snapshot each of the first `count` requests asks to move."""
        return [self._names[i] for i in self._request_ids[:count].tolist()]

    def reset(self) -> int:
        """Start every slot's next match and play it up to its learner's first decision; returns the
        number of snapshot requests to `answer` (0: done)."""
        return int(self._batch.reset(*self._arrays))

    def step(self, actions: Any) -> int:
        """Play each slot's learner action (one legal action id per slot) and everything up to each
        learner's next decision; an illegal action is a ValueError naming its slot, and plays nothing.
        Returns the number of snapshot requests to `answer` (0: the step is done)."""
        values = np.asarray(actions)
        whole = values.dtype.kind in "iu" or (values.dtype.kind == "f" and bool(np.all(np.mod(values, 1) == 0)))
        if values.shape != (self.num_envs,) or not whole:
            raise ValueError(
                f"step needs one integer action per slot: shape ({self.num_envs},), not {values.dtype} {values.shape}"
            )
        if values.size and (values.min() < 0 or values.max() >= self.num_actions):
            raise ValueError(f"actions must be in 0..{self.num_actions - 1}")
        self._actions[:] = values
        return int(self._batch.step(self._actions, *self._arrays))

    def answer(self, probabilities: np.ndarray) -> int:
        """Each pending request's seat plays an action sampled from its row of `probabilities` (float32,
        one row per request: a distribution over its legal actions), then the step goes on; returns the
        next round's requests (0: done). Bad rows are a ValueError naming the request, and play nothing."""
        rows = np.ascontiguousarray(probabilities, dtype=np.float32)
        if rows.ndim != 2 or rows.shape[1] != self.num_actions:
            raise ValueError(f"probabilities need one row of {self.num_actions} per request, not shape {rows.shape}")
        return int(self._batch.answer(rows, *self._arrays))

    def learner(self, slot: int) -> int:
        """The seat the learner plays in `slot`'s match."""
        return int(self._batch.slot_state(slot)[1])

    def seat_kinds(self, slot: int) -> list[str]:
        """Who plays each seat of `slot`'s match: 'learner', 'self' (a snapshot), 'heuristic' or 'random'."""
        return list(self._batch.slot_state(slot)[4])

    def game(self, slot: int) -> NativeGame:
        """A copy of `slot`'s match as a native `Game` (the full state: for tests and checkpoints)."""
        return self.game_class._wrap(self._batch.match(slot), self.players, dict(self.options), None)

    # ----- checkpoints: the slots of SelfPlayVecEnv's `get_state` ---------------------------------
    def slot_states(self) -> list[dict]:
        """Each slot as SelfPlayVecEnv's `get_state` writes it (matches, generators, opponents)."""
        states = []
        for i in range(self.num_envs):
            rng, learner, episodes, margin, kinds, seat_rngs, snapshots = self._batch.slot_state(i)
            states.append(
                {
                    "match": self.game(i).to_dict(),
                    "learner": int(learner),
                    "episode": int(episodes),
                    "rng": rng_state(rng),
                    "margin": float(margin),
                    "opponents": [
                        None
                        if kind == "learner"
                        else {
                            "kind": kind,
                            "snapshot": self._names[snapshot] if kind == "self" else None,
                            "rng": rng_state(words),
                        }
                        for kind, words, snapshot in zip(kinds, seat_rngs, snapshots, strict=True)
                    ],
                }
            )
        return states

    def set_slot_states(self, states: list[dict]) -> None:
        """Restore `slot_states` (or SelfPlayVecEnv's slots); checked first."""
        if not isinstance(states, list) or len(states) != self.num_envs:
            raise ValueError(f"the env state needs one slot per env ({self.num_envs})")
        restored = []
        for i, slot in enumerate(states):
            try:
                game = self.game_class.from_dict(slot["match"])
                if game.num_players != self.players or dict(game.options) != self.options:
                    raise ValueError(f"the match is not of {self.players} players with options {self.options}")
                kinds, seat_rngs, snapshots = [], [], []
                for seat, opponent in enumerate(slot["opponents"]):
                    if opponent is None:
                        kinds.append("learner")
                        seat_rngs.append(rng_words(slot["rng"]))  # unused: the learner draws nothing here
                        snapshots.append(-1)
                        continue
                    kind, snapshot = opponent.get("kind"), opponent.get("snapshot")
                    if kind not in OPPONENT_KINDS or (kind == "self") != isinstance(snapshot, str):
                        raise ValueError(
                            f"seat {seat} is played by {kind!r} (snapshot {snapshot!r}): not a batch opponent"
                        )
                    kinds.append(kind)
                    seat_rngs.append(rng_words(opponent["rng"]))
                    snapshots.append(self._id(snapshot) if kind == "self" else -1)
                learner, episode, margin = int(slot["learner"]), int(slot["episode"]), float(slot["margin"])
                restored.append(
                    (game._match, rng_words(slot["rng"]), learner, episode, margin, kinds, seat_rngs, snapshots)
                )
            except ValueError as error:
                raise ValueError(f"env state slot {i}: {error}") from None
            except (KeyError, TypeError, AttributeError, OverflowError) as error:
                raise ValueError(f"env state slot {i}: malformed ({error!r})") from None
        for i, values in enumerate(restored):
            try:
                self._batch.set_slot(i, *values)
            except (ValueError, TypeError) as error:
                raise ValueError(f"env state slot {i}: {error}") from None
        self._write_views()

    def _write_views(self) -> None:
        for i in range(self.num_envs):
            game = self.game(i)
            learner = game.current_player()
            self.observations[i] = game.observation(learner)
            self.masks[i] = game.legal_actions()


class CityVectorEnv(VectorEnv):
    """A Gymnasium `VectorEnv` over a `NativeBatch` (same-step autoreset: a finished match's last
    observation is in `infos["final_obs"]`, the learner's share of the win in `infos["final_info"]["win"]`).

    Each slot is the learner's seat of a match against native opponents; `action_masks()` gives the
    `(num_envs, actions)` legal masks (also in `infos["action_mask"]`). `reset(seed=...)` starts the
    batch over from that seed; without one, every slot starts its next match. Returned arrays are copies.
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(
        self,
        game: str,
        players: int,
        num_envs: int,
        seed: int = 0,
        opponents: Mapping[str, float] | None = None,
        options: Mapping[str, Any] | None = None,
        reward: str = "win",
        score_scale: float = 0.0,
    ) -> None:
        if opponents is not None and set(opponents) - set(NATIVE_KINDS):
            raise ValueError(
                f"CityVectorEnv plays native opponents only ({', '.join(NATIVE_KINDS)}), not {dict(opponents)}"
            )
        self._settings = {"opponents": opponents, "options": options, "reward": reward, "score_scale": score_scale}
        self.batch = NativeBatch(game, players, num_envs, seed, **self._settings)  # type: ignore[arg-type]
        self.num_envs = self.batch.num_envs
        self.single_observation_space = gym.spaces.Box(-np.inf, np.inf, (self.batch.observation_size,), np.float32)
        self.single_action_space = gym.spaces.Discrete(self.batch.num_actions)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        if seed is not None:
            batch = self.batch
            self.batch = NativeBatch(batch.game_name, batch.players, self.num_envs, seed, **self._settings)  # type: ignore[arg-type]
        self.batch.reset()
        return self.batch.observations.copy(), {"action_mask": self.batch.masks.copy()}

    def step(self, actions):
        batch = self.batch
        batch.step(actions)
        infos: dict[str, Any] = {"action_mask": batch.masks.copy()}
        done = batch.terminated | batch.truncated
        if done.any():
            final = np.full(self.num_envs, None, dtype=object)
            for i in np.flatnonzero(done):
                final[i] = batch.final_observations[i].copy()
            infos.update(
                final_obs=final,
                _final_obs=done.copy(),
                final_info={"win": np.where(done, batch.wins, 0.0), "_win": done.copy()},
                _final_info=done.copy(),
            )
        return (
            batch.observations.copy(),
            batch.rewards.astype(np.float64),
            batch.terminated.copy(),
            batch.truncated.copy(),
            infos,
        )

    def action_masks(self) -> np.ndarray:
        """The `(num_envs, actions)` legal masks of the learners' pending decisions."""
        return self.batch.masks.copy()
