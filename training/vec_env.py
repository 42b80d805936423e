"""Many training matches stepped in one process, as one SB3 `VecEnv`.

Each of the `n_envs` slots holds a match in which the learner plays one seat (rotated every episode:
seat `(episode + index) % players`) and pool opponents play the others. A step applies the
learner's action in every slot, then plays the opponents of all slots together until the learner is
to move again everywhere: heuristic and random opponents act one by one, snapshot opponents are
evaluated once per snapshot for every slot that waits on them. A finished match is reported with
`terminal_observation` in its info and replaced at once (auto-reset).

Observations and masks come back as batched arrays (`action_masks()` gives the `(n_envs, actions)`
mask MaskablePPO reads). The env is a pure function of its seed: slot `i` draws every match seed and
opponent from `default_rng([seed, i])`, and `get_state`/`set_state` capture everything as JSON-safe
data (matches as `Game.to_dict()`, generators as their bit-generator states), so a resumed run
continues bit for bit.

With `privileged`, the learner's observation is `all_seats_observation` (every seat's observation,
rotated to start at the learner's: `city_envs/core/privileged.py`) for a privileged critic, whose
actor reads only the first block, the learner's own observation. Only training sees it: opponents,
the env a user holds and every agent still get one seat's observation.

Rewards come from the learner's seat only: `win` gives the terminal `returns()` (+1 win, -1 loss,
shared on ties); `score` adds after each learner step `score_scale` x the change of (own score -
mean opponent score) over that step and the opponents' replies; `lead` does the same with the best
opponent's score in place of the mean (the same as `score` at two players: with more, only the seat
that stands between the learner and the win counts).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Generator, Sequence
from typing import Any, cast

import gymnasium as gym
import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import VecEnv

from city_envs.agents.policy_agent import batch_logits, load_policy, pick_action
from city_envs.core.game import Game, rng_from_state
from city_envs.core.infoset import InfoSet
from city_envs.core.privileged import all_seats_observation, all_seats_size
from city_envs.core.registry import game_class, make_game
from city_envs.training.config import REWARDS
from city_envs.training.pool import Opponent, OpponentPool

# snapshot -> (observations, masks) of the matches whose seat to move it plays
Request = dict[str, tuple[np.ndarray, np.ndarray]]
# (the `_opponent_moves` call of this reset or step, its round): the order a one-process env evaluates in
Tag = tuple[int, int]
# a reset or step: yields tagged requests, is sent each snapshot's logits, returns the VecEnv result
Moves = Generator[tuple[Tag, Request], dict[str, np.ndarray], Any]
# what `step` returns: observations, rewards, dones, infos (the observations are one array)
StepResult = tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]


def snapshot_logits(request: Request) -> dict[str, np.ndarray]:
    """One forward pass of each requested snapshot over its matches (`batch_logits`)."""
    return {snapshot: batch_logits(load_policy(snapshot), obs, masks) for snapshot, (obs, masks) in request.items()}


def check_env_state(state: dict, game: str, players: int, indices: list[int], privileged: bool) -> None:
    """Refuse an env state taken of other matches than an env of these arguments holds."""
    if (state["game"], state["players"], state["indices"]) != (game, players, indices):
        raise ValueError(
            f"env state is for {state['game']} {state['players']}p slots {state['indices']}, "
            f"not {game} {players}p slots {indices}"
        )
    if state.get("privileged", False) != privileged:  # states from before the option had none
        raise ValueError(
            f"env state is {'with' if state.get('privileged', False) else 'without'} the privileged "
            f"critic's input, this env {'with' if privileged else 'without'}"
        )


def run_locally(moves: Moves) -> Any:
    """Drive a reset or step, answering each request in this process; returns its result."""
    try:
        _, request = next(moves)
        while True:
            _, request = moves.send(snapshot_logits(request))
    except StopIteration as stop:
        return stop.value


class SlotsVecEnv(VecEnv):
    """The SB3 `VecEnv` plumbing shared by the in-process env and the split one: attributes and methods
    are the env's own (one answer repeated per slot), except `action_masks`, one row per slot."""

    def action_masks(self) -> np.ndarray:
        """The `(n_envs, actions)` masks of the slots' pending decisions (MaskablePPO reads them)."""
        raise NotImplementedError

    def get_attr(self, attr_name: str, indices=None) -> list[Any]:
        return [getattr(self, attr_name) for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        setattr(self, attr_name, value)

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> list[Any]:
        if method_name == "action_masks":  # MaskablePPO asks for one mask per env
            masks = self.action_masks()
            return [masks[i] for i in self._get_indices(indices)]
        result = getattr(self, method_name)(*method_args, **method_kwargs)
        return [result for _ in self._get_indices(indices)]

    def env_is_wrapped(self, wrapper_class: type[gym.Wrapper], indices=None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]

    def has_attr(self, attr_name: str) -> bool:
        return hasattr(self, attr_name)


class SelfPlayVecEnv(SlotsVecEnv):
    """`n_envs` matches of `game` against `pool` opponents (see the module docstring)."""

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
        self.game_name, self.players, self.options = game, game_class(game).check_num_players(players), options or {}
        self.pool, self.reward_kind, self.score_scale = pool, reward, float(score_scale)
        probe = make_game(game, players, seed=0, **self.options)
        self.privileged = bool(privileged)
        shape = (all_seats_size(probe),) if self.privileged else probe.observation_shape
        observation_space = gym.spaces.Box(-np.inf, np.inf, shape, np.float32)
        super().__init__(n_envs, observation_space, gym.spaces.Discrete(probe.num_actions))
        self.seed_value = int(seed)
        self.indices = [first_index + i for i in range(n_envs)]  # a slot's identity across worker splits
        self.rngs = [np.random.default_rng([self.seed_value, index]) for index in self.indices]
        self.episodes = [0] * n_envs
        self.games: list[Game] = [probe] * n_envs
        self.learners = [0] * n_envs
        self.opponents: list[list[Opponent | None]] = [[] for _ in range(n_envs)]
        self.margins = [0.0] * n_envs
        self._actions: np.ndarray | None = None
        self._calls = 0  # `_opponent_moves` calls so far in this reset or step (a request's tag)

    # ----- the VecEnv API ---------------------------------------------------------------------
    def reset(self) -> np.ndarray:
        return run_locally(self.reset_moves())

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
        return run_locally(self.step_moves(actions))

    def action_masks(self) -> np.ndarray:
        return np.stack([game.legal_actions() for game in self.games]).astype(bool, copy=False)

    def close(self) -> None:
        pass

    # ----- a reset or step as a generator of snapshot requests -------------------------------------
    def reset_moves(self) -> Moves:
        """`reset` as moves: every slot's new match, played up to its learner's first decision."""
        self._calls = 0
        for i in range(self.num_envs):
            self._new_match(i)
        yield from self._opponent_moves(range(self.num_envs))
        yield from self._restart_finished(range(self.num_envs))
        return self._observations()

    def step_moves(self, actions: np.ndarray) -> Moves:
        """`step_wait` as moves: the learner's `actions`, the opponents' replies, the restarts."""
        self._calls = 0
        for i, game in enumerate(self.games):
            game.apply(int(actions[i]))
        yield from self._opponent_moves(range(self.num_envs))
        rewards = np.zeros(self.num_envs, dtype=np.float32)
        dones = np.zeros(self.num_envs, dtype=bool)
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        for i, game in enumerate(self.games):
            if self.reward_kind != "win":
                margin = self._margin(i)
                rewards[i] += self.score_scale * (margin - self.margins[i])
                self.margins[i] = margin
            if game.is_over():
                seat = self.learners[i]
                rewards[i] += game.returns()[seat]
                winners = game.winners()
                dones[i] = True
                infos[i] = {
                    "terminal_observation": self._observation(i),
                    "TimeLimit.truncated": False,
                    "win": 1.0 / len(winners) if seat in winners else 0.0,
                    "opponents": [o.kind if o else "learner" for o in self.opponents[i]],
                }
        finished = np.flatnonzero(dones).tolist()
        for i in finished:
            self._new_match(i)
        yield from self._opponent_moves(finished)
        yield from self._restart_finished(finished)
        return self._observations(), rewards, dones, infos

    # ----- matches ----------------------------------------------------------------------------
    def _new_match(self, i: int) -> None:
        rng = self.rngs[i]
        self.learners[i] = (self.episodes[i] + self.indices[i]) % self.players
        self.episodes[i] += 1
        self.games[i] = make_game(self.game_name, self.players, seed=int(rng.integers(2**63)), **self.options)
        self.opponents[i] = [None if seat == self.learners[i] else self.pool.draw(rng) for seat in range(self.players)]
        self.margins[i] = 0.0

    def _restart_finished(self, candidates: Sequence[int]) -> Moves:
        """Matches the opponents ended before the learner's first move are replaced (rare)."""
        waiting = [i for i in candidates if self.games[i].is_over()]
        while waiting:
            for i in waiting:
                self._new_match(i)
            yield from self._opponent_moves(waiting)
            waiting = [i for i in waiting if self.games[i].is_over()]

    def _opponent_moves(self, candidates: Sequence[int]) -> Moves:
        """Every opponent move until each candidate match waits on its learner or is over. Each round
        moves every pending match once: heuristic and random opponents here, snapshot opponents by
        yielding one request (tagged with this call's number and the round) for the logits of each
        snapshot's matches, which come back sent in (`run_locally` or a split env's main process)."""
        call, self._calls = self._calls, self._calls + 1
        pending = [i for i in candidates if self._opponent_to_move(i)]
        round_ = 0
        while pending:
            batches: dict[str, list[tuple[int, int, Opponent]]] = defaultdict(list)
            for i in pending:
                game = self.games[i]
                seat = game.current_player()
                opponent = cast(Opponent, self.opponents[i][seat])  # None only at the learner's seat
                if opponent.agent is not None:
                    game.apply(opponent.agent.act(InfoSet(game, seat)))
                else:  # a snapshot (`OpponentPool.build` gives every other kind an agent)
                    batches[cast(str, opponent.snapshot)].append((i, seat, opponent))
            if batches:
                request = {
                    snapshot: (
                        np.stack([self.games[i].observation(seat) for i, seat, _ in slots]),
                        np.stack([self.games[i].legal_actions() for i, _, _ in slots]),
                    )
                    for snapshot, slots in batches.items()
                }
                logits = yield (call, round_), request
                for snapshot, slots in batches.items():
                    for (i, _, opponent), row in zip(slots, logits[snapshot], strict=True):
                        self.games[i].apply(pick_action(row, False, opponent.rng))
            round_ += 1
            pending = [i for i in pending if self._opponent_to_move(i)]

    def _opponent_to_move(self, i: int) -> bool:
        game = self.games[i]
        return not game.is_over() and game.current_player() != self.learners[i]

    def _observation(self, i: int) -> np.ndarray:
        if self.privileged:
            return all_seats_observation(self.games[i], self.learners[i])
        return self.games[i].observation(self.learners[i]).astype(np.float32, copy=False)

    def _observations(self) -> np.ndarray:
        return np.stack([self._observation(i) for i in range(self.num_envs)])

    def _margin(self, i: int) -> float:
        scores = self.games[i].scores()
        seat = self.learners[i]
        others = [s for other, s in enumerate(scores) if other != seat]
        return float(scores[seat] - (max(others) if self.reward_kind == "lead" else np.mean(others)))

    # ----- checkpoints ------------------------------------------------------------------------
    def get_state(self) -> dict:
        """Everything that decides the env's future, as JSON-safe data."""
        return {
            "game": self.game_name,
            "players": self.players,
            "seed": self.seed_value,
            "indices": self.indices,
            "privileged": self.privileged,
            "slots": [
                {
                    "match": self.games[i].to_dict(),
                    "learner": self.learners[i],
                    "episode": self.episodes[i],
                    "rng": self.rngs[i].bit_generator.state,
                    "margin": self.margins[i],
                    "opponents": [o.to_state() if o else None for o in self.opponents[i]],
                }
                for i in range(self.num_envs)
            ],
        }

    def set_state(self, state: dict) -> np.ndarray:
        """Restore `get_state` (of an env built with the same arguments); returns the observations."""
        check_env_state(state, self.game_name, self.players, self.indices, self.privileged)
        cls = game_class(self.game_name)
        for i, slot in enumerate(state["slots"]):
            self.games[i] = cls.from_dict(slot["match"])
            self.learners[i], self.episodes[i], self.margins[i] = slot["learner"], slot["episode"], slot["margin"]
            self.rngs[i] = rng_from_state(slot["rng"])
            self.opponents[i] = [None if o is None else self.pool.from_state(o) for o in slot["opponents"]]
        return self._observations()
