"""The network a policy file describes, checked: layer sizes (`net_arch`) and an entity head's spec
(`entity_policy.py`), plain JSON that every network module and the policy file format read."""

from __future__ import annotations

from typing import Any


def normalize_net_arch(net_arch: Any) -> dict[str, list[int]]:
    """`[64, 64]` (the same for actor and critic) or `{"pi": [...], "vf": [...]}` as the dict form."""
    if isinstance(net_arch, dict):
        arch = {"pi": list(net_arch.get("pi", [])), "vf": list(net_arch.get("vf", []))}
    else:
        arch = {"pi": list(net_arch), "vf": list(net_arch)}
    for key, sizes in arch.items():
        if not all(isinstance(n, int) and not isinstance(n, bool) and n >= 1 for n in sizes):
            raise ValueError(f"net_arch[{key!r}] must be a list of positive layer sizes, not {sizes!r}")
    return arch


ENTITY_HEAD_KEYS = ("count", "rows", "action_starts", "context", "hidden")


def _int_lists(value: Any, length: int | None) -> bool:
    """A list of lists of `length` integers (any length if None)."""
    return isinstance(value, list) and all(
        isinstance(item, list)
        and (length is None or len(item) == length)
        and all(isinstance(v, int) and not isinstance(v, bool) for v in item)
        for item in value
    )


def check_entity_head(spec: Any, observation_size: int, num_actions: int) -> dict:
    """`spec` as a clean dict, or ValueError naming what does not fit the spaces."""
    if not isinstance(spec, dict) or set(spec) != set(ENTITY_HEAD_KEYS):
        raise ValueError(f"an entity head is a dict with the keys {', '.join(ENTITY_HEAD_KEYS)}, not {spec!r}")
    count, rows, context = spec["count"], spec["rows"], spec["context"]
    if not _int_lists([[count], spec["action_starts"], spec["hidden"]], None):
        raise ValueError(f"entity head count, action_starts and hidden must be integers: {spec!r}")
    if not _int_lists(rows, 2) or not _int_lists(context, 3):
        raise ValueError(
            f"entity head rows must be [offset, width] blocks and its context [start, stop, step] slices: {spec!r}"
        )
    starts, hidden = spec["action_starts"], spec["hidden"]
    if count < 1 or not rows or not starts or not hidden or min(hidden) < 1 or min(w for _, w in rows) < 1:
        raise ValueError(f"entity head sizes must be positive and its lists non-empty: {spec!r}")
    if any(offset < 0 or offset + count * width > observation_size for offset, width in rows):
        raise ValueError(f"entity head rows must lie in the observation ({observation_size} values): {spec!r}")
    if any(not 0 <= begin < stop <= observation_size or step < 1 for begin, stop, step in context):
        raise ValueError(
            f"entity head context slices must lie in the observation ({observation_size} values): {spec!r}"
        )
    if min(starts) < 0 or max(starts) + count > num_actions:
        raise ValueError(f"entity head action groups end past the {num_actions} actions: {spec!r}")
    return {
        "count": count,
        "rows": [list(b) for b in rows],
        "action_starts": list(starts),
        "context": [list(c) for c in context],
        "hidden": list(hidden),
    }
