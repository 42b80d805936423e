"""The committed reference results verify, or are the legacy results `verify.LEGACY` lists byte for byte."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from city_envs.evaluation.verify import LEGACY, LegacyResult, legacy_name, verify_result

ROOT = Path(__file__).resolve().parents[2]


def test_the_legacy_list_names_committed_files():
    for digest, name in LEGACY.items():
        assert hashlib.sha256((ROOT / name / "results.json").read_bytes()).hexdigest() == digest, name


@pytest.mark.slow
def test_the_committed_results_verify():
    for folder in sorted((ROOT / "benchmarks" / "agents").glob("*/*")):
        try:
            differences, played = verify_result(folder)
        except LegacyResult:
            assert legacy_name(folder) is not None, folder
            continue
        assert differences == [] and played > 0, folder
