"""The native engine: a `Game` over a C++ match of `city_envs._native`, the same match for the same seed.

`NativeGame` keeps the match in C++ (`native/<game>/game.hpp`): legal actions, `apply`, observations,
scores, winners, `clone` and `determinize` run there, drawing chance from numpy's PCG64 with numpy's
algorithms, so a seed deals and plays exactly as the Python engine does. Everything people read
(views, action texts, boards, validation) is the Python engine's, asked of its twin built from the
native state (`reference()`), once per position. States move between the engines through `to_dict`
and `from_dict`, and `from_dict` checks untrusted data with the Python engine's validation first.
"""

from __future__ import annotations

import importlib
import json
import os
from collections.abc import Mapping, Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any, ClassVar, cast

import numpy as np

from city_envs.core.catalog import GAMES, python_class
from city_envs.core.game import Game, IllegalActionError
from city_envs.core.regions import BoardMap

if TYPE_CHECKING:
    from typing_extensions import Self  # typing.Self from Python 3.11

_native: ModuleType | None
try:
    _native = importlib.import_module("city_envs._native")
except ImportError:  # built without the native engine (no C++ compiler): the Python engine plays
    _native = None

ENGINES = ("native", "python")
# the engine a game is made with when the caller names none: native where it is built
ENGINE_VARIABLE = "CITY_ENVS_ENGINE"
_MASK64 = (1 << 64) - 1


def rng_words(state: Mapping[str, Any]) -> tuple[int, int, int, int, bool, int]:
    """A PCG64 `bit_generator.state` as the native engine's six words."""
    if state.get("bit_generator") != "PCG64":
        raise ValueError(f"the native engine plays PCG64 matches, not {state.get('bit_generator')!r}")
    inner = state["state"]
    return (
        inner["state"] >> 64,
        inner["state"] & _MASK64,
        inner["inc"] >> 64,
        inner["inc"] & _MASK64,
        bool(state["has_uint32"]),
        int(state["uinteger"]),
    )


def rng_state(words: Sequence[Any]) -> dict[str, Any]:
    """The native engine's six words as numpy's PCG64 `bit_generator.state`."""
    state_high, state_low, inc_high, inc_low, has_uint32, uinteger = words
    return {
        "bit_generator": "PCG64",
        "state": {"state": (state_high << 64) | state_low, "inc": (inc_high << 64) | inc_low},
        "has_uint32": int(has_uint32),
        "uinteger": int(uinteger),
    }


