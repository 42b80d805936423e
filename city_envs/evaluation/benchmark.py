"""The agent benchmark: one agent scored on every task of a suite, aggregated with intervals.

In each task the candidate holds one seat, rotated through every seat, and each of the suite's
line-ups fills the others for the suite's number of matches on the line-up's own seed (arena runs,
logged as they end, so `resume=True` finishes an interrupted benchmark with the same matches).

A match's score for the candidate is its win share normalised to chance,
`(share - 1/n) / (1 - 1/n)`: 1 for a win, 0 for a seat that does no better than chance (or a tie of
two at 2 players), -1/(n-1) for a loss. A line-up's score is the mean over its matches, a task's the
mean over its line-ups, and the aggregate the interquartile mean over tasks, with 95% stratified-
bootstrap intervals (`statistics`). `results.json` keeps every match's win share and score margin,
so anyone can recompute the figures.
"""

from __future__ import annotations

import hashlib
import json
import math
import platform
import time
from collections.abc import Callable, Sequence
from importlib import metadata
from pathlib import Path

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from city_envs.agents.spec import AgentSpec
from city_envs.core.registry import game_class
from city_envs.core.settings import MAX_JSON_BYTES, read_json
from city_envs.evaluation.arena import evaluate, portable_path
from city_envs.evaluation.plots import plot_profiles, plot_tasks
from city_envs.evaluation.ratings import counts, wilson_interval
from city_envs.evaluation.seat import SeatProcess, SeatProcessError
from city_envs.evaluation.statistics import BOOTSTRAP_REPS, BOOTSTRAP_SEED, aggregate, require_statistics
from city_envs.evaluation.suite import Suite, Task
from city_envs.evaluation.workers import Runner

FORMAT = "city-envs-benchmark/1"
SETTINGS = "benchmark.json"  # the run's settings, written first: what --resume must match
RESULTS = "results.json"
RUNS = "runs"  # the match logs, runs/<task>/<line-up>/matches.jsonl: every match's seed and moves
SALT_FILE = "salt.txt"  # a salted result's salt, added to its folder once the run is over (revealed)
SALTED_SEEDS = "SHA-256(salt + ':' + the suite's line-up seed in decimal), first 8 bytes big-endian, >> 1"
SALT_LENGTH = (32, 4096)  # characters of a salt: enough to be unguessable, short enough to read
PACKAGES = ("city-envs", "numpy", "torch", "stable-baselines3", "sb3-contrib", "pettingzoo", "gymnasium", "rliable")


class BenchmarkError(ValueError):
    """A benchmark that cannot start or cannot be read: its message is the command's one line."""


def package_versions() -> dict[str, str]:
    versions = {"python": platform.python_version()}
    for name in PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return versions


def read_salt(path: str | Path) -> bytes:
    """The secret salt in the file `path`: its text without surrounding whitespace, 32 to 4,096
    printable ASCII characters (such as `python -c "import secrets; print(secrets.token_hex(32))"`).
    Anything else is a `BenchmarkError` in one line."""
    path = Path(path)
    try:
        if not path.is_file():
            raise BenchmarkError(f"salt file {path}: not a regular file")
        if path.stat().st_size > 2 * SALT_LENGTH[1]:
            raise BenchmarkError(f"salt file {path}: {path.stat().st_size} bytes, more than a salt takes")
        salt = path.read_bytes().strip()
    except OSError as error:
        raise BenchmarkError(f"salt file {path}: unreadable ({error.strerror})") from None
    if not all(32 < byte < 127 for byte in salt):
        raise BenchmarkError(f"salt file {path}: the salt must be printable ASCII without spaces (such as hex digits)")
    if not SALT_LENGTH[0] <= len(salt) <= SALT_LENGTH[1]:
        raise BenchmarkError(
            f"salt file {path}: a salt of {len(salt)} characters; it takes {SALT_LENGTH[0]} to {SALT_LENGTH[1]}"
        )
    return salt


def salt_digest(salt: bytes) -> str:
    """The SHA-256 (hex) of a salt, which a salted result records before its first match."""
    return hashlib.sha256(salt).hexdigest()


