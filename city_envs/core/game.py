"""The `Game` contract every city-envs game implements (see docs/architecture.md).

One `Game` object is one match: static options plus mutable state. Rules modules subclass it;
the PettingZoo adapter, agents, the trainer and the arena only ever use the members defined here.
"""

from __future__ import annotations

import abc
import copy
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, TypeAlias, cast

import numpy as np

from city_envs.core.layout import ObservationLayout
from city_envs.core.regions import BoardMap
from city_envs.core.validation import InvalidStateError, check_int, check_ints, is_int, require

if TYPE_CHECKING:
    from typing_extensions import Self  # typing.Self from Python 3.11

SERIAL_FORMAT = 1
SERIAL_KEYS = ("game", "format", "state_version", "num_players", "options", "seed", "rng", "history", "state")
# the bit generators a match may use (`default_rng` builds PCG64); a file may not name any other
BIT_GENERATORS = ("PCG64", "PCG64DXSM", "MT19937", "Philox", "SFC64")


class IllegalActionError(ValueError):
    """An action that is out of range or not legal in the pending decision."""

    def __init__(self, action: Any, decision: str, reason: str = "not legal now") -> None:
        self.action = action
        self.decision = decision
        self.reason = reason
        super().__init__(f"illegal action {action!r} in pending decision {decision}: {reason}")


@dataclass(frozen=True)
class Option:
    """One game option: its default and the values it accepts (for validation and `city-envs list`)."""

    default: Any
    doc: str
    choices: tuple | None = None
    check: Callable[[Any], bool | np.bool_] | None = None
    allowed: str = ""

    def validate(self, name: str, value: Any) -> None:
        ok: bool | np.bool_
        if self.choices is not None:
            ok = any(type(value) is type(c) and value == c for c in self.choices)
        else:  # an option without choices is declared with its check
            ok = cast("Callable[[Any], bool | np.bool_]", self.check)(value)
        if not ok:
            allowed = ", ".join(map(repr, self.choices)) if self.choices is not None else self.allowed
            raise ValueError(f"invalid value {value!r} for option {name!r}; allowed: {allowed}")


@dataclass(frozen=True)
class EntityLayout:
    """Where an observation holds one row of features per board entity, and which actions act on them.

    Each block (offset, width) of `rows` holds `count` rows of `width` values: entity k's row starts at
    `offset + k * width`, and its features are its rows of every block, joined. Each start s in
    `action_starts` names a group of actions, one per entity (`s + k`). A policy can then score every
    entity's actions with one shared network (city_envs.agents.entity_policy) instead of learning the
    same function once per board position. `context` names slices (start, stop, step) of the observation
    that every entity's score reads as they are (the seat's hand, say). A layout describes the
    observation; it changes nothing in it.
    """

    count: int
    rows: tuple[tuple[int, int], ...]
    action_starts: tuple[int, ...]
    context: tuple[tuple[int, int, int], ...] = ()

    def to_json(self) -> dict:
        return {
            "count": self.count,
            "rows": [list(block) for block in self.rows],
            "action_starts": list(self.action_starts),
            "context": [list(c) for c in self.context],
        }


def positive_int(value: Any) -> bool | np.bool_:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool) and value >= 1


def leaders(keys: Sequence[Any]) -> list[int]:
    """The seats whose ranking key is the best (several only for a surviving tie)."""
    best = max(keys)
    return [seat for seat, key in enumerate(keys) if key == best]


def rng_from_state(state: Mapping[str, Any]) -> np.random.Generator:
    """Rebuild a match RNG from `Generator.bit_generator.state` (a JSON-safe dict)."""
    bit_generator = getattr(np.random, state["bit_generator"])()
    bit_generator.state = state
    return np.random.Generator(bit_generator)


