"""One seat of a match as a single-agent Gymnasium env, the other seats played by agent objects.

This is the env for single-agent RL libraries (Stable-Baselines3's MaskablePPO, or anything that
speaks `gymnasium.Env`): the learner acts at one seat, and every decision of the other seats is made
by an opponent object inside `reset` and `step`, so the learner only ever sees its own turns.

- Observation: `game.observation(seat)` as a float32 `Box`; action space `Discrete(num_actions)`.
- Legal actions: `action_masks()` (what sb3-contrib's MaskablePPO asks for) and `info["action_mask"]`
  (a bool array) after every `reset` and `step`; all False once the match is over.
- Opponents: any objects with `act(info_set) -> int` (the `agents` of this project, or your own),
  one per other seat in seat order; by default uniformly random legal play. `city_envs.agents.
  make_opponents` builds them from the command line's names ("heuristic", "ppo", ...).
- Seat: a fixed seat, or None to draw it for every episode from the env's seeded generator.
- `reset(seed=s)` is repeatable: the same seed gives the same deal, the same seat and the same
  opponents' play, because the env hands every opponent with an `rng` attribute (a numpy
  `Generator`, which every shipped agent has) a fresh generator drawn from its own. An opponent
  without one must be deterministic for this to hold.
- Illegal actions: `illegal_action="raise"` (default) raises `IllegalActionError` and changes
  nothing; `"lose"` ends the match with reward -1 and `info["illegal_action"]`. Checkers that step
  with unmasked random actions (gymnasium's and SB3's `check_env`) need `"lose"`.
- Reward: `"win"` gives the learner's terminal `returns()` share (+1 shared by the winners, -1
  shared by the others); `"score"` adds the change of the learner's game score after each step.
- Engine: `engine="native"` or `"python"` (default: native where it is built; docs/engines.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np

from city_envs.core.aec import ILLEGAL_ACTION_MODES, RENDER_MODES, REWARD_MODES
from city_envs.core.game import Game, IllegalActionError
from city_envs.core.infoset import InfoSet
from city_envs.core.layout import ObservationLayout
from city_envs.core.registry import game_class

MAX_EMPTY_DEALS = 100  # deals in a row that end before the learner's first turn (never seen) before giving up


class UniformRandomOpponent:
    """The default opponent: a uniformly random legal action."""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def act(self, info_set: InfoSet) -> int:
        legal = info_set.legal_action_ids()
        return legal[int(self.rng.integers(len(legal)))]


class SingleAgentEnv(gym.Env):
    """The learner at one seat of `game` with `num_players` seats; see the module docstring."""

    metadata = {"render_modes": list(RENDER_MODES), "render_fps": 1}
    action_space: gym.spaces.Discrete  # narrower than gym.Env's Space: always Discrete(num_actions)

    def __init__(
        self,
        game: str,
        num_players: int = 2,
        opponents: Sequence[Any] | None = None,
        seat: int | None = None,
        illegal_action: str = "raise",
        reward: str = "win",
        render_mode: str | None = None,
        engine: str | None = None,
        **options: Any,
    ) -> None:
        self.game_cls: type[Game] = game_class(game, engine)
        self.num_players = self.game_cls.check_num_players(num_players)
        self.game_options = self.game_cls.check_options(options)
        if opponents is None:
            opponents = [UniformRandomOpponent() for _ in range(self.num_players - 1)]
        opponents = list(opponents)
        if len(opponents) != self.num_players - 1:
            raise ValueError(
                f"{len(opponents)} opponents for the {self.num_players - 1} other seats "
                f"of a {self.num_players}-player {game} match"
            )
        for opponent in opponents:
            if isinstance(opponent, str):
                raise ValueError(
                    f"opponent {opponent!r} is a name, not an agent: build agents from names with "
                    f"city_envs.agents.make_opponents({[o if isinstance(o, str) else '...' for o in opponents]!r}, "
                    f"{game!r}), or pass objects with act(info_set)"
                )
            if not callable(getattr(opponent, "act", None)):
                raise ValueError(f"opponent {opponent!r} has no act(info_set) method")
        if seat is not None and (isinstance(seat, bool) or seat not in range(self.num_players)):
            raise ValueError(f"invalid seat {seat!r}; allowed: None (drawn per episode) or 0..{self.num_players - 1}")
        if illegal_action not in ILLEGAL_ACTION_MODES:
            raise ValueError(f"invalid illegal_action {illegal_action!r}; allowed: {', '.join(ILLEGAL_ACTION_MODES)}")
        if reward not in REWARD_MODES:
            raise ValueError(f"invalid reward {reward!r}; allowed: {', '.join(REWARD_MODES)}")
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"invalid render_mode {render_mode!r}; allowed: None, {', '.join(RENDER_MODES)}")
        self.opponents = opponents
        self.fixed_seat = seat
        self.illegal_action = illegal_action
        self.reward_mode = reward
        self.render_mode = render_mode
        probe = self.game_cls(self.num_players, seed=0, **self.game_options)
        self.observation_space = gym.spaces.Box(-np.inf, np.inf, probe.observation_shape, np.float32)
        self.action_space = gym.spaces.Discrete(probe.num_actions)
        self.game: Game = probe
        self.seat = 0 if seat is None else seat
        self._seated: list[Any] = []  # opponents by seat, None at the learner's
        self._over = True

    # ----- gym API --------------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict]:
        super().reset(seed=seed)
        rng = self.np_random
        for _ in range(MAX_EMPTY_DEALS):
            self.seat = int(rng.integers(self.num_players)) if self.fixed_seat is None else self.fixed_seat
            self.game = self.game_cls(self.num_players, seed=int(rng.integers(2**63)), **self.game_options)
            for opponent in self.opponents:
                if isinstance(getattr(opponent, "rng", None), np.random.Generator):
                    opponent.rng = np.random.default_rng(int(rng.integers(2**63)))
            others = iter(self.opponents)
            self._seated = [None if s == self.seat else next(others) for s in range(self.num_players)]
            self._over = False
            self._play_opponents()
            if not self.game.is_over():
                return self._observation(), self._info()
        raise RuntimeError(f"{MAX_EMPTY_DEALS} deals in a row ended before seat {self.seat} had a turn")

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict]:
        if self._over:
            raise RuntimeError("the match is over: call reset() first")
        game = self.game
        before = game.scores()[self.seat] if self.reward_mode == "score" else 0.0
        try:
            game.apply(action)
        except IllegalActionError:
            if self.illegal_action == "raise":
                raise
            self._over = True
            return self._observation(), -1.0, True, False, self._info(illegal_action=action)
        self._play_opponents()
        reward = float(game.scores()[self.seat] - before) if self.reward_mode == "score" else 0.0
        terminated = truncated = False
        if game.is_over():
            self._over = True
            reward += game.returns()[self.seat]
            truncated = game.is_truncated()
            terminated = not truncated
        return self._observation(), reward, terminated, truncated, self._info()

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions now (bool, length `num_actions`); all False after the end."""
        if self._over:
            return np.zeros(self.action_space.n, dtype=bool)
        return np.array(self.game.legal_actions(), dtype=bool)

    def observation_layout(self) -> ObservationLayout:
        """The named blocks of the observation, with their slices (see `Game.observation_layout`)."""
        return self.game_cls.observation_layout()

    def feature_names(self) -> tuple[str, ...]:
        """One unique name per observation value, in order."""
        return self.game_cls.feature_names()

    # gymnasium types Env.render's result with a TypeVar bound to nothing, which no concrete type matches
    def render(self) -> str | np.ndarray | None:  # type: ignore[override]
        """As the PettingZoo envs: "ansi" text, "rgb_array" image, "human" prints the text."""
        if self.render_mode is None:
            return None
        if self.render_mode == "human":
            print(self.game.render_text())
            return None
        return self.game.render_text() if self.render_mode == "ansi" else self.game.render_image()

    # ----- helpers --------------------------------------------------------------------------------
    def _play_opponents(self) -> None:
        game = self.game
        while not game.is_over() and game.current_player() != self.seat:
            player = game.current_player()
            game.apply(self._seated[player].act(InfoSet(game, player)))

    def _observation(self) -> np.ndarray:
        return self.game.observation(self.seat).astype(np.float32, copy=False)

    def _info(self, **extra: Any) -> dict:
        return {"action_mask": self.action_masks(), "seat": self.seat, **extra}