def salted_seed(seed: int, salt: bytes) -> int:
    """A line-up's secret seed: the first 8 bytes of SHA-256(salt + b":" + the suite's seed in decimal),
    as a big-endian integer, shifted right by one bit (below 2**63, as the suite's seeds are)."""
    digest = hashlib.sha256(salt + b":" + str(seed).encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def lineup_seed(suite: Suite, lineup: str, salt: bytes | None = None) -> int:
    """The seed `lineup`'s matches are played on: the suite's, or its salted secret seed."""
    return suite.seed(lineup) if salt is None else salted_seed(suite.seed(lineup), salt)


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _tree_digest(files: Sequence[Path], root: Path) -> str:
    """SHA-256 over files: one line per file, its path relative to `root` and its own SHA-256."""
    lines = [f"{path.relative_to(root).as_posix()} {_sha256(path)}\n" for path in sorted(files)]
    return hashlib.sha256("".join(lines).encode()).hexdigest()


def engine_provenance(tasks: Sequence[Task]) -> dict:
    """Which engine plays each task (`native` or `python`: the game class's `engine`) and digests of
    the engines' code as installed: the native module's file (absent where it is not built) and the
    Python engine's sources (`city_envs/core` and each task's game package)."""
    import city_envs
    from city_envs.core import native

    package = Path(city_envs.__file__).resolve().parent
    games = sorted({task.game for task in tasks})
    sources = [p for folder in ("core", *games) for p in (package / folder).rglob("*.py")]
    built = getattr(native._native, "__file__", None)
    return {
        "version": metadata.version("city-envs"),
        "tasks": {task.name: getattr(game_class(task.game), "engine", "python") for task in tasks},
        "native": None if built is None else {"file": Path(built).name, "sha256": _sha256(Path(built))},
        "python": {"files": len(sources), "sha256": _tree_digest(sources, package)},
    }


def agent_files(spec: str, tasks: Sequence[Task], modules: dict[str, str] | None = None) -> dict[str, dict[str, str]]:
    """The files that decide how `spec` plays, with their SHA-256 and their paths relative to where the
    run started: the policy file a ppo agent or a guided search names, else each task's committed
    baseline, or every module of a `module:Class` agent's own package that its process had loaded
    (`modules`, by name, from `check_agent`). Other built-in bots have none: the package version says
    what they are."""
    agent = AgentSpec.parse(spec)
    if agent.kind == "user":
        package = agent.module.partition(".")[0]
        found = {
            module: Path(path)
            for module, path in sorted((modules or {}).items())
            if (module == package or module.startswith(package + ".")) and Path(path).is_file()
        }
        return {module: {"path": portable_path(path), "sha256": _sha256(path)} for module, path in found.items()}
    if not agent.plays_policy():
        return {}
    if agent.policy is not None:
        return {"policy": {"path": portable_path(Path(agent.policy)), "sha256": _sha256(Path(agent.policy))}}
    files = {}
    for task in tasks:
        path = agent.policy_path(task.game, task.players)
        if path is not None and path.is_file():
            files[task.name] = {"path": path.name, "sha256": _sha256(path)}
    return files


def check_agent(spec: str, tasks: Sequence[Task]) -> dict[str, str]:
    """Build the agent for every task in a process of its own and let it check its seat (a policy
    file's shapes): a spec that cannot play some task stops before any match, naming the task. The
    agent's code never runs in this process. Returns the module files that process loaded, by name."""
    process = SeatProcess()
    modules: dict[str, str] = {}
    try:
        for task in tasks:
            try:
                modules.update(process.check(spec, task.game, task.players))
            except SeatProcessError as error:
                raise BenchmarkError(f"agent {spec!r} cannot play {task.name}: {error}") from None
    finally:
        process.close()
    return modules


def log_files(out: Path) -> list[Path]:
    """The match logs of the result in `out`, in a fixed order."""
    return sorted((out / RUNS).glob("*/*/matches.jsonl"))


def log_bytes(path: Path) -> bytes:
    """A match log's bytes: a regular file (a FIFO named like a log would hang the command) of at most
    `MAX_JSON_BYTES`; anything else is one `BenchmarkError` naming it."""
    if not path.is_file():
        raise BenchmarkError(f"{path} is not a regular file" + ("" if path.exists() else " (it does not exist)"))
    if path.stat().st_size > MAX_JSON_BYTES:
        raise BenchmarkError(f"{path} is larger than {MAX_JSON_BYTES // 2**20} MB: not a log this reads")
    try:
        return path.read_bytes()
    except OSError as error:
        raise BenchmarkError(f"{path}: unreadable ({error.strerror})") from None


def _log_digest(path: Path) -> str:
    """SHA-256 of a match log with its records in match order (they are written as matches end, so the
    order depends on the workers): the same matches give the same digest, whatever `--jobs` was."""
    header, *records = log_bytes(path).split(b"\n")

    def match_number(line: bytes) -> tuple[float, bytes]:
        try:
            return float(json.loads(line)["match"]), line
        except (ValueError, KeyError, TypeError, OverflowError):  # not a record: verify says which line
            return math.inf, line

    return hashlib.sha256(b"\n".join([header, *sorted(records, key=match_number)])).hexdigest()


def logs_digest(out: Path) -> str:
    """SHA-256 over the match logs under `out`: each log's path (relative to `out`) and content digest."""
    lines = [f"{path.relative_to(out).as_posix()} {_log_digest(path)}\n" for path in log_files(out)]
    return hashlib.sha256("".join(lines).encode()).hexdigest()


def candidate_matches(records: Sequence[dict], players: int) -> dict[str, list]:
    """The candidate's win share and score margin (its score less the mean of the other seats') in each
    match; the candidate sits first in the line-up, so the arena's rotation puts it in seat
    `match % players`. A match that failed through no agent's fault counts for nobody (None)."""
    shares: list[float | None] = []
    margins: list[float | None] = []
    for record in records:
        seat = record["match"] % players
        if not counts(record):
            shares.append(None)
            margins.append(None)
            continue
        shares.append(float(record["win_share"][seat]))
        others = [s for i, s in enumerate(record["scores"]) if i != seat]
        margins.append(None if record["failed"] else float(record["scores"][seat] - np.mean(others)))
    return {
        "win_share": shares,
        "margin": margins,
        "failures": sum(bool(r["failed"]) and r.get("culprit") == r["match"] % players for r in records),
    }


def normalised(shares: Sequence[float | None], players: int) -> np.ndarray:
    """Win shares normalised to chance (NaN for matches that count for nobody)."""
    chance = 1.0 / players
    values = np.array([np.nan if s is None else s for s in shares], dtype=float)
    return (values - chance) / (1.0 - chance)


def lineup_summary(matches: dict[str, list], players: int) -> dict:
    shares = [s for s in matches["win_share"] if s is not None]
    margins = [m for m in matches["margin"] if m is not None]
    low, high = wilson_interval(sum(shares), len(shares))
    return {
        "win_rate": sum(shares) / len(shares) if shares else 0.0,
        "ci95": [low, high],
        "mean_margin": float(np.mean(margins)) if margins else 0.0,
        "failures": matches["failures"],
        "score": float(np.nanmean(normalised(matches["win_share"], players))) if shares else 0.0,
    }


def score_array(results: dict) -> np.ndarray:
    """(matches, tasks, line-ups) of normalised match scores, NaN where a task has fewer line-ups."""
    tasks = results["tasks"]
    width = max(len(t["lineups"]) for t in tasks.values())
    rows = results["suite"]["matches"]
    scores = np.full((rows, len(tasks), width), np.nan)
    for column, task in enumerate(tasks.values()):
        for depth, lineup in enumerate(task["lineups"].values()):
            scores[:, column, depth] = normalised(lineup["win_share"], task["players"])
    return scores


def open_run(out: Path, settings: dict, resume: bool) -> None:
    """Start `out` with its settings, or on `resume` check that it holds a run of these very settings."""
    path = out / SETTINGS
    if resume:
        try:
            found = json.loads(path.read_text())
        except (OSError, ValueError):
            raise BenchmarkError(
                f"--resume: {out} holds no benchmark to resume ({SETTINGS} missing or unreadable)"
            ) from None
        if found != settings:
            keys = [k for k in dict.fromkeys([*settings, *found]) if found.get(k) != settings.get(k)]
            differ = ", ".join(f"{k} {found.get(k)!r} (now {settings.get(k)!r})" for k in keys)
            raise BenchmarkError(f"--resume: {out} holds another benchmark: {differ}")
        return
    if path.exists() or (out / RESULTS).exists():
        raise BenchmarkError(f"{out} already holds a benchmark: add --resume to finish it, or choose another --out")
    out.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(settings, indent=2) + "\n")


