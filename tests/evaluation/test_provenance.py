"""Issue 46, items 4 and 5: a result records which engine played it and the engines' code, with paths
never absolute; `verify` notes another engine rather than failing; `compare` shows its progress on a
terminal and explains its lottery column; the statistics need neither pref-voting nor what it pulls in."""

from __future__ import annotations

import functools
import hashlib
import io
import json
import sys
from importlib import metadata
from pathlib import Path

import pytest
from rich.console import Console
from rich.progress import Progress

from city_envs.agents.policy_agent import BASELINES_DIR
from city_envs.cli import main
from city_envs.core import native, progress
from city_envs.core.registry import game_class
from city_envs.core.settings import read_toml
from city_envs.evaluation import compare, statistics
from city_envs.evaluation.arena import MatchLog, run_settings
from city_envs.evaluation.benchmark import run_agent_benchmark
from city_envs.evaluation.results import load_results
from city_envs.evaluation.suite import load_suite, parse_task

REPS = 50
ROOT = Path(__file__).resolve().parents[2]


def test_a_result_records_the_engine_that_played_it(tiny_one_result, tmp_path, monkeypatch):
    results = load_results(tiny_one_result)  # played on the default engine
    engine = results["engine"]
    assert engine["version"] == metadata.version("city-envs")
    assert engine["tasks"] == {"citadels:2": getattr(game_class("citadels"), "engine", "python")}
    if native._native is None:
        assert engine["native"] is None
    else:
        built = Path(native._native.__file__)
        assert engine["native"] == {"file": built.name, "sha256": hashlib.sha256(built.read_bytes()).hexdigest()}
    assert engine["python"]["files"] > 10 and len(engine["python"]["sha256"]) == 64
    monkeypatch.setenv(native.ENGINE_VARIABLE, "python")
    python = run_agent_benchmark("random", load_suite("tiny-one"), tmp_path / "python", reps=REPS)
    assert python["engine"]["tasks"] == {"citadels:2": "python"}
    assert python["tasks"] == results["tasks"]  # both engines play the same matches


def test_verify_notes_another_engine_and_other_engine_code_without_failing(tiny_one_result, capsys):
    path = tiny_one_result / "results.json"
    results = json.loads(path.read_text())
    results["engine"]["tasks"] = {"citadels:2": "native"}
    results["engine"]["python"]["sha256"] = "0" * 64
    path.write_text(json.dumps(results))
    assert main(["benchmark", "verify", str(tiny_one_result)]) == 0
    out = capsys.readouterr().out
    assert "verified (8 matches replayed" in out
    assert "note: played on the native engine, replayed on the python engine (the same matches)" in out
    assert "note: the python engine's code here (SHA-256 " in out and f"is not the run's ({'0' * 64})" in out


def test_match_logs_record_policy_paths_that_are_not_absolute(tmp_path, monkeypatch):
    """A suite's reference policy as `city_envs/...` (the same from a checkout or an install), a policy
    outside the run's folder by its file name; resuming maps them back to the paths of this run."""
    outside = tmp_path / "elsewhere" / "mine.safetensors"
    outside.parent.mkdir()
    outside.write_bytes(b"weights")
    reference = load_suite("v1").reference_path(parse_task("citadels:2"))
    monkeypatch.chdir(tmp_path / "elsewhere")
    (tmp_path / "run").mkdir()
    monkeypatch.chdir(tmp_path / "run")
    kinds = [f"ppo:{outside}", f"ppo:{reference.resolve()}"]
    settings = run_settings("citadels", 2, kinds, 2, 7, {}, True)
    log = MatchLog(tmp_path / "run" / "m.jsonl", settings)
    log.append({"match": 0, "seed": 1, "kinds": kinds, "failed": False, "culprit": None, "reason": "",
                "decisions": [0, 0], "scores": [0.0, 0.0], "truncated": False, "win_share": [0.5, 0.5],
                "winners": [0, 1], "history": []})  # fmt: skip
    text = (tmp_path / "run" / "m.jsonl").read_text()
    assert str(tmp_path) not in text and str(BASELINES_DIR) not in text
    header = json.loads(text.splitlines()[0])["run"]
    assert header["lineup"] == ["ppo:mine.safetensors", f"ppo:city_envs/training/baselines/policies/{reference.name}"]
    assert MatchLog(tmp_path / "run" / "m.jsonl", settings, resume=True).records[0]["kinds"] == kinds


def test_no_committed_match_log_holds_an_absolute_path():
    logs = sorted((ROOT / "benchmarks").glob("**/matches.jsonl"))
    assert logs
    for path in logs:
        assert '"ppo:/' not in path.read_text(), path


def test_the_statistics_need_no_pref_voting(monkeypatch):
    """pref-voting requires numba and ortools, which pinned numpy below 2.4 and protobuf below 6.34: the
    maximal lotteries are scipy's linear programs, and the benchmark extra no longer lists it."""
    monkeypatch.setitem(sys.modules, "pref_voting", None)  # `import pref_voting` fails
    statistics.require_statistics()
    tiers = statistics.maximal_lottery_tiers({"a": [3, 1, 2], "b": [2, 3, 1], "c": [1, 2, 3], "d": [0, 0, 0]})
    assert [tiers[x]["tier"] for x in "abcd"] == [1, 1, 1, 2]
    extra = read_toml(ROOT / "pyproject.toml")["project"]["optional-dependencies"]["benchmark"]
    names = {requirement.split(">")[0].split("<")[0].split("=")[0].strip() for requirement in extra}
    assert not names & {"pref-voting", "numba", "ortools"} and {"rliable", "scipy"} <= names


def test_compare_shows_its_progress_on_a_terminal_only(tiny_results, monkeypatch, capsys):
    h, r, out = (str(tiny_results / name) for name in ("heuristic", "random", "cmp"))
    argv = ["benchmark", "compare", h, r, "--out", out]
    seen: list[str] = []

    class Bars(Progress):
        def add_task(self, description, *args, **kwargs):
            seen.append(description)
            return super().add_task(description, *args, **kwargs)

    monkeypatch.setattr(compare, "write_comparison", functools.partial(compare.write_comparison, reps=REPS))
    monkeypatch.setattr(progress, "terminal_bars", lambda: Bars(console=Console(file=io.StringIO())))
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert seen[:3] == ["verifying the results", "replaying heuristic", "replaying random"]
    assert "probability of improvement" in seen
    assert "Lottery probability: the weight the maximal lottery" in out
    monkeypatch.setattr(sys.stdout, "isatty", lambda: False)
    monkeypatch.setattr(progress, "terminal_bars", lambda: pytest.fail("bars where stdout is no terminal"))
    assert main(argv) == 0
