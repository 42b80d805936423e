"""The progress bars' machinery: nested stages count the same units, silence without a terminal."""

from __future__ import annotations

import io

import pytest

from city_envs.core import progress


def test_a_stage_without_a_display_counts_and_draws_nothing():
    with progress.stage("matches", 10, "matches") as bar:
        bar.advance(3)
        bar.update(7, note="ignored")
    assert bar.completed == 7


def test_enclosing_stages_of_the_same_unit_move_with_the_inner_ones():
    from rich.console import Console
    from rich.progress import Progress

    bars = Progress(console=Console(file=io.StringIO()), auto_refresh=False)
    token = progress._DISPLAY.set(progress._Display(bars))
    try:
        with progress.stage("final evaluation", 8, "matches") as outer, progress.stage("steps", 100, "steps") as steps:
            with progress.stage("v random", 4, "matches") as inner:
                inner.advance(4)
            with progress.stage("v heuristic", 4, "matches", completed=1) as inner:
                inner.advance()
            steps.update(50)
            assert outer.completed == 5 and steps.completed == 50
            assert [task.completed for task in bars.tasks] == [5, 50]  # finished inner bars are gone
    finally:
        progress._DISPLAY.reset(token)


def test_showing_draws_nothing_when_stderr_is_not_a_terminal(capsys):
    with progress.showing(), progress.stage("matches", 2, "matches") as bar:
        bar.advance(2)
    assert capsys.readouterr() == ("", "")


@pytest.mark.parametrize(
    ("seconds", "text"), [(0.4, "0 s"), (59.6, "1 min 00 s"), (148, "2 min 28 s"), (3725, "1 h 02 min")]
)
def test_durations_read_as_a_person_says_them(seconds, text):
    assert progress.format_duration(seconds) == text
