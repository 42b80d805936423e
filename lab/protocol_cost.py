"""Issue 45's goal: the full protocol's cost per algorithm on this machine, measured from a lite run.

The full protocol is `city-envs benchmark train ALGO --suite v1 --budget B --seeds 5`: the ten tasks of
suite v1 (every game at 2 and 4 players), each trained for B steps from 5 seeds and scored at every
checkpoint on the suite's line-ups (200 matches a line-up for the final policy, a tenth for each curve
point). The lite protocol (`--suite v1-lite`, 100 matches a line-up) runs its five 2-player tasks.

From the lite run of an algorithm at the same budget, each record (`<task>/seed_<k>/record.json`) gives
one seed's CPU seconds of training (`train_cpu_seconds`: its process's and its ended child processes',
so the figure does not depend on what else the machine ran) and its wall seconds in all (`seconds`), of
which those after training (`train_seconds`) are its scoring's. Scoring's matches run in worker
processes the record cannot see the CPU of, so scoring is counted in wall seconds, which work beside it
on the machine inflates: the estimate leans high. A record's seconds are summed over the sittings its
seed took (`sittings`, from the seed's clock), so a seed that was stopped and resumed counts, with the
work it repeats: at most one rollout for this project's trainer, its whole training for `tianshou_dqn`,
which starts a stopped seed again (the estimate leans high again). A record from before the clock counts
only if it says it was not resumed (`"resumed": false`): an older resumed one holds its last sitting
only. Per task, the means over the seeds kept are the lite figures, and the full protocol's come from
them (and its range, from every task at its cheapest seed and at its dearest):
- a 2-player task trains the same; its scoring plays the full suite's matches instead of the lite's,
  so its scoring seconds scale by the ratio of the two match counts;
- a 4-player task trains its game's 2-player seconds times the ratio of the trainer's CPU milliseconds
  per learner step at 4 and at 2 players. For this project's trainer (`ppo_scratch`, `warm_start_ppo`)
  that is arm (b), today's default, of `python -m city_envs.training.throughput --goal`
  (`docs/throughput_goal_2p.json` and `_4p.json`). Any other algorithm trains differently (the DQN's
  env plays the other seats and its updates follow the learner's steps), so its own plug-in is probed
  here: `--train-probe-steps` steps of each game at 2 and at 4 players, timed in CPU seconds after a
  short warm-up run that pays its imports;
- a 4-player task's scoring is its game's 2-player full scoring times the ratio of the wall seconds a
  match takes at 4 and at 2 players, probed here one after the other: `--probe-matches` matches of
  each line-up of the suite, the committed baseline policy (`ppo`) as the candidate.

The total is the seeds times the sum over the tasks, in hours of one run at a time. On this 2-core
machine a local Ray trains two (task, seed) runs at once (`--backend ray --jobs 2`; the process backend
trains one after the other, its jobs playing one run's matches), which keeps both cores busy: the
protocol's hours here are half that.

    python -m lab.protocol_cost --lite benchmarks/algorithms/v1-lite-1m/ppo_scratch \\
        --out benchmarks/protocol_cost/ppo_scratch.json --doc docs/benchmark.md
    python -m lab.protocol_cost --from-json benchmarks/protocol_cost/ppo_scratch.json --doc docs/benchmark.md

The probes time the machine, not the lite run: `--probes-from EARLIER.json` takes them from an earlier
estimate of the same algorithm (the estimate records the command that measured them) and reads the lite
figures again, for seeds that landed since.

`--from-json` and `--doc` write the page's `<!-- tables:protocol-cost -->` section from every JSON in
the folder of the one given, one row per algorithm and a table of its tasks.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
import time
from pathlib import Path
from statistics import fmean

from city_envs.core.markdown import write_sections
from city_envs.evaluation.suite import Suite, Task, load_suite
from city_envs.training.algorithms import TrainRequest, cpu_seconds, load_algorithm
from lab.doc_option import add_doc_options, write_from_json

SECTION = "protocol-cost"
ROOT = Path(__file__).resolve().parent.parent
FULL_SUITE = "v1"
FULL_SEEDS = 5
JOBS = 2  # the machine's cores: `--backend ray --jobs 2` trains two (task, seed) runs at once
GOAL_HOURS = 24.0
GOAL_TABLES = {2: ROOT / "docs" / "throughput_goal_2p.json", 4: ROOT / "docs" / "throughput_goal_4p.json"}
PROBE_AGENT = "ppo"
TRAIN_SCALE_SOURCES = {  # how the doc says where a 4-player task's train scale came from
    "goal tables": "its train scale is the trainer's CPU cost per step in the training-throughput goal tables",
    "probe": "its train scale is its own plug-in's CPU cost per step, probed for {steps:,} steps a task",
}
WARM_UP_STEPS = 1_000
GOAL_TABLE_ALGORITHMS = ("ppo_scratch", "warm_start_ppo")  # this project's trainer, which the goal tables time


def lite_figures(folder: Path) -> dict:
    """The lite run's benchmark settings and, per task, the mean training CPU and scoring wall seconds of
    its seeds whose records count every sitting, with those sittings (one ValueError naming a task with
    none, or a folder that is not a lite run)."""
    settings_file = folder / "benchmark.json"
    if not settings_file.is_file():
        raise ValueError(f"{folder} holds no benchmark.json: not a `city-envs benchmark train` result")
    settings = json.loads(settings_file.read_text())
    try:
        suite = load_suite(settings["suite"])
        algorithm, budget = settings["algorithm"], settings["budget"]
    except (KeyError, TypeError) as error:
        raise ValueError(f"{settings_file} is not a benchmark's settings ({error!r})") from None
    if suite.variant == "default" or any(task.players != 2 for task in suite.tasks):
        raise ValueError(f"{folder} is a run of suite {settings['suite']}, not of a lite suite of 2-player tasks")
    tasks = {}
    for task in suite.tasks:
        records = []
        for path in sorted((folder / f"{task.game}_{task.players}p").glob("seed_*/record.json")):
            record = json.loads(path.read_text())
            every_sitting = "sittings" in record or record.get("resumed") is False
            if record.get("status") == "ok" and every_sitting and "train_cpu_seconds" in record:
                records.append(record)
        if not records:
            raise ValueError(f"{folder}: task {task.name} has no finished seed whose CPU seconds count every sitting")
        try:
            tasks[task.name] = {
                "seeds": [r["seed"] for r in records],
                "sittings": [r.get("sittings", 1) for r in records],
                "train_seconds": fmean(r["train_cpu_seconds"] for r in records),
                "score_seconds": fmean(r["seconds"] - r["train_seconds"] for r in records),
                "each_seed": [[r["train_cpu_seconds"], r["seconds"] - r["train_seconds"]] for r in records],
            }
        except (KeyError, TypeError) as error:
            raise ValueError(f"{folder}: a record of {task.name} lacks a figure ({error!r})") from None
    return {"algorithm": algorithm, "budget": budget, "suite": suite, "tasks": tasks}


def cpu_ms_per_step(paths: dict[int, Path] = GOAL_TABLES) -> dict[tuple[str, int], float]:
    """Today's default trainer's CPU ms per env step (arm (b) of the goal tables), by (game, players)."""
    rows = [row for players in sorted(paths) for row in json.loads(paths[players].read_text())]
    return {(row["game"], row["players"]): row["default_cpu_ms_per_step"] for row in rows}


def probe_train_cpu_ms(algorithm: str, task: Task, steps: int) -> float:
    """CPU ms per learner step of `algorithm`'s plug-in trained `steps` steps on `task` (seed 0) in a
    folder that is then deleted: this process's CPU seconds, and its ended child processes'."""
    train = load_algorithm(algorithm)
    with tempfile.TemporaryDirectory(prefix="protocol-cost-") as folder:
        request = TrainRequest(task=task, seed=0, budget=steps, out=Path(folder), checkpoints=(steps,))
        start = cpu_seconds()
        try:
            train(request)
        except Exception as error:  # a plug-in's own failure, reported as this probe's
            raise ValueError(f"probing {algorithm} on {task.name} for {steps} steps failed: {error!r}") from None
        return (cpu_seconds() - start) * 1000 / steps


def train_cost(algorithm: str, full: Suite, probe_steps: int, say=print) -> dict:
    """Where the trainer's CPU ms per learner step at each player count come from, and those figures: the
    goal tables for this project's trainer, else a probe of the algorithm's plug-in on every game of
    `full` with more than two players, at 2 and at that count."""
    if algorithm in GOAL_TABLE_ALGORITHMS:
        figures = cpu_ms_per_step()
        return {"source": "goal tables", "steps": None, "cpu_ms_per_step": to_json_keys(figures)}
    four = [task for task in full.tasks if task.players != 2]
    probe_train_cpu_ms(algorithm, four[0], WARM_UP_STEPS)  # pays the plug-in's imports before any timing
    figures = {}
    for task in four:
        for players in (2, task.players):
            figures[(task.game, players)] = ms = probe_train_cpu_ms(
                algorithm, full.task(f"{task.game}:{players}"), probe_steps
            )
            say(f"{algorithm} trains {task.game} at {players} players in {ms:.3f} CPU ms a step")
    return {"source": "probe", "steps": probe_steps, "cpu_ms_per_step": to_json_keys(figures)}


def to_json_keys(figures: dict[tuple[str, int], float]) -> dict[str, float]:
    return {f"{game}:{players}": round(ms, 4) for (game, players), ms in sorted(figures.items())}


def from_json_keys(figures: dict[str, float]) -> dict[tuple[str, int], float]:
    return {(key.split(":")[0], int(key.split(":")[1])): ms for key, ms in figures.items()}


def probe_match_seconds(suite: Suite, task: Task, matches: int) -> float:
    """Wall seconds a match of `task` takes, the committed baseline policy against each line-up of
    `suite` in turn (`matches` of each, seat-rotated), as the benchmark scores a checkpoint."""
    from city_envs.evaluation.benchmark import evaluate_task

    clock = time.perf_counter()
    evaluate_task(PROBE_AGENT, suite, task, None, matches=matches)
    return (time.perf_counter() - clock) / (matches * len(suite.lineups_for(task)))


def estimate(lite: dict, cpu_ms: dict[tuple[str, int], float], probe: dict[str, float], full: Suite) -> dict:
    """The full protocol's seconds per task and seed, from the lite figures, the trainer's CPU ms per step
    at each player count and the probed 4-to-2-player ratio of a match's seconds by game."""
    match_ratio = full.matches / lite["suite"].matches
    rows = []
    for task in full.tasks:
        two = lite["tasks"].get(f"{task.game}:2")
        if two is None:
            raise ValueError(f"the lite run has no {task.game}:2, from which {task.name} is estimated")
        if (task.game, task.players) not in cpu_ms or (task.game, 2) not in cpu_ms:
            raise ValueError(f"no trainer cost per step for {task.name} (goal tables or probe)")
        train_scale = cpu_ms[(task.game, task.players)] / cpu_ms[(task.game, 2)]
        score_scale = match_ratio * (probe[task.game] if task.players != 2 else 1.0)
        each = [train * train_scale + score * score_scale for train, score in two["each_seed"]]
        rows.append(
            {
                "task": task.name,
                "train_seconds": round(two["train_seconds"] * train_scale, 1),
                "score_seconds": round(two["score_seconds"] * score_scale, 1),
                "seconds_range": [round(min(each), 1), round(max(each), 1)],
                "train_scale": round(train_scale, 3),
                "score_scale": round(score_scale, 3),
            }
        )
    per_seed = sum(row["train_seconds"] + row["score_seconds"] for row in rows)
    hours = [FULL_SEEDS * sum(row["seconds_range"][end] for row in rows) / 3600 for end in (0, 1)]
    total_hours = FULL_SEEDS * per_seed / 3600
    return {
        "tasks": rows,
        "seconds_per_seed": round(per_seed, 1),
        "total_hours": round(total_hours, 2),
        "hours_on_this_machine": round(total_hours / JOBS, 2),  # from the unrounded total
        # every task at its cheapest lite seed, and at its dearest
        "total_hours_range": [round(h, 2) for h in hours],
        "hours_on_this_machine_range": [round(h / JOBS, 2) for h in hours],
    }


