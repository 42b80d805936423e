"""The base of each game's `Decision` table: one declaration gives both the id of a decision kind
(what observations one-hot and recorded matches store) and its name (what logs, errors and the web
page show)."""

from __future__ import annotations

from typing import ClassVar


class DecisionTable:
    """A game's kinds of pending decision, declared as upper-case int attributes (`MAIN = 2`).

    The ids stay plain ints, so the rules' hot paths read `Decision.MAIN` as fast as a module
    constant and states hold what they always held. (An `IntEnum` was tried: on Python 3.10-3.11
    each member lookup goes through `EnumType.__getattr__`, and a Big City step got ~9% slower.)
    `names` is derived from the declaration, in id order.
    """

    names: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        kinds = {name: value for name, value in vars(cls).items() if name.isupper() and type(value) is int}
        if sorted(kinds.values()) != list(range(len(kinds))):
            raise TypeError(f"{cls.__qualname__}: the ids must be 0..{len(kinds) - 1}, each once: {kinds}")
        cls.names = tuple(sorted(kinds, key=kinds.__getitem__))

    @classmethod
    def name_of(cls, decision: int) -> str:
        """The name of decision id `decision`; "GAME_OVER" for the negative ids that mean none pends."""
        return cls.names[decision] if decision >= 0 else "GAME_OVER"
