"""The base of each game's `Decision` enum: one declaration gives both the id (what observations
one-hot and recorded matches store) and the name (what logs, errors and the web page show)."""

from __future__ import annotations

from enum import IntEnum


class DecisionKind(IntEnum):
    """A game's kinds of pending decision; a game's `rules.Decision` subclasses it with its members.

    A member compares, hashes and indexes as its int, so the rules keep plain ints in their state
    and tables keyed by members answer plain-int lookups.
    """

    @classmethod
    def name_of(cls, decision: int) -> str:
        """The name of decision id `decision`; "GAME_OVER" for the negative ids that mean none pends."""
        return cls(decision).name if decision >= 0 else "GAME_OVER"
