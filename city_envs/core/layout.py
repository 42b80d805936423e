"""Observation layouts declared as data: each game names its observation's blocks once.

A game's `view.py` declares its flat float32 observation as an ordered list of `Block`s, each a vector
of named `Field`s or a table of `rows` rows of them. `ObservationLayout` places the blocks one after
another and derives everything else from that one declaration: the offsets the encoder writes through
(`Block.index`, `Block.column`, ...), the per-entity rows of `EntityLayout`, one unique name per value
(`feature_names`) and the docs' observation table (`markdown_table`). The declaration describes the
vector; it computes nothing per call, so the encoder binds the offsets it needs once, at import.
"""

from __future__ import annotations

import builtins
import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property

import numpy as np


@dataclass(frozen=True)
class Field:
    """`width` consecutive values of a block's row that mean one thing (a scalar, a one-hot, counts).

    `labels` name the values one by one (default: their index) in `feature_names`.
    """

    name: str
    width: int = 1
    doc: str = ""
    labels: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.width < 1 or (self.labels and len(self.labels) != self.width):
            raise ValueError(f"field {self.name!r}: width {self.width} with {len(self.labels)} labels")

    def value_names(self) -> list[str]:
        """The field's part of each value's feature name."""
        if self.width == 1 and not self.labels:
            return [self.name]
        labels = self.labels or tuple(str(i) for i in range(self.width))
        return [f"{self.name}.{label}" for label in labels]

    def text(self) -> str:
        """The field as the docs' contents column says it: its meaning and, past one value, its width."""
        meaning = self.doc or self.name.replace("_", " ")
        return meaning if self.width == 1 else f"{meaning} ({self.width})"


@dataclass(frozen=True)
class Block:
    """A contiguous part of the observation: its fields once (a vector), or `rows` times (a table).

    A table's row r holds the fields in order from `start + r * width`; `start` is set when an
    `ObservationLayout` places the block (-1 before).
    """

    name: str
    doc: str
    fields: tuple[Field, ...]
    rows: int = 0  # 0: a vector of shape (width,); else a table of shape (rows, width)
    start: int = -1

    @cached_property
    def width(self) -> int:
        """Values in one row (in the vector, for a vector block)."""
        return sum(field.width for field in self.fields)

    @cached_property
    def _columns(self) -> dict[str, tuple[int, Field]]:
        columns, column = {}, 0
        for field in self.fields:
            columns[field.name] = (column, field)
            column += field.width
        return columns

    @cached_property
    def shape(self) -> tuple[int, ...]:
        return (self.rows, self.width) if self.rows else (self.width,)

    @cached_property
    def size(self) -> int:
        return max(self.rows, 1) * self.width

    @cached_property
    def stop(self) -> int:
        return self.start + self.size

    @cached_property
    def slice(self) -> slice:
        """The block's values in the flat observation."""
        return slice(self.start, self.stop)

    def column(self, field: str) -> int:
        """The column of `field`'s first value within a row."""
        return self._columns[field][0]

    # `slice` in the annotations below would name the property above: they say builtins.slice
    def columns(self, first: str, last: str | None = None) -> builtins.slice:
        """The columns of a row from `first`'s first value to `last`'s last (default: `first`'s own)."""
        column, end_field = self._columns[last or first]
        return slice(self.column(first), column + end_field.width)

    def index(self, field: str) -> int:
        """The flat index of `field`'s first value (in row 0 of a table)."""
        return self.start + self.column(field)

    def span(self, first: str, last: str | None = None) -> builtins.slice:
        """The flat indices from `first`'s first value to `last`'s last, in a vector block."""
        columns = self.columns(first, last)
        return slice(self.start + columns.start, self.start + columns.stop)

    def view(self, obs: np.ndarray) -> np.ndarray:
        """The block of a flat observation as an array of its shape (a view: writes go to `obs`)."""
        return obs[self.start : self.stop].reshape(self.shape)

    def entity_rows(self) -> tuple[int, int]:
        """(start, row width): this table's rows as an `EntityLayout` reads them."""
        return self.start, self.width

    def row_range(self, row: int = 0) -> tuple[int, int, int]:
        """(start, stop, step) of one row of a table, as an `EntityLayout` context."""
        begin = self.start + row * self.width
        return begin, begin + self.width, 1

    def column_range(self, field: str) -> tuple[int, int, int]:
        """(start, stop, step) of `field`'s first column down every row, as an `EntityLayout` context."""
        return self.index(field), self.stop, self.width

    def feature_names(self) -> list[str]:
        names = [name for field in self.fields for name in field.value_names()]
        if not self.rows:
            return [f"{self.name}.{name}" for name in names]
        return [f"{self.name}[{row}].{name}" for row in range(self.rows) for name in names]

    def contents(self) -> str:
        """The docs' contents column: the block's meaning, then its fields in order (in a table, each
        after its column in the row, `+c`)."""
        if self.rows:
            fields = "; ".join(f"+{self.column(field.name)} {field.text()}" for field in self.fields)
        else:
            fields = "; ".join(field.text() for field in self.fields)
        return f"{self.doc}: {fields}" if self.doc else fields


def vector(name: str, doc: str, *fields: Field) -> Block:
    """A block holding its fields once."""
    return Block(name, doc, fields)


def table(name: str, rows: int, doc: str, *fields: Field) -> Block:
    """A block holding its fields once per row (per seat, per board position, ...)."""
    return Block(name, doc, fields, rows)


class ObservationLayout:
    """A game's observation as named blocks placed one after another; `size` values in all.

    Built once per game (the layout is the same for every player count: absent seats are zero rows)
    and read at import by the encoder, by `EntityLayout`s, `Game.feature_names()` and the docs.
    """

    def __init__(self, *blocks: Block) -> None:
        placed, start = [], 0
        for block in blocks:
            placed.append(dataclasses.replace(block, start=start))
            start += placed[-1].size
        self.blocks: tuple[Block, ...] = tuple(placed)
        self.size = start
        self._by_name = {block.name: block for block in self.blocks}
        names = self.feature_names()
        if len(self._by_name) != len(self.blocks) or len(set(names)) != len(names):
            raise ValueError("an observation layout needs unique block names and unique field names in a block")

    def __getitem__(self, name: str) -> Block:
        return self._by_name[name]

    def __iter__(self) -> Iterator[Block]:
        return iter(self.blocks)

    def feature_names(self) -> tuple[str, ...]:
        """One name per observation value, in order: `block.field`, `block[row].field`, `.label` per value."""
        return self._names

    @cached_property
    def _names(self) -> tuple[str, ...]:
        return tuple(name for block in self.blocks for name in block.feature_names())

    def markdown_table(self) -> str:
        """The docs' observation table (docs/games/<game>.md, between `<!-- tables:observation -->` marks)."""
        lines = ["| offset | block | contents |", "|---|---|---|"]
        for block in self.blocks:
            shape = " x ".join(map(str, block.shape))
            lines.append(f"| {block.start} | {block.name} ({shape}) | {block.contents()} |")
        return "\n".join(lines)