def evaluate_task(
    spec: str,
    suite: Suite,
    task: Task,
    out: Path | None,
    matches: int | None = None,
    runner: Runner | None = None,
    resume: bool = False,
    say: Callable[[str], None] | None = None,
    salt: bytes | None = None,
) -> dict:
    """`spec` against each of the task's line-ups (arena runs logged under `out/<line-up>/`, none when
    `out` is None): per line-up the win rate with its Wilson interval, mean margin, failures, score and
    every match's figures. `matches` (default: the suite's) takes the first matches of the suite's
    schedule on the same seeds; with `salt`, on the line-ups' secret seeds (`salted_seed`)."""
    lineups = {}
    for lineup in suite.lineups_for(task):
        opponent = suite.opponent_spec(task, lineup)
        seed = lineup_seed(suite, lineup, salt)
        tic = time.time()
        log = None if out is None else out / lineup / "matches.jsonl"
        if resume and log is not None and log.exists():
            check_finished(log, task, [spec] + [opponent] * (task.players - 1), seed)
        result = evaluate(
            task.game,
            task.players,
            [spec] + [opponent] * (task.players - 1),
            matches or suite.matches,
            seed,
            runner,
            log=log,
            resume=resume,
            isolate=True,
        )
        figures = candidate_matches(result["matches"], task.players)
        lineups[lineup] = {
            "opponent": lineup if lineup == "reference" else opponent,
            "seed": seed,
            **lineup_summary(figures, task.players),
            **figures,
        }
        if say is not None:
            s = lineups[lineup]
            say(
                f"{task.name} against {lineup}: win rate {s['win_rate']:.3f} ({s['ci95'][0]:.3f}-"
                f"{s['ci95'][1]:.3f}), margin {s['mean_margin']:+.1f} [{time.time() - tic:.0f} s]"
            )
    return {"game": task.game, "players": task.players, "lineups": lineups}