class NativeGame(Game):
    """A match of `reference_class`'s game played by the native engine (see the module docstring)."""

    # the per-match attributes in slots: the cheapest to fill (clone and determinize are hot in search)
    __slots__ = ("num_players", "options", "seed", "_match", "_mask", "_twin")

    engine: ClassVar[str] = "native"
    reference_class: ClassVar[type[Game]]
    native_type: ClassVar[Any]

    def __init__(self, num_players: int, seed: int | None = None, **options: Any) -> None:
        self.num_players = self.check_num_players(num_players)
        self.options = self.check_options(options)
        self.seed = seed
        if type(seed) is int and 0 <= seed < 1 << 64:  # SeedSequence(seed) in C++: numpy's words, faster
            words = _native.Random.from_seed(seed).words()  # type: ignore[union-attr]
        else:  # None (fresh entropy) or anything else numpy's default_rng takes
            words = rng_words(np.random.default_rng(seed).bit_generator.state)
        try:
            self._match = self.native_type(self.num_players, json.dumps(self.options), words)
        except ValueError:
            # options that only the deal can judge (Metropolys' removed districts): the same words as
            # the Python engine's error, which its own set-up raises
            self.reference_class(num_players, seed=seed, **options)
            raise
        self._mask: np.ndarray | None = None
        self._twin: Game | None = None

    @classmethod
    def _wrap(cls, match: Any, num_players: int, options: dict[str, Any], seed: int | None) -> Self:
        game = object.__new__(cls)
        game.num_players = num_players
        game.options = options
        game.seed = seed
        game._match = match
        game._mask = None
        game._twin = None
        return game

    # ----- play ---------------------------------------------------------------------------------
    @property
    def history(self) -> list[int]:  # Game.history is a list; here it lives in C++
        """The actions played since the deal (a copy: assign a new list to change it)."""
        return self._match.history()

    @history.setter
    def history(self, actions: list[int]) -> None:
        self._match.set_history([int(action) for action in actions])
        self._twin = None

    @property  # type: ignore[misc]
    def rng(self) -> np.random.Generator:
        """A numpy copy of the match generator (drawing from it changes nothing in the match)."""
        bit_generator = np.random.PCG64()
        bit_generator.state = cast("Any", rng_state(self._match.rng_words()))
        return np.random.Generator(bit_generator)

    def current_player(self) -> int:
        return self._match.current_player()

    def is_over(self) -> bool:
        return self._match.is_over()

    def is_truncated(self) -> bool:
        return self._match.is_truncated()

    def decision_name(self) -> str:
        return self._match.decision_name()

    def _legal_actions(self) -> np.ndarray:
        return np.frombuffer(self._match.legal_actions(), dtype=np.bool_)  # read-only: over bytes

    def legal_actions(self) -> np.ndarray:
        if self._mask is None:
            self._mask = self._legal_actions()
        return self._mask

    def apply(self, action: int) -> None:
        if not (type(action) is int and 0 <= action < self.num_actions and self._match.apply(action)):
            if self.is_over():
                raise IllegalActionError(action, "none (game over)", "the game is over")
            index = self.action_id(action)
            if not self._match.apply(index):
                raise IllegalActionError(action, self.decision_name())
        self._mask = None
        self._twin = None

    def _apply(self, action: int) -> None:
        self.apply(action)

    def scores(self) -> list[float]:
        return self._match.scores()

    def winners(self) -> list[int]:
        return self._match.winners()

    def standings(self) -> list[tuple[float, ...]]:
        return self._match.standings()

    def playout(self, rng: np.random.Generator, max_decisions: int | None = None) -> int:
        """`Game.playout` in C++: the same moves, drawn alike from the same generator."""
        limit = 1 << 62 if max_decisions is None else max(0, min(int(max_decisions), 1 << 62))
        played = self._match.playout(rng.bit_generator.capsule, limit)
        if played:
            self._mask = None
            self._twin = None
        return played

    def heuristic_action(self, rng: np.random.Generator) -> int | None:
        """The game's heuristic agent's pick for the seat to move, computed in C++ with ties drawn from
        `rng` as the Python agent draws them; None where this game's native engine has no heuristic."""
        choose = getattr(self._match, "heuristic_action", None)
        return None if choose is None else choose(rng.bit_generator.capsule)

    def ismcts_action(
        self, player: int, rng: np.random.Generator, needs_heuristic: bool, **options: Any
    ) -> tuple[int, int, list[tuple[int, float]]] | None:
        """agents/ismcts.py's search for `player` in C++ (native/core/ismcts.hpp): the same move with the same
        draws from `rng`, its lock held while the search runs without the GIL. Returns (action, iterations,
        [(root action, mean value)]), or None where the search needs a heuristic this native game lacks."""
        if needs_heuristic and not hasattr(self._match, "heuristic_action"):
            return None
        with rng.bit_generator.lock:
            return self._match.ismcts_action(player, rng.bit_generator.capsule, **options)

    def observation(self, player: int) -> np.ndarray:
        out = np.empty(self.observation_shape, dtype=np.float32)
        self._match.observation(player, out)
        return out

    def clone(self) -> Self:
        twin = object.__new__(type(self))
        twin.num_players = self.num_players
        twin.options = self.options
        twin.seed = self.seed
        twin._match = self._match.clone()
        twin._mask = self._mask  # read-only: shared
        twin._twin = None
        return twin

    def determinize(self, player: int, rng: np.random.Generator) -> Self:
        return self._wrap(
            self._match.determinize(player, rng.bit_generator.capsule), self.num_players, self.options, None
        )

    # ----- states -------------------------------------------------------------------------------
    def _rng_snapshot(self) -> Mapping[str, Any]:
        return rng_state(self._match.rng_words())

    def __deepcopy__(self, memo: dict) -> Self:
        return self.clone()

    def __copy__(self) -> Self:
        return self.clone()

    def __reduce__(self) -> tuple:
        """Pickled as its class and its JSON state (the C++ match itself does not pickle)."""
        return _restore, (type(self), self.to_dict())

    @classmethod
    def from_dict(cls, data: dict, verify_history: bool = False) -> Self:
        """The match `to_dict` described, checked by the Python engine's `from_dict` first."""
        return cls.from_reference(cls.reference_class.from_dict(data, verify_history=verify_history))

    @classmethod
    def from_trusted_dict(cls, data: Mapping[str, Any]) -> Self:
        """The match `to_dict` described, read by the native engine's own door (which checks every
        index it reads) without the Python engine's `from_dict` checks: only for data this process or
        its referee wrote (a candidate's sample of its match, `evaluation/seat.py`)."""
        match = cls.native_type.from_json(
            data["num_players"],
            json.dumps(data["options"]),
            json.dumps(data["state"]),
            rng_words(data["rng"]),
            list(data["history"]),
        )
        return cls._wrap(match, data["num_players"], dict(data["options"]), data["seed"])

    @classmethod
    def from_reference(cls, game: Game) -> Self:
        """The native twin of a Python engine's match (a checked one: `from_dict` made it or it was played)."""
        data = game.to_dict()
        match = cls.native_type.from_json(
            game.num_players,
            json.dumps(data["options"]),
            json.dumps(data["state"]),
            rng_words(data["rng"]),
            data["history"],
        )
        return cls._wrap(match, game.num_players, dict(game.options), game.seed)

    def _state_to_dict(self) -> dict:
        return json.loads(self._match.state_json())

    def _state_from_dict(self, data: dict) -> None:
        self._match = self.native_type.from_json(
            self.num_players, json.dumps(self.options), json.dumps(data), self._match.rng_words(), self.history
        )
        self._mask = self._twin = None

    def _copy_state_from(self, other: Self) -> None:
        self._match = other._match.clone()
        self._mask = self._twin = None

    def reference(self) -> Game:
        """This position in the Python engine (made once per position; treat it as read-only)."""
        if self._twin is None:
            self._twin = self.reference_class.from_trusted_dict(self.to_dict())
        return self._twin

    @property
    def state(self) -> Any:
        """The Python engine's state of this position (a read-only snapshot)."""
        return self.reference().state  # type: ignore[attr-defined]

    def _validate_state(self) -> None:
        self.reference()._validate_state()

    def validate(self) -> None:
        self.reference().validate()

    def _setup(self) -> None:
        raise NotImplementedError("a native match is set up in C++ by __init__")

    def _resample_hidden(self, player: int, rng: np.random.Generator) -> None:
        raise NotImplementedError("a native match resamples in C++: call determinize()")

    # ----- people: the Python engine's, on the same position -----------------------------------
    def view(self, player: int) -> dict:
        return self.reference().view(player)

    def seat_state(self, player: int) -> Any:
        return self.reference().seat_state(player)

    def public_scores(self) -> list[float]:
        return self.reference().public_scores()

    def score_parts(self) -> list[list[tuple[str, float]]]:
        return self.reference().score_parts()

    def describe_action(self, action: int) -> str:
        return self.reference().describe_action(action)

    def describe_public_action(self, action: int) -> str:
        return self.reference().describe_public_action(action)

    def describe_outcome(self, before: Self) -> list[str]:
        earlier = before.reference() if isinstance(before, NativeGame) else before
        return self.reference().describe_outcome(earlier)

    def describe_partial(self) -> str:
        return self.reference().describe_partial()

    def describe_table(self) -> str:
        return self.reference().describe_table()

    def choice_group(self, action: int) -> str:
        return self.reference().choice_group(action)

    def presentation_order(self, actions: list[int]) -> list[int]:
        return self.reference().presentation_order(actions)

    def board_map(self) -> BoardMap | None:
        return self.reference().board_map()

    def render_svg(self, choices: Mapping[int, str] | None = None) -> str | None:
        return self.reference().render_svg(choices)

    def render_private(self, player: int) -> str:
        return self.reference().render_private(player)

    @classmethod
    def rules_summary(cls) -> str:
        return cls.reference_class.rules_summary()

    @classmethod
    def decision_texts(cls) -> dict[int, str]:
        return cls.reference_class.decision_texts()

    def decision_words(self) -> str:
        return self.reference().decision_words()

    @classmethod
    def card_texts(cls) -> dict[str, str]:
        return cls.reference_class.card_texts()

    def legend(self, seats: Sequence[int]) -> list[tuple[str, str]]:
        return self.reference().legend(seats)

    def missing_choices(self, seat: int) -> list[str]:
        return self.reference().missing_choices(seat)

    def public_resources(self) -> list[list[tuple[str, int]]]:
        return self.reference().public_resources()

    def public_score_parts(self) -> list[list[tuple[str, float]]] | None:
        return self.reference().public_score_parts()

    def render_text(self) -> str:
        return self.reference().render_text()

    def render_image(self) -> np.ndarray:
        return self.reference().render_image()