def shown(path: Path) -> str:
    """`path` as the estimate records it: relative to the repository when inside it."""
    return path.resolve().relative_to(ROOT).as_posix() if path.resolve().is_relative_to(ROOT) else str(path)


def earlier_probes(path: Path, algorithm: str) -> dict:
    """The training and match probes of an earlier estimate of `algorithm` (they time the machine, not the
    lite run), with the command that measured them; one ValueError for a file that holds none."""
    try:
        earlier = json.loads(path.read_text())
        trainer, probe = earlier["train_cost"], earlier["probe"]
        seconds = {
            game: {int(players): float(s) for players, s in by_players.items()}
            for game, by_players in probe["match_seconds"].items()
        }
        figures = [*from_json_keys(trainer["cpu_ms_per_step"]).values()]
        figures += [s for by_players in seconds.values() for s in by_players.values()]
        if any(set(by_players) != {2, 4} for by_players in seconds.values()) or not all(
            math.isfinite(f) and f > 0 for f in figures
        ):
            raise ValueError("a probe is not a positive figure at 2 and 4 players")
        reused = {
            "train_cost": trainer,
            "matches_per_lineup": int(probe["matches_per_lineup"]),
            "match_seconds": seconds,
            "source": earlier.get("probes_from", {"file": shown(path), "command": str(earlier["command"])}),
        }
        found = earlier["algorithm"]
        doc_section([{**earlier, "probes_from": reused["source"]}])  # reads every field the page shows
    except (ValueError, KeyError, TypeError, AttributeError, IndexError) as error:
        raise ValueError(f"{path} is not an estimate that lab.protocol_cost writes ({error!r})") from None
    if found != algorithm:
        raise ValueError(f"{path} estimates {found}, not {algorithm}: its probes are not this algorithm's")
    return reused


