"""The full protocol's cost estimate: lite records read per task, scaled by match counts, the trainer's
CPU cost per step and the probed match time; its docs section written from its JSON; its bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from city_envs.evaluation.suite import load_suite
from lab import protocol_cost

GAMES = ("citadels", "metropolys", "blue_moon_city", "big_city", "urban_sprawl")


def lite_run(folder: Path, seconds: dict[str, list[tuple[float, float]]], suite: str = "v1-lite") -> Path:
    """A lite run's folder: benchmark.json and, per task, one record per (train, score) seconds pair."""
    folder.mkdir(parents=True)
    settings = {"format": "city-envs-algorithm-benchmark/1", "algorithm": "algo", "suite": suite, "budget": 1000}
    (folder / "benchmark.json").write_text(json.dumps(settings))
    for game, pairs in seconds.items():
        for seed, (train, score) in enumerate(pairs):
            record = {
                "task": f"{game}:2",
                "seed": seed,
                "status": "ok",
                "resumed": False,
                "train_seconds": 2 * train,
                "seconds": 2 * train + score,
                "train_cpu_seconds": train,
            }
            path = folder / f"{game}_2p" / f"seed_{seed}" / "record.json"
            path.parent.mkdir(parents=True)
            path.write_text(json.dumps(record))
    return folder


def test_lite_figures_are_the_means_over_seeds_finished_in_one_sitting_and_a_missing_task_is_named(tmp_path):
    seconds = {game: [(100.0, 10.0), (300.0, 30.0)] for game in GAMES}
    folder = lite_run(tmp_path / "algo", seconds)
    failed = folder / "citadels_2p" / "seed_2" / "record.json"
    failed.parent.mkdir()
    failed.write_text(json.dumps({"task": "citadels:2", "seed": 2, "status": "failed", "train_seconds": 1.0}))
    # an older record of a later sitting only, a record that cannot say, one without CPU seconds; then a
    # record whose clock counted both its sittings
    for seed, resumed in ((3, True), (4, None), (5, False), (6, True)):
        record = {"task": "citadels:2", "seed": seed, "status": "ok", "train_seconds": 1.0, "seconds": 2.0}
        if resumed is not None:
            record["resumed"] = resumed
        if seed in (3, 6):
            record.update(train_cpu_seconds=1.0)
        if seed == 6:
            record.update(train_cpu_seconds=500.0, train_seconds=800.0, seconds=850.0, sittings=2)
        (folder / "citadels_2p" / f"seed_{seed}").mkdir()
        (folder / "citadels_2p" / f"seed_{seed}" / "record.json").write_text(json.dumps(record))
    figures = protocol_cost.lite_figures(folder)
    assert figures["budget"] == 1000 and figures["suite"].matches == 100
    assert figures["tasks"]["citadels:2"] == {
        "seeds": [0, 1, 6],
        "sittings": [1, 1, 2],
        "train_seconds": 300.0,
        "score_seconds": 30.0,
    }
    del seconds["urban_sprawl"]
    with pytest.raises(ValueError, match="urban_sprawl:2 has no finished seed whose CPU seconds count every sitting"):
        protocol_cost.lite_figures(lite_run(tmp_path / "partial", seconds))
    with pytest.raises(ValueError, match="not of a lite suite"):
        protocol_cost.lite_figures(lite_run(tmp_path / "full", {}, suite="v1"))
    with pytest.raises(ValueError, match="no benchmark.json"):
        protocol_cost.lite_figures(tmp_path)
    broken = lite_run(tmp_path / "broken", {game: [(1.0, 1.0)] for game in GAMES})
    record = broken / "big_city_2p" / "seed_0" / "record.json"
    record.write_text(json.dumps({k: v for k, v in json.loads(record.read_text()).items() if k != "seconds"}))
    with pytest.raises(ValueError, match="a record of big_city:2 lacks a figure"):
        protocol_cost.lite_figures(broken)
    (broken / "benchmark.json").write_text("[]")
    with pytest.raises(ValueError, match="is not a benchmark's settings"):
        protocol_cost.lite_figures(broken)


