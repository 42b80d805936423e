"""The algorithm benchmark's protocol with trivial plug-ins: checkpoints scored on the suite's first
tenth of matches, the final one on all of them, failures recorded per seed, resume, the summary."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from city_envs.evaluation.results import BenchmarkError
from city_envs.evaluation.suite import load_suite
from city_envs.training import algorithms
from city_envs.training.algorithms import TrainRequest, checkpoint_steps, run_algorithm_benchmark
from tests.conftest import install_tiny_suites

REPS = 50
CALLS: list[TrainRequest] = []


def heuristic_at_every_checkpoint(request: TrainRequest):
    """No training at all: the heuristic stands for every checkpoint."""
    CALLS.append(request)
    return [(step, "heuristic") for step in request.checkpoints]


def broken(request: TrainRequest):
    if request.seed == 1:
        raise RuntimeError("diverged")
    return [(step, "random") for step in request.checkpoints]


def returns_nothing(request: TrainRequest):
    return None


def too_few(request: TrainRequest):
    return [(request.budget, "random")]


@pytest.fixture
def plugins(monkeypatch):
    """This module importable as `test_algorithms_plugins` (the plug-ins are named module:function)."""
    monkeypatch.setitem(sys.modules, "test_algorithms_plugins", sys.modules[__name__])
    CALLS.clear()


def test_checkpoints_are_a_quarter_of_the_budget_apart():
    assert checkpoint_steps(100_000) == (25_000, 50_000, 75_000, 100_000)
    assert checkpoint_steps(2) == (1, 1, 2, 2)


def test_a_trivial_algorithm_goes_through_the_whole_protocol(tiny_suites, tmp_path, plugins):
    suite = load_suite("tiny-one")  # one task, two seeds: the protocol's every step at the least cost
    name = "test_algorithms_plugins:heuristic_at_every_checkpoint"
    summary = run_algorithm_benchmark(name, suite, 400, [0, 1], tmp_path, reps=REPS)
    assert [(r.task.name, r.seed, r.budget, r.checkpoints) for r in CALLS] == [
        ("citadels:2", seed, 400, (100, 200, 300, 400)) for seed in (0, 1)
    ]
    assert summary["failures"] == [] and summary["tasks"] == ["citadels:2"]
    folder = tmp_path / "test_algorithms_plugins_heuristic_at_every_checkpoint"
    record = json.loads((folder / "citadels_2p" / "seed_0" / "record.json").read_text())
    assert [p["step"] for p in record["checkpoints"]] == [100, 200, 300, 400]
    assert record["resumed"] is False and record["sittings"] == 1
    assert 0 <= record["train_cpu_seconds"] and "cpu_seconds" not in record  # scoring is timed by the wall clock
    assert record["seconds"] == pytest.approx(record["train_seconds"] + record["score_seconds"], abs=0.11)
    assert {p["matches"] for p in record["checkpoints"]} == {2}  # a tenth of 4, at least one per seat
    assert record["absolute"]["matches"] == 4
    # the same agent on the same seeds: every seed scores the same, and the IQM is that score's IQM
    scores = np.array(summary["scores"])
    assert (scores[0] == scores[1]).all()
    assert summary["aggregate"]["iqm"] == pytest.approx(np.mean(scores))  # two equal seeds: their IQM is their mean
    assert len(summary["curve"]) == 4
    for name_ in ("summary.json", "report.md", "curves.png", "profile.png", "marl_eval.json"):
        assert (folder / name_).is_file()
    export = json.loads((folder / "marl_eval.json").read_text())
    run = export["city_envs"]["citadels:2"]["test_algorithms_plugins:heuristic_at_every_checkpoint"]["run_0"]
    assert [run[f"step_{i}"]["step_count"] for i in range(4)] == [100, 200, 300, 400]
    # a rerun with --resume trains nothing again
    CALLS.clear()
    again = run_algorithm_benchmark(name, suite, 400, [0, 1], tmp_path, resume=True, reps=REPS)
    assert CALLS == [] and again["scores"] == summary["scores"]
    # a seed stopped before its record (its scoring logs left): done again, its record says it resumed, and
    # its seconds are both sittings'
    seed_folder = folder / "citadels_2p" / "seed_1"
    first = json.loads((seed_folder / "record.json").read_text())
    first_clock = json.loads((seed_folder / "clock.json").read_text())
    (seed_folder / "record.json").unlink()
    run_algorithm_benchmark(name, suite, 400, [0, 1], tmp_path, resume=True, reps=REPS)
    assert [r.seed for r in CALLS] == [1]
    second = json.loads((seed_folder / "record.json").read_text())
    assert second["resumed"] is True and second["sittings"] == 2
    for field in ("train_seconds", "train_cpu_seconds", "score_seconds"):
        assert second[field] >= first[field]
    # the second sitting scored again, from its logs: its unrounded clock grew (the record rounds to 0.1 s)
    assert json.loads((seed_folder / "clock.json").read_text())["score_seconds"] > first_clock["score_seconds"]


def test_a_seeds_clock_is_saved_while_it_trains_and_counts_every_sitting(tmp_path, monkeypatch):
    monkeypatch.setattr(algorithms, "CLOCK_EVERY", 0.01)
    folder = tmp_path / "seed_0"
    folder.mkdir()
    clock = algorithms.SeedClock(folder)
    assert (clock.resumed, clock.complete, clock.sittings) == (False, True, 1)
    with clock.phase("train"):
        deadline = time.process_time() + 0.2
        while time.process_time() < deadline:  # work the CPU until the ticker has saved it
            pass
        time.sleep(0.05)
        saved = json.loads((folder / "clock.json").read_text())  # what a kill here would leave
    assert saved["sittings"] == 1 and saved["train_cpu_seconds"] >= 0.1 and saved["train_seconds"] >= 0.1
    assert saved["score_seconds"] == 0.0
    assert clock.totals["train_cpu_seconds"] >= saved["train_cpu_seconds"] and clock.record_fields()["sittings"] == 1
    again = algorithms.SeedClock(folder)  # the next sitting starts from the saved sums
    assert (again.resumed, again.complete, again.sittings) == (True, True, 2)
    assert again.totals["train_cpu_seconds"] == pytest.approx(clock.totals["train_cpu_seconds"])


@pytest.mark.parametrize(
    "clock_text", [None, "not json", '{"sittings": 1, "complete": true, "train_seconds": -5}', "[1, 2]"]
)
def test_a_folder_without_a_readable_clock_but_with_files_says_its_sums_miss_a_sitting(tmp_path, clock_text):
    folder = tmp_path / "seed_0"
    (folder / "train").mkdir(parents=True)  # an earlier sitting's files, from before the clock
    if clock_text is not None:
        (folder / "clock.json").write_text(clock_text)
    clock = algorithms.SeedClock(folder)
    assert clock.resumed and not clock.complete
    assert clock.totals == {"train_seconds": 0.0, "train_cpu_seconds": 0.0, "score_seconds": 0.0}
    assert "sittings" not in clock.record_fields()
    later = algorithms.SeedClock(folder)  # its own clock, read in a later sitting, still misses the first
    assert later.sittings == 2 and not later.complete and "sittings" not in later.record_fields()


@pytest.fixture(scope="module")
def one_failing_seed(tmp_path_factory) -> tuple[dict, Path]:
    """`broken` on the one-task suite with seeds 1 and 2, run once for this module: seed 1 fails first,
    seed 2 still trains and is scored. Its summary and its run's folder."""
    out = tmp_path_factory.mktemp("one_failing_seed")
    with pytest.MonkeyPatch.context() as monkeypatch:
        install_tiny_suites(out / "suites", monkeypatch)
        monkeypatch.setitem(sys.modules, "test_algorithms_plugins", sys.modules[__name__])
        summary = run_algorithm_benchmark(
            "test_algorithms_plugins:broken", load_suite("tiny-one"), 40, [1, 2], out / "runs", reps=REPS
        )
    return summary, out / "runs" / "test_algorithms_plugins_broken"