def measure(
    folder: Path, probe_matches: int, probe_steps: int, command: str, probes_from: Path | None = None, say=print
) -> dict:
    """The estimate from the lite run in `folder`: its probes measured here, or those of `probes_from`."""
    lite = lite_figures(folder)
    full = load_suite(FULL_SUITE)
    games = sorted({task.game for task in full.tasks if task.players != 2})
    reused = None if probes_from is None else earlier_probes(probes_from, lite["algorithm"])
    if reused is not None:
        trainer, seconds, probe_matches = reused["train_cost"], reused["match_seconds"], reused["matches_per_lineup"]
        if missing := [game for game in games if game not in seconds]:
            raise ValueError(f"{probes_from} holds no match probe of {', '.join(missing)}")
    else:
        trainer = train_cost(lite["algorithm"], full, probe_steps, say)
        seconds = {}
        for game in games:
            seconds[game] = {
                players: probe_match_seconds(full, full.task(f"{game}:{players}"), probe_matches) for players in (2, 4)
            }
            say(f"{game}: a match takes {seconds[game][2]:.3f} s at 2 players, {seconds[game][4]:.3f} s at 4")
    probe = {game: seconds[game][4] / seconds[game][2] for game in games}
    result = estimate(lite, from_json_keys(trainer["cpu_ms_per_step"]), probe, full)
    return {
        "algorithm": lite["algorithm"],
        "budget": lite["budget"],
        "lite": {
            "folder": shown(folder),
            "suite": lite["suite"].name,
            "matches": lite["suite"].matches,
            "tasks": lite["tasks"],
        },
        "full": {"suite": FULL_SUITE, "matches": full.matches, "seeds": FULL_SEEDS, "jobs": JOBS},
        "train_cost": trainer,
        "probe": {"matches_per_lineup": probe_matches, "match_seconds": seconds},
        **result,
        "command": command,
        **({} if reused is None else {"probes_from": reused["source"]}),
    }


