"""OpenSpiel: every game as a registered pyspiel Python game.

    import pyspiel
    import city_envs.integrations.openspiel  # registers city_envs_<game> for every game
    game = pyspiel.load_game("city_envs_citadels", {"players": 3, "max_rounds": 20})

Each is a sequential, imperfect-information, zero-sum game with terminal rewards (the project's
returns: winners share +1, the others share -1). Chance is *sampled*: shuffles and draws come from
the match's own random generator, so there are no chance nodes, and `clone()` copies the generator
(an exact copy). `resample_from_infostate(player, sampler)` is the game's `determinize`: a state
that the player cannot tell apart from this one, with hidden cards and future chance resampled.
Observation tensors are the game's `observation(player)`; observation strings are the player's
`view(player)` as JSON, which information-set search uses as the node key. The `players` parameter
sets the seat count; the game's options with a plain default are parameters too, and `rng_seed`
(-1: fresh entropy) seeds the sequence of new matches.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import numpy as np
import pyspiel

import city_envs
from city_envs.core.game import Game

SHORT_NAME_PREFIX = "city_envs_"
# OpenSpiel wants an upper bound on decisions per match; every game ends far sooner (see the docs' tables).
MAX_GAME_LENGTH = 100_000
_PLAIN = (bool, int, float, str)


class _Match:
    """Holds the live `Game` of a state, built on first use.

    OpenSpiel clones a Python state by asking the game for a new initial state and then deep-copying the
    old state's attributes into it. Building lazily spares that throw-away setup (and keeps the game's
    sequence of match seeds independent of clones); `__deepcopy__` makes the copy the game's own cheap
    structured `clone()`.
    """

    __slots__ = ("_game", "_make")

    def __init__(self, game: Game | None = None, make: Callable[[], Game] | None = None) -> None:
        self._game = game
        self._make = make

    @property
    def game(self) -> Game:
        if self._game is None:
            make, self._make = self._make, None
            assert make is not None, "a _Match is given its game or the function that makes it"
            self._game = make()
        return self._game

    def __deepcopy__(self, memo: dict) -> _Match:
        return _Match(self.game.clone())


def short_name(name: str) -> str:
    return SHORT_NAME_PREFIX + name


def _parameter_spec(game_cls: type[Game]) -> dict[str, Any]:
    spec: dict[str, Any] = {"players": game_cls.min_players, "rng_seed": -1}
    for option, declared in game_cls.options_spec.items():
        if isinstance(declared.default, _PLAIN):
            spec[option] = declared.default
    return spec


def _game_type(name: str, game_cls: type[Game]) -> pyspiel.GameType:
    return pyspiel.GameType(
        short_name=short_name(name),
        long_name=f"city-envs {name}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=game_cls.max_players,
        min_num_players=game_cls.min_players,
        provides_information_state_string=False,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=_parameter_spec(game_cls),
    )


class CityGame(pyspiel.Game):
    """Base of the registered games; `game_cls` is set per game by `register_all`."""

    game_cls: type[Game]

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = dict(params or {})  # pyspiel has already refused names outside the specification
        settings = {**_parameter_spec(self.game_cls), **params}
        num_players = settings.pop("players")
        rng_seed = settings.pop("rng_seed")
        self.game_cls.check_num_players(num_players)
        self.options = self.game_cls.check_options(settings)
        probe = self.game_cls(num_players, seed=0, **self.options)
        info = pyspiel.GameInfo(
            num_distinct_actions=probe.num_actions,
            max_chance_outcomes=0,
            num_players=num_players,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=MAX_GAME_LENGTH,
        )
        super().__init__(self.game_type, info, params)
        self.observation_shape = probe.observation_shape
        self._seeds = np.random.default_rng(None if rng_seed < 0 else rng_seed)

    def new_initial_state(self) -> CityState:
        return CityState(self, _Match(make=self._new_match))

    def _new_match(self) -> Game:
        seed = int(self._seeds.integers(2**63))
        return self.game_cls(self.num_players(), seed=seed, **self.options)

    def make_py_observer(self, iig_obs_type=None, params=None) -> CityObserver:
        if iig_obs_type is not None and (
            iig_obs_type.perfect_recall or iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER
        ):
            raise ValueError("city-envs games provide the player's own observation only (no perfect recall)")
        return CityObserver(self.observation_shape)


class CityState(pyspiel.State):
    """One match; every call goes to the `Game` API."""

    def __init__(self, game: CityGame, match: _Match) -> None:
        super().__init__(game)
        self._match = match

    @property
    def match(self) -> Game:
        """The city-envs `Game` behind this state (read it; change it only through `apply_action`)."""
        return self._match.game

    def current_player(self) -> int:
        game = self._match.game
        return int(pyspiel.PlayerId.TERMINAL) if game.is_over() else game.current_player()

    def _legal_actions(self, player: int) -> list[int]:
        game = self._match.game
        if game.is_over() or player != game.current_player():
            return []
        return np.flatnonzero(game.legal_actions()).tolist()

    def _apply_action(self, action: int) -> None:
        self._match.game.apply(int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        return self._match.game.describe_action(int(action))

    def is_terminal(self) -> bool:
        return self._match.game.is_over()

    def returns(self) -> list[float]:
        game = self._match.game
        return [float(r) for r in game.returns()] if game.is_over() else [0.0] * game.num_players

    def resample_from_infostate(self, player_id: int, probability_sampler) -> CityState:
        """A state `player_id` cannot tell from this one: the game's `determinize`, seeded by the sampler."""
        rng = np.random.default_rng(int(probability_sampler() * 2**53))
        twin = self.clone()
        twin._match = _Match(self._match.game.determinize(player_id, rng))
        return twin

    def __str__(self) -> str:
        return self._match.game.render_text()


class CityObserver:
    """OpenSpiel's PyObserver interface over `observation(player)` and `view(player)`."""

    def __init__(self, shape: tuple[int, ...]) -> None:
        self.tensor = np.zeros(int(np.prod(shape)), np.float32)
        self.dict = {"observation": self.tensor.reshape(shape)}

    def set_from(self, state: CityState, player: int) -> None:
        self.tensor[:] = state.match.observation(player).ravel()

    def string_from(self, state: CityState, player: int) -> str:
        return json.dumps(state.match.view(player), sort_keys=True, separators=(",", ":"))


def _register(name: str) -> None:
    game_cls = city_envs.game_class(name)
    game_type = _game_type(name, game_cls)
    cls = type(f"{game_cls.__name__}OpenSpielGame", (CityGame,), {"game_cls": game_cls, "game_type": game_type})
    pyspiel.register_game(game_type, cls)


def register_all() -> None:
    """Register every game with pyspiel (once; importing this module does it)."""
    registered = set(pyspiel.registered_names())
    for name in city_envs.GAMES:
        if short_name(name) not in registered:
            _register(name)


register_all()
