"""The algorithm benchmark: a training algorithm run on every task of a suite for K seeds, its
checkpoints scored at fixed points of an environment-step budget, and its final policies scored on
the suite's full matches (the "absolute" evaluation, ten times the matches of a curve point).

An algorithm is a plug-in: a function from a `TrainRequest` (task, seed, budget, output folder, the
steps to checkpoint at) to one `(step, agent spec)` pair per checkpoint asked, in order, the step being
where it actually stopped (a trainer may stop at its next rollout boundary), the last the final policy.
Built in (`ALGORITHMS`): `ppo_scratch` (this project's MaskablePPO self-play, no warm start),
`warm_start_ppo` (a small warm start from the heuristic, then the same PPO) and `tianshou_dqn`
(Tianshou's masked DQN against random seats). Any other is `module:function`.

Layout of `out/<algorithm>/`: `benchmark.json` (the settings), `<task>_<n>p/seed_<k>/` (the plug-in's
folder, `train/`, its evaluations under `eval/`, and `record.json` once the seed is done or failed),
then `summary.json`, `report.md`, `curves.png`, `profile.png` and `marl_eval.json`. A seed whose
plug-in raises, or returns no checkpoints, is recorded as failed and the run goes on.
"""

from __future__ import annotations

import importlib
import json
import math
import os
import shutil
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from city_envs.core.files import write_text_whole
from city_envs.evaluation.benchmark import check_agent, evaluate_task, open_run
from city_envs.evaluation.plots import plot_profiles
from city_envs.evaluation.provenance import package_versions
from city_envs.evaluation.results import BenchmarkError
from city_envs.evaluation.scoring import task_score
from city_envs.evaluation.statistics import (
    BOOTSTRAP_REPS,
    BOOTSTRAP_SEED,
    aggregate,
    interval,
    iqm_over_runs,
    require_statistics,
)
from city_envs.evaluation.suite import Suite, Task, load_suite
from city_envs.evaluation.workers import Runner

FORMAT = "city-envs-algorithm-benchmark/1"
CHECKPOINT_FRACTIONS = (0.25, 0.5, 0.75, 1.0)
CURVE_SHARE = 10  # a curve point plays 1/10 of the suite's matches; the absolute evaluation all of them
CLOCK_EVERY = 30.0  # seconds between two saves of a seed's clock: what a killed run can lose of its count


@dataclass(frozen=True)
class TrainRequest:
    """What a plug-in is asked: train on `task` with `seed` for `budget` of the learner's environment
    steps (its own decisions) in `out`, keeping a policy at each of `checkpoints` (the last is `budget`)."""

    task: Task
    seed: int
    budget: int
    out: Path
    checkpoints: tuple[int, ...]


Algorithm = Callable[[TrainRequest], Sequence[tuple[int, str]]]


# ----- the built-in algorithms --------------------------------------------------------------------
def segmented_ppo(request: TrainRequest, pool: Any = None, **settings: Any) -> list[tuple[int, str]]:
    """This project's trainer (`selfplay.train`), stopped at each checkpoint and resumed from its own
    checkpoint to the next: the same run as one uninterrupted one (the trainer resumes bit-exactly),
    with a policy file kept at each stop. PPO stops at the first rollout boundary past a target, so a
    checkpoint's step is that boundary (at most one rollout, 4,096 steps, later). The trainer checkpoints at
    every rollout here, so a resumed segment repeats one rollout at most."""
    from city_envs.training.config import load_config
    from city_envs.training.selfplay import train

    run = request.out / "train"
    kept = request.out / "checkpoints"
    kept.mkdir(parents=True, exist_ok=True)
    defaults = load_config(request.task.game, None, players=request.task.players)
    settings = {**fit_rollout(request.checkpoints, defaults.n_envs, defaults.n_steps, defaults.batch_size), **settings}
    specs: list[tuple[int, str]] = []
    for target in request.checkpoints:
        marker = kept / f"target_{target}.json"
        if marker.is_file():
            step, path = json.loads(marker.read_text())
        else:
            config = load_config(
                request.task.game,
                None,
                players=request.task.players,
                seed=request.seed,
                timesteps=target,
                eval_games=0,
                final_eval_games=0,
                select_best=False,
                checkpoint_every=1,
                **settings,
            )
            summary = train(config, run, resume=(run / "config.toml").is_file(), log=lambda text: None, pool=pool)
            step = int(summary.get("timesteps", 0))
            path = str(kept / f"step_{step:09d}.safetensors")
            shutil.copyfile(run / "model.safetensors", path)
            marker.write_text(json.dumps([step, path]))
        specs.append((step, f"ppo:{path}"))
    return specs