def check_finished(log: Path, task: Task, lineup: list[str], seed: int) -> None:
    """Refuse, in one line, to resume from a log whose finished matches do not replay as recorded."""
    from city_envs.evaluation.verify import check_records, read_log

    _, records = read_log(log, complete=False)
    differences = check_records(task.game, task.players, lineup, seed, records)
    if differences:
        raise BenchmarkError(
            f"--resume: {log} does not replay as recorded ({len(differences)} differences; first: {differences[0]})"
        )


def task_score(task_result: dict) -> float:
    """A task's score: the mean over its line-ups of their scores."""
    return float(np.mean([s["score"] for s in task_result["lineups"].values()]))


def run_agent_benchmark(
    spec: str,
    suite: Suite,
    out: str | Path,
    runner: Runner | None = None,
    resume: bool = False,
    say: Callable[[str], None] | None = None,
    reps: int = BOOTSTRAP_REPS,
    salt: bytes | None = None,
) -> dict:
    """Score `spec` on every task of `suite`; write `results.json`, `report.md`, the plots and the
    marl-eval export to `out`, and return the results. With `salt` (`read_salt`), the matches are
    played on the line-ups' secret seeds, and the salt's SHA-256 is written to `benchmark.json` before
    the first match."""
    out = Path(out)
    runner = runner or Runner()
    require_statistics()
    modules = check_agent(spec, suite.tasks)
    settings = {"format": FORMAT, "agent": spec, "suite": suite.name}
    if salt is not None:
        settings["salt_sha256"] = salt_digest(salt)
    open_run(out, settings, resume)
    started = time.time()
    tasks = {
        task.name: evaluate_task(
            spec,
            suite,
            task,
            out / RUNS / task.slug,
            runner=runner,
            resume=resume,
            say=say,
            salt=salt,
        )
        for task in suite.tasks
    }
    results = {
        "format": FORMAT,
        "agent": {"spec": spec, "files": agent_files(spec, suite.tasks, modules)},
        "suite": suite.describe(),
        **({} if salt is None else {"salt": {"sha256": salt_digest(salt), "seeds": SALTED_SEEDS}}),
        "versions": package_versions(),
        "engine": engine_provenance(suite.tasks),
        "tasks": tasks,
        "seconds": round(time.time() - started, 1),
        "jobs": runner.jobs,
        "backend": runner.backend,
        "resumed": resume,
        "logs": {"sha256": logs_digest(out), "files": len(log_files(out))},
    }
    add_aggregate(results, reps)
    write_agent_reports(results, out)
    return results


