"""docs/benchmark.md's reference tables are the committed results' JSON, written by `benchmark tables`."""

from __future__ import annotations

from pathlib import Path

import pytest

from city_envs.cli import main
from city_envs.core.markdown import MARKER, fill
from city_envs.evaluation.benchmark import run_agent_benchmark
from city_envs.evaluation.compare import write_comparison
from city_envs.evaluation.suite import load_suite
from city_envs.evaluation.tables import all_tables

ROOT = Path(__file__).resolve().parents[2]


def test_the_benchmark_page_matches_the_committed_results():
    page = (ROOT / "docs" / "benchmark.md").read_text()
    assert {m["name"] for m in MARKER.finditer(page)} >= {
        "agents-v1",
        "compare-v1",
        "timing-v1",
        "agents-v1-lite",
        "algorithms-v1-lite",
        "exploit",
    }
    # the figures' replay is test_verify's (slow); here the page is checked against the JSON
    assert fill(page, all_tables(ROOT / "benchmarks", verify=False)) == page, "run `city-envs benchmark tables`"


def test_tables_are_written_from_results(tiny_suites, tmp_path, capsys):
    run_agent_benchmark("heuristic", load_suite("tiny"), tmp_path / "agents" / "tiny" / "heuristic", reps=50)
    doc = tmp_path / "page.md"
    doc.write_text(
        "intro\n<!-- tables:agents-tiny -->\nold\n<!-- /tables:agents-tiny -->\n"
        "<!-- tables:exploit -->\n<!-- /tables:exploit -->\nend\n"
    )
    assert main(["benchmark", "tables", str(tmp_path), str(doc)]) == 0
    text = doc.read_text()
    assert "old" not in text and "| `heuristic` | " in text and text.endswith("end\n")
    assert "<!-- tables:exploit -->\n*No results yet.*\n<!-- /tables:exploit -->" in text
    tables = all_tables(tmp_path)
    assert tables["timing-tiny"].splitlines()[2].startswith("| `heuristic` | 1 (process) | ")
    run_agent_benchmark(
        "heuristic", load_suite("tiny"), tmp_path / "agents" / "tiny" / "heuristic", resume=True, reps=50
    )
    assert "| 1 (process) | resumed, last part " in all_tables(tmp_path)["timing-tiny"]
    run_agent_benchmark("random", load_suite("tiny"), tmp_path / "agents" / "tiny" / "random", reps=50)
    write_comparison(
        [tmp_path / "agents" / "tiny" / name for name in ("random", "heuristic")],
        tmp_path / "compare" / "tiny",
        reps=50,
    )
    ranking = all_tables(tmp_path)["compare-tiny"].splitlines()
    assert ranking[2].startswith("| 1 | `heuristic` | 1 | ") and ranking[2].endswith(" over `random` |")
    assert ranking[3].startswith("| 2 | `random` | 2 | ") and ranking[3].endswith(" |  |")
    (tmp_path / "plain.md").write_text("no markers\n")
    assert main(["benchmark", "tables", str(tmp_path), str(tmp_path / "plain.md")]) == 2
    assert "has no <!-- tables:NAME --> sections" in capsys.readouterr().err


@pytest.mark.parametrize("page", ["<!-- tables:x -->\n<!-- /tables:x -->\n"])
def test_a_section_without_results_says_so(page):
    assert fill(page, {}) == "<!-- tables:x -->\n*No results yet.*\n<!-- /tables:x -->\n"
