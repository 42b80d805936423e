"""The benchmark's reference tables, written from the results' JSON into a Markdown page.

`city-envs benchmark tables RESULTS DOC` reads the agent results (`RESULTS/agents/<suite>/<agent>/
results.json`), their comparisons (`RESULTS/compare/<suite>/comparison.json`), the algorithm
summaries (`RESULTS/algorithms/<suite>/<algorithm>/summary.json`) and the exploit probes
(`RESULTS/exploit/*/exploit.json`), and replaces the text between each pair of markers
`<!-- tables:NAME -->` ... `<!-- /tables:NAME -->` in DOC with the table NAME. It writes only its own
sections (`is_benchmark_section`; one without results says so) and leaves the page's others to the
commands that write them. No figure in those sections is typed by hand, and a test checks that the page
matches its JSON.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from city_envs.core.markdown import NO_RESULTS, cell, code_cell, section_names, write_sections
from city_envs.core.settings import read_document, read_json
from city_envs.evaluation.results import BenchmarkError, load_results
from city_envs.evaluation.verify import require_verified

KINDS = ("agents", "lineups", "timing", "compare", "algorithms")  # the tables written per suite: KIND-SUITE


def _ci(bounds: Sequence[float], signed: bool = False) -> str:
    """An interval as `low to high`, from a results file's (low, high) pair."""
    low, high = bounds
    form = "{:+.3f}" if signed else "{:.3f}"
    return f"{form.format(low)} to {form.format(high)}"


def agent_tables(results_dir: Path, verify: bool = True) -> dict[str, str]:
    """Per suite: each agent's IQM with its interval and task scores, best first. With `verify`, each
    result is replayed first (`verify.require_verified`), and one that does not verify stops it."""
    tables = {}
    read = require_verified if verify else load_results
    for suite_dir in sorted(p for p in (results_dir / "agents").glob("*") if p.is_dir()):
        results = [read(p) for p in sorted(suite_dir.glob("*/results.json"))]
        if not results:
            continue
        results.sort(key=lambda r: -r["aggregate"]["iqm"])
        tasks = list(results[0]["tasks"])
        lines = ["| agent | IQM (95% CI) | " + " | ".join(map(cell, tasks)) + " |", "|---" * (len(tasks) + 2) + "|"]
        for r in results:
            agg = r["aggregate"]
            cells = [f"{r['tasks'][t]['score']:+.2f}" for t in tasks]
            lines.append(
                f"| {code_cell(r['agent']['spec'])} | {agg['iqm']:+.3f} ({_ci(agg['ci95'], signed=True)}) | "
                + " | ".join(cells)
                + " |"
            )
        tables[f"agents-{suite_dir.name}"] = "\n".join(lines)
        detail = ["| agent | task | line-up | win rate (95% CI) | mean margin |", "|---|---|---|---|---|"]
        for r in results:
            for task, t in r["tasks"].items():
                for lineup, s in t["lineups"].items():
                    detail.append(
                        f"| {code_cell(r['agent']['spec'])} | {cell(task)} | {cell(lineup)} | {s['win_rate']:.3f} "
                        f"({_ci(s['ci95'])}) | {s['mean_margin']:+.1f} |"
                    )
        tables[f"lineups-{suite_dir.name}"] = "\n".join(detail)
        clock = ["| agent | workers | wall clock |", "|---|---|---|"]
        for r in results:
            if r.get("jobs") is None:
                clock.append(f"| {code_cell(r['agent']['spec'])} | not recorded | not recorded |")
            else:
                took = f"resumed, last part {r['seconds']:.0f} s" if r["resumed"] else f"{r['seconds']:.0f} s"
                clock.append(f"| {code_cell(r['agent']['spec'])} | {r['jobs']} ({cell(r['backend'])}) | {took} |")
        tables[f"timing-{suite_dir.name}"] = "\n".join(clock)
    return tables


