"""Running the agent benchmark: one agent scored on every task of a suite, aggregated with intervals.

In each task the candidate holds one seat, rotated through every seat, and each of the suite's
line-ups fills the others for the suite's number of matches on the line-up's own seed (arena runs,
logged as they end, so `resume=True` finishes an interrupted benchmark with the same matches). The
figures come from `scoring`, the files from `results` and `benchmark_report`; `results.json` keeps
every match's win share and score margin, so anyone can recompute them (`verify`).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from city_envs.evaluation.arena import evaluate
from city_envs.evaluation.benchmark_report import write_agent_reports
from city_envs.evaluation.provenance import agent_files, engine_provenance, package_versions
from city_envs.evaluation.results import FORMAT, RESULTS, RUNS, SETTINGS, BenchmarkError, log_files, logs_digest
from city_envs.evaluation.salt import SALTED_SEEDS, lineup_seed, salt_digest
from city_envs.evaluation.scoring import add_aggregate, candidate_matches, lineup_summary
from city_envs.evaluation.seat import SeatProcess, SeatProcessError
from city_envs.evaluation.statistics import BOOTSTRAP_REPS, require_statistics
from city_envs.evaluation.suite import Suite, Task
from city_envs.evaluation.verify import check_records, read_log
from city_envs.evaluation.workers import Runner


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
    header, records = read_log(log, complete=False)
    digests = header.get("policies") if isinstance(header, dict) else None
    differences = check_records(task.game, task.players, lineup, seed, records, digests)
    if differences:
        raise BenchmarkError(
            f"--resume: {log} does not replay as recorded ({len(differences)} differences; first: {differences[0]})"
        )


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
    return write_agent_reports(results, out)
