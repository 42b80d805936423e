"""Results read from the served folders, as tables of win rates with their 95% intervals: an arena
run (`city-envs evaluate --out`), a ladder (a folder of arena runs, as `lab/ladder.py`
writes) and a benchmark (`city-envs benchmark`'s results.json).

Each results.json is read like every served file (`city_envs.web.replays`): only inside a served
folder, at most `MAX_SMALL_FILE_BYTES`, parsed as JSON data once per version of the file, and only
the few numbers shown are kept. A file that is not what its page expects is a ValueError naming what
is missing; the app answers it with a 400 page.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path

from city_envs.core.registry import GAMES
from city_envs.web.replays import (
    MAX_FOLDERS_WALKED,
    MAX_SMALL_FILE_BYTES,
    Sources,
    cached,
    is_arena_run,
    parse_json,
    read_regular_file,
)

BENCHMARK_FORMAT = "city-envs-benchmark/1"
MAX_ROWS = 200  # rows of one table: agents of a run, tasks and line-ups of a benchmark
MAX_LADDER_RUNS = 100  # arena runs of one ladder folder


@dataclass(frozen=True)
class Rate:
    """A win rate with its 95% interval, and how many matches it comes from (None when not recorded)."""

    rate: float
    low: float
    high: float
    matches: int | None = None

    def __str__(self) -> str:
        return f"{self.rate:.2f} [{self.low:.2f}-{self.high:.2f}]"


@dataclass(frozen=True)
class AgentRow:
    agent: str
    rate: Rate
    mean_score: float | None
    rating: float | None
    failures: int


@dataclass(frozen=True)
class RunTable:
    """An arena run: its game, seats, number of matches and each agent's row."""

    game: str
    num_players: int
    games: int
    lineup: tuple[str, ...]
    rows: tuple[AgentRow, ...]


@dataclass(frozen=True)
class BenchmarkRow:
    task: str
    opponent: str
    rate: Rate
    mean_margin: float | None


@dataclass(frozen=True)
class BenchmarkTable:
    agent: str
    suite: str
    aggregate: Rate | None  # the interquartile mean of the scores over tasks, with its interval
    rows: tuple[BenchmarkRow, ...]


def _number(value: object, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"{what} is not a number")
    return float(value)