def add_aggregate(results: dict, reps: int = BOOTSTRAP_REPS) -> None:
    """The task scores and their IQM, with stratified-bootstrap 95% intervals, into `results`."""
    summary = aggregate(score_array(results), reps=reps)
    for task, value, ci in zip(results["tasks"].values(), summary["task_scores"], summary["task_ci95"], strict=True):
        task["score"], task["ci95"] = value, ci
    results["aggregate"] = {
        "iqm": summary["iqm"],
        "ci95": summary["iqm_ci95"],
        "bootstrap": {"reps": reps, "seed": BOOTSTRAP_SEED, "method": "percentile, stratified"},
    }


def load_results(path: str | Path) -> dict:
    """A benchmark's `results.json` (a folder or the file), checked to be one: a regular file of finite
    numbers (`read_json`), each figure the readers use of its type and range."""
    path = Path(path)
    file = path / RESULTS if path.is_dir() else path
    try:
        results = read_json(file)
    except ValueError as error:
        raise BenchmarkError(f"{file}: not a readable benchmark result ({error})") from None
    if not isinstance(results, dict) or results.get("format") != FORMAT:
        raise BenchmarkError(f"{file}: not a city-envs benchmark result (format {FORMAT})")
    try:
        _ResultFile.model_validate(results)
    except ValidationError as error:
        first = error.errors()[0]
        raise BenchmarkError(
            f"{file}: not a complete benchmark result: {'.'.join(map(str, first['loc']))}: {first['msg']}"
        ) from None
    return results


class _Checked(BaseModel):
    model_config = ConfigDict(allow_inf_nan=False)


Interval = tuple[float, float]


class _Lineup(_Checked):
    win_share: list[float | None]
    margin: list[float | None]
    win_rate: float = Field(ge=0, le=1)
    ci95: Interval
    mean_margin: float
    failures: int = Field(ge=0)


class _Task(_Checked):
    players: int = Field(ge=2)
    lineups: dict[str, _Lineup] = Field(min_length=1)
    score: float
    ci95: Interval


class _Suite(_Checked):
    suite: str
    version: str
    variant: str
    matches: int = Field(ge=1)
    env_version: int
    tasks: list[str]
    lineups: dict
    references: dict


class _Aggregate(_Checked):
    iqm: float
    ci95: Interval


class _Agent(_Checked):
    spec: str


class _Logs(BaseModel):
    sha256: str
    files: int = Field(ge=1)


class _Salt(BaseModel):
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")


class _ResultFile(_Checked):
    """What the readers of a result (`compare`, `tables`) use of it, checked before they use it."""

    agent: _Agent
    suite: _Suite
    tasks: dict[str, _Task] = Field(min_length=1)
    aggregate: _Aggregate
    seconds: float = Field(ge=0)
    jobs: int | None = Field(default=None, ge=1)  # None: a result written before runs recorded how they ran
    backend: str | None = None
    resumed: bool | None = None
    logs: _Logs | None = None  # None: a legacy result, written before the match logs were kept with it
    salt: _Salt | None = None  # None: played on the suite's public seeds


