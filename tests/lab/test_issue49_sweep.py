"""Issue 49's attack sweep (lab/attacks/issue49_sweep.py) keeps working: a tiny budget per class here,
the full run behind `slow`. Every class must run its cases without a wrong one."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

SWEEP = Path(__file__).resolve().parents[2] / "lab" / "attacks" / "issue49_sweep.py"
QUICK = ["serve --port/--host", "Host spellings", "cross-site writes and GETs, headers", "huge counts: from_dict"]


def sweep_module():
    spec = importlib.util.spec_from_file_location("issue49_sweep", SWEEP)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run(tmp_path: Path, budget: float, classes: list[str]) -> dict:
    out = tmp_path / "sweep.json"
    argv = ["--budget", str(budget), "--out", str(out)] + [arg for name in classes for arg in ("--only", name)]
    code = sweep_module().main(argv)
    report = json.loads(out.read_text())
    assert list(report["classes"]) == classes
    wrong = {name: row["wrong"] for name, row in report["classes"].items() if row["wrong"]}
    assert code == 0 and not wrong, wrong
    return report


def test_a_tiny_sweep_tries_every_quick_class_and_finds_nothing_wrong(tmp_path):
    report = run(tmp_path, 1.0, QUICK)
    assert all(row["tried"] > 0 for row in report["classes"].values())


def test_the_sweep_counts_a_wrong_case(tmp_path, capsys):
    """A door that ends in a traceback is counted wrong, with what went wrong."""
    module = sweep_module()
    worker = module.Worker("x", 1.0, 0, tmp_path)
    worker.case("a traceback", lambda: {}["missing"])
    worker.case("a clear error", lambda: module.cli(["play", "no_such_game"], 2, "no_such_game"))
    assert worker.tried == 2 and [w["case"] for w in worker.wrong] == ["a traceback"]
    assert worker.wrong[0]["why"].startswith("traceback: KeyError")


@pytest.mark.slow
def test_the_full_sweep_finds_nothing_wrong(tmp_path):
    run(tmp_path, 8.0, list(sweep_module().CLASSES))


def test_a_class_tries_its_first_case_whatever_its_set_up_took(tmp_path):
    worker = sweep_module().Worker("x", 0.0, 0, tmp_path)  # a budget spent before any case
    assert worker.time_left()
    worker.case("one", lambda: None)
    assert not worker.time_left()
