"""The full protocol's cost estimate: lite records read per task, scaled by match counts, the trainer's
CPU cost per step (the goal tables' for this project's trainer, a probe of any other plug-in) and the
probed match time; its docs section written from its JSON; its bad input."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from city_envs.evaluation.suite import load_suite
from lab import protocol_cost

GAMES = ("citadels", "metropolys", "blue_moon_city", "big_city", "urban_sprawl")


PROBED: list = []


def busy_plugin(request):
    """A plug-in whose training costs CPU in proportion to its budget and to the task's players."""
    PROBED.append((request.task.name, request.budget, request.checkpoints, request.out.is_dir()))
    total = 0
    for step in range(request.budget * request.task.players * 500):
        total += step % 7
    return [(request.budget, "random")]


def failing_plugin(request):
    raise RuntimeError("out of ideas")


@pytest.fixture
def plugins(monkeypatch):
    """This module importable as `test_protocol_cost_plugins` (plug-ins are named module:function)."""
    monkeypatch.setitem(sys.modules, "test_protocol_cost_plugins", sys.modules[__name__])
    PROBED.clear()


def lite_run(
    folder: Path, seconds: dict[str, list[tuple[float, float]]], suite: str = "v1-lite", algorithm: str = "algo"
) -> Path:
    """A lite run's folder: benchmark.json and, per task, one record per (train, score) seconds pair."""
    folder.mkdir(parents=True)
    settings = {"format": "city-envs-algorithm-benchmark/1", "algorithm": algorithm, "suite": suite, "budget": 1000}
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
        "each_seed": [[100.0, 10.0], [300.0, 30.0], [500.0, 50.0]],
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
    assert result["total_hours_range"] == [result["total_hours"]] * 2  # one seed a task: no spread


def test_the_range_takes_every_task_at_its_cheapest_and_at_its_dearest_seed(tmp_path):
    folder = lite_run(tmp_path / "algo", {game: [(100.0, 10.0), (300.0, 50.0)] for game in GAMES})
    cpu_ms = {(game, n): 1.0 if n == 2 else 2.0 for game in GAMES for n in (2, 4)}
    full = load_suite("v1")
    result = protocol_cost.estimate(protocol_cost.lite_figures(folder), cpu_ms, {g: 1.0 for g in GAMES}, full)
    ratio = full.matches / 100
    rows = {row["task"]: row for row in result["tasks"]}
    assert rows["big_city:2"]["seconds_range"] == [100 + 10 * ratio, 300 + 50 * ratio]
    assert rows["big_city:4"]["seconds_range"] == [200 + 10 * ratio, 600 + 50 * ratio]
    low = 5 * (300 + 20 * ratio) * protocol_cost.FULL_SEEDS / 3600
    high = 5 * (900 + 100 * ratio) * protocol_cost.FULL_SEEDS / 3600
    assert result["total_hours_range"] == [round(low, 2), round(high, 2)]
    assert result["hours_on_this_machine_range"] == [round(low / 2, 2), round(high / 2, 2)]
    assert result["total_hours_range"][0] < result["total_hours"] < result["total_hours_range"][1]