def algorithm_tables(results_dir: Path) -> dict[str, str]:
    """Per suite: each algorithm's IQM over seeds and tasks, its curve, and its failures."""
    tables = {}
    for suite_dir in sorted(p for p in (results_dir / "algorithms").glob("*") if p.is_dir()):
        summaries = [read_json(p) for p in sorted(suite_dir.glob("*/summary.json"))]
        if not summaries:
            continue
        lines = [
            "| algorithm | budget | seeds | IQM of the final policies (95% CI) | IQM at 25 / 50 / 75 / 100% "
            "of the budget | failed runs |",
            "|---|---|---|---|---|---|",
        ]
        for s in summaries:
            agg = s["aggregate"]
            final = "no run finished" if agg is None else f"{agg['iqm']:+.3f} ({_ci(agg['ci95'], signed=True)})"
            curve = " / ".join(f"{p['iqm']:+.2f}" for p in s.get("curve", []))
            lines.append(
                f"| {code_cell(s['algorithm'])} | {s['budget']:,} | {len(s['seeds'])} | {final} | {curve} | "
                f"{len(s['failures'])} |"
            )
        tables[f"algorithms-{suite_dir.name}"] = "\n".join(lines)
    return tables


def exploit_table(results_dir: Path) -> dict[str, str]:
    probes = [read_json(p) for p in sorted((results_dir / "exploit").glob("*/exploit.json"))]
    if not probes:
        return {}
    lines = [
        "| task | target | budget | exploiter at the start (95% CI) | after the budget (95% CI) |",
        "|---|---|---|---|---|",
    ]
    for p in probes:
        start, final = p["curve"][0], p["final"]
        lines.append(
            f"| {cell(p['task'])} | {code_cell(p['target']['spec'])} | {p['budget']:,} | {start['win_rate']:.3f} "
            f"({_ci(start['ci95'])}) | {final['win_rate']:.3f} ({_ci(final['ci95'])}) |"
        )
    return {"exploit": "\n".join(lines)}


def comparison_tables(results_dir: Path) -> dict[str, str]:
    """Per suite: the ranking by maximal lotteries with each task a voter, and the probability of
    improvement of each agent over the next one (`RESULTS/compare/<suite>/comparison.json`)."""
    tables = {}
    for path in sorted((results_dir / "compare").glob("*/comparison.json")):
        comparison = read_json(path)
        lines = [
            "| rank | agent | tier | IQM (95% CI) | P(better than the next agent) (95% CI) |",
            "|---|---|---|---|---|",
        ]
        improvement = {p["x"]: p for p in comparison["probability_of_improvement"]}
        for rank, name in enumerate(comparison["order"], start=1):
            agent = comparison["agents"][name]
            step = improvement.get(name)
            over = (
                "" if step is None else f"{step['probability']:.3f} ({_ci(step['ci95'])}) over {code_cell(step['y'])}"
            )
            lines.append(
                f"| {rank} | {code_cell(name)} | {cell(agent['maximal_lottery']['tier'])} | {agent['iqm']:+.3f} "
                f"({_ci(agent['iqm_ci95'], signed=True)}) | {over} |"
            )
        tables[f"compare-{comparison['suite']}"] = "\n".join(lines)
    return tables


def all_tables(results_dir: str | Path, verify: bool = True) -> dict[str, str]:
    results_dir = Path(results_dir)
    return {
        **agent_tables(results_dir, verify),
        **comparison_tables(results_dir),
        **algorithm_tables(results_dir),
        **exploit_table(results_dir),
    }


def is_benchmark_section(name: str) -> bool:
    """Whether the page section `name` is one of the benchmark's tables: `KIND-SUITE` or `exploit`."""
    kind, _, suite = name.partition("-")
    return name == "exploit" or (kind in KINDS and bool(suite))


def page_tables(text: str, tables: dict[str, str]) -> dict[str, str]:
    """For each benchmark section of the page `text`, its table from `tables`, or `NO_RESULTS` when its
    results are not committed yet; the page's other sections are not included."""
    return {name: tables.get(name, NO_RESULTS) for name in section_names(text) if is_benchmark_section(name)}


def write_tables(results_dir: str | Path, doc: str | Path) -> list[str]:
    """Fill `doc`'s benchmark sections from `results_dir`, leaving its other sections as they are; the
    names of the sections filled."""
    doc = Path(doc)
    text = read_document(doc)
    if not any(map(is_benchmark_section, section_names(text))):
        raise ValueError(
            f"{doc} has no benchmark sections to fill (<!-- tables:NAME --> with NAME "
            f"{', '.join(f'{kind}-SUITE' for kind in KINDS)} or exploit)"
        )
    try:
        tables = all_tables(results_dir)
    except BenchmarkError:
        raise
    except (KeyError, TypeError, IndexError, ValueError, AttributeError, OverflowError) as error:
        raise ValueError(
            f"a result under {results_dir} is incomplete or not JSON ({type(error).__name__}: {error}); nothing written"
        ) from None
    return write_sections(doc, page_tables(text, tables))