def fit_rollout(checkpoints: Sequence[int], n_envs: int, n_steps: int, batch_size: int) -> dict[str, int]:
    """PPO settings whose rollout (`n_envs * n_steps` learner steps) ends on every checkpoint, when the
    game's own rollout is longer than the checkpoints' spacing (a small budget: 2,048 steps would
    otherwise train one 4,096-step rollout and stop there at every checkpoint); {} when it is not."""
    spacing = math.gcd(*checkpoints)
    if n_envs * n_steps <= checkpoints[0]:
        return {}
    envs = math.gcd(spacing, n_envs)
    steps = spacing // envs
    return {"n_envs": envs, "n_steps": steps, "batch_size": min(batch_size, envs * steps)}


def ppo_scratch(request: TrainRequest) -> list[tuple[int, str]]:
    """MaskablePPO self-play from random weights, with the game's default settings and opponent pool
    (`training/configs/<game>.toml`): no warm start."""
    return segmented_ppo(request, pretrain=False)


WARM_START = {"bc_matches": 300, "dagger_rounds": 1, "dagger_matches": 200, "pretrain_epochs": 10}


def warm_start_ppo(request: TrainRequest) -> list[tuple[int, str]]:
    """The project's recipe at one small size for every game: clone the heuristic from 300 matches, one
    DAgger round of 200 (`WARM_START`; the teacher's matches are not counted in the budget), then the
    same MaskablePPO self-play as `ppo_scratch`."""
    return segmented_ppo(request, pretrain=True, **WARM_START)


def tianshou_dqn(request: TrainRequest) -> list[tuple[int, str]]:
    """Tianshou's masked DQN for one seat (drawn per match) while the others play masked random moves
    inside the env (`city_envs.integrations.tianshou.train_dqn`); the budget counts the learner's moves.
    A seed whose every network an earlier sitting saved (stopped while scoring) is not trained again."""
    from city_envs.integrations.tianshou import saved_networks, train_dqn

    task, steps, folder = request.task, list(request.checkpoints), request.out / "train"
    paths = saved_networks(task.game, task.players, steps, folder) or train_dqn(
        task.game, task.players, request.seed, steps, folder
    )
    return [
        (target, f"city_envs.integrations.tianshou:QNetworkAgent:path={path}")
        for target, path in zip(request.checkpoints, paths, strict=True)
    ]


ALGORITHMS: dict[str, Algorithm] = {
    "ppo_scratch": ppo_scratch,
    "warm_start_ppo": warm_start_ppo,
    "tianshou_dqn": tianshou_dqn,
}


def load_algorithm(name: str) -> Algorithm:
    """A built-in algorithm by name, or `module:function` (the module importable, as for agents)."""
    if name in ALGORITHMS:
        return ALGORITHMS[name]
    module_name, sep, function_name = name.partition(":")
    if not sep or not function_name.isidentifier():
        raise BenchmarkError(f"unknown algorithm {name!r}; built in: {', '.join(ALGORITHMS)}, or module:function")
    if str(Path.cwd()) not in sys.path and "" not in sys.path:
        sys.path.append(str(Path.cwd()))
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        raise BenchmarkError(f"algorithm {name!r}: cannot import module {module_name!r} ({error})") from None
    function = getattr(module, function_name, None)
    if not callable(function):
        raise BenchmarkError(f"algorithm {name!r}: module {module_name!r} has no function {function_name!r}")
    return function