def test_a_measurement_writes_its_json_and_the_docs_section_from_every_estimate_beside_it(
    tmp_path, monkeypatch, capsys
):
    folder = lite_run(tmp_path / "algo", {game: [(3600.0, 360.0)] for game in GAMES})
    probed, trained = [], []

    def probe(suite, task, matches):
        probed.append((task.name, matches))
        return 2.0 if task.players == 4 else 1.0

    def train_probe(algorithm, task, steps):
        trained.append((algorithm, task.name, steps))
        return 5.0 if task.players == 4 else 2.0

    monkeypatch.setattr(protocol_cost, "probe_match_seconds", probe)
    monkeypatch.setattr(protocol_cost, "probe_train_cpu_ms", train_probe)
    out = tmp_path / "estimates" / "algo.json"
    page = tmp_path / "page.md"
    theirs = "<!-- tables:agents-v1 -->\ntheirs\n<!-- /tables:agents-v1 -->\n"  # another command's section
    blank = f"# Cost\n{theirs}<!-- tables:protocol-cost -->\n<!-- /tables:protocol-cost -->\n"
    page.write_text(blank)
    argv = ["--lite", str(folder), "--out", str(out), "--probe-matches", "8", "--train-probe-steps", "300"]
    assert protocol_cost.main([*argv, "--doc", str(page)]) == 0
    assert sorted(probed) == sorted((f"{game}:{n}", 8) for game in GAMES for n in (2, 4))
    # an algorithm that is not this project's trainer: its own plug-in timed at both player counts, after
    # a short run that pays its imports
    assert trained[0] == ("algo", "citadels:4", protocol_cost.WARM_UP_STEPS)
    assert sorted(trained[1:]) == sorted(("algo", f"{game}:{n}", 300) for game in GAMES for n in (2, 4))
    estimate = json.loads(out.read_text())
    assert estimate["algorithm"] == "algo" and estimate["probe"]["matches_per_lineup"] == 8
    assert estimate["train_cost"]["source"] == "probe" and estimate["train_cost"]["steps"] == 300
    assert estimate["train_cost"]["cpu_ms_per_step"]["big_city:4"] == 5.0
    assert all(row["score_scale"] == 4.0 for row in estimate["tasks"] if row["task"].endswith(":4"))
    assert all(row["train_scale"] == 2.5 for row in estimate["tasks"] if row["task"].endswith(":4"))
    text = page.read_text()
    hours = estimate["hours_on_this_machine"]
    assert f"| `algo` | 1,000 | 1 | {estimate['total_hours']:.1f} ({estimate['total_hours']:.1f}-" in text
    assert f"| {hours:.1f} ({hours:.1f}-{hours:.1f}) | {'yes' if hours < 24 else 'no'} |" in text
    assert "| metropolys:4 |" in text and "python -m lab.protocol_cost --lite" in text
    assert "its own plug-in's CPU cost per step, probed for 300 steps a task" in text
    assert theirs in text  # left as it was
    page.write_text(blank)
    assert protocol_cost.main(["--from-json", str(out), "--doc", str(page)]) == 0
    assert page.read_text() == text
    # an estimate beside it that the page cannot be written from (an older layout, a hand edit): one line
    older = {k: v for k, v in estimate.items() if k != "train_cost"}
    for name, content in (("older.json", json.dumps(older)), ("torn.json", "{")):
        (out.parent / name).write_text(content)
        assert protocol_cost.main(["--from-json", str(out), "--doc", str(page)]) == 2
        assert f"{name} is not an estimate that lab.protocol_cost writes" in capsys.readouterr().err
        (out.parent / name).unlink()
    assert page.read_text() == text


def test_this_projects_trainer_is_scaled_by_the_goal_tables_without_a_training_probe(tmp_path, monkeypatch):
    folder = lite_run(tmp_path / "ppo", {game: [(100.0, 10.0)] for game in GAMES}, algorithm="ppo_scratch")
    monkeypatch.setattr(protocol_cost, "probe_match_seconds", lambda suite, task, matches: 1.0)
    monkeypatch.setattr(protocol_cost, "probe_train_cpu_ms", lambda *args: pytest.fail("no probe for PPO"))
    result = protocol_cost.measure(folder, 4, 300, "cmd", say=lambda line: None)
    tables = protocol_cost.cpu_ms_per_step()
    assert result["train_cost"] == {
        "source": "goal tables",
        "steps": None,
        "cpu_ms_per_step": protocol_cost.to_json_keys(tables),
    }
    rows = {row["task"]: row for row in result["tasks"]}
    ratio = tables[("urban_sprawl", 4)] / tables[("urban_sprawl", 2)]
    assert rows["urban_sprawl:4"]["train_scale"] == round(ratio, 3)
    assert "training-throughput goal tables" in protocol_cost.doc_section([result])


