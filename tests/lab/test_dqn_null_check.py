"""The DQN null-check study: its ratio and interval, its table, its results file and doors, and one tiny
run end to end (both arms train, the plug-in is left as it was, a second run resumes)."""

from __future__ import annotations

import json
import math

import pytest

pytest.importorskip("tianshou")

from scipy import stats  # noqa: E402

import city_envs.integrations.tianshou as plugin  # noqa: E402
from lab import dqn_null_check as study  # noqa: E402

HAND_MADE = {
    "measurement": "dqn_null_check",
    "commands": ["python -m lab.dqn_null_check --repeats 3"],
    "options": {"steps": 10_000, "filled": 20_000, "repeats": 3},
    "games": {"citadels": {"stock": [1.5, 1.6, 1.4], "new": [1.0, 1.0, 1.1]}, "big_city": {"stock": [4.0], "new": []}},
}


def test_the_ratio_is_the_geometric_mean_with_a_student_t_interval():
    stock, new = [1.5, 1.6, 1.4], [1.0, 1.0, 1.1]
    logs = [math.log(s / n) for s, n in zip(stock, new, strict=True)]
    ratio, low, high = study.ratio_interval(stock, new)
    assert ratio == pytest.approx(math.exp(sum(logs) / 3))
    half = stats.t.ppf(0.975, 2) * stats.tstd(logs) / math.sqrt(3)
    assert (low, high) == pytest.approx((math.exp(sum(logs) / 3 - half), math.exp(sum(logs) / 3 + half)))
    assert all(math.isnan(bound) for bound in study.ratio_interval([2.0], [1.0])[1:])


def test_the_table_pairs_the_repeats_and_skips_a_game_without_a_pair():
    lines = study.table(HAND_MADE).splitlines()
    ratio, low, high = study.ratio_interval([1.5, 1.6, 1.4], [1.0, 1.0, 1.1])
    assert lines[4:] == [f"| citadels | 3 | 1.500 | 1.033 | {ratio:.2f} ({low:.2f}-{high:.2f}) |"]
    assert "from step 20,000 to 30,000" in lines[0]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"measurement": "other"}, "is not a dqn_null_check results.json"),
        ({"games": {"citadels": {"stock": [-1.0], "new": [1.0]}}}, "positive number of ms"),
        ({"games": {"citadels": {"stock": [1.0]}}}, "malformed dqn_null_check results.json"),
        ({"commands": [3]}, "commands must be a list"),
    ],
)
def test_a_bad_results_file_is_one_clear_error(tmp_path, change, message):
    path = tmp_path / "results.json"
    path.write_text(json.dumps(HAND_MADE | change))
    with pytest.raises(ValueError, match=message):
        study.load_results(path)


def test_from_json_writes_the_section_and_refuses_a_page_without_it(tmp_path, capsys):
    source, page = tmp_path / "results.json", tmp_path / "page.md"
    source.write_text(json.dumps(HAND_MADE))
    page.write_text("# page\n<!-- tables:dqn-null-check -->\n<!-- /tables:dqn-null-check -->\n")
    assert study.main(["--from-json", str(source), "--doc", str(page)]) == 0
    written = page.read_text()
    assert "| citadels | 3 |" in written and "Made by `python -m lab.dqn_null_check --repeats 3`" in written
    (tmp_path / "bare.md").write_text("# page\n")
    with pytest.raises(SystemExit):
        study.main(["--from-json", str(source), "--doc", str(tmp_path / "bare.md")])
    assert "has no <!-- tables:dqn-null-check --> section" in capsys.readouterr().err


def test_a_tiny_study_runs_both_arms_restores_the_plugin_and_resumes(tmp_path, monkeypatch):
    monkeypatch.setattr(study, "default_buffer_size", lambda: 300)
    monkeypatch.setattr(study, "WARM_UP_STEPS", 100)
    out = tmp_path / "results.json"
    results = study.run(out, ["citadels"], steps=200, repeats=2, doc=None, command="tiny")
    runs = results["games"]["citadels"]
    assert len(runs["stock"]) == len(runs["new"]) == 2 and all(ms > 0 for arm in runs.values() for ms in arm)
    assert plugin.NewEntriesNullCheck.__name__ == "NewEntriesNullCheck"
    assert study.load_results(out)["options"] == {"steps": 200, "filled": 300, "repeats": 2}
    monkeypatch.setattr(study, "cpu_ms_per_step", lambda *args: pytest.fail("a resumed study reran a run"))
    again = study.run(out, ["citadels"], steps=200, repeats=2, doc=None, command="again")
    assert again["commands"] == ["tiny", "again"]
    with pytest.raises(ValueError, match="is a folder"):
        study.run(tmp_path, ["citadels"], steps=200, repeats=2, doc=None, command="a folder")
    with pytest.raises(ValueError, match="holds a study of other settings"):
        study.run(out, ["citadels"], steps=100, repeats=2, doc=None, command="other")