def _count(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{what} is not a whole number >= 0")
    return value


def _dict(value: object) -> dict:
    """`value` if it is a table, else an empty one (for fields a page shows only when present)."""
    return value if isinstance(value, dict) else {}


def _optional(value: object, what: str) -> float | None:
    return None if value is None else _number(value, what)


def _rate(rate: object, interval: object, what: str, matches: int | None = None) -> Rate:
    if not isinstance(interval, (list, tuple)) or len(interval) != 2:
        raise ValueError(f"{what} has no 95% interval (two numbers)")
    low, high = (_number(bound, f"{what}'s interval") for bound in interval)
    return Rate(_number(rate, f"{what}'s win rate"), low, high, matches)


def _table(value: object, what: str) -> dict:
    if not isinstance(value, dict):
        raise ValueError(f"{what} is not a table")
    if len(value) > MAX_ROWS:
        raise ValueError(f"{what} has more than {MAX_ROWS} entries, the most a page shows")
    return value


@cached(files=64)
def read_run(path: Path) -> RunTable:
    """An arena run's results.json: each agent's win rate and interval, mean score, rating and failures."""
    data = _table(parse_json(read_regular_file(path, MAX_SMALL_FILE_BYTES), path.name), path.name)
    if data.get("game") not in GAMES:
        raise ValueError(f"{path.name} is not an arena result (no known 'game' field)")
    agents = _table(data.get("agents"), f"{path.name}'s agents")
    ratings = _dict(data.get("ratings"))
    lineup = data.get("lineup")
    if not isinstance(lineup, list) or not all(isinstance(kind, str) for kind in lineup):
        raise ValueError(f"{path.name}'s lineup is not a list of agents")
    rows = []
    for agent, stats in agents.items():
        stats = _table(stats, f"agent {agent!r}")
        rating = _dict(ratings.get(agent))
        rate = _rate(stats.get("win_rate"), [stats.get("ci_low"), stats.get("ci_high")], f"agent {agent!r}")
        rows.append(
            AgentRow(
                str(agent),
                Rate(rate.rate, rate.low, rate.high, _count(stats.get("appearances", 0), "appearances")),
                _optional(stats.get("mean_score"), f"agent {agent!r}'s mean score"),
                _optional(rating.get("mu"), f"agent {agent!r}'s rating"),
                _count(stats.get("failures", 0), f"agent {agent!r}'s failures"),
            )
        )
    rows.sort(key=lambda row: -row.rate.rate)
    players, games = data.get("num_players"), data.get("games")
    return RunTable(
        data["game"],
        _count(players, "num_players"),
        _count(games, "games"),
        tuple(lineup[:MAX_ROWS]),
        tuple(rows),
    )


@cached(files=16)
def read_benchmark(path: Path) -> BenchmarkTable:
    """A benchmark's results.json: per task and opponent line-up, the agent's win rate and interval."""
    data = _table(parse_json(read_regular_file(path, MAX_SMALL_FILE_BYTES), path.name), path.name)
    if data.get("format") != BENCHMARK_FORMAT:
        raise ValueError(f"{path.name} is not a benchmark result (format {BENCHMARK_FORMAT})")
    agent, suite = _dict(data.get("agent")), _dict(data.get("suite"))
    rows = []
    for task, entry in _table(data.get("tasks"), "tasks").items():
        lineups = _table(_table(entry, f"task {task!r}").get("lineups"), f"task {task!r}'s line-ups")
        for opponent, stats in lineups.items():
            stats = _table(stats, f"{task} against {opponent}")
            rate = _rate(stats.get("win_rate"), stats.get("ci95"), f"{task} against {opponent}")
            rows.append(BenchmarkRow(str(task), str(opponent), rate, _optional(stats.get("mean_margin"), "margin")))
    if len(rows) > MAX_ROWS:
        raise ValueError(f"{path.name} has more than {MAX_ROWS} task line-ups, the most a page shows")
    aggregate = data.get("aggregate")
    iqm = (
        _rate(aggregate.get("iqm"), aggregate.get("ci95"), "the aggregate")
        if isinstance(aggregate, dict) and "iqm" in aggregate
        else None
    )
    return BenchmarkTable(str(agent.get("spec", "?")), str(suite.get("suite", "?")), iqm, tuple(rows))


def ladder_runs(sources: Sources, folder: Path) -> list[tuple[str, RunTable]]:
    """The arena runs directly inside `folder` (a ladder's folder), by name, each read as `read_run`;
    a run whose results cannot be read is left out."""
    runs = []
    for child in sorted(folder.iterdir())[: MAX_LADDER_RUNS * 4]:
        if child.name.startswith(".") or not child.is_dir() or not is_arena_run(child):
            continue
        try:
            runs.append((sources.name(child), read_run(sources.resolve(sources.name(child / "results.json")))))
        except (OSError, ValueError):
            continue
        if len(runs) >= MAX_LADDER_RUNS:
            break
    return runs


def ladder_table(runs: list[tuple[str, RunTable]]) -> dict[int, tuple[list[str], dict[str, dict[str, Rate]]]]:
    """By player count: the games (columns) and each agent's win rate in each game (rows)."""
    tables: dict[int, tuple[list[str], dict[str, dict[str, Rate]]]] = {}
    for _, run in runs:
        games, rows = tables.setdefault(run.num_players, ([], {}))
        if run.game not in games:
            games.append(run.game)
        for row in run.rows:
            rows.setdefault(row.agent, {})[run.game] = row.rate
    for games, _ in tables.values():
        games.sort(key=GAMES.index)
    return dict(sorted(tables.items()))


def find_benchmarks(sources: Sources, limit: int = 50) -> list[str]:
    """Served folders holding a benchmark's results (results.json beside benchmark.json), by name."""
    found: list[str] = []
    for root in sources.roots:
        for visited, (folder, subfolders, names) in enumerate(os.walk(root)):
            subfolders[:] = sorted(name for name in subfolders if not name.startswith("."))
            if visited >= MAX_FOLDERS_WALKED or len(found) >= limit:
                break
            if "results.json" in names and "benchmark.json" in names and not is_arena_run(Path(folder)):
                found.append(sources.name(Path(folder)))
    return found


def ladders(run_names: list[str]) -> list[str]:
    """The folders that hold two or more of the listed arena runs directly: ladders, by name."""
    parents = [name.rpartition("/")[0] for name in run_names if "/" in name]
    return sorted({parent for parent in parents if parents.count(parent) >= 2})
