"""The one generic PettingZoo AEC adapter: any `Game` subclass becomes an `AECEnv`.

It knows no rule. Decisions come from `game.current_player()`, so one seat may act several times
in a row and a decision owned by another seat (a mid-turn reaction) simply selects that agent.
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from city_envs.core.game import Game, IllegalActionError
from city_envs.core.layout import ObservationLayout
from city_envs.core.native import select_engine

ENV_VERSION = 0  # the `_v0` of every env's name: raised when observations, actions or rewards change
ILLEGAL_ACTION_MODES = ("raise", "lose")
REWARD_MODES = ("win", "score")
RENDER_MODES = ("human", "ansi", "rgb_array")


class CityAECEnv(AECEnv):
    """PettingZoo AEC view of a city-envs `Game`.

    Options beyond the game's own: `illegal_action` ("raise": `IllegalActionError`; "lose": the
    offender gets -1, the others share +1, the game ends) and `reward` ("win": terminal `returns()`
    only; "score": plus the change of each seat's game score after every step, as dense shaping),
    and `observation_key`, the name of the tensor in each observation dict (default "observation",
    PettingZoo's convention; RLlib's action-masking module reads "observations"), and `engine`, which
    engine plays the matches ("native" or "python"; by default native where it is built).
    """

    def __init__(
        self,
        game_cls: type[Game],
        num_players: int,
        render_mode: str | None = None,
        illegal_action: str = "raise",
        reward: str = "win",
        observation_key: str = "observation",
        engine: str | None = None,
        **options: Any,
    ) -> None:
        super().__init__()
        game_cls = select_engine(game_cls, engine)
        num_players = game_cls.check_num_players(num_players)
        self.game_options = game_cls.check_options(options)
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"invalid render_mode {render_mode!r}; allowed: None, {', '.join(RENDER_MODES)}")
        if illegal_action not in ILLEGAL_ACTION_MODES:
            allowed = ", ".join(ILLEGAL_ACTION_MODES)
            raise ValueError(f"invalid illegal_action {illegal_action!r}; allowed: {allowed}")
        if reward not in REWARD_MODES:
            raise ValueError(f"invalid reward {reward!r}; allowed: {', '.join(REWARD_MODES)}")
        if not isinstance(observation_key, str) or not observation_key or observation_key == "action_mask":
            raise ValueError(f"invalid observation_key {observation_key!r}; a non-empty name other than 'action_mask'")
        self.game_cls = game_cls
        self.observation_key = observation_key
        self.num_players = num_players
        self.render_mode = render_mode
        self.illegal_action = illegal_action
        self.reward_mode = reward
        self.metadata = {
            "name": f"{game_cls.name}_v{ENV_VERSION}",
            "render_modes": list(RENDER_MODES),
            "is_parallelizable": False,
            "render_fps": 1,
        }
        self.possible_agents = [f"player_{i}" for i in range(num_players)]
        self._seat = {agent: i for i, agent in enumerate(self.possible_agents)}
        probe = game_cls(num_players, seed=0, **self.game_options)
        self.num_actions = probe.num_actions
        obs_box = spaces.Box(-np.inf, np.inf, shape=probe.observation_shape, dtype=np.float32)
        mask_box = spaces.Box(0, 1, shape=(self.num_actions,), dtype=np.int8)
        self._observation_spaces = {
            a: spaces.Dict({observation_key: obs_box, "action_mask": mask_box}) for a in self.possible_agents
        }
        self._action_spaces: dict[str, spaces.Space] = {
            a: spaces.Discrete(self.num_actions) for a in self.possible_agents
        }
        self._no_mask = np.zeros(self.num_actions, dtype=np.int8)
        self._seeder = np.random.default_rng()
        self.game: Game | None = None

    # ----- spaces -------------------------------------------------------------------------------
    def observation_space(self, agent: str) -> spaces.Space:
        return self._observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self._action_spaces[agent]

    def observation_layout(self) -> ObservationLayout:
        """The named blocks of `observe(agent)[observation_key]`, with their slices (see `Game`)."""
        return self.game_cls.observation_layout()

    def feature_names(self) -> tuple[str, ...]:
        """One unique name per value of `observe(agent)[observation_key]`, in order."""
        return self.game_cls.feature_names()

    # ----- episode ------------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None:
            self._seeder = np.random.default_rng(seed)
        game_seed = int(self._seeder.integers(2**63))
        self.game = self.game_cls(self.num_players, seed=game_seed, **self.game_options)
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict] = {a: {} for a in self.agents}
        self._last_scores = self.game.scores() if self.reward_mode == "score" else None
        self._skip_agent_selection = None
        self.agent_selection = self.possible_agents[self.game.current_player()]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self._seat[agent]
        game = cast(Game, self.game)  # made by reset(), which PettingZoo requires first
        acting = game.current_player() == seat and not self.terminations.get(agent, True)  # none after losing
        mask = game.legal_actions() if acting else self._no_mask
        return {self.observation_key: game.observation(seat), "action_mask": mask.astype(np.int8)}  # a copy

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        game = cast(Game, self.game)  # made by reset(), which PettingZoo requires first
        try:
            game.apply(cast(int, action))  # what is no action id, None included, apply() refuses by type
        except IllegalActionError:
            if self.illegal_action == "raise":
                raise  # a refused step changes nothing: the agent may try again
            self._cumulative_rewards[agent] = 0.0
            self._end_by_illegal_action(agent, action)
            return
        self._cumulative_rewards[agent] = 0.0
        rewards = self.rewards
        for a in rewards:
            rewards[a] = 0.0
        if self._last_scores is not None:
            scores = game.scores()
            for a, seat in self._seat.items():
                rewards[a] = float(scores[seat] - self._last_scores[seat])
            self._last_scores = scores
        if game.is_over():
            truncated = game.is_truncated()
            for a, value in zip(self.possible_agents, game.returns(), strict=True):
                rewards[a] += value
                self.terminations[a] = not truncated
                self.truncations[a] = truncated
        else:
            self.agent_selection = self.possible_agents[game.current_player()]
        self._accumulate_rewards()

    def _end_by_illegal_action(self, agent: str, action: Any) -> None:
        others = 1.0 / (self.num_players - 1)
        for a in self.agents:
            self.rewards[a] = -1.0 if a == agent else others
            self.terminations[a] = True
        self.infos[agent] = {"illegal_action": action}
        self._accumulate_rewards()

    # ----- people -------------------------------------------------------------------------------
    def render(self) -> str | np.ndarray | None:
        """ "ansi": the table as text; "rgb_array": an image; "human": prints the text (no window,
        so it works in any terminal and over ssh) and returns None, as Gymnasium asks."""
        if self.render_mode is None:
            return None
        if self.game is None:
            raise RuntimeError("render() needs a match: call reset() first")
        if self.render_mode == "human":
            print(self.game.render_text())
            return None
        if self.render_mode == "ansi":
            return self.game.render_text()
        return self.game.render_image()

    def close(self) -> None:
        pass


def _forwarded(name: str) -> property:
    """The env's attribute `name`, read through the wrapper without its `__getattr__` (which Python calls
    only after a failed lookup, the costly part); before reset, that `__getattr__` gives PettingZoo's error."""

    def read(self: CityOrderEnforcingWrapper) -> Any:
        return getattr(self.env, name) if self._has_reset else self.__getattr__(name)

    return property(read, doc=f"The env's `{name}` (once it was reset).")


