"""Checks shared by every game's `validate()`: one `InvalidStateError` naming the broken field.

A state can come from a file someone sent, so every field is checked for its type and range and
every card or piece for conservation before any rule reads it; a rule that met an impossible value
would fail far from the cause, or worse, play on.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

import numpy as np


class InvalidStateError(ValueError):
    """A state that no legal play can reach; `field` names the first broken one."""

    def __init__(self, field: str, problem: str) -> None:
        self.field = field
        self.problem = problem
        super().__init__(f"invalid state field {field!r}: {problem}")


def require(condition: bool, field: str, problem: str) -> None:
    if not condition:
        raise InvalidStateError(field, problem)


def is_int(value: Any) -> bool:
    """A Python or numpy integer, never a bool (JSON has no other integers)."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def check_int(field: str, value: Any, low: int | None = None, high: int | None = None) -> int:
    """`value` as an int in `low..high` (both inclusive, either open when None)."""
    if type(value) is int and (low is None or value >= low) and (high is None or value <= high):
        return value  # the common case first: validate() runs after every step of the randomized tests
    require(is_int(value), field, f"{value!r} is a {type(value).__name__}, not an integer")
    if low is not None and high is not None:
        require(low <= value <= high, field, f"{value!r} is outside {low}..{high}")
    elif low is not None:
        require(value >= low, field, f"{value!r} is below {low}")
    elif high is not None:
        require(value <= high, field, f"{value!r} is above {high}")
    return int(value)


def check_seats(n: Any, num_players: int) -> None:
    """The state's own seat count `n` is the match's `num_players`."""
    require(is_int(n) and n == num_players, "n", f"the state has {n!r} seats but num_players is {num_players}")


def check_bool(field: str, value: Any) -> bool:
    require(isinstance(value, bool), field, f"{value!r} is a {type(value).__name__}, not a bool")
    return value


def check_list(field: str, value: Any, length: int | None = None) -> list:
    require(isinstance(value, list), field, f"{type(value).__name__} found where a list belongs")
    if length is not None:
        require(len(value) == length, field, f"has {len(value)} entries, not {length}")
    return value


def check_ints(
    field: str, value: Any, length: int | None = None, low: int | None = None, high: int | None = None
) -> list[int]:
    """A list of integers, each in `low..high`; the error names the first bad index."""
    check_list(field, value, length)
    if not value:
        return value
    if set(map(type, value)) == {int} and (low is None or min(value) >= low) and (high is None or max(value) <= high):
        return value  # the common case, checked without naming every entry
    for i, item in enumerate(value):
        check_int(f"{field}[{i}]", item, low, high)
    return value


def check_bools(field: str, value: Any, length: int | None = None) -> list[bool]:
    check_list(field, value, length)
    if all(type(item) is bool for item in value):
        return value
    for i, item in enumerate(value):
        check_bool(f"{field}[{i}]", item)
    return value


def check_int_table(
    field: str, value: Any, rows: int, columns: int | None = None, low: int | None = None, high: int | None = None
) -> list[list[int]]:
    """A list of `rows` integer lists (each of `columns` entries when given)."""
    check_list(field, value, rows)
    for i, row in enumerate(value):
        check_ints(f"{field}[{i}]", row, columns, low, high)
    return value


def check_multiset(field: str, items: Iterable[int], expected: Counter | Iterable[int]) -> None:
    """The items, wherever they lie, are exactly `expected` (every card once: a permutation)."""
    items = list(items)
    wanted_list = sorted(expected.elements()) if isinstance(expected, Counter) else sorted(expected)
    try:
        if sorted(items) == wanted_list:
            return
    except TypeError:  # items of mixed types: fall through to the naming below
        pass
    found, wanted = Counter(items), Counter(wanted_list)
    extra = sorted((found - wanted).elements())
    missing = sorted((wanted - found).elements())
    parts = []
    if extra:
        parts.append(f"duplicated or unknown {extra[:8]}{' ...' if len(extra) > 8 else ''}")
    if missing:
        parts.append(f"missing {missing[:8]}{' ...' if len(missing) > 8 else ''}")
    raise InvalidStateError(field, "pieces not conserved: " + ", ".join(parts))


def check_distinct(field: str, items: Iterable[Any]) -> None:
    seen = set()
    for item in items:
        require(item not in seen, field, f"{item!r} appears twice")
        seen.add(item)
