"""Suite-wide set-up.

- Hypothesis profiles: modest example counts in the default suite; slow tests raise their own counts;
  `HYPOTHESIS_PROFILE=thorough` runs every property test with many more examples.
- `tiny_suites`: a benchmark suite of two quick tasks, for the benchmark's tests; `tiny_results`: a
  test's own copy of `heuristic` and `random` benchmarked on it once per session.
- The suite tests one checkout: `city_envs.agents` and `city_envs.training` must come from the same
  folder as `city_envs`. They are mapped from the top-level `agents/` and `training/` folders by the
  install, so an editable install of another checkout would silently supply its bots and trainer.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "default", max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
settings.register_profile("thorough", parent=settings.get_profile("default"), max_examples=500)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


def pytest_configure(config: pytest.Config) -> None:
    import importlib

    import city_envs

    root = Path(city_envs.__file__).resolve().parent.parent
    for folder in ("agents", "training"):
        try:
            found = Path(importlib.import_module(f"city_envs.{folder}").__file__).resolve().parent
        except ImportError:
            found = None
        if found != root / folder:
            raise pytest.UsageError(
                f"city_envs.{folder} comes from {found}, not {root / folder}: "
                f"run `pip install -e {root}` in this environment"
            )


TINY = """
name = "tiny"
env_version = 0
[lineups]
random = { opponent = "random", seed = 11 }
heuristic = { opponent = "heuristic", seed = 12 }
[variants.default]
description = "two quick tasks"
tasks = ["citadels:2", "metropolys:2"]
matches = 4
[variants.one]
description = "one task"
tasks = ["citadels:2"]
matches = 4
"""


def install_tiny_suites(folder: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """`folder` made the suites folder, holding `tiny.toml` (and v1, untouched, beside it)."""
    from city_envs.evaluation import suite as suite_module
    from city_envs.evaluation import workers

    folder.mkdir()
    (folder / "tiny.toml").write_text(TINY)
    for item in suite_module.SUITES_DIR.iterdir():
        (folder / item.name).symlink_to(item)
    monkeypatch.setattr(suite_module, "SUITES_DIR", folder)
    monkeypatch.setattr(workers, "worker_start_method", lambda: "fork")  # no torch in these matches
    return folder


@pytest.fixture
def tiny_suites(tmp_path, monkeypatch):
    """The suites folder replaced by one holding `tiny.toml` (and v1, untouched, beside it)."""
    return install_tiny_suites(tmp_path / "suites", monkeypatch)


TINY_REPS = 50  # bootstrap samples of the tiny benchmarks' intervals


@pytest.fixture(scope="session")
def tiny_benchmarks(tmp_path_factory) -> Path:
    """`heuristic` and `random` benchmarked once on the tiny suite, and `random` on its `one` variant
    (`random-one`), all with TINY_REPS: a folder holding the three result folders, to be copied by each
    test that reads or edits them (`tiny_results`, `tiny_one_result`)."""
    from city_envs.evaluation.benchmark import run_agent_benchmark
    from city_envs.evaluation.suite import load_suite

    folder = tmp_path_factory.mktemp("tiny_benchmarks")
    with pytest.MonkeyPatch.context() as monkeypatch:
        install_tiny_suites(folder / "suites", monkeypatch)
        runs = {"heuristic": ("heuristic", "tiny"), "random": ("random", "tiny"), "random-one": ("random", "tiny-one")}
        for name, (spec, variant) in runs.items():
            run_agent_benchmark(spec, load_suite(variant), folder / name, reps=TINY_REPS)
    return folder


@pytest.fixture
def tiny_results(tiny_benchmarks, tiny_suites, tmp_path) -> Path:
    """This test's own copy of `tiny_benchmarks`' two results (`heuristic`, `random`), the tiny suite
    installed."""
    for spec in ("heuristic", "random"):
        shutil.copytree(tiny_benchmarks / spec, tmp_path / spec)
    return tmp_path


@pytest.fixture
def tiny_one_result(tiny_benchmarks, tiny_suites, tmp_path) -> Path:
    """This test's own copy of `random` benchmarked on `tiny-one` (TINY_REPS), as `tmp_path / "r"`."""
    return Path(shutil.copytree(tiny_benchmarks / "random-one", tmp_path / "r"))
