"""A bounded memo for derived data that agents and views ask for again and again."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any


class BoundedMemo:
    """A dict of at most `size` entries that starts afresh when full: simpler and cheaper than an LRU
    for keys that are asked in bursts (the positions of one match), and memory stays bounded."""

    __slots__ = ("size", "entries")

    def __init__(self, size: int) -> None:
        self.size = size
        self.entries: dict[Hashable, Any] = {}

    def get(self, key: Hashable) -> Any:
        return self.entries.get(key)

    def put(self, key: Hashable, value: Any) -> None:
        if len(self.entries) >= self.size:
            self.entries.clear()
        self.entries[key] = value