def test_a_failing_seed_is_recorded_and_the_run_goes_on(one_failing_seed):
    summary, folder = one_failing_seed
    assert summary["failures"] == [{"task": "citadels:2", "seed": 1, "error": "RuntimeError: diverged"}]
    assert summary["aggregate"]["seeds_used"] == 1
    report = (folder / "report.md").read_text()
    assert "citadels:2 seed 1: RuntimeError: diverged" in report and "failed" in report


@pytest.mark.parametrize(
    "plugin, message",
    [
        ("returns_nothing", "returned NoneType None, not a list of (step, agent spec)"),
        ("too_few", "returned 1 checkpoints for the 4 asked"),
    ],
)
def test_a_plugin_answer_that_is_not_checkpoints_fails_its_seeds(tiny_suites, tmp_path, plugins, plugin, message):
    summary = run_algorithm_benchmark(
        f"test_algorithms_plugins:{plugin}", load_suite("tiny-one"), 40, [0], tmp_path, reps=REPS
    )
    assert summary["aggregate"] is None
    [failure] = summary["failures"]
    assert message in failure["error"]


def test_an_unknown_agent_in_a_checkpoint_fails_that_seed(tiny_suites, tmp_path, plugins, monkeypatch):
    monkeypatch.setitem(algorithms.ALGORITHMS, "nonsense", lambda r: [(s, "no_such_agent") for s in r.checkpoints])
    summary = run_algorithm_benchmark("nonsense", load_suite("tiny-one"), 40, [0], tmp_path, reps=REPS)
    assert "cannot play citadels:2" in summary["failures"][0]["error"]