def checkpoint_steps(budget: int) -> tuple[int, ...]:
    return tuple(max(1, round(budget * fraction)) for fraction in CHECKPOINT_FRACTIONS)


# ----- one (task, seed) ---------------------------------------------------------------------------
def cpu_seconds() -> float:
    """CPU seconds (user and system) of this process and of its child processes that have ended: a
    training run's cost whatever else the machine runs beside it. (Scoring's matches are played by worker
    processes that are not this process's children, so scoring is timed by the wall clock only.)"""
    times = os.times()
    return times.user + times.system + times.children_user + times.children_system


class SeedClock:
    """The seconds a (task, seed) has spent, summed over the sittings it took: wall and CPU seconds of
    training, wall seconds of scoring. Kept in `clock.json` in the seed's folder, saved when it opens, every
    `CLOCK_EVERY` seconds while a phase runs and when the phase ends, so that a run killed between two
    sittings loses at most that much of its count. `complete` is False when the folder held an earlier
    sitting's files but no readable clock (a run from before the clock): the sums then miss that sitting."""

    FIELDS = ("train_seconds", "train_cpu_seconds", "score_seconds")

    def __init__(self, folder: Path) -> None:
        self.file = folder / "clock.json"
        self.resumed = any(folder.iterdir())
        saved = self._read()
        # a clock started after an earlier sitting without one stays incomplete in every later sitting
        self.complete = saved["complete"] if saved is not None else not self.resumed
        self.sittings = (saved or {}).get("sittings", 0) + 1
        self.totals = {field: (saved or {}).get(field, 0.0) for field in self.FIELDS}
        self._save()

    def _read(self) -> dict | None:
        """The saved clock, or None if there is none or it is not one (a clock edited by hand is ignored)."""
        try:
            saved = json.loads(self.file.read_text())
        except (OSError, ValueError):
            return None
        if not isinstance(saved, dict) or not isinstance(saved.get("complete"), bool):
            return None
        sittings, counts = saved.get("sittings"), [saved.get(field) for field in self.FIELDS]
        seconds = all(isinstance(v, (int, float)) and not isinstance(v, bool) and 0 <= v < math.inf for v in counts)
        return saved if type(sittings) is int and sittings >= 1 and seconds else None

    def _save(self) -> None:
        clock = {"sittings": self.sittings, "complete": self.complete, **self.totals}
        write_text_whole(self.file, json.dumps(clock) + "\n")  # a kill mid-write leaves the previous clock

    @contextmanager
    def phase(self, name: str) -> Iterator[None]:
        """Count the block's seconds as `name`'s ("train" also counts CPU seconds), saving as it runs."""
        start = dict(self.totals)
        wall, cpu = time.monotonic(), cpu_seconds()
        done = threading.Event()

        def update() -> None:
            self.totals[f"{name}_seconds"] = start[f"{name}_seconds"] + time.monotonic() - wall
            if name == "train":
                self.totals["train_cpu_seconds"] = start["train_cpu_seconds"] + cpu_seconds() - cpu
            self._save()

        def tick() -> None:
            while not done.wait(CLOCK_EVERY):
                update()

        ticker = threading.Thread(target=tick, name="seed-clock", daemon=True)
        ticker.start()
        try:
            yield
        finally:
            done.set()
            ticker.join()
            update()

    def record_fields(self) -> dict[str, Any]:
        """The sums for a record, with `sittings` only when they cover every sitting."""
        fields: dict[str, Any] = {field: round(value, 1) for field, value in self.totals.items()}
        if self.complete:
            fields["sittings"] = self.sittings
        return fields


