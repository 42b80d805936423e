"""The committed measurements that played a baseline played the one committed now.

`ppo` names whatever baseline is committed, so a benchmark row of `ppo`, or an exploit probe against it
or started from it, describes the baseline it measured. Each result records the baselines' SHA-256;
when a baseline is replaced, its results are measured again before they stand beside it. (The guided
search's tables name a task measured with an earlier network themselves: `guided_search.report`.)
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BASELINES = ROOT / "training" / "baselines"


def recorded_baselines() -> list[tuple[str, str, str]]:
    """(result file, baseline file name, recorded SHA-256) for every baseline a committed result names."""
    named = []
    for path in sorted((ROOT / "benchmarks" / "agents").glob("*/*/results.json")):
        named += [(path, entry) for entry in json.loads(path.read_text())["agent"]["files"].values()]
    for path in sorted((ROOT / "benchmarks" / "exploit").glob("*/exploit.json")):
        result = json.loads(path.read_text())
        if result["init"] == "baseline":
            assert result.get("start"), f"{path} does not record the baseline it started from"
        played = [*result["target"]["files"].values(), *result.get("start", {}).values()]
        named += [(path, entry) for entry in played]
    return [
        (str(path.relative_to(ROOT)), entry["path"], entry["sha256"])
        for path, entry in named
        if (BASELINES / Path(entry["path"]).name).is_file() and Path(entry["path"]).name == entry["path"]
    ]


def test_results_name_baselines_at_all():
    assert len({name for _, name, _ in recorded_baselines()}) >= 5  # the check below checks something


@pytest.mark.parametrize(("result", "name", "digest"), recorded_baselines())
def test_each_result_played_the_committed_baseline(result, name, digest):
    committed = hashlib.sha256((BASELINES / name).read_bytes()).hexdigest()
    assert digest == committed, f"{result} measured an earlier {name}: measure it again with the committed one"
