"""Suite-wide set-up.

- Hypothesis profiles: modest example counts in the default suite; slow tests raise their own counts;
  `HYPOTHESIS_PROFILE=thorough` runs every property test with many more examples.
- The suite tests one checkout: `city_envs.agents` and `city_envs.training` must come from the same
  folder as `city_envs`. They are mapped from the top-level `agents/` and `training/` folders by the
  install, so an editable install of another checkout would silently supply its bots and trainer.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("default", max_examples=30, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
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
            raise pytest.UsageError(f"city_envs.{folder} comes from {found}, not {root / folder}: "
                                    f"run `pip install -e {root}` in this environment")