def checked_rng(state: Any) -> np.random.Generator:
    """`rng_from_state` for untrusted data: anything but a well-formed generator state is rejected."""
    require(isinstance(state, dict), "rng", f"{type(state).__name__} found where a generator state belongs")
    name = state.get("bit_generator")
    require(name in BIT_GENERATORS, "rng", f"unknown bit_generator {name!r}; allowed: {', '.join(BIT_GENERATORS)}")
    try:
        generator = rng_from_state(state)
        restored = generator.bit_generator.state
    except (TypeError, ValueError, KeyError, OverflowError) as error:
        raise InvalidStateError("rng", f"not a {name} state ({error})") from None
    require(_plain(restored) == _plain(state), "rng", f"not a {name} state (it does not read back unchanged)")
    return generator


def action_index(action: Any, decision: str) -> int:
    """`action` as an int: Python ints, numpy integer scalars and 0-d integer arrays only.

    Floats (even integral ones), bools, strings and anything else are refused with their type
    named, as gymnasium's `Discrete.contains` refuses them.
    """
    if isinstance(action, np.ndarray) and action.ndim == 0 and action.dtype.kind in "iu":
        action = action[()]
    if not is_int(action):
        raise IllegalActionError(action, decision, f"a {type(action).__name__} is not an action; actions are integers")
    return int(action)


def _plain(value: Any) -> Any:
    """`value` with tuples as lists and numpy scalars as Python ones, as JSON would return it."""
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    if isinstance(value, np.generic):
        return value.item()
    return value