def test_the_estimate_scales_matches_training_and_scoring_and_sums_five_seeds(tmp_path):
    folder = lite_run(tmp_path / "algo", {game: [(100.0, 10.0)] for game in GAMES})
    lite = protocol_cost.lite_figures(folder)
    cpu_ms = {(game, n): 1.0 if n == 2 else 3.0 for game in GAMES for n in (2, 4)}
    probe = {game: 0.5 for game in GAMES}
    full = load_suite("v1")
    result = protocol_cost.estimate(lite, cpu_ms, probe, full)
    rows = {row["task"]: row for row in result["tasks"]}
    assert set(rows) == {task.name for task in full.tasks}
    ratio = full.matches / 100
    assert rows["citadels:2"]["train_seconds"] == 100.0 and rows["citadels:2"]["score_seconds"] == 10.0 * ratio
    assert rows["citadels:4"]["train_seconds"] == 300.0 and rows["citadels:4"]["score_seconds"] == 10.0 * ratio * 0.5
    per_seed = 5 * (100 + 10 * ratio) + 5 * (300 + 5 * ratio)
    assert result["seconds_per_seed"] == per_seed
    assert result["total_hours"] == round(protocol_cost.FULL_SEEDS * per_seed / 3600, 2)
    with pytest.raises(ValueError, match="no trainer cost per step for big_city:4"):
        protocol_cost.estimate(lite, {k: v for k, v in cpu_ms.items() if k != ("big_city", 4)}, probe, full)
    assert result["hours_on_this_machine"] == round(protocol_cost.FULL_SEEDS * per_seed / 3600 / protocol_cost.JOBS, 2)


def test_a_measurement_writes_its_json_and_the_docs_section_from_every_estimate_beside_it(tmp_path, monkeypatch):
    folder = lite_run(tmp_path / "algo", {game: [(3600.0, 360.0)] for game in GAMES})
    probed = []

    def probe(suite, task, matches):
        probed.append((task.name, matches))
        return 2.0 if task.players == 4 else 1.0

    monkeypatch.setattr(protocol_cost, "probe_match_seconds", probe)
    out = tmp_path / "estimates" / "algo.json"
    page = tmp_path / "page.md"
    theirs = "<!-- tables:agents-v1 -->\ntheirs\n<!-- /tables:agents-v1 -->\n"  # another command's section
    blank = f"# Cost\n{theirs}<!-- tables:protocol-cost -->\n<!-- /tables:protocol-cost -->\n"
    page.write_text(blank)
    argv = ["--lite", str(folder), "--out", str(out), "--probe-matches", "8", "--doc", str(page)]
    assert protocol_cost.main(argv) == 0
    assert sorted(probed) == sorted((f"{game}:{n}", 8) for game in GAMES for n in (2, 4))
    estimate = json.loads(out.read_text())
    assert estimate["algorithm"] == "algo" and estimate["probe"]["matches_per_lineup"] == 8
    assert all(row["score_scale"] == 4.0 for row in estimate["tasks"] if row["task"].endswith(":4"))
    text = page.read_text()
    assert f"| `algo` | 1,000 | 1 | {estimate['total_hours']:.1f} | {estimate['hours_on_this_machine']:.1f} |" in text
    assert "| metropolys:4 |" in text and "python -m lab.protocol_cost --lite" in text
    assert theirs in text  # left as it was
    page.write_text(blank)
    assert protocol_cost.main(["--from-json", str(out), "--doc", str(page)]) == 0
    assert page.read_text() == text


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--lite", "x"], "give --lite FOLDER and --out FILE"),
        (["--lite", "x", "--out", "y.json", "--probe-matches", "6"], "multiple of 4"),
    ],
)
def test_bad_arguments_are_one_clear_error(argv, message, capsys):
    with pytest.raises(SystemExit) as stopped:
        protocol_cost.main(argv)
    assert stopped.value.code == 2 and message in capsys.readouterr().err


def test_a_folder_that_is_not_a_lite_run_and_a_json_without_a_page_are_one_line(tmp_path, capsys):
    assert protocol_cost.main(["--lite", str(tmp_path), "--out", str(tmp_path / "o.json")]) == 2
    assert protocol_cost.main(["--from-json", str(tmp_path / "o.json")]) == 2
    assert protocol_cost.main(["--lite", str(tmp_path), "--out", str(tmp_path)]) == 2  # checked before measuring
    errors = capsys.readouterr().err.splitlines()
    assert len(errors) == 3 and "no benchmark.json" in errors[0] and "only writes a --doc page" in errors[1]
    assert "is a folder" in errors[2]
    assert not (tmp_path / "o.json").exists()
