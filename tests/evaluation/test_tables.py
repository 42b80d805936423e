"""docs/benchmark.md's reference tables are the committed results' JSON, written by `benchmark tables`."""

from __future__ import annotations

import json
import os
import shutil
import signal
from pathlib import Path

import pytest

from city_envs.cli import main
from city_envs.core.markdown import fill
from city_envs.evaluation import compare as compare_module
from city_envs.evaluation import suite as suite_module
from city_envs.evaluation.benchmark import run_agent_benchmark
from city_envs.evaluation.compare import write_comparison
from city_envs.evaluation.results import BenchmarkError, load_results
from city_envs.evaluation.suite import load_suite
from city_envs.evaluation.tables import all_tables, page_tables

ROOT = Path(__file__).resolve().parents[2]


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
    for page in ("no markers\n", "<!-- tables:protocol-cost -->\nmine\n<!-- /tables:protocol-cost -->\n"):
        (tmp_path / "plain.md").write_text(page)
        assert main(["benchmark", "tables", str(tmp_path), str(tmp_path / "plain.md")]) == 2
        assert "has no benchmark sections to fill" in capsys.readouterr().err
        assert (tmp_path / "plain.md").read_text() == page


def test_the_tables_leave_the_other_sections_of_a_page_as_they_are(tiny_suites, tmp_path):
    """A page that other commands write too (docs/benchmark.md holds the protocol-cost estimate):
    `benchmark tables` writes its own sections and no other."""
    run_agent_benchmark("random", load_suite("tiny"), tmp_path / "agents" / "tiny" / "random", reps=50)
    theirs = "<!-- tables:protocol-cost -->\ntheirs\n<!-- /tables:protocol-cost -->\n"
    doc = tmp_path / "page.md"
    doc.write_text(f"<!-- tables:agents-tiny -->\n<!-- /tables:agents-tiny -->\n{theirs}")
    assert main(["benchmark", "tables", str(tmp_path), str(doc)]) == 0
    assert doc.read_text().endswith(theirs) and "| `random` | " in doc.read_text()


@pytest.mark.parametrize("name", ["agents-v1", "compare-v1-lite", "algorithms-v1-lite-1m", "exploit"])
def test_a_benchmark_section_without_results_says_so(name):
    page = f"<!-- tables:{name} -->\nold\n<!-- /tables:{name} -->\n<!-- tables:speed -->\nx\n<!-- /tables:speed -->\n"
    assert page_tables(page, {}) == {name: "*No results yet.*"}
    assert fill(page, {}) == page  # a section nobody is given stays as it is


HOSTILE = "evil\n<!-- /tables:agents-tiny -->\n| x | `<script>alert(1)</script>`"


@pytest.fixture(scope="module")
def made_results(tmp_path_factory):
    """Results of the heuristic and random on the tiny suite, made once for the module."""
    from city_envs.evaluation import workers
    from tests.conftest import TINY

    root = tmp_path_factory.mktemp("made")
    (root / "suites").mkdir()
    (root / "suites" / "tiny.toml").write_text(TINY)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(suite_module, "SUITES_DIR", root / "suites")
        patch.setattr(workers, "worker_start_method", lambda: "fork")
        for name in ("heuristic", "random"):
            run_agent_benchmark(name, load_suite("tiny"), root / "results" / "agents" / "tiny" / name, reps=50)
    return root / "results"


@pytest.fixture
def two_results(made_results, tmp_path, monkeypatch):
    """A copy of the made results in the folders `benchmark tables` reads: `RESULTS/agents/tiny/<agent>`,
    with their suite findable, so that they verify as they were made."""
    shutil.copytree(made_results, tmp_path / "results")
    monkeypatch.setattr(suite_module, "SUITES_DIR", made_results.parent / "suites")
    return tmp_path / "results" / "agents" / "tiny"


def edit(path: Path, change) -> None:
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


