"""Every committed reference result verifies: its matches replay to every recorded figure."""

from __future__ import annotations

from pathlib import Path

import pytest

from city_envs.evaluation.verify import verify_result

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_the_committed_results_verify():
    folders = sorted((ROOT / "benchmarks" / "agents").glob("*/*"))
    assert folders
    for folder in folders:
        differences, played = verify_result(folder)
        assert differences == [] and played > 0, folder
