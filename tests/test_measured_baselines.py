"""The committed measurements that played a baseline played the one committed now.

`ppo` names whatever baseline is committed, so a benchmark row of `ppo`, or an exploit probe against it
or started from it, describes the baseline it measured. Each result records the baselines' SHA-256;
when a baseline is replaced, its results are measured again before they stand beside it. (The guided
search's tables name a task measured with an earlier network themselves: `guided_search.report`.)
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BASELINES = ROOT / "training" / "baselines"


def recorded_baselines() -> list[tuple[str, str, str]]:
    """(result file, baseline, recorded SHA-256) for every committed baseline a committed result names:
    a file recorded under its task ("citadels:2") by the baseline's name (`citadels_2p.safetensors`) or
    by its place in the policy store (`policies/<sha256>.safetensors`)."""
    named = []
    for path in sorted((ROOT / "benchmarks" / "agents").glob("*/*/results.json")):
        named += [(path, task, entry) for task, entry in json.loads(path.read_text())["agent"]["files"].items()]
    for path in sorted((ROOT / "benchmarks" / "exploit").glob("*/exploit.json")):
        result = json.loads(path.read_text())
        if result["init"] == "baseline":
            assert result.get("start"), f"{path} does not record the baseline it started from"
        played = [*result["target"]["files"].items(), *result.get("start", {}).items()]
        named += [(path, task, entry) for task, entry in played]
    found = []
    for path, task, entry in named:
        game, players = task.split(":")
        baseline = f"{game}_{players}p"
        recorded = Path(entry["path"])
        if (BASELINES / f"{baseline}.json").is_file() and (
            str(recorded) == f"{baseline}.safetensors" or recorded.parent.name == "policies"
        ):
            found.append((str(path.relative_to(ROOT)), baseline, entry["sha256"]))
    return found


def test_results_name_baselines_at_all():
    assert len({name for _, name, _ in recorded_baselines()}) >= 5  # the check below checks something


@pytest.mark.parametrize(("result", "name", "digest"), recorded_baselines())
def test_each_result_played_the_committed_baseline(result, name, digest):
    committed = json.loads((BASELINES / f"{name}.json").read_text())["policy"]
    assert digest == committed, f"{result} measured an earlier {name}: measure it again with the committed one"