def load_estimates(folder: Path) -> list[dict]:
    """Every estimate in `folder`; one ValueError naming a file the page cannot be written from."""
    estimates = []
    for path in sorted(folder.glob("*.json")):
        try:
            estimate = json.loads(path.read_text())
            doc_section([estimate])  # reads every field the page shows
        except (ValueError, KeyError, TypeError, AttributeError, IndexError) as error:
            raise ValueError(f"{path} is not an estimate that lab.protocol_cost writes ({error!r})") from None
        estimates.append(estimate)
    return estimates


def doc_section(estimates: list[dict]) -> str:
    """The estimates as Markdown: one row per algorithm, then each algorithm's tasks."""
    lines = [
        f"| algorithm | budget | lite seeds | hours, one run at a time | hours on {JOBS} cores, {JOBS} runs at once "
        f"| under {GOAL_HOURS:.0f} h |",
        "|---|---|---|---|---|---|",
    ]
    for e in estimates:
        seeds = sorted({len(t["seeds"]) for t in e["lite"]["tasks"].values()})
        low, high = e["hours_on_this_machine_range"]
        under = "yes" if high < GOAL_HOURS else "no" if low >= GOAL_HOURS else "not at the dearest seeds"
        lines.append(
            f"| `{e['algorithm']}` | {e['budget']:,} | {'-'.join(map(str, seeds))} | {e['total_hours']:.1f} "
            f"({e['total_hours_range'][0]:.1f}-{e['total_hours_range'][1]:.1f}) "
            f"| {e['hours_on_this_machine']:.1f} ({low:.1f}-{high:.1f}) | {under} |"
        )
    lines += [
        "",
        "Each estimate is from the mean of the lite seeds; in brackets, every task at its cheapest lite seed "
        "and at its dearest.",
    ]
    for e in estimates:
        lines += [
            "",
            f"`{e['algorithm']}`, one seed of each task of suite {e['full']['suite']} "
            f"({e['full']['matches']} matches a line-up; {e['full']['seeds']} seeds in the protocol), from "
            f"`{e['lite']['folder']}`; {TRAIN_SCALE_SOURCES[e['train_cost']['source']].format(**e['train_cost'])}:",
            "",
            "| task | train CPU s | score wall s | train scale | score scale |",
            "|---|---|---|---|---|",
        ]
        lines += [
            f"| {t['task']} | {t['train_seconds']:,.0f} | {t['score_seconds']:,.0f} | {t['train_scale']:.2f} "
            f"| {t['score_scale']:.2f} |"
            for t in e["tasks"]
        ]
        made = f"Made by `{e['command']}`"
        if "probes_from" in e:
            made += f"; its probes, by `{e['probes_from']['command']}`"
        lines += ["", f"{made}."]
    return "\n".join(lines)