def first_difference(a: Any, b: Any, path: str = "") -> str | None:
    """The path of the first place two plain JSON-like values differ, or None when equal."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b), key=str):
            if key not in a or key not in b:
                return f"{path}.{key}".lstrip(".")
            found = first_difference(a[key], b[key], f"{path}.{key}")
            if found is not None:
                return found.lstrip(".")
        return None
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            found = first_difference(x, y, f"{path}[{i}]")
            if found is not None:
                return found
        return None
    return None if a == b and type(a) is type(b) else (path.lstrip(".") or "<root>")


class LazyGenerator:
    """Stands in for a match's `Generator`, which is built only when chance is first needed.

    Building a generator costs tens of microseconds; search clones a match thousands of times and
    most clones never shuffle, so rules receive this proxy instead of the generator itself.
    """

    __slots__ = ("_game",)

    def __init__(self, game: Game) -> None:
        self._game = game

    def __getattr__(self, name: str) -> Any:
        # dunders are the copy/pickle protocols asking about the proxy itself, not the generator
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self._game.rng, name)

    def __reduce__(self) -> tuple:
        """Copied or pickled with its match (which already holds the generator or its state)."""
        return LazyGenerator, (self._game,)


# what a game's rules draw chance from: the match's generator, or the proxy that builds it when needed
Chance: TypeAlias = "np.random.Generator | LazyGenerator"


class Game(abc.ABC):
    """Base class of a match. Subclasses implement the `_`-prefixed hooks and the abstract members."""

    name: ClassVar[str]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    options_spec: ClassVar[dict[str, Option]] = {}
    state_version: ClassVar[int] = 1
    entity_layout: ClassVar[EntityLayout | None] = None  # per-entity rows of the observation, if it has them
    obs_layout: ClassVar[ObservationLayout | None] = None  # the observation's named blocks (view.LAYOUT)
    # what each key of `standings()` counts, in words: the score, then the rulebook's tie-breaks
    standing_names: ClassVar[tuple[str, ...]] = ("points",)

    num_actions: int
    observation_shape: tuple[int, ...]

    def __init__(self, num_players: int, seed: int | None = None, **options: Any) -> None:
        self.num_players = self.check_num_players(num_players)
        self.options = self.check_options(options)
        self.seed = seed
        self._rng: np.random.Generator | None = np.random.default_rng(seed)
        self._rng_state: Mapping[str, Any] | None = None  # set whenever _rng is None
        self.chance = LazyGenerator(self)
        self.history: list[int] = []
        self._mask: np.ndarray | None = None
        self._setup()

    @property
    def rng(self) -> np.random.Generator:
        """The match's only source of chance. Clones build theirs lazily: most never need it."""
        if self._rng is None:
            self._rng = rng_from_state(cast("Mapping[str, Any]", self._rng_state))  # set when _rng is None
            self._rng_state = None
        return self._rng

    @rng.setter
    def rng(self, generator: np.random.Generator) -> None:
        self._rng, self._rng_state = generator, None

    def _rng_snapshot(self) -> Mapping[str, Any]:
        """The generator's state; shared, never mutated, when the generator was not built yet."""
        # _rng_state is set whenever _rng is None
        return self._rng.bit_generator.state if self._rng is not None else cast("Mapping[str, Any]", self._rng_state)

    # ----- validation -------------------------------------------------------------------------
    @classmethod
    def allowed_player_counts(cls) -> tuple[int, ...]:
        return tuple(range(cls.min_players, cls.max_players + 1))

    @classmethod
    def observation_layout(cls) -> ObservationLayout:
        """The observation's named blocks with their slices: `layout["global"].slice`, `.view(obs)`.

        The same at every player count (absent seats are zero rows)."""
        if cls.obs_layout is None:
            raise NotImplementedError(f"{cls.name} does not declare an observation layout")
        return cls.obs_layout

    @classmethod
    def feature_names(cls) -> tuple[str, ...]:
        """One unique name per observation value: `observation(p)[i]` is `feature_names()[i]`."""
        return cls.observation_layout().feature_names()

    @classmethod
    def check_num_players(cls, num_players: Any) -> int:
        allowed = cls.allowed_player_counts()
        if not is_int(num_players) or num_players not in allowed:
            raise ValueError(f"{cls.name} supports {', '.join(map(str, allowed))} players, not {num_players!r}")
        return int(num_players)

    @classmethod
    def check_options(cls, options: dict[str, Any]) -> dict[str, Any]:
        unknown = sorted(set(options) - set(cls.options_spec))
        if unknown:
            known = ", ".join(sorted(cls.options_spec)) or "none"
            raise ValueError(f"unknown option(s) {', '.join(unknown)} for {cls.name}; allowed: {known}")
        checked = {}
        for key, spec in cls.options_spec.items():
            value = options.get(key, spec.default)
            spec.validate(key, value)
            checked[key] = value
        return checked

    # ----- hooks for subclasses ----------------------------------------------------------------
    @abc.abstractmethod
    def _setup(self) -> None:
        """Deal, shuffle and place everything; leave the first decision pending."""

    @abc.abstractmethod
    def _legal_actions(self) -> np.ndarray:
        """Fresh bool mask of length `num_actions` for the pending decision."""

    @abc.abstractmethod
    def _apply(self, action: int) -> None:
        """Advance by one legal action (already validated)."""

    @abc.abstractmethod
    def _state_to_dict(self) -> dict:
        """The mutable state as JSON-safe data."""

    @abc.abstractmethod
    def _state_from_dict(self, data: dict) -> None:
        """Inverse of `_state_to_dict`."""

    @abc.abstractmethod
    def _copy_state_from(self, other: Self) -> None:
        """Copy `other`'s mutable state into self so that the two share nothing mutable."""

    @abc.abstractmethod
    def _validate_state(self) -> None:
        """Raise `InvalidStateError` naming the first field of `self`'s state that breaks an invariant.

        Every shipped game checks conservation of its cards and pieces, ranges, ids, who acts and
        agreement with `num_players` and the options; `validate()` adds what holds for every game.
        """

    @abc.abstractmethod
    def decision_name(self) -> str:
        """Name of the pending decision kind (used in errors and views)."""

    # ----- the public API ---------------------------------------------------------------------
    @abc.abstractmethod
    def current_player(self) -> int:
        """Seat to act, -1 once the game is over."""

    @abc.abstractmethod
    def is_over(self) -> bool: ...

    def is_truncated(self) -> bool:
        """True when the game was stopped by a safety valve rather than by its own end rule."""
        return False

    @abc.abstractmethod
    def scores(self) -> list[float]:
        """Game points per seat (final at the end, running otherwise)."""

    def public_scores(self) -> list[float]:
        """The scores every seat sees: `scores()`, except in a game that counts secret points before
        the end (Metropolys' objectives), which leaves them out until then. People see these."""
        return self.scores()

    @abc.abstractmethod
    def winners(self) -> list[int]:
        """Seats that won after the rulebook's tie-breaks (several only for a surviving tie)."""

    def standings(self) -> list[tuple[float, ...]]:
        """Each seat's place if the match were decided now: a key per seat, higher is better, compared
        as the rulebook ranks the end of a match (points, then its tie-breaks). Search values a cut
        rollout by it. By default the score alone; a game with tie-breaks says which."""
        return [(score,) for score in self.scores()]

    def score_parts(self) -> list[list[tuple[str, float]]]:
        """Per seat, what its score adds up from, in the rules' words; the parts sum to `scores()`.
        Secret parts (Metropolys' objectives) are included, so people see them once the match is over.
        By default the score as one part; a game whose score has parts names them."""
        return [[(self.standing_names[0], score)] for score in self.scores()]

    def describe_result(self, names: Sequence[str]) -> str:
        """Who won and why, in one line, with each seat called by `names`: the score, or the first
        tie-break of `standings()` that separates the winner from the seats tied with it."""
        winners, keys = self.winners(), self.standings()
        listed = " and ".join(names[seat] for seat in winners)

        def amount(key: int, value: float) -> str:
            return f"{value:g} {self.standing_names[key]}"

        if len(winners) > 1:
            shared = ", ".join(amount(k, v) for k, v in enumerate(keys[winners[0]]))
            return f"{listed} share the victory with {shared} each."
        winner = winners[0]
        others = [seat for seat in range(self.num_players) if seat != winner]
        level = [seat for seat in others if keys[seat][0] == keys[winner][0]]
        if keys[winner] != max(keys) or not others:  # an end the standings do not decide (a race to a goal)
            return f"{listed} wins with {amount(0, keys[winner][0])}."
        if not level:
            runner_up = max(others, key=lambda seat: keys[seat])
            return (
                f"{listed} wins with {amount(0, keys[winner][0])}, against {keys[runner_up][0]:g} for "
                f"{names[runner_up]}."
            )
        tied = " and ".join(names[seat] for seat in [winner, *level])
        for key in range(1, len(keys[winner])):
            if all(keys[winner][key] > keys[seat][key] for seat in level):
                against = ", ".join(f"{keys[seat][key]:g} for {names[seat]}" for seat in level)
                return (
                    f"{tied} tie on {amount(0, keys[winner][0])}; {names[winner]} wins on "
                    f"{self.standing_names[key]}: {keys[winner][key]:g}, against {against}."
                )
            level = [seat for seat in level if keys[seat][key] == keys[winner][key]]
        return f"{listed} wins with {amount(0, keys[winner][0])}."

    @abc.abstractmethod
    def view(self, player: int) -> dict:
        """Structured description of exactly what `player` knows."""

    def seat_state(self, player: int) -> Any:
        """A game-specific State holding exactly what `player` knows (its own hidden items, the public
        ones; nothing of the others'), for agents that value moves with the rule functions."""
        raise NotImplementedError(f"{self.name} does not offer a seat state; use view({player}) instead")

    @abc.abstractmethod
    def observation(self, player: int) -> np.ndarray:
        """float32 tensor encoding of `view(player)`, shape `observation_shape`."""

    @abc.abstractmethod
    def _resample_hidden(self, player: int, rng: np.random.Generator) -> None:
        """Resample, in this (cloned) match, everything `player` cannot see."""

    @abc.abstractmethod
    def describe_action(self, action: int) -> str:
        """Human text for an action id in the current state."""

    @abc.abstractmethod
    def render_text(self) -> str: ...

    @abc.abstractmethod
    def render_image(self) -> np.ndarray: ...

    def describe_public_action(self, action: int) -> str:
        """`describe_action` as the other seats see it (games hide secret choices here)."""
        return self.describe_action(action)

    def describe_outcome(self, before: Self) -> list[str]:
        """Public consequences of the action that led from `before` to now that its own text does not
        say (a character revealed, gold stolen, a turn skipped), found by comparing the two states.
        Everyone sees these, so they may only name what the table learns. None by default."""
        return []

    def describe_table(self) -> str:
        """The whole table in words for a person (the web app's final table, under the board it draws):
        `render_text` unless a game's text is a terminal's compact code (Urban Sprawl's city grid)."""
        return self.render_text()

    def describe_partial(self) -> str:
        """What the acting seat has chosen so far in a decision of several steps ("" when nothing):
        shown only to that seat, so it may name its own secrets."""
        return ""

    def choice_group(self, action: int) -> str:
        """The heading a long list of choices shows `action` under (a street under its neighbourhood,
        a bid under its district); "" where the game groups no such choice."""
        return ""

    def board_map(self) -> BoardMap | None:
        """The clickable regions of `render_image()` for the legal actions drawn on it (None: no board)."""
        return None

    def render_svg(self, choices: Mapping[int, str] | None = None) -> str | None:
        """The public table as an SVG document with every label a choice names (None: no SVG board).
        The legal actions among `choices` (id -> its button's text) are drawn as clickable places."""
        return None

    def render_private(self, player: int) -> str:
        """What only `player` knows, as text for a person playing that seat (games may refine it)."""
        public = self.view((player + 1) % self.num_players)
        mine = self.view(player)
        return "\n".join(f"{k}: {v}" for k, v in mine.items() if k != "player" and public.get(k) != v)

    # ----- the game at hand: what a table page explains, public or the named seats' own -----------
    @classmethod
    def rules_summary(cls) -> str:
        """The rules in short, as Markdown ("" for a game that has none)."""
        return ""

    @classmethod
    def decision_texts(cls) -> dict[int, str]:
        """Each kind of pending decision in words for a person, by its id in the game's decision table
        (`core/decisions.py`); empty for a game that names its decisions for code only."""
        return {}

    def decision_words(self) -> str:
        """The pending decision in words for a person (its code name, made readable, where the game
        gives none)."""
        return self.decision_name().replace("_", " ").lower()

    @classmethod
    def card_texts(cls) -> dict[str, str]:
        """What each card, character or token does, by the name the choices' texts and the board give it."""
        return {}

    def legend(self, seats: Sequence[int]) -> list[tuple[str, str]]:
        """(name, text) of the characters, cards and tokens on the public table and in the hands of
        `seats` (the viewing seat; every seat for a full view); nothing of another seat's hidden items."""
        return []

    def missing_choices(self, seat: int) -> list[str]:
        """One line per choice a rule removes that a person would expect, for `seat` while it decides
        (none otherwise), from the public state and that seat's own hand."""
        return []

    def public_resources(self) -> list[list[tuple[str, int]]]:
        """Each seat's public resources as (what, how many): gold, cards in hand (how many), wealth ..."""
        return [[] for _ in range(self.num_players)]

    def public_score_parts(self) -> list[list[tuple[str, float]]] | None:
        """Each seat's score parts while every seat may see them: always in a game that counts no
        secret points (`public_scores` is `scores`), at the end in one that does; else None."""
        if type(self).public_scores is not Game.public_scores and not self.is_over():
            return None
        return self.score_parts()

    def action_id(self, action: Any) -> int:
        """`action` as an id in `0..num_actions - 1`, else `IllegalActionError`: describing an id out of
        range would describe another action (a table indexed from the end) or fail deep in the rules."""
        if type(action) is int and 0 <= action < self.num_actions:  # the common case, without the checks below
            return action
        index = action_index(action, self.decision_name())
        if not 0 <= index < self.num_actions:
            raise IllegalActionError(action, self.decision_name(), f"out of range 0..{self.num_actions - 1}")
        return index

    def legal_actions(self) -> np.ndarray:
        """Read-only bool mask of the pending decision (cached until the next `apply`)."""
        if self._mask is None:
            mask = np.zeros(self.num_actions, dtype=bool) if self.is_over() else self._legal_actions()
            mask.setflags(write=False)  # cheaper than through .flags
            self._mask = mask
        return self._mask

    def apply(self, action: int) -> None:
        """Advance by `action`; an illegal one raises `IllegalActionError` and changes nothing.

        Only integers are actions (see `action_index`): a float, bool or string is refused even
        when it would convert to a legal id.
        """
        if self.is_over():
            raise IllegalActionError(action, "none (game over)", "the game is over")
        index = self.action_id(action)
        if not self.legal_actions()[index]:
            raise IllegalActionError(action, self.decision_name())
        self._mask = None
        self._apply(index)
        self.history.append(index)

    def returns(self) -> list[float]:
        """Terminal utility: winners share +1, the others share -1 (zero-sum); zeros before the end."""
        n = self.num_players
        if not self.is_over():
            return [0.0] * n
        won = set(self.winners())
        if len(won) == n:
            return [0.0] * n
        win, lose = 1.0 / len(won), -1.0 / (n - len(won))
        return [win if seat in won else lose for seat in range(n)]

    def playout(self, rng: np.random.Generator, max_decisions: int | None = None) -> int:
        """Play uniformly random legal actions until the end or `max_decisions` (None: no limit), each
        the k-th legal id with k = rng.integers(number legal); return how many were played. The native
        engine plays the same moves, drawn alike, in C++."""
        played = 0
        while not self.is_over() and (max_decisions is None or played < max_decisions):
            legal = np.flatnonzero(self.legal_actions())
            self.apply(int(legal[rng.integers(len(legal))]))
            played += 1
        return played

    def legal_action_ids(self) -> list[int]:
        return self.legal_actions().nonzero()[0].tolist()  # the mask is 1-D: no flatnonzero ravel

    def presentation_order(self, actions: list[int]) -> list[int]:
        """`actions` in the order a person should read them, the main choices first: by default the ids'
        order. Presentation only: a game whose id layout puts a pass before its main choices lists it
        last here, and its ids (observations, recorded matches) stay as they are."""
        return list(actions)

    def clone(self) -> Self:
        """Independent copy: mutating one never changes the other."""
        twin = object.__new__(type(self))
        twin.num_players = self.num_players
        twin.options = self.options
        twin.seed = self.seed
        twin._rng, twin._rng_state = None, self._rng_snapshot()
        twin.chance = LazyGenerator(twin)
        twin.history = list(self.history)
        twin._mask = self._mask
        twin._copy_state_from(self)
        return twin

    def determinize(self, player: int, rng: np.random.Generator) -> Self:
        """A clone whose information hidden from `player` is resampled consistently with its view.

        The clone carries no history and no seed (both would reveal the true deal) and a fresh
        RNG drawn from `rng`, since future chance is hidden too.
        """
        twin = self.clone()
        twin.history = []
        twin.seed = None
        twin.rng = np.random.default_rng(int(rng.integers(2**63)))
        twin._resample_hidden(player, rng)
        twin._mask = None
        return twin

    def validate(self) -> None:
        """Check every invariant of the current state; raise `InvalidStateError` (a `ValueError`)
        naming the first broken field. `from_dict` runs it; the randomized tests run it every step."""
        check_ints("history", self.history, low=0, high=self.num_actions - 1)
        if self.seed is not None:
            check_int("seed", self.seed, low=0)
        self._validate_state()
        actor = self.current_player()
        if self.is_over():
            require(actor == -1, "current_player", f"{actor!r} acts although the game is over")
            return
        check_int("current_player", actor, 0, self.num_players - 1)
        require(
            bool(self._legal_actions().any()),
            "decision",
            f"the pending decision {self.decision_name()} of seat {actor} has no legal action",
        )

    def verify_history(self) -> None:
        """Replay `history` from the seed and options; the result must equal this match exactly."""
        if self.seed is None:
            raise InvalidStateError("seed", "no seed to replay the history from (a determinized match?)")
        replayed = type(self)(self.num_players, seed=self.seed, **self.options)
        for i, action in enumerate(self.history):
            try:
                replayed.apply(action)
            except IllegalActionError as error:
                raise InvalidStateError(f"history[{i}]", f"illegal on replay from the seed: {error}") from None
        mine, theirs = _plain(self.to_dict()), _plain(replayed.to_dict())
        where = first_difference(mine, theirs)
        if where is not None:
            raise InvalidStateError(where, "differs from the replay of the history from the seed")

    def to_dict(self) -> dict:
        """Full state as JSON-safe data, versioned, including the RNG state (a snapshot)."""
        return copy.deepcopy(
            {
                "game": self.name,
                "format": SERIAL_FORMAT,
                "state_version": self.state_version,
                "num_players": self.num_players,
                "options": dict(self.options),
                "seed": self.seed,
                "rng": self._rng_snapshot(),
                "history": list(self.history),
                "state": self._state_to_dict(),
            }
        )

    @classmethod
    def from_dict(cls, data: dict, verify_history: bool = False) -> Self:
        """The match `to_dict` described; `data` is copied, never shared.

        Every value is checked (`validate()`), so an impossible state is refused here with a
        `ValueError` naming the field; `verify_history=True` also replays the history from the seed
        and requires the very same state.
        """
        if not isinstance(data, dict):
            raise TypeError(f"a {cls.name} state is a dict, not a {type(data).__name__}")
        data = copy.deepcopy(data)
        missing = [key for key in SERIAL_KEYS if key not in data]
        if missing:
            raise ValueError(f"state data lacks {', '.join(missing)}")
        unknown = sorted(set(data) - set(SERIAL_KEYS), key=str)
        if unknown:
            raise ValueError(f"state data has unknown key(s) {', '.join(map(repr, unknown))}")
        if data.get("game") != cls.name:
            raise ValueError(f"data is for game {data.get('game')!r}, not {cls.name!r}")
        if data.get("format") != SERIAL_FORMAT or data.get("state_version") != cls.state_version:
            raise ValueError(
                f"unsupported format {data.get('format')}/{data.get('state_version')}; "
                f"this version reads {SERIAL_FORMAT}/{cls.state_version}"
            )
        game = object.__new__(cls)
        game.num_players = cls.check_num_players(data["num_players"])
        if not isinstance(data["options"], dict):
            raise ValueError(f"options must be a dict, not a {type(data['options']).__name__}")
        game.options = cls.check_options(dict(data["options"]))
        game.seed = None if data["seed"] is None else check_int("seed", data["seed"], low=0)
        game._rng, game._rng_state = checked_rng(data["rng"]), None
        game.chance = LazyGenerator(game)
        game.history = [int(a) for a in check_ints("history", data["history"], low=0, high=game.num_actions - 1)]
        game._mask = None
        if not isinstance(data["state"], dict):
            raise InvalidStateError("state", f"{type(data['state']).__name__} found where a dict belongs")
        game._state_from_dict(data["state"])
        game.validate()
        if verify_history:
            game.verify_history()
        return game

    @classmethod
    def from_trusted_dict(cls, data: Mapping[str, Any]) -> Self:
        """The match `to_dict` described, without the checks of `from_dict`: only for data this
        process wrote itself (the native engine's states), never for data from outside. `data` may
        be shared with the caller no longer than this call: nothing mutable is kept."""
        game = object.__new__(cls)
        game.num_players = data["num_players"]
        game.options = dict(data["options"])
        game.seed = data["seed"]
        game._rng, game._rng_state = None, data["rng"]
        game.chance = LazyGenerator(game)
        game.history = list(data["history"])
        game._mask = None
        game._state_from_dict(data["state"])
        return game

    @classmethod
    def replay(cls, num_players: int, seed: int | None, actions: list[int], **options: Any) -> Self:
        """Rebuild a match from its seed, options and action history."""
        game = cls(num_players, seed=seed, **options)
        for action in actions:
            game.apply(action)
        return game