def _checked_specs(returned: Any, request: TrainRequest) -> list[tuple[int, str]]:
    """The plug-in's answer as (step, spec) pairs, one per checkpoint asked, or why it is not that."""
    if isinstance(returned, (str, bytes, Mapping)) or not isinstance(returned, Sequence) or not returned:
        raise BenchmarkError(
            f"the algorithm returned {type(returned).__name__} {returned!r:.80}, not a list of "
            "(step, agent spec), one per checkpoint"
        )
    pairs = list(returned)
    if len(pairs) != len(request.checkpoints):
        raise BenchmarkError(
            f"the algorithm returned {len(pairs)} checkpoints for the {len(request.checkpoints)} "
            f"asked ({', '.join(map(str, request.checkpoints))})"
        )
    if any(not isinstance(pair, (tuple, list)) or len(pair) != 2 for pair in pairs):
        raise BenchmarkError("every checkpoint must be a (step, agent spec) pair")
    steps = [step for step, _ in pairs]
    if any(not isinstance(s, int) or isinstance(s, bool) or s < 0 for s in steps) or steps != sorted(steps):
        raise BenchmarkError(f"checkpoint steps must be whole numbers >= 0 in order, not {steps}")
    if any(not isinstance(spec, str) or not spec for _, spec in pairs):
        raise BenchmarkError("every checkpoint needs an agent spec (text)")
    return [(int(step), spec) for step, spec in pairs]


