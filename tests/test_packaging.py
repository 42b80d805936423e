"""The wheel is the whole product: pyproject.toml maps the three package folders (agents/ and training/
installed as city_envs.agents and city_envs.training) and the native engine's build; every file of
those folders ships, configs, baselines, web pages and benchmark suites included.
CI builds the wheel, checks it holds every tracked file of the folders, and runs it from a fresh
environment (.ci/run); this checks the declarations."""

from __future__ import annotations

import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
BUILD = PYPROJECT["tool"]["scikit-build"]


def test_the_three_folders_install_under_city_envs():
    assert BUILD["wheel"]["packages"] == {
        "city_envs": "city_envs",
        "city_envs/agents": "agents",
        "city_envs/training": "training",
    }
    assert not (ROOT / "city_envs" / "agents").exists() and not (ROOT / "city_envs" / "training").exists()


def test_the_native_engine_is_built_by_scikit_build_core_with_nanobind():
    assert PYPROJECT["build-system"]["build-backend"] == "scikit_build_core.build"
    assert any(req.startswith("nanobind") for req in PYPROJECT["build-system"]["requires"])
    cmake = (ROOT / "CMakeLists.txt").read_text()
    assert "nanobind_add_module(" in cmake and "DESTINATION city_envs" in cmake
    # every game's binding source is compiled
    for bind in sorted((ROOT / "native").glob("*/bind.cpp")):
        assert bind.relative_to(ROOT).as_posix() in cmake
