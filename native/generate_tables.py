"""The C++ literals the header generators native/<game>/generate.py write their tables with.

Each generator imports these as `native.generate_tables` (it puts the repository root on `sys.path`
first, so that works both when it runs as a script and when a test loads it).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path


def constant(name: str, value: int) -> str:
    """`inline constexpr int name = value;`"""
    return f"inline constexpr int {name} = {int(value)};"


def ints(values: Iterable[int]) -> str:
    """`{1, 2, 3}`: an initializer of integers."""
    return "{" + ", ".join(str(int(v)) for v in values) + "}"


def bools(values: Iterable[bool]) -> str:
    """`{true, false}`: an initializer of booleans."""
    return "{" + ", ".join("true" if v else "false" for v in values) + "}"


def strings(values: Iterable[str]) -> str:
    """`{"a", "b"}`: an initializer of string literals, unescaped (for names, which hold no quote or backslash)."""
    return "{" + ", ".join(f'"{v}"' for v in values) + "}"


def padded(rows: Iterable[Sequence[int]], width: int, fill: int) -> list[list[int]]:
    """Each row as a list, filled with `fill` up to `width` items."""
    return [list(row) + [fill] * (width - len(row)) for row in rows]


def main(header: Path, render: Callable[[], str], description: str | None) -> None:
    """A generator's command line: it takes no argument and writes `render()` to `header`."""
    argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter).parse_args()
    header.write_text(render())
    print(f"wrote {header}")