def test_the_training_probe_times_the_plugin_in_cpu_seconds_and_names_its_failure(tmp_path, plugins):
    full = load_suite("v1")
    two = protocol_cost.probe_train_cpu_ms("test_protocol_cost_plugins:busy_plugin", full.task("citadels:2"), 2000)
    four = protocol_cost.probe_train_cpu_ms("test_protocol_cost_plugins:busy_plugin", full.task("citadels:4"), 2000)
    assert PROBED == [("citadels:2", 2000, (2000,), True), ("citadels:4", 2000, (2000,), True)]
    assert 0 < two < four  # twice the work at 4 players; CPU time, whatever else the machine runs
    with pytest.raises(
        ValueError, match="probing test_protocol_cost_plugins:failing_plugin on citadels:4 .*out of ideas"
    ):
        protocol_cost.probe_train_cpu_ms("test_protocol_cost_plugins:failing_plugin", full.task("citadels:4"), 10)
    with pytest.raises(ValueError, match="unknown algorithm"):
        protocol_cost.probe_train_cpu_ms("no_such_algorithm", full.task("citadels:4"), 10)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--lite", "x"], "give --lite FOLDER and --out FILE"),
        (["--lite", "x", "--out", "y.json", "--probe-matches", "6"], "multiple of 4"),
        (["--lite", "x", "--out", "y.json", "--train-probe-steps", "0"], "at least 1"),
        (["--lite", "x", "--out", "y.json", "--probes-from", "e.json", "--probe-matches", "8"], "give no --probe"),
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


def test_probes_from_an_earlier_estimate_are_reused_with_their_command_and_lite_seeds_read_again(
    tmp_path, monkeypatch, capsys
):
    folder = lite_run(tmp_path / "algo", {game: [(3600.0, 360.0)] for game in GAMES})
    monkeypatch.setattr(protocol_cost, "probe_match_seconds", lambda suite, task, matches: float(task.players))
    monkeypatch.setattr(protocol_cost, "probe_train_cpu_ms", lambda algorithm, task, steps: float(task.players))
    first = tmp_path / "first.json"
    assert protocol_cost.main(["--lite", str(folder), "--out", str(first), "--probe-matches", "8"]) == 0
    earlier = json.loads(first.read_text())
    # a seed lands after the first estimate; the second reads it, and measures nothing
    record = json.loads((folder / "citadels_2p" / "seed_0" / "record.json").read_text())
    (folder / "citadels_2p" / "seed_1").mkdir()
    (folder / "citadels_2p" / "seed_1" / "record.json").write_text(json.dumps({**record, "seed": 1}))
    monkeypatch.setattr(protocol_cost, "probe_match_seconds", lambda *args: pytest.fail("probes are reused"))
    monkeypatch.setattr(protocol_cost, "probe_train_cpu_ms", lambda *args: pytest.fail("probes are reused"))
    second = tmp_path / "second.json"
    assert protocol_cost.main(["--lite", str(folder), "--out", str(second), "--probes-from", str(first)]) == 0
    again = json.loads(second.read_text())
    assert again["lite"]["tasks"]["citadels:2"]["seeds"] == [0, 1]
    assert again["train_cost"] == earlier["train_cost"] and again["probe"] == earlier["probe"]
    assert again["tasks"] == earlier["tasks"] and "probes_from" not in earlier
    assert again["probes_from"] == {"file": str(first), "command": earlier["command"]}
    assert f"its probes, by `{earlier['command']}`" in protocol_cost.doc_section([again])
    # reused from a reuse: still the command that measured them
    third = tmp_path / "third.json"
    assert protocol_cost.main(["--lite", str(folder), "--out", str(third), "--probes-from", str(second)]) == 0
    assert json.loads(third.read_text())["probes_from"] == again["probes_from"]
    # another algorithm's probes, a file without probes, and a bad figure: one line each, nothing written
    other = tmp_path / "other.json"
    other.write_text(json.dumps({**earlier, "algorithm": "dqn"}))
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps({**earlier, "probe": {"matches_per_lineup": 8, "match_seconds": {"citadels": {}}}}))
    zero = tmp_path / "zero.json"
    zero.write_text(
        json.dumps({**earlier, "train_cost": {**earlier["train_cost"], "cpu_ms_per_step": {"citadels:2": 0}}})
    )
    torn = tmp_path / "torn.json"
    torn.write_text(json.dumps({**again, "probes_from": {"file": "x.json"}}))
    out = tmp_path / "never.json"
    for source in (other, broken, zero, torn, tmp_path / "absent.json"):
        assert protocol_cost.main(["--lite", str(folder), "--out", str(out), "--probes-from", str(source)]) == 2
    errors = capsys.readouterr().err.splitlines()
    assert len(errors) == 5 and "estimates dqn, not algo" in errors[0]
    assert all("is not an estimate that lab.protocol_cost writes" in line for line in errors[1:4])
    assert "absent.json" in errors[4] and not out.exists()
