"""The suite tests one checkout: `city_envs.agents` and `city_envs.training` must come from the same
folder as `city_envs`. They are mapped from the top-level `agents/` and `training/` folders by the
install, so an editable install of another checkout would silently supply its bots and trainer."""

from __future__ import annotations

from pathlib import Path

import pytest


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
            raise pytest.UsageError(f"city_envs.{folder} comes from {found}, not {root / folder}: "
                                    f"run `pip install -e {root}` in this environment")
