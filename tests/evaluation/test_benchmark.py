"""The agent benchmark end to end on a tiny suite: results, reproducibility, resume, the marl-eval
export, compare (and its refusal of another suite), and the command line's one-line errors."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from city_envs.cli import main
from city_envs.evaluation import plots
from city_envs.evaluation.benchmark import run_agent_benchmark
from city_envs.evaluation.compare import compare_results, write_comparison
from city_envs.evaluation.results import BenchmarkError, load_results, write_results
from city_envs.evaluation.scoring import candidate_matches, score_array
from city_envs.evaluation.suite import load_suite
from city_envs.evaluation.verify import check_records, read_log
from city_envs.evaluation.workers import Runner
from tests.conftest import TINY_REPS

REPS = 100  # bootstrap resamples: enough to exercise the code
ROOT = Path(__file__).resolve().parents[2]


TIMING = ("seconds", "jobs", "backend", "resumed")  # how a run was made, not what it measured


def strip_timing(results: dict) -> dict:
    return {k: v for k, v in results.items() if k not in TIMING}


def test_candidate_seat_rotates_with_the_match_number():
    records = [
        {
            "match": m,
            "failed": False,
            "culprit": None,
            "win_share": [1.0, 0.0, 0.0] if m % 3 == 0 else [0.0, 1.0, 0.0] if m % 3 == 1 else [0.5, 0.0, 0.5],
            "scores": [3.0, 1.0, 2.0],
        }
        for m in range(3)
    ]
    figures = candidate_matches(records, 3)
    assert figures["win_share"] == [1.0, 1.0, 0.5]
    assert figures["margin"] == [3.0 - 1.5, 1.0 - 2.5, 2.0 - 2.0]


def test_agent_benchmark_records_every_match_and_is_reproducible(tiny_results, tmp_path):
    suite = load_suite("tiny")
    results = load_results(tiny_results / "heuristic")  # run with one job
    assert list(results["tasks"]) == ["citadels:2", "metropolys:2"]
    for task in results["tasks"].values():
        assert list(task["lineups"]) == ["random", "heuristic"]
        for lineup in task["lineups"].values():
            assert len(lineup["win_share"]) == len(lineup["margin"]) == 4
            assert lineup["win_rate"] == pytest.approx(np.mean(lineup["win_share"]))
            assert lineup["ci95"][0] <= lineup["win_rate"] <= lineup["ci95"][1]
        # a task's score is the mean of its line-ups' normalised win shares (2 players: 2 * share - 1)
        expected = np.mean([2 * np.mean(s["win_share"]) - 1 for s in task["lineups"].values()])
        assert task["score"] == pytest.approx(expected)
    assert results["suite"]["suite"] == "tiny" and results["suite"]["matches"] == 4
    assert results["versions"]["city-envs"] and results["agent"] == {"spec": "heuristic", "files": {}}
    assert results["aggregate"]["ci95"][0] <= results["aggregate"]["iqm"] <= results["aggregate"]["ci95"][1]
    assert (results["jobs"], results["backend"], results["resumed"]) == (1, "process", False)
    assert "Took " in (tiny_results / "heuristic" / "report.md").read_text()
    again = run_agent_benchmark("heuristic", suite, tmp_path / "b", Runner(2), reps=TINY_REPS)
    assert strip_timing(json.loads(json.dumps(again))) == strip_timing(results)  # the same, whatever runs them
    for name in ("results.json", "report.md", "tasks.png", "profile.png", "marl_eval.json", "benchmark.json"):
        assert (tmp_path / "b" / name).is_file()
    assert strip_timing(load_results(tmp_path / "b")) == strip_timing(json.loads(json.dumps(again)))


def test_marl_eval_export_has_its_layout(tiny_results):
    export = json.loads((tiny_results / "random" / "marl_eval.json").read_text())
    runs = export["city_envs"]["citadels:2"]["random"]
    assert set(runs) == {"run_0", "run_1"}
    step = runs["run_0"]["step_0"]
    assert step["step_count"] == 0 and len(step["win_share"]) == 4 and len(step["normalised_score"]) == 4
    assert runs["run_0"]["absolute_metrics"]["win_share"] == step["win_share"]


def test_an_interrupted_benchmark_resumes_to_the_same_results(tiny_results, tmp_path):
    suite = load_suite("tiny")
    whole = load_results(tiny_results / "random")
    cut = tiny_results / "random"  # this test's copy, cut short
    (cut / "results.json").unlink()
    shutil.rmtree(cut / "runs" / "metropolys_2p")  # never reached
    log = cut / "runs" / "citadels_2p" / "heuristic" / "matches.jsonl"
    log.write_text("".join(log.read_text().splitlines(keepends=True)[:3]))  # two of four matches kept
    with pytest.raises(BenchmarkError, match="already holds a benchmark"):
        run_agent_benchmark("random", suite, cut, reps=REPS)
    resumed = run_agent_benchmark("random", suite, cut, resume=True, reps=TINY_REPS)
    assert strip_timing(json.loads(json.dumps(resumed))) == strip_timing(whole)
    assert resumed["resumed"] and "Resumed: its last part took" in (cut / "report.md").read_text()
    with pytest.raises(BenchmarkError, match="holds another benchmark: agent 'random' \\(now 'heuristic'\\)"):
        run_agent_benchmark("heuristic", suite, cut, resume=True, reps=REPS)
    with pytest.raises(BenchmarkError, match="holds no benchmark to resume"):
        run_agent_benchmark("random", suite, tmp_path / "nothing", resume=True, reps=REPS)


def test_compare_ranks_results_and_refuses_another_suite(tiny_results, tiny_one_result, monkeypatch):
    tmp_path = tiny_results
    (tmp_path / "heuristic").rename(tmp_path / "h")
    (tmp_path / "random").rename(tmp_path / "rand")
    comparison, _ = compare_results([tmp_path / "rand", tmp_path / "h"], reps=REPS)
    assert comparison["order"][0] == "heuristic"
    [improvement] = comparison["probability_of_improvement"]
    assert (improvement["x"], improvement["y"]) == ("heuristic", "random") and improvement["probability"] > 0.5
    expected = np.mean(
        [
            np.mean(np.greater.outer(a, b) + 0.5 * np.equal.outer(a, b))
            for a, b in zip(
                score_array(load_results(tmp_path / "h")).mean(axis=2).T,
                score_array(load_results(tmp_path / "rand")).mean(axis=2).T,
                strict=True,
            )
        ]
    )
    assert improvement["probability"] == pytest.approx(expected)  # the Mann-Whitney share, by hand
    profiles = []  # (over_runs, reps) of each profile drawn
    drawn = plots.performance_profile

    def profile(scores, taus, over_runs=False, reps=None):
        profiles.append((over_runs, reps))
        return drawn(scores, taus, over_runs, reps=reps)

    monkeypatch.setattr(plots, "performance_profile", profile)
    write_comparison([tmp_path / "h", tmp_path / "rand"], tmp_path / "cmp", reps=REPS)
    assert profiles == [(False, REPS)]  # each agent's matches (not runs), resampled as often as asked
    assert {p.name for p in (tmp_path / "cmp").iterdir()} == {
        "comparison.json",
        "comparison.md",
        "tasks.png",
        "profile.png",
    }
    with pytest.raises(BenchmarkError, match="results of different suites or versions are not comparable"):
        compare_results([tmp_path / "h", tiny_one_result], reps=REPS)
    with pytest.raises(BenchmarkError, match="at least two results"):
        compare_results([tmp_path / "h"], reps=REPS)
    (tmp_path / "bad.json").write_text('{"format": "something else"}')
    with pytest.raises(BenchmarkError, match="not a city-envs benchmark result"):
        compare_results([tmp_path / "h", tmp_path / "bad.json"], reps=REPS)
    for hollow in ('{"format": "city-envs-benchmark/1"}', '{"format": "city-envs-benchmark/1", "suite": 3}'):
        (tmp_path / "hollow.json").write_text(hollow)
        with pytest.raises(BenchmarkError, match="not a complete benchmark result: (agent|suite)"):
            compare_results([tmp_path / "h", tmp_path / "hollow.json"], reps=REPS)


@pytest.mark.parametrize(
    "argv, message",
    [
        (["benchmark", "agent", "random", "--suite", "v7", "--out", "x"], "unknown suite 'v7'"),
        (["benchmark", "agent", "random", "--suite", "v1-huge", "--out", "x"], "no variant 'huge'"),
        (["benchmark", "agent", "nonsense", "--suite", "v1-lite", "--out", "x"], "cannot play citadels:2"),
        (["benchmark", "agent", "ppo:missing.safetensors", "--suite", "v1-lite", "--out", "x"], "cannot play"),
        (["benchmark", "compare", "a"], "at least two results"),
        (["benchmark", "compare", "a", "b"], "not a readable benchmark result"),
        (["benchmark", "train", "no_such_algorithm", "--out", "x"], "unknown algorithm 'no_such_algorithm'"),
        (["benchmark", "train", "math:no_function", "--out", "x"], "has no function 'no_function'"),
        (["benchmark", "train", "ppo_scratch", "--seeds", "0,0", "--out", "x"], "seeds must be distinct"),
        (["benchmark", "train", "ppo_scratch", "--budget", "0", "--out", "x"], "budget must be at least 1"),
        (["benchmark", "exploit", "random", "--task", "chess:2", "--out", "x"], "unknown game 'chess'"),
        (["benchmark", "exploit", "random", "--task", "citadels:7", "--out", "x"], "no committed baseline"),
    ],
)
def test_bad_benchmark_input_is_one_line_and_exit_2(argv, message, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert not (tmp_path / "x").exists()  # nothing started


def test_benchmark_suites_lists_the_variants(capsys):
    assert main(["benchmark", "suites"]) == 0
    out = capsys.readouterr().out
    assert "v1-lite: the 2-player tasks" in out and "citadels:7: against random, heuristic" in out


def test_a_result_is_written_through_the_model_that_reads_it(tmp_path):
    """`write_results` writes what `load_results` reads back unchanged, and refuses, writing nothing, a
    result that `load_results` would refuse (a non-finite score, a figure missing)."""
    committed = ROOT / "benchmarks" / "agents" / "v1-lite" / "random"
    results = load_results(committed)
    assert write_results(results, tmp_path) == results and load_results(tmp_path) == results
    (tmp_path / "results.json").unlink()
    broken = json.loads(json.dumps(results))
    next(iter(broken["tasks"].values()))["score"] = float("nan")
    with pytest.raises(BenchmarkError, match="not a complete benchmark result \\(nothing written\\): tasks.*score"):
        write_results(broken, tmp_path)
    broken = {key: value for key, value in results.items() if key != "aggregate"}
    with pytest.raises(BenchmarkError, match="aggregate: Field required"):
        write_results(broken, tmp_path)
    assert not (tmp_path / "results.json").exists()


def test_a_log_s_policies_are_compared_by_the_digest_its_header_recorded():
    """A committed log names the suite's reference policy where it lay when the run was made; replaying
    it compares that policy by the SHA-256 its header recorded, so it verifies wherever the file lies
    now, and a header whose digest is another policy's does not."""
    suite = load_suite("v1-lite")
    task = suite.task("citadels:2")
    log = ROOT / "benchmarks" / "agents" / "v1-lite" / "random" / "runs" / task.slug / "reference" / "matches.jsonl"
    header, records = read_log(log)
    records = sorted(records, key=lambda r: r["match"])[:2]
    lineup = ["random", suite.opponent_spec(task, "reference")]
    assert all(kind.startswith("ppo:") for kind in header["policies"])
    assert check_records(task.game, task.players, lineup, suite.seed("reference"), records, header["policies"]) == []
    other = {kind: "0" * 64 for kind in header["policies"]}
    found = check_records(task.game, task.players, lineup, suite.seed("reference"), records, other)
    assert len(found) == 2 and all("are not the schedule's" in text for text in found)
