"""The wheel is the whole product: pyproject.toml lists every package folder (agents/ and training/
installed as city_envs.agents and city_envs.training) and ships every data file: configs, baselines,
web pages and benchmark suites.
CI builds the wheel and runs it from a fresh environment (.ci/run); this checks the declarations."""

from __future__ import annotations

import fnmatch
import sys
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
# folders of data files (no __init__.py), each listed as a package so its files ship in the wheel
DATA_FOLDERS = (
    "training/configs",
    "training/baselines",
    "training/baselines/lineage",
    "city_envs/web/templates",
    "city_envs/web/static",
    "city_envs/evaluation/suites",
    "city_envs/evaluation/suites/v1",
)
SETUPTOOLS = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]


def installed_name(folder: Path) -> str:
    """The import name a package folder gets when installed."""
    parts = folder.relative_to(ROOT).parts
    return ".".join(parts if parts[0] == "city_envs" else ("city_envs", *parts))


def test_every_package_folder_is_listed_under_city_envs():
    folders = {
        installed_name(init.parent)
        for top in ("city_envs", "agents", "training")
        for init in (ROOT / top).rglob("__init__.py")
    }
    data_folders = {installed_name(ROOT / name) for name in DATA_FOLDERS}
    assert set(SETUPTOOLS["packages"]) == folders | data_folders
    assert all(name == "city_envs" or name.startswith("city_envs.") for name in SETUPTOOLS["packages"])
    assert SETUPTOOLS["package-dir"] == {"city_envs.agents": "agents", "city_envs.training": "training"}


@pytest.mark.parametrize("folder", DATA_FOLDERS)
def test_every_data_file_is_package_data(folder):
    patterns = SETUPTOOLS["package-data"][installed_name(ROOT / folder)]
    files = [p.name for p in (ROOT / folder).iterdir() if p.is_file() and not p.name.startswith(".")]
    assert files
    assert [name for name in files if not any(fnmatch.fnmatch(name, pattern) for pattern in patterns)] == []
