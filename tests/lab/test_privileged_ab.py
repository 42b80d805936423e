"""The with/without privileged-critic measurement's summary.json, its table, the docs section written from the
committed summary, and its doors (the runs themselves: tests/training/test_privileged_critic.py)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from city_envs.core.markdown import fill, section_names
from lab import privileged_ab

ROOT = Path(__file__).resolve().parents[2]
SECTION = "<!-- tables:privileged-ab -->\nold\n<!-- /tables:privileged-ab -->\n"


def arm(rate: float, variance: float | None = 0.5) -> dict:
    return {
        "timesteps": 300_000,
        "steps_per_s": 412.4,
        "explained_variance": variance,
        "curve": [{"step": 100_000, "win_rate_vs_heuristic": 0.2}, {"step": 300_000, "win_rate_vs_heuristic": rate}],
        "final": {
            "heuristic": {"win_rate": rate, "ci95": [rate - 0.05, rate + 0.05], "games": 400},
            "random": {"win_rate": 0.99, "ci95": [0.975, 0.996], "games": 400},
        },
    }


def summary(tasks: dict) -> dict:
    return {
        "measurement": "privileged_ab",
        "command": "python -m lab.privileged_ab --out runs/privileged_ab",
        "options": {"games": ["citadels"], "players": [2, 4], "timesteps": 300_000, "start": "warm", "seed": 0},
        "arm_settings": privileged_ab.ARM_SETTINGS,
        "tasks": tasks,
    }


HAND_MADE = summary(
    {
        "metropolys_4p": {"plain": arm(0.3, None)},
        "citadels_2p": {"plain": arm(0.25), "privileged": arm(0.4, 0.625)},
    }
)


def test_the_table_has_each_finished_arm_with_its_intervals_and_matches_and_names_what_is_missing():
    lines = privileged_ab.table(HAND_MADE).splitlines()
    assert (
        lines[0].startswith("PPO from the same start (`--start warm`), seed 0,") and "(100 matches a point)" in lines[0]
    )
    assert lines[4:7] == [
        "| citadels_2p | plain | 300,000 | 412 | 0.500 | 100k 0.20, 300k 0.25 | 0.250 (0.200-0.300) n=400 "
        "| 0.990 (0.975-0.996) n=400 |",
        "| citadels_2p | privileged | 300,000 | 412 | 0.625 | 100k 0.20, 300k 0.40 | 0.400 (0.350-0.450) n=400 "
        "| 0.990 (0.975-0.996) n=400 |",
        "| metropolys_4p | plain | 300,000 | 412 | - | 100k 0.20, 300k 0.30 | 0.300 (0.250-0.350) n=400 "
        "| 0.990 (0.975-0.996) n=400 |",
    ]
    assert lines[-1] == (
        "Not finished yet: citadels_2p (start), citadels_4p (nothing yet), metropolys_2p (nothing yet), "
        "metropolys_4p (privileged, start), blue_moon_city_2p (nothing yet), blue_moon_city_4p (nothing yet), "
        "big_city_2p (nothing yet), big_city_4p (nothing yet), urban_sprawl_2p (nothing yet), "
        "urban_sprawl_4p (nothing yet)."
    )
    start_row = {**arm(0.25, None), "timesteps": 0, "steps_per_s": 0, "curve": []}
    every = summary(
        {
            task: {"plain": arm(0.3), "privileged": arm(0.3), "start": start_row}
            for task in privileged_ab.task_names(
                ["citadels", "metropolys", "blue_moon_city", "big_city", "urban_sprawl"], [2, 4]
            )
        }
    )
    lines = privileged_ab.table(every).splitlines()
    assert "Not finished" not in "\n".join(lines) and len(lines) == 4 + 3 * 10
    # the start policy's row: no PPO steps, so no speed, variance or curve
    assert lines[6] == "| citadels_2p | start | 0 | - | - | - | 0.250 (0.200-0.300) n=400 | 0.990 (0.975-0.996) n=400 |"


def fake_train(fail: str):
    """A stand-in for the `city-envs train` subprocess: it fills the run folder of each step (an arm's
    evaluation.json and curve.csv), except the step whose folder ends in `fail`, which exits with 1."""

    def run(command, **kwargs):
        out = Path(command[command.index("--out") + 1])
        if str(out).endswith(fail):
            return subprocess.CompletedProcess(command, 1)
        out.mkdir(parents=True, exist_ok=True)
        (out / "curve.csv").write_text("stage,step,win_rate_vs_heuristic\nppo,100000,0.3\n")
        result = {"win_rate": 0.35, "ci95": [0.3, 0.4], "games": 400, "failures": 0}
        (out / "evaluation.json").write_text(
            json.dumps({"timesteps": 5, "ppo_steps_per_s": 100.0, "evaluation": {"heuristic": result}})
        )
        return subprocess.CompletedProcess(command, 0)

    return run


def test_a_stopped_run_has_its_summary_and_page_and_a_resumed_one_completes_them(tmp_path, monkeypatch, capsys):
    page = tmp_path / "training.md"
    page.write_text(SECTION)
    out = tmp_path / "ab"
    argv = ["--out", str(out), "--games", "citadels", "--players", "2", "--timesteps", "5", "--doc", str(page)]
    monkeypatch.setattr(privileged_ab.subprocess, "run", fake_train("privileged"))
    assert privileged_ab.main(argv) == 1
    saved = json.loads((out / "summary.json").read_text())
    assert list(saved["tasks"]) == ["citadels_2p"] and list(saved["tasks"]["citadels_2p"]) == ["plain"]
    assert saved["command"] == "python -m lab.privileged_ab " + " ".join(argv)
    assert saved["options"]["timesteps"] == 5 and saved["arm_settings"] == privileged_ab.ARM_SETTINGS
    assert (out / "summary.md").read_text() == privileged_ab.table(saved)
    assert "Not finished yet: citadels_2p (privileged, start), citadels_4p (nothing yet)" in page.read_text()
    monkeypatch.setattr(privileged_ab.subprocess, "run", fake_train("nothing fails"))
    assert privileged_ab.main(argv) == 0
    saved = json.loads((out / "summary.json").read_text())
    assert list(saved["tasks"]["citadels_2p"]) == ["plain", "privileged", "start"]
    assert "| citadels_2p | privileged | 5 | 100 | - | 100k 0.30 | 0.350 (0.300-0.400) n=400 | - |" in page.read_text()
    assert "# citadels_2p plain: done" in capsys.readouterr().out


def test_a_copy_of_the_summary_in_a_new_folder_keeps_its_rows_and_runs_only_what_it_lacks(
    tmp_path, monkeypatch, capsys
):
    """A machine that lost the run folders resumes from the committed summary: its rows are not run again,
    and they stay in the rewritten summary beside the new ones."""
    out = tmp_path / "ab"
    out.mkdir()
    earlier = summary({"citadels_2p": {"plain": arm(0.25)}, "metropolys_2p": {"plain": arm(0.5)}})
    earlier["options"] = {**earlier["options"], "timesteps": 5, "start": "baseline"}
    (out / "summary.json").write_text(json.dumps(earlier))
    ran = []

    def train(command, **kwargs):
        ran.append(Path(command[command.index("--out") + 1]).name)
        return fake_train("nothing fails")(command, **kwargs)

    monkeypatch.setattr(privileged_ab.subprocess, "run", train)
    argv = ["--out", str(out), "--games", "citadels", "--players", "2", "--timesteps", "5", "--start", "baseline"]
    assert privileged_ab.main(argv) == 0
    assert ran == ["privileged", "start"] and "# citadels_2p plain: done" in capsys.readouterr().out
    saved = json.loads((out / "summary.json").read_text())
    assert saved["tasks"]["citadels_2p"]["plain"] == arm(0.25) and saved["tasks"]["metropolys_2p"] == {
        "plain": arm(0.5)
    }
    assert list(saved["tasks"]["citadels_2p"]) == ["plain", "privileged", "start"]
    # a run folder's figures replace the summary's row of the same arm
    assert saved["tasks"]["citadels_2p"]["privileged"]["final"]["heuristic"]["win_rate"] == 0.35


@pytest.mark.parametrize(
    "change, message",
    [
        ({"timesteps": 7}, "timesteps 7, not 5"),
        ({"seed": 3}, "seed 3, not 0"),
        ({"start": "warm"}, "start 'warm', not 'baseline'"),
    ],
)
def test_a_summary_of_other_settings_in_the_folder_is_refused_before_any_step(
    change, message, tmp_path, monkeypatch, capsys
):
    out = tmp_path / "ab"
    out.mkdir()
    earlier = summary({"citadels_2p": {"plain": arm(0.25)}})
    earlier["options"] = {**earlier["options"], "timesteps": 5, "start": "baseline", **change}
    (out / "summary.json").write_text(json.dumps(earlier))
    monkeypatch.setattr(privileged_ab.subprocess, "run", lambda *a, **k: pytest.fail("a step ran"))
    with pytest.raises(SystemExit):
        privileged_ab.main(["--out", str(out), "--games", "citadels", "--timesteps", "5", "--start", "baseline"])
    error = capsys.readouterr().err
    assert "holds a measurement with other settings" in error and message in error


# ----- the committed summary and the page ------------------------------------------------------------
def page_agrees(root: Path) -> bool | None:
    """Whether docs/training.md under `root` has the section its committed summary writes (None: no summary
    committed); one function for the checkout and for a copy whose page is made to disagree."""
    page, source = root / "docs" / "training.md", root / "benchmarks" / "privileged_ab" / "summary.json"
    text = page.read_text()
    assert privileged_ab.SECTION in section_names(text)
    if not source.is_file():
        return None
    section = privileged_ab.doc_section(privileged_ab.load_summary(source), source, page)
    return fill(text, {privileged_ab.SECTION: section}) == text


def test_the_page_check_fails_when_the_summary_exists_and_the_page_disagrees(tmp_path, capsys):
    (tmp_path / "docs").mkdir()
    page = tmp_path / "docs" / "training.md"
    page.write_text((ROOT / "docs" / "training.md").read_text())
    assert page_agrees(tmp_path) is None
    source = tmp_path / "benchmarks" / "privileged_ab" / "summary.json"
    source.parent.mkdir(parents=True)
    source.write_text(json.dumps(HAND_MADE))
    assert page_agrees(tmp_path) is False  # the placeholder, with a summary committed
    assert privileged_ab.main(["--from-json", str(source), "--doc", str(page)]) == 0
    assert f"wrote privileged-ab into {page}" in capsys.readouterr().out
    assert page_agrees(tmp_path) is True
    text = page.read_text()
    assert "[summary.json](../benchmarks/privileged_ab/summary.json)" in text
    assert text.replace("0.400 (0.350-0.450)", "0.410 (0.350-0.450)") != text
    page.write_text(text.replace("0.400 (0.350-0.450)", "0.410 (0.350-0.450)"))
    assert page_agrees(tmp_path) is False


def test_from_json_fills_only_its_section(tmp_path):
    source, page = tmp_path / "summary.json", tmp_path / "page.md"
    source.write_text(json.dumps(HAND_MADE))
    page.write_text("intro\n" + SECTION + "<!-- tables:baseline-runs -->\nx\n<!-- /tables:baseline-runs -->\n")
    assert privileged_ab.main(["--from-json", str(source), "--doc", str(page)]) == 0
    assert page.read_text() == (
        "intro\n<!-- tables:privileged-ab -->\n"
        + privileged_ab.table(HAND_MADE)
        + "\nEvery figure, with the command that measured it: [summary.json](summary.json).\n"
        "<!-- /tables:privileged-ab -->\n<!-- tables:baseline-runs -->\nx\n<!-- /tables:baseline-runs -->\n"
    )


def test_the_curves_are_drawn_from_the_summary_and_a_run_draws_them_in_its_folder(tmp_path, monkeypatch, capsys):
    source, png = tmp_path / "summary.json", tmp_path / "curves.png"
    source.write_text(json.dumps(HAND_MADE))
    assert privileged_ab.main(["--from-json", str(source), "--plot", str(png)]) == 0
    assert png.read_bytes().startswith(b"\x89PNG")
    with pytest.raises(SystemExit):
        privileged_ab.main(["--plot", str(png)])
    assert "--plot draws a --from-json summary" in capsys.readouterr().err
    monkeypatch.setattr(privileged_ab.subprocess, "run", fake_train("nothing fails"))
    out = tmp_path / "ab"
    assert privileged_ab.main(["--out", str(out), "--games", "citadels", "--players", "2", "--timesteps", "5"]) == 0
    assert (out / "curves.png").read_bytes().startswith(b"\x89PNG")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "is not JSON"),
        ("[1, 2]", "is not a privileged_ab summary.json"),
        (json.dumps({"timesteps": 5, "evaluation": {}}), "is not a privileged_ab summary.json"),  # an evaluation.json
        (json.dumps(summary({"citadels_2p": {"plain": {"timesteps": 5}}})), "KeyError"),
        (json.dumps({**HAND_MADE, "options": None}), "malformed"),
    ],
)
def test_a_foreign_or_malformed_json_is_one_clear_error(content, message, tmp_path, capsys):
    source, page = tmp_path / "summary.json", tmp_path / "page.md"
    source.write_text(content)
    page.write_text(SECTION)
    with pytest.raises(SystemExit) as stop:
        privileged_ab.main(["--from-json", str(source), "--doc", str(page)])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and "Traceback" not in err
    assert message in err.splitlines()[-1] and err.count("error:") == 1
    assert page.read_text() == SECTION


@pytest.mark.parametrize(
    ("page_text", "doc", "message"),
    [
        ("# no section\n", True, "has no <!-- tables:privileged-ab --> section"),
        (None, True, "does not exist"),
        (SECTION, False, "only writes a --doc page or a --plot"),
    ],
)
def test_a_page_without_the_section_is_one_clear_error(page_text, doc, message, tmp_path, capsys):
    source, page = tmp_path / "summary.json", tmp_path / "page.md"
    source.write_text(json.dumps(HAND_MADE))
    if page_text is not None:
        page.write_text(page_text)
    with pytest.raises(SystemExit) as stop:
        privileged_ab.main(["--from-json", str(source)] + (["--doc", str(page)] if doc else []))
    err = capsys.readouterr().err
    assert stop.value.code == 2 and "Traceback" not in err
    assert message in err.splitlines()[-1] and err.count("error:") == 1


def test_a_run_with_a_page_without_the_section_is_refused_before_any_step(tmp_path, monkeypatch, capsys):
    page = tmp_path / "page.md"
    page.write_text("# no section\n")
    monkeypatch.setattr(privileged_ab.subprocess, "run", lambda *a, **k: pytest.fail("a step ran"))
    with pytest.raises(SystemExit) as stop:
        privileged_ab.main(["--out", str(tmp_path / "ab"), "--games", "citadels", "--doc", str(page)])
    assert stop.value.code == 2 and "has no <!-- tables:privileged-ab --> section" in capsys.readouterr().err
    assert not (tmp_path / "ab").exists()


def test_explained_variance_reads_every_part_and_skips_the_rows_logged_before_an_update(tmp_path):
    header = "time/total_timesteps,train/explained_variance,train/loss\n"
    for part, rows in (("part_1", "4096,,\n8192,0.2,0.1\n"), ("part_2", "12288,,\n16384,0.4,0.1\n20480,0.6,0.1\n")):
        (tmp_path / "logs" / part).mkdir(parents=True)
        (tmp_path / "logs" / part / "progress.csv").write_text(header + rows)
    assert privileged_ab._explained_variance(tmp_path) == pytest.approx(0.4)
    assert privileged_ab._explained_variance(tmp_path, last=2) == pytest.approx(0.5)
    assert privileged_ab._explained_variance(tmp_path / "nothing") is None
