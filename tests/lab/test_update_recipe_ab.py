"""The update-recipe study's summary, its table, the docs section written from the committed summary, and its
doors; one tiny run end to end (both arms train and are scored on the evaluation seed)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from city_envs.core.markdown import section_names
from lab import update_recipe_ab as study

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = ROOT / "benchmarks" / "update_recipe_ab" / "summary.json"


def evaluation(rate: float, games: int = 200) -> dict:
    return {"win_rate": rate, "ci95": [rate - 0.05, rate + 0.05], "games": games}


def run_row(rate: float, wall: float, cpu: float) -> dict:
    return {
        "timesteps": 200_704,
        "wall_seconds": wall,
        "cpu_seconds": cpu,
        "resumed": False,
        "evaluation": evaluation(rate),
    }


HAND_MADE = {
    "measurement": "update_recipe_ab",
    "commands": ["python -m lab.update_recipe_ab"],
    "options": {"timesteps": 200_000, "games": 200, "seeds": [0, 1]},
    "arms": {"default": {}, "candidate": study.CANDIDATE},
    "tasks": {
        "citadels_2p": {
            "start": evaluation(0.8),
            "default": {"0": run_row(0.9, 400, 300), "1": run_row(0.8, 420, 310)},
            "candidate": {"0": run_row(0.85, 150, 100)},
        }
    },
}


def test_the_table_has_the_start_each_seed_and_the_pooled_rate_with_times():
    lines = study.table(HAND_MADE).splitlines()
    assert lines[4:] == [
        "| citadels_2p | start policy | - | 0.800 (0.750-0.850) n=200 | - | - |",
        "| citadels_2p | default | 0: 0.900 (0.850-0.950), 1: 0.800 (0.750-0.850) | 0.850 (0.812-0.882) n=400 "
        "| 400, 420 | 300, 310 |",
        "| citadels_2p | candidate | 0: 0.850 (0.800-0.900) | 0.850 (0.794-0.893) n=200 | 150 | 100 |",
    ]


def test_pooled_counts_every_seeds_matches_with_a_wilson_interval():
    together = study.pooled([evaluation(0.5, 100), evaluation(0.7, 300)])
    assert together["games"] == 400 and together["win_rate"] == pytest.approx(0.65)
    assert together["ci95"][0] < 0.65 < together["ci95"][1] and together["ci95"][1] - together["ci95"][0] < 0.1


def test_the_committed_summary_writes_the_training_page_section():
    assert COMMITTED.is_file()
    assert study.SECTION in section_names((ROOT / "docs" / "training.md").read_text())
    summary = study.load_summary(COMMITTED)
    assert set(summary["tasks"]) <= set(study.TASKS) and summary["arms"] == study.ARMS


def test_from_json_fills_the_section_and_wrong_files_are_one_clear_error(tmp_path, capsys):
    source = tmp_path / "summary.json"
    source.write_text(json.dumps(HAND_MADE))
    page = tmp_path / "page.md"
    page.write_text(f"<!-- tables:{study.SECTION} -->\n<!-- /tables:{study.SECTION} -->\n")
    assert study.main(["--from-json", str(source), "--doc", str(page)]) == 0
    assert study.table(HAND_MADE) in page.read_text()
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"measurement": "privileged_ab"}))
    for argv, message in (
        (["--from-json", str(other), "--doc", str(page)], "not an update_recipe_ab summary.json"),
        (["--from-json", str(source)], "--from-json only writes a --doc page"),
        (["--doc", str(ROOT / "README.md")], "has no <!-- tables:update-recipe-ab --> section"),
        (["--seeds", "901"], "--seeds must be 0..900"),
        (["--timesteps", "0"], "--timesteps and --games at least 1"),
    ):
        with pytest.raises(SystemExit):
            study.main(argv)
        assert message in capsys.readouterr().err


def test_a_summary_of_other_settings_is_refused(tmp_path, capsys):
    (tmp_path / "summary.json").write_text(json.dumps(HAND_MADE))
    with pytest.raises(SystemExit):
        study.main(["--out", str(tmp_path), "--timesteps", "4096"])
    assert "holds a study of other settings" in capsys.readouterr().err


@pytest.mark.slow
def test_a_tiny_study_trains_both_arms_from_the_start_and_scores_them(tmp_path):
    pytest.importorskip("sb3_contrib")
    out = tmp_path / "ab"
    argv = ["--out", str(out), "--tasks", "citadels_2p", "--seeds", "0", "--timesteps", "64", "--games", "2"]
    assert study.main(argv) == 0
    summary = study.load_summary(out / "summary.json")
    assert summary["commands"] == ["python -m lab.update_recipe_ab " + " ".join(argv)]
    rows = summary["tasks"]["citadels_2p"]
    assert set(rows) == {"start", *study.ARMS}
    for arm in study.ARMS:
        run = rows[arm]["0"]
        assert run["timesteps"] == 4096 and run["cpu_seconds"] > 0 and run["evaluation"]["games"] == 2
    config = (out / "citadels_2p" / "candidate_seed0" / "config.toml").read_text()
    assert "n_epochs = 1\n" in config
    assert "n_epochs = 4\n" in (out / "citadels_2p" / "default_seed0" / "config.toml").read_text()
    assert "learning_rate = 0.0004\n" in (out / "citadels_2p" / "candidate_lr_seed0" / "config.toml").read_text()