class CityOrderEnforcingWrapper(wrappers.OrderEnforcingWrapper):
    """PettingZoo's order-enforcing wrapper, with `last()` asked of the env itself once it was reset.

    The inherited `last()` reads five attributes through the wrapper's `__getattr__` forwarding, the
    largest cost of an AEC step after the game's own work; the env's answer is the same. The attributes
    an AEC loop reads every step (`agents` and `agent_selection` by `agent_iter` and `step`, the others by
    loops that read them directly) are properties for the same reason.
    """

    agents = _forwarded("agents")
    agent_selection = _forwarded("agent_selection")
    rewards = _forwarded("rewards")
    terminations = _forwarded("terminations")
    truncations = _forwarded("truncations")
    infos = _forwarded("infos")

    def last(self, observe: bool = True) -> tuple:
        if not self._has_reset:
            return super().last(observe)  # PettingZoo's errors before reset
        return self.env.last(observe)

    def __str__(self) -> str:
        return str(self.env)


def wrapped_env(game_cls: type[Game], num_players: int, **kwargs: Any) -> AECEnv:
    """`CityAECEnv` inside PettingZoo's order-enforcing wrapper, as the classic envs are wrapped.

    Illegal actions are handled by the adapter itself (`illegal_action=`), so PettingZoo's
    out-of-bounds and terminate-illegal wrappers would only hide the `IllegalActionError`.
    """
    return CityOrderEnforcingWrapper(CityAECEnv(game_cls, num_players, **kwargs))
