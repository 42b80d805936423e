"""Every committed policy file is stored once, in the policy store, named by its SHA-256; the baselines'
records and the benchmark suites find their policies there by that digest."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from city_envs import GAMES
from city_envs.agents import policy_agent
from city_envs.agents.policy_agent import (
    BASELINES_DIR,
    STORE,
    baseline_path,
    baseline_stem,
    stored_policy,
    stored_record,
)
from city_envs.evaluation.suite import SUITES_DIR, load_suite

ROOT = Path(__file__).resolve().parents[2]


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_every_policy_file_of_the_package_is_stored_once_by_its_digest():
    files = [p for folder in ("city_envs", "agents", "training") for p in (ROOT / folder).rglob("*.safetensors")]
    assert files and all(path.parent == BASELINES_DIR / STORE for path in files), "a policy outside the store"
    assert all(path.name == f"{digest(path)}.safetensors" for path in files)


def test_the_records_and_the_suites_name_policies_of_the_store():
    records = [*BASELINES_DIR.glob("*_?p.json"), *(BASELINES_DIR / "lineage").glob("*.json")]
    named = {json.loads(record.read_text())["policy"] for record in records}
    for suite in SUITES_DIR.glob("*.toml"):
        named |= {ref.sha256 for ref in load_suite(suite.stem).spec.references.values()}
    assert {p.stem for p in (BASELINES_DIR / STORE).glob("*.safetensors")} == named  # none unnamed, none missing
    for game in GAMES:
        for players in (2, 4):
            record = json.loads(baseline_stem(game, players).with_suffix(".json").read_text())
            assert baseline_path(game, players) == stored_policy(record["policy"])
            assert stored_record(baseline_path(game, players)) == baseline_stem(game, players)  # its config beside


@pytest.mark.parametrize("text", ["", "84123219", "../" + "0" * 61, "A" * 64, 7])
def test_a_store_address_is_a_sha256(text):
    with pytest.raises(ValueError, match="is not a SHA-256"):
        stored_policy(text)


def test_a_game_without_a_baseline_names_a_missing_file(tmp_path, monkeypatch):
    monkeypatch.setattr(policy_agent, "BASELINES_DIR", tmp_path)
    assert baseline_path("citadels", 2) == tmp_path / "citadels_2p.safetensors"
    assert not baseline_path("citadels", 2).exists()