def test_plugin_names_are_checked_before_anything_runs(tmp_path):
    with pytest.raises(BenchmarkError, match="cannot import module 'no_such_module_xyz'"):
        run_algorithm_benchmark("no_such_module_xyz:train", load_suite("v1-lite"), 10, [0], tmp_path)
    assert not any(tmp_path.iterdir())


def test_algorithm_benchmark_resume_refuses_other_settings(tiny_suites, tmp_path, plugins):
    name = "test_algorithms_plugins:too_few"
    run_algorithm_benchmark(name, load_suite("tiny-one"), 40, [0], tmp_path, reps=REPS)
    with pytest.raises(BenchmarkError, match="already holds a benchmark"):
        run_algorithm_benchmark(name, load_suite("tiny-one"), 40, [0], tmp_path, reps=REPS)
    with pytest.raises(BenchmarkError, match="budget 40 \\(now 80\\)"):
        run_algorithm_benchmark(name, load_suite("tiny-one"), 80, [0], tmp_path, resume=True, reps=REPS)


def test_a_small_budget_ends_a_rollout_on_every_checkpoint():
    """`--budget 2048` with the games' 4,096-step rollout trained 4,096 steps and stopped there four times."""
    fit = algorithms.fit_rollout(checkpoint_steps(2048), 64, 64, 2048)
    assert fit["n_envs"] * fit["n_steps"] == 512 and fit["batch_size"] == 512
    assert all(step % (fit["n_envs"] * fit["n_steps"]) == 0 for step in checkpoint_steps(2048))
    assert algorithms.fit_rollout(checkpoint_steps(100_000), 64, 64, 2048) == {}  # the committed runs' settings


def test_one_seed_prints_no_zero_width_interval(one_failing_seed):
    summary, _ = one_failing_seed  # one seed of two failed: the aggregate stands on the other alone
    text = algorithms.format_algorithm_summary(summary)
    assert "no interval from one seed" in text and " to " not in text