# ----- reports ------------------------------------------------------------------------------------
def timing(results: dict) -> str:
    """How long the run took and on how many workers; a resumed run's clock holds only its last part."""
    if results.get("jobs") is None:  # written before runs recorded how they ran
        return f"Took {results['seconds']:.0f} s"
    where = f"{results['jobs']} {'job' if results['jobs'] == 1 else 'jobs'} ({results['backend']})"
    if results["resumed"]:
        return f"Resumed: its last part took {results['seconds']:.0f} s on {where}"
    return f"Took {results['seconds']:.0f} s on {where}"


def format_agent_results(results: dict) -> str:
    """The Markdown report: the aggregate, then each task's score and each line-up's figures."""
    agg = results["aggregate"]
    suite = results["suite"]
    lines = [
        f"# {results['agent']['spec']} on suite {suite['suite']}",
        "",
        f"IQM over {len(results['tasks'])} tasks: **{agg['iqm']:.3f}** (95% CI {agg['ci95'][0]:.3f} to "
        f"{agg['ci95'][1]:.3f}; stratified bootstrap, {agg['bootstrap']['reps']} resamples). "
        f"{suite['matches']} matches per line-up; score 1 = wins every match, 0 = chance.",
        "",
        "| task | score (95% CI) | line-up | win rate (95% CI) | mean margin | failures |",
        "|---|---|---|---|---|---|",
    ]
    for name, task in results["tasks"].items():
        first = True
        for lineup, s in task["lineups"].items():
            head = f"{task['score']:.3f} ({task['ci95'][0]:.3f} to {task['ci95'][1]:.3f})" if first else ""
            lines.append(
                f"| {name if first else ''} | {head} | {lineup} | {s['win_rate']:.3f} ({s['ci95'][0]:.3f}-"
                f"{s['ci95'][1]:.3f}) | {s['mean_margin']:+.1f} | {s['failures']} |"
            )
            first = False
    versions = ", ".join(f"{k} {v}" for k, v in results["versions"].items())
    lines += ["", f"Versions: {versions}. {timing(results)}."]
    if results.get("salt"):
        lines.append(f"Played on secret seeds from a salt of SHA-256 {results['salt']['sha256']}.")
    return "\n".join(lines)


def marl_eval_export(results: dict) -> dict:
    """The results in marl-eval's raw-data layout (environment, task, algorithm, run, step): one run
    per line-up, one evaluation at step 0, each match an evaluation episode of `win_share`,
    `normalised_score` and `score_margin`; `absolute_metrics` repeat them, as no larger final
    evaluation exists for a fixed agent."""
    algorithm = results["agent"]["spec"]
    export: dict[str, dict] = {"city_envs": {}}
    for name, task in results["tasks"].items():
        runs = {}
        for i, (_lineup, s) in enumerate(task["lineups"].items()):
            metrics = {
                "win_share": [x for x in s["win_share"] if x is not None],
                "normalised_score": [float(x) for x in normalised(s["win_share"], task["players"]) if not np.isnan(x)],
                "score_margin": [x for x in s["margin"] if x is not None],
            }
            runs[f"run_{i}"] = {"step_0": {"step_count": 0, **metrics}, "absolute_metrics": metrics}
        export["city_envs"][name] = {algorithm: runs}
    return export


def write_agent_reports(results: dict, out: Path) -> None:
    (out / RESULTS).write_text(json.dumps(results, indent=1) + "\n")
    (out / "report.md").write_text(format_agent_results(results) + "\n")
    (out / "marl_eval.json").write_text(json.dumps(marl_eval_export(results)) + "\n")
    named = {results["agent"]["spec"]: results}
    plot_tasks(named, out / "tasks.png")
    reps = results["aggregate"]["bootstrap"]["reps"]  # the bands resample as often as the run's intervals
    plot_profiles({label: score_array(r) for label, r in named.items()}, out / "profile.png", reps=reps)