def run_seed(
    algorithm: Algorithm,
    suite: Suite,
    task: Task,
    seed: int,
    budget: int,
    out: Path,
    runner: Runner | None = None,
    say: Callable[[str], None] | None = None,
) -> dict:
    """Train one seed of `task` and score its checkpoints (their matches played by `runner`); its
    `record.json` makes a rerun skip it. The record's seconds are summed over the seed's sittings
    (`SeedClock`)."""
    out.mkdir(parents=True, exist_ok=True)
    record_file = out / "record.json"
    if record_file.is_file():
        try:
            return json.loads(record_file.read_text())
        except ValueError:  # a record cut short (the run was killed while writing it): do the seed again
            record_file.unlink()
    request = TrainRequest(task, seed, budget, out, checkpoint_steps(budget))
    record: dict[str, Any] = {"task": task.name, "seed": seed, "budget": budget, "asked": list(request.checkpoints)}
    clock = SeedClock(out)  # an earlier sitting's files: the plug-in resumes from them
    record["resumed"] = clock.resumed
    try:
        with clock.phase("train"):
            specs = _checked_specs(algorithm(request), request)
            for spec in dict.fromkeys(spec for _, spec in specs):
                check_agent(spec, [task])
    except Exception as error:  # noqa: BLE001 - a plug-in's failure is recorded for its seed; the run goes on
        record.update(
            status="failed",
            error=f"{type(error).__name__}: {error}",
            traceback=traceback.format_exc(limit=-3),
            **clock.record_fields(),
        )
        record_file.write_text(json.dumps(record, indent=1) + "\n")
        if say is not None:
            say(f"{task.name} seed {seed}: FAILED: {record['error']}")
        return record
    record["checkpoints"] = [{"step": step, "spec": spec} for step, spec in specs]
    curve_matches = max(task.players, suite.matches // CURVE_SHARE)

    def evaluate(spec: str, folder: str, matches: int | None = None) -> dict:
        return evaluate_task(
            spec,
            suite,
            task,
            out / "eval" / folder,
            matches=matches,
            runner=runner,
            resume=True,
        )

    with clock.phase("score"):
        for point in record["checkpoints"]:
            result = evaluate(point["spec"], f"step_{point['step']}", matches=curve_matches)
            point.update(score=task_score(result), matches=curve_matches)
        final = record["checkpoints"][-1]
        absolute = evaluate(final["spec"], "absolute")
    record.update(
        status="ok",
        absolute={"score": task_score(absolute), "matches": suite.matches, "lineups": absolute["lineups"]},
        seconds=round(clock.totals["train_seconds"] + clock.totals["score_seconds"], 1),
        **clock.record_fields(),
    )
    record_file.write_text(json.dumps(record, indent=1) + "\n")
    if say is not None:
        say(
            f"{task.name} seed {seed}: final score {record['absolute']['score']:+.3f} (curve "
            + ", ".join(f"{p['step']:,}: {p['score']:+.2f}" for p in record["checkpoints"])
            + f") [{record['seconds']:.0f} s]"
        )
    return record


# ----- the whole benchmark ------------------------------------------------------------------------
def _run_seed_remote(*args: Any) -> dict:
    """`run_seed` as one Ray task (the algorithm is named, so that the task can import it)."""
    name, *rest = args
    return run_seed(load_algorithm(name), *rest)


def run_algorithm_benchmark(
    name: str,
    suite: Suite,
    budget: int,
    seeds: Sequence[int],
    out: str | Path,
    runner: Runner | None = None,
    resume: bool = False,
    say: Callable[[str], None] | None = None,
    reps: int = BOOTSTRAP_REPS,
) -> dict:
    """Every (task, seed) of `suite` trained by algorithm `name` and scored; the summary with IQM over
    seeds and tasks and its interval, the curves and the failures. With a Ray `runner`, each (task, seed)
    is a Ray task on the cluster at its `address` (its matches played in that task's process)."""
    runner = runner or Runner()
    require_statistics()
    algorithm = load_algorithm(name)
    if budget < 1:
        raise BenchmarkError(f"the budget must be at least 1 environment step, not {budget}")
    if not seeds or len(set(seeds)) != len(seeds) or min(seeds) < 0:
        raise BenchmarkError(f"seeds must be distinct whole numbers >= 0, not {list(seeds)}")
    out = Path(out) / name.replace(":", "_").replace("/", "_")
    open_run(
        out, {"format": FORMAT, "algorithm": name, "suite": suite.name, "budget": budget, "seeds": list(seeds)}, resume
    )
    units = [(task, seed) for task in suite.tasks for seed in seeds]
    started = time.time()
    if runner.backend == "ray":
        import ray

        if not ray.is_initialized():
            ray.init(
                address=runner.address,
                num_cpus=None if runner.address else max(1, runner.jobs),
                include_dashboard=False,
                log_to_driver=False,
            )
        remote = ray.remote(num_cpus=1)(_run_seed_remote)
        refs = [
            remote.remote(
                name,
                suite,
                task,
                seed,
                budget,
                out / task.slug / f"seed_{seed}",
                Runner(match_timeout=runner.match_timeout),
            )
            for task, seed in units
        ]
        records = ray.get(refs)
    else:
        records = [
            run_seed(
                algorithm,
                suite,
                task,
                seed,
                budget,
                out / task.slug / f"seed_{seed}",
                runner,
                say=say,
            )
            for task, seed in units
        ]
    summary = summarize_algorithm(name, suite, budget, list(seeds), records, reps)
    summary["seconds"] = round(time.time() - started, 1)
    write_algorithm_reports(summary, out, reps)
    return summary


def summarize_algorithm(
    name: str, suite: Suite, budget: int, seeds: list[int], records: list[dict], reps: int = BOOTSTRAP_REPS
) -> dict:
    """Scores as (seeds x tasks): the final policies' absolute scores, and one such array per checkpoint
    fraction; IQM with stratified-bootstrap intervals (a failed seed is left out of its task; a task
    with no finished seed, out of the aggregate)."""
    tasks = [t.name for t in suite.tasks]
    by_unit = {(r["task"], r["seed"]): r for r in records}
    finished = [t for t in tasks if any(by_unit[(t, s)]["status"] == "ok" for s in seeds)]
    failures = [{"task": r["task"], "seed": r["seed"], "error": r["error"]} for r in records if r["status"] != "ok"]
    summary: dict[str, Any] = {
        "format": FORMAT,
        "algorithm": name,
        "budget": budget,
        "seeds": seeds,
        "suite": suite.describe(),
        "versions": package_versions(),
        "curve_matches_share": 1 / CURVE_SHARE,
        "failures": failures,
        "runs": records,
    }
    if not finished:
        summary["aggregate"] = None
        return summary

    def array(pick: Callable[[dict], float]) -> np.ndarray:
        return np.array(
            [[pick(by_unit[(t, s)]) if by_unit[(t, s)]["status"] == "ok" else np.nan for t in finished] for s in seeds]
        )

    final = array(lambda r: r["absolute"]["score"])
    complete = final[~np.isnan(final).any(axis=1)]  # rliable's bootstrap needs every task of a row
    result = aggregate(complete, over_runs=True, reps=reps) if len(complete) else None
    summary["tasks"] = finished
    summary["scores"] = final.tolist()
    summary["aggregate"] = (
        None
        if result is None
        else {
            "iqm": result["iqm"],
            "ci95": result["iqm_ci95"],
            "seeds_used": len(complete),
            "task_scores": dict(zip(finished, result["task_scores"], strict=True)),
            "task_ci95": dict(zip(finished, result["task_ci95"], strict=True)),
            "bootstrap": {"reps": reps, "seed": BOOTSTRAP_SEED, "method": "percentile, stratified over seeds"},
        }
    )
    curve = []
    for index, fraction in enumerate(CHECKPOINT_FRACTIONS):

        def checkpoint_score(record: dict, i: int = index) -> float:
            return record["checkpoints"][i]["score"]

        scores = array(checkpoint_score)
        rows = scores[~np.isnan(scores).any(axis=1)]
        if not len(rows):
            continue
        point, low, high = interval(rows, lambda x: np.array([iqm_over_runs(x)]), reps=reps)
        curve.append(
            {
                "fraction": fraction,
                "step": round(budget * fraction),
                "iqm": float(point[0]),
                "ci95": [float(low[0]), float(high[0])],
                "scores": scores.tolist(),
            }
        )
    summary["curve"] = curve
    return summary


def _ci(bounds: Sequence[float], seeds: int, form: str, label: str = "") -> str:
    """A bootstrap interval over seeds as text; with one seed there is nothing to resample, so no interval."""
    if seeds < 2:
        return "no interval from one seed"
    return f"{label}{bounds[0]:{form}} to {bounds[1]:{form}}"


def _finished(scores: Sequence[Sequence[float]]) -> int:
    """The seeds (rows) of a curve point's scores that finished every task (no NaN)."""
    return int((~np.isnan(np.array(scores, dtype=float)).any(axis=1)).sum())


def format_algorithm_summary(summary: dict) -> str:
    suite = summary["suite"]
    lines = [
        f"# {summary['algorithm']} on suite {suite['suite']}",
        "",
        f"Budget {summary['budget']:,} environment steps per run, seeds {summary['seeds']}; "
        f"curve points on {summary['curve_matches_share']:.0%} of the suite's matches, the final policy on "
        f"all {suite['matches']} per line-up.",
    ]
    agg = summary["aggregate"]
    if agg is None:
        lines += ["", "No run finished."]
    else:
        lines += [
            "",
            f"IQM over seeds and tasks: **{agg['iqm']:.3f}** ({_ci(agg['ci95'], agg['seeds_used'], '.3f', '95% CI ')}; "
            f"{agg['seeds_used']} seeds with every task).",
            "",
            "| task | score (95% CI) | per seed |",
            "|---|---|---|",
        ]
        for i, task in enumerate(summary["tasks"]):
            per_seed = ", ".join("failed" if np.isnan(row[i]) else f"{row[i]:+.3f}" for row in summary["scores"])
            task_ci = _ci(agg["task_ci95"][task], agg["seeds_used"], "+.3f")
            lines.append(f"| {task} | {agg['task_scores'][task]:+.3f} ({task_ci}) | {per_seed} |")
        lines += ["", "| budget share | step | IQM (95% CI) |", "|---|---|---|"]
        for p in summary["curve"]:
            point_ci = _ci(p["ci95"], _finished(p["scores"]), "+.3f")
            lines.append(f"| {p['fraction']:.0%} | {p['step']:,} | {p['iqm']:+.3f} ({point_ci}) |")
    if summary["failures"]:
        lines += ["", "Failed runs:", ""] + [
            f"- {f['task']} seed {f['seed']}: {f['error']}" for f in summary["failures"]
        ]
    return "\n".join(lines)


def marl_eval_export(summary: dict) -> dict:
    """marl-eval's raw-data layout: per task, run (seed) and checkpoint the `normalised_score` of each
    match slot of the curve evaluation, and `absolute_metrics` from the final evaluation."""
    export: dict[str, dict] = {"city_envs": {}}
    for record in summary["runs"]:
        if record["status"] != "ok":
            continue
        run: dict[str, Any] = {}
        for i, point in enumerate(record["checkpoints"]):
            run[f"step_{i}"] = {"step_count": point["step"], "normalised_score": [point["score"]]}
        lineups = record["absolute"]["lineups"]
        run["absolute_metrics"] = {
            "normalised_score": [s["score"] for s in lineups.values()],
            "win_rate": [s["win_rate"] for s in lineups.values()],
        }
        export["city_envs"].setdefault(record["task"], {}).setdefault(summary["algorithm"], {})[
            f"run_{record['seed']}"
        ] = run
    return export


def write_algorithm_reports(summary: dict, out: Path, reps: int = BOOTSTRAP_REPS) -> None:
    (out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    (out / "report.md").write_text(format_algorithm_summary(summary) + "\n")
    (out / "marl_eval.json").write_text(json.dumps(marl_eval_export(summary)) + "\n")
    if summary["aggregate"] is None:
        return
    plot_curve(summary, out / "curves.png")
    final = np.array(summary["scores"])
    final = final[~np.isnan(final).any(axis=1)]
    plot_profiles({summary["algorithm"]: final}, out / "profile.png", over_runs=True, reps=reps)


def plot_curve(summary: dict, path: Path) -> None:
    """IQM over seeds and tasks at each checkpoint, with its 95% band."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6, 4), dpi=100)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    steps = [p["step"] for p in summary["curve"]]
    line = ax.plot(steps, [p["iqm"] for p in summary["curve"]], marker="o", label=summary["algorithm"])[0]
    ax.fill_between(
        steps,
        [p["ci95"][0] for p in summary["curve"]],
        [p["ci95"][1] for p in summary["curve"]],
        color=line.get_color(),
        alpha=0.2,
    )
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_xlabel("environment steps")
    ax.set_ylabel("IQM task score (0 = chance)")
    ax.set_title(f"suite {summary['suite']['suite']}: {len(summary['seeds'])} seeds, 95% CI")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)


# ----- command line -------------------------------------------------------------------------------
def seed_list(text: str) -> list[int]:
    """`--seeds`: a count (`3` means 0, 1, 2) or a comma-separated list."""
    try:
        if "," in text:
            return [int(part) for part in text.split(",")]
        count = int(text)
    except ValueError:
        raise BenchmarkError(f"--seeds {text!r}: a count such as 3, or seeds such as 0,1,2") from None
    if count < 1:
        raise BenchmarkError(f"--seeds {text!r}: at least one seed")
    return list(range(count))


def add_arguments(parser) -> None:
    parser.add_argument("algorithm", help=f"built in: {', '.join(ALGORITHMS)}; or module:function (a plug-in)")
    parser.add_argument("--suite", default="v1-lite", help="suite and variant whose tasks it trains on")
    parser.add_argument("--budget", type=int, default=100_000, help="environment steps of the learner per run")
    parser.add_argument("--seeds", default="3", help="independent runs per task: a count, or a list such as 0,1,2")
    parser.add_argument("--out", default="runs/algorithms", help="folder; the algorithm's results go in a subfolder")
    parser.add_argument("--resume", action="store_true", help="finish the interrupted benchmark in --out")
    parser.add_argument("--quiet", action="store_true", help="print only the summary")


def run_command(args) -> int:
    suite = load_suite(args.suite)
    say = None if args.quiet else (lambda text: print(text, flush=True))
    summary = run_algorithm_benchmark(
        args.algorithm,
        suite,
        args.budget,
        seed_list(args.seeds),
        args.out,
        Runner(args.jobs, args.backend, args.address, args.match_timeout),
        resume=args.resume,
        say=say,
    )
    print(format_algorithm_summary(summary))
    return 1 if summary["failures"] else 0