def _restore(cls: type[NativeGame], data: dict) -> NativeGame:
    """The match a pickle holds (`NativeGame.__reduce__`); unpickling trusts its data, as pickle does."""
    return cls.from_reference(cls.reference_class.from_trusted_dict(data))


_CLASSES: dict[type[Game], type[NativeGame]] = {}


def __getattr__(name: str) -> type[NativeGame]:
    """The native classes by their games' class names (`city_envs.core.native.Citadels`), made on first
    use, so that a class and its matches pickle by reference into other processes."""
    if name.startswith("_"):  # the import system's questions (__path__, ...), not a game
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    for game in GAMES:
        reference = python_class(game)
        if reference.__name__ == name:
            native = native_class(reference)
            if native is not None:
                return native
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def native_class(reference: type[Game]) -> type[NativeGame] | None:
    """The native engine's class for a Python engine's game class, or None where it is not built."""
    if reference in _CLASSES:
        return _CLASSES[reference]
    native_type = getattr(_native, reference.__name__, None) if _native is not None else None
    if native_type is None:
        return None
    if native_type.num_actions != reference.num_actions or (native_type.observation_size,) != tuple(
        reference.observation_shape
    ):
        raise RuntimeError(f"the native {reference.name} does not fit its Python engine's sizes: rebuild the package")
    members = {
        name: getattr(reference, name)
        for name in (
            "name",
            "min_players",
            "max_players",
            "options_spec",
            "state_version",
            "entity_layout",
            "obs_layout",
            "standing_names",
            "num_actions",
            "observation_shape",
        )
    }
    cls = type(
        reference.__name__,
        (NativeGame,),
        {
            **members,
            "reference_class": reference,
            "native_type": native_type,
            "__module__": __name__,
            "__qualname__": reference.__name__,
            "__doc__": f"{reference.__name__} on the native engine (the same match as `{reference.__module__}`'s).",
        },
    )
    _CLASSES[reference] = cls
    return cls


def select_engine(game_cls: type[Game], engine: str | None = None) -> type[Game]:
    """The class that plays `game_cls`'s game on `engine` ("native" or "python").

    With no engine named, the environment variable CITY_ENVS_ENGINE names the one preferred (the
    tests run whole on either), else the native engine is preferred; a game whose native engine is not
    built then plays on the Python engine. Naming `engine="native"` where it is not built is an error.
    """
    named = engine if engine is not None else os.environ.get(ENGINE_VARIABLE) or None
    if named is not None and named not in ENGINES:
        source = "engine" if engine is not None else ENGINE_VARIABLE
        raise ValueError(f"invalid {source} {named!r}; allowed: {', '.join(ENGINES)}")
    reference = game_cls.reference_class if issubclass(game_cls, NativeGame) else game_cls
    if named == "python":
        return reference
    native = native_class(reference)
    if native is None:
        if engine == "native":
            reason = "this installation was built without it" if _native is None else "not built for this game yet"
            raise ValueError(f"the native engine of {reference.name} is not available ({reason}); use engine='python'")
        return reference
    return native