def test_text_from_a_result_is_escaped_in_the_pages_it_writes(two_results, tmp_path, monkeypatch):
    page = "intro\n<!-- tables:agents-tiny -->\n<!-- /tables:agents-tiny -->\nend\n"
    doc = tmp_path / "page.md"
    doc.write_text(page)
    assert main(["benchmark", "tables", str(tmp_path / "results"), str(doc)]) == 0
    clean = doc.read_text()
    edit(two_results / "random" / "results.json", lambda r: r["agent"].update(spec=HOSTILE))
    task = next(iter(json.loads((two_results / "random" / "results.json").read_text())["tasks"]))
    # the command refuses the edited result (its spec is not its logs'), so the escaping, which holds
    # for any spec a result may carry, is checked on the tables written without the replay
    assert main(["benchmark", "tables", str(tmp_path / "results"), str(doc)]) == 2
    assert doc.read_text() == clean
    text = fill(page, all_tables(tmp_path / "results", verify=False))
    assert "<script>" not in text and "evil\n" not in text and text.count("<!-- /tables:agents-tiny -->") == 1
    table = text.split("<!-- tables:agents-tiny -->\n")[1].split("<!-- /tables")[0].splitlines()
    assert len(table) == 4 and len({row.count("|") for row in table}) == 1
    assert "<code>evil&#10;&#60;&#33;" in table[3] and "`heuristic`" in table[2]
    edit(two_results / "random" / "results.json", lambda r: r["agent"].update(spec="random"))
    assert main(["benchmark", "tables", str(tmp_path / "results"), str(doc)]) == 0
    assert doc.read_text() == clean  # a clean rerun leaves nothing behind
    edit(two_results / "random" / "results.json", lambda r: r["agent"].update(spec=HOSTILE))
    with pytest.raises(BenchmarkError, match="does not verify"):
        write_comparison([two_results / "heuristic", two_results / "random"], tmp_path / "cmp", reps=50)
    monkeypatch.setattr(compare_module, "require_verified", load_results)  # the escaping, past the replay
    write_comparison([two_results / "heuristic", two_results / "random"], tmp_path / "cmp", reps=50)
    report = (tmp_path / "cmp" / "comparison.md").read_text()
    assert "<script>" not in report and "evil\n" not in report and f"| {task} |" not in report


def hang(signum, frame):
    raise TimeoutError("the command hangs")


def nested(path: Path) -> None:
    path.write_text("[" * 100_000 + "]" * 100_000)


def set_in(*keys, value):
    def change(data):
        for key in keys[:-1]:
            data = data[next(iter(data)) if key == "*" else key]
        data[keys[-1]] = value

    return change


@pytest.mark.parametrize(
    ("case", "message"),
    [
        ("all_nan_scores", "not a number a result can hold"),
        ("infinite_iqm", "not a number a result can hold"),
        ("negative_failures", "failures"),
        ("short_ci95", "ci95"),
        ("nested", "nests too deeply"),
        ("huge_integer", "out of range"),
        ("fifo", "not a regular file"),
    ],
)
def test_a_bad_result_is_one_line_and_exit_2_in_compare_and_tables(two_results, tmp_path, capsys, case, message):
    path = two_results / "random" / "results.json"
    if case == "all_nan_scores":
        edit(path, lambda r: [task.update(score=float("nan")) for task in r["tasks"].values()])
    elif case == "infinite_iqm":
        edit(path, set_in("aggregate", "iqm", value=float("inf")))
    elif case == "negative_failures":
        edit(path, set_in("tasks", "*", "lineups", "*", "failures", value=-3))
    elif case == "short_ci95":
        edit(path, set_in("aggregate", "ci95", value=[0.1]))
    elif case == "nested":
        nested(path)
    elif case == "huge_integer":
        path.write_text(path.read_text().replace('"iqm": ', '"iqm": ' + "9" * 400 + ', "x": ', 1))
    else:
        path.unlink()
        os.mkfifo(path)
    doc = tmp_path / "page.md"
    doc.write_text("<!-- tables:agents-tiny -->\n<!-- /tables:agents-tiny -->\n")
    previous = signal.signal(signal.SIGALRM, hang)
    signal.alarm(30)  # a FIFO read would block: the alarm ends the test instead of hanging the suite
    try:
        for argv in (
            ["benchmark", "compare", str(two_results / "heuristic"), str(path), "--out", str(tmp_path / "cmp")],
            ["benchmark", "tables", str(tmp_path / "results"), str(doc)],
        ):
            assert main(argv) == 2, argv
            err = capsys.readouterr().err
            assert message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    assert not (tmp_path / "cmp").exists()


def test_a_bad_comparison_or_summary_is_one_line_and_exit_2(tmp_path, capsys):
    doc = tmp_path / "page.md"
    doc.write_text("<!-- tables:compare-tiny -->\n<!-- /tables:compare-tiny -->\n")
    (tmp_path / "compare" / "tiny").mkdir(parents=True)
    (tmp_path / "algorithms" / "tiny" / "ppo").mkdir(parents=True)
    for target, text in [
        (tmp_path / "compare" / "tiny" / "comparison.json", "[" * 100_000 + "]" * 100_000),
        (
            tmp_path / "compare" / "tiny" / "comparison.json",
            '{"suite": "tiny", "order": [], "agents": {}, "probability_of_improvement": [], "x": 1e999}',
        ),
        (tmp_path / "algorithms" / "tiny" / "ppo" / "summary.json", '{"aggregate": {"iqm": ' + "1" * 400 + "}}"),
    ]:
        target.write_text(text)
        assert main(["benchmark", "tables", str(tmp_path), str(doc)]) == 2
        err = capsys.readouterr().err
        assert "nothing written" in err and len(err.strip().splitlines()) == 1, err
        target.unlink()
