"""Progress bars for long work: training stages, evaluations, the ladder and the benchmark.

Library code says what it is doing with `stage(...)`; a command turns the bars on for its run with
`showing(...)`. Without a display (a library call, `--quiet`, output that is not a terminal) a stage
draws nothing and costs next to nothing, so the code that reports progress is the same everywhere.

Stages nest: a stage opened inside another is drawn as its own bar below it, and an enclosing stage
that counts the same unit (matches, steps) moves with every unit its inner stages count. That is how
an outer bar over several evaluations (the final evaluation, a benchmark, the ladder) gets its count
and its estimate of the time left, without the code in between passing it along.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeRemainingColumn,
)
from rich.table import Column

_NO_TASK = TaskID(0)  # a stage drawn by no bars


class Stage:
    """One bar: `advance` it by the units done, or `update` its count and its note (a short status).
    The enclosing stages in `counted_by` count the same units and move with it."""

    def __init__(
        self,
        unit: str,
        completed: float = 0,
        bars: Progress | None = None,
        task: TaskID = _NO_TASK,
        counted_by: tuple[Stage, ...] = (),
    ) -> None:
        self.unit, self.completed = unit, completed
        self.bars, self.task, self.counted_by = bars, task, counted_by

    def advance(self, amount: float = 1) -> None:
        for counting in (self, *self.counted_by):
            counting.completed += amount
            if counting.bars is not None:
                counting.bars.update(counting.task, completed=counting.completed)

    def update(self, completed: float | None = None, note: str | None = None) -> None:
        if completed is not None:
            self.advance(completed - self.completed)
        if note is not None and self.bars is not None:
            self.bars.update(self.task, note=note)


class _Display:
    """The bars of one command's run and the stages open in it, innermost last."""

    def __init__(self, bars: Progress) -> None:
        self.bars = bars
        self.open: list[Stage] = []


_DISPLAY: ContextVar[_Display | None] = ContextVar("city_envs_progress", default=None)


@contextmanager
def stage(description: str, total: float | None, unit: str, completed: float = 0) -> Iterator[Stage]:
    """A bar of `total` `unit`s (None: not known) for the block, from `completed`; removed when the block
    ends. Silent unless a command is `showing` progress."""
    display = _DISPLAY.get()
    if display is None:
        yield Stage(unit, completed)
        return
    # rich keeps `completed` as a float (Task.completed) though add_task's annotation says int
    task = display.bars.add_task(description, total=total, completed=completed, unit=unit, note="")  # type: ignore[arg-type]
    opened = Stage(unit, completed, display.bars, task, tuple(outer for outer in display.open if outer.unit == unit))
    display.open.append(opened)
    try:
        yield opened
    finally:
        display.open.pop()
        display.bars.remove_task(task)


def terminal_bars() -> Progress | None:
    """Bars drawn on stderr when it is a terminal (none otherwise, so logs and pipes stay clean)."""
    console = Console(stderr=True)
    if not (sys.stderr.isatty() and console.is_terminal) or console.is_dumb_terminal:
        return None
    # sized for an 80-column terminal: a long description is cut short rather than the counts
    description = TextColumn("{task.description}", table_column=Column(max_width=36, no_wrap=True, overflow="ellipsis"))
    # printed output goes above the bars; stdout only when it is the terminal too, never into a file
    return Progress(
        description,
        BarColumn(bar_width=10),
        MofNCompleteColumn(),
        TextColumn("{task.fields[unit]}"),
        TimeRemainingColumn(),
        TextColumn("left"),
        TextColumn("{task.fields[note]}"),
        console=console,
        transient=True,
        redirect_stdout=sys.stdout.isatty(),
    )


@contextmanager
def showing(enabled: bool = True) -> Iterator[None]:
    """Draw the stages opened in the block as bars, when `enabled` and stderr is a terminal."""
    bars = terminal_bars() if enabled else None
    if bars is None:
        yield
        return
    token = _DISPLAY.set(_Display(bars))
    try:
        with bars:
            yield
    finally:
        _DISPLAY.reset(token)


def format_duration(seconds: float) -> str:
    """`42 s`, `3 min 26 s`, `1 h 05 min`: a duration as a person reads it."""
    whole = round(seconds)
    if whole < 60:
        return f"{whole} s"
    if whole < 3600:
        return f"{whole // 60} min {whole % 60:02d} s"
    return f"{whole // 3600} h {whole % 3600 // 60:02d} min"
