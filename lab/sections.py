"""Every generated section of the repository's pages, written from its committed JSON by one command.

A page's generated sections lie between `<!-- tables:NAME -->` and `<!-- /tables:NAME -->`
(`city_envs.core.markdown`); `PAGES` names, for each page, what writes its sections: the baselines'
tables (their records under `training/baselines/`), the benchmark's reference tables (`benchmarks/`),
each game's observation layout, the speed and throughput tables (`docs/*.json`) and the studies' tables
(`benchmarks/guided/`, `benchmarks/strength/`, `benchmarks/privileged_ab/`, `benchmarks/update_recipe_ab/`,
`benchmarks/attempts.json`, `benchmarks/protocol_cost/`, `benchmarks/dqn_null_check/`). Nothing in them is
typed by hand, and `tests/lab/test_sections.py` checks that every section is what this writes.

    python -m lab.sections            # rewrite every generated section
    python -m lab.sections --check    # list the pages whose sections are not current; exit 1 if any

Both replay every committed benchmark result first (`benchmark verify`: minutes), as `city-envs
benchmark tables` does; the test compares the pages with the JSON alone.

Each source also has its own command, which measures and then writes its sections (`city-envs
benchmark tables`, `city-envs baseline --tables`, `city-envs layout GAME --docs`, `city-envs bench
--all --docs`, `python -m city_envs.training.throughput --doc`, `python -m lab.<study> --doc`).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path

from city_envs.core.markdown import NO_RESULTS, fill, section_names
from city_envs.core.registry import GAMES, game_class
from city_envs.core.settings import read_document

ROOT = Path(__file__).resolve().parent.parent

Tables = Callable[[Path, bool], dict[str, str]]  # (page, verify the benchmark results) -> sections by name


def baselines(page: Path, verify: bool) -> dict[str, str]:
    from city_envs.training.baseline_tables import baseline_tables

    return baseline_tables()


def benchmark(page: Path, verify: bool) -> dict[str, str]:
    """The page's benchmark sections (`evaluation/tables.py`), each result replayed first with `verify`; a
    section without results says so."""
    from city_envs.evaluation.tables import all_tables, page_tables

    return page_tables(read_document(page), all_tables(ROOT / "benchmarks", verify))


def observation(game: str) -> Tables:
    return lambda page, verify: {"observation": game_class(game).observation_layout().markdown_table()}


def speed(page: Path, verify: bool) -> dict[str, str]:
    from city_envs import bench

    return {bench.SECTION: bench.doc_section(json.loads((ROOT / "docs" / "speed.json").read_text()))}


def throughput(page: Path, verify: bool) -> dict[str, str]:
    from city_envs.training import throughput as measured

    sources = sorted((ROOT / "docs").glob("throughput_*.json"))
    return {measured.section_name(s): measured.doc_section(json.loads(s.read_text()), s) for s in sources}


def guided(page: Path, verify: bool) -> dict[str, str]:
    from lab import guided_search

    sources = {guided_search.SECTION: "results.json", guided_search.HEAD_TO_HEAD: "head_to_head.json"}
    tables = {}
    for section, name in sources.items():
        source = ROOT / "benchmarks" / "guided" / name
        tables[section] = guided_search.doc_section(guided_search.load_results(source), source, page, section)
    return tables


def strength(page: Path, verify: bool) -> dict[str, str]:
    from lab import strength as goal

    source = ROOT / "benchmarks" / "strength" / "results.json"
    if not source.is_file():
        return {goal.SECTION: NO_RESULTS}
    return {goal.SECTION: goal.doc_section(goal.load_results(source), source, page)}


def privileged_ab(page: Path, verify: bool) -> dict[str, str]:
    from lab import privileged_ab as study

    source = ROOT / "benchmarks" / "privileged_ab" / "summary.json"
    return {study.SECTION: study.doc_section(study.load_summary(source), source, page)}


def update_recipe_ab(page: Path, verify: bool) -> dict[str, str]:
    from lab import update_recipe_ab as study

    source = ROOT / "benchmarks" / "update_recipe_ab" / "summary.json"
    return {study.SECTION: study.doc_section(study.load_summary(source), source, page)}


def protocol_cost(page: Path, verify: bool) -> dict[str, str]:
    from lab import protocol_cost as cost

    estimates = cost.load_estimates(ROOT / "benchmarks" / "protocol_cost")
    return {cost.SECTION: cost.doc_section(estimates) if estimates else NO_RESULTS}


def dqn_null_check(page: Path, verify: bool) -> dict[str, str]:
    from lab import dqn_null_check as study

    source = ROOT / "benchmarks" / "dqn_null_check" / "results.json"
    if not source.is_file():
        return {study.SECTION: NO_RESULTS}
    return {study.SECTION: study.doc_section(study.load_results(source), source, page)}


def attempts(page: Path, verify: bool) -> dict[str, str]:
    from lab import attempts as ledger

    source = ROOT / "benchmarks" / "attempts.json"
    return {ledger.SECTION: ledger.doc_section(ledger.load_ledger(source), source, page)}


PAGES: dict[str, tuple[Tables, ...]] = {
    "README.md": (baselines,),
    "docs/benchmark.md": (benchmark, protocol_cost, dqn_null_check),
    "docs/leaderboard.md": (guided, strength),
    "docs/speed.md": (speed,),
    "docs/training.md": (baselines, privileged_ab, update_recipe_ab, attempts, throughput),
    **{f"docs/games/{game}.md": (observation(game),) for game in GAMES},
}


def page_sections(page: str, verify: bool = True) -> tuple[str, str]:
    """(the page's text now, the page with every generated section written); one ValueError naming a
    section that nothing here writes."""
    path = ROOT / page
    text = read_document(path)
    tables: dict[str, str] = {}
    for source in PAGES[page]:
        tables.update(source(path, verify))
    unknown = [name for name in section_names(text) if name not in tables]
    if unknown:
        raise ValueError(f"{page}: nothing writes the sections {unknown}")
    return text, fill(text, tables)


def pages_with_sections() -> list[str]:
    """Every Markdown page of the repository (README.md and docs/) that holds a generated section."""
    found = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    return [p.relative_to(ROOT).as_posix() for p in found if p.is_file() and section_names(read_document(p))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="write nothing: list the sections that are not current")
    args = parser.parse_args(argv)
    stale = []
    try:
        strays = sorted(set(pages_with_sections()) - set(PAGES))
        if strays:
            raise ValueError(f"nothing writes the generated sections of {', '.join(strays)}")
        for page in PAGES:
            now, written = page_sections(page)
            if now == written:
                continue
            stale.append(page)
            if not args.check:
                (ROOT / page).write_text(written)
    except ValueError as error:
        print(f"lab.sections: {error}", file=sys.stderr)
        return 2
    for page in stale:
        print(f"{page}: {'not current' if args.check else 'rewritten'}")
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    sys.exit(main())