def write_doc(page: str | Path, source: str | Path) -> None:
    estimates = load_estimates(Path(source).parent)
    write_sections(page, {SECTION: doc_section(estimates)}, (SECTION,))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lite", type=Path, help="a lite run's result folder (runs/algorithms/v1-lite/ALGO)")
    parser.add_argument("--probe-matches", type=int, help="matches per line-up of each probe (default 40)")
    parser.add_argument(
        "--train-probe-steps",
        type=int,
        help="learner steps of each training probe (an algorithm other than this project's trainer); default "
        "40,000, twice the replay buffer of tianshou_dqn, whose cost per step grows until the buffer is full",
    )
    parser.add_argument(
        "--probes-from",
        type=Path,
        help="take the training and match probes of this earlier estimate of the same algorithm on this machine "
        "instead of measuring them (the lite figures are read again)",
    )
    parser.add_argument("--out", type=Path, help="write the estimate here (JSON)")
    add_doc_options(parser, SECTION, "estimate JSON")
    args = parser.parse_args(argv)
    try:
        if write_from_json(args, SECTION, write_doc):
            return 0
        if args.lite is None or args.out is None:
            parser.error("give --lite FOLDER and --out FILE (or --from-json FILE --doc PAGE)")
        if args.probes_from is not None and (args.probe_matches, args.train_probe_steps) != (None, None):
            parser.error(
                "--probes-from takes its probes from that file: give no --probe-matches or --train-probe-steps"
            )
        probe_matches = 40 if args.probe_matches is None else args.probe_matches
        probe_steps = 40_000 if args.train_probe_steps is None else args.train_probe_steps
        if probe_matches < 4 or probe_matches % 4:
            parser.error("--probe-matches must be a multiple of 4 (every seat equally often at 2 and 4 players)")
        if probe_steps < 1:
            parser.error("--train-probe-steps must be at least 1")
        words = sys.argv[1:] if argv is None else argv
        if args.out.is_dir():
            raise ValueError(f"--out {args.out} is a folder: name the JSON file to write")
        command = " ".join(["python -m lab.protocol_cost", *words])
        result = measure(args.lite, probe_matches, probe_steps, command, args.probes_from)
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(result, indent=1) + "\n")
        print(doc_section([result]))
        if args.doc:
            write_doc(args.doc, args.out)
    except (ValueError, OSError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
