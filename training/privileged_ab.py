"""With and without the privileged critic: the same PPO from the same start, seeds and budget, per task.

For each task (a game at a player count) the committed recipe `training/baselines/<game>_<n>p.toml`
gives the network and PPO settings. Its warm start is trained once (`--start warm`; or the committed
baseline policy is the start, `--start baseline`, which skips the warm starts), then PPO runs twice
from it for `--timesteps` steps, once with `privileged_critic = true` and once without; everything
else is equal. Each arm is scored by the trainer's own evaluations: every `eval_every` steps on the
run's selection seed (`seed + 1`) and, for its last policy, on `seed + 2`; seed 1000, on which the
baselines are published, is never played. `summary.md` puts the arms side by side with the critic's
explained variance from PPO's logs (how much of the returns' variance the critic accounts for).

    python -m city_envs.training.privileged_ab --out runs/privileged_ab            # runs what is missing
    python -m city_envs.training.privileged_ab --out runs/privileged_ab --dry-run  # the commands only

Every step is a `city-envs train` command (printed before it runs); a finished one is skipped and an
interrupted one resumed, so the script can be stopped and run again.
"""

from __future__ import annotations

import argparse
import csv
import json
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from city_envs.core.registry import GAMES

BASELINES = Path(__file__).resolve().parent / "baselines"
PLAYERS = (2, 4)
ARMS = ("plain", "privileged")
# one comparison's settings beside the recipe's: the last policy after the same budget (no selection among
# points), curve points on the selection seed, and a final evaluation big enough to tell arms apart
ARM_SETTINGS = {
    "eval_every": 100_000,
    "eval_games": 100,
    "final_eval_games": 400,
    "select_best": False,
    "average_last": 0,
}


@dataclass(frozen=True)
class Step:
    """One `city-envs train` command and the run folder it fills."""

    label: str
    out: Path
    args: list[str]

    def command(self) -> list[str]:
        """The command to run: a resume when an earlier start left the run unfinished."""
        if (self.out / "config.toml").is_file():
            return ["train", self.args[1], "--resume", "--out", str(self.out), "--quiet"] + [
                arg for arg in self.args if arg.startswith("--timesteps=")
            ]
        return self.args

    def done(self) -> bool:
        return (self.out / "evaluation.json").is_file()


def task_names(games: list[str], players: list[int]) -> list[str]:
    return [f"{game}_{n}p" for game in games for n in players]


def plan(out: Path, task: str, timesteps: int, start: str, seed: int = 0, eval_jobs: int = 1) -> list[Step]:
    """The commands of one task: its warm start (with `start = "warm"`), then the two PPO arms (whose
    evaluations play in `eval_jobs` processes; the matches are the same in any number)."""
    game = task.rsplit("_", 1)[0]
    recipe = BASELINES / f"{task}.toml"
    if not recipe.is_file():
        raise ValueError(f"no committed recipe {recipe} for task {task}")
    folder = out / task
    common = ["--config", str(recipe), f"--seed={seed}", "--quiet"]
    steps = []
    if start == "warm":
        warm = folder / "warm"
        sets = {"timesteps": 0, "eval_games": 0, "final_eval_games": 0, "select_best": False, "average_last": 0}
        args = ["train", game, "--out", str(warm), *common, *(f"--set={k}={_toml(v)}" for k, v in sets.items())]
        steps.append(Step(f"{task} warm start", warm, args))
        init = warm / "model.safetensors"
    elif start == "baseline":
        init = BASELINES / f"{task}.safetensors"
    else:
        raise ValueError(f"start must be 'warm' or 'baseline', not {start!r}")
    for arm in ARMS:
        sets = {**ARM_SETTINGS, "eval_jobs": eval_jobs, "privileged_critic": arm == "privileged"}
        args = [
            "train",
            game,
            "--out",
            str(folder / arm),
            "--init-from",
            str(init),
            f"--timesteps={timesteps}",
            *common,
            *(f"--set={k}={_toml(v)}" for k, v in sets.items()),
        ]
        steps.append(Step(f"{task} {arm}", folder / arm, args))
    return steps


def _toml(value: object) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def _explained_variance(run: Path, last: int = 10) -> float | None:
    """The mean of PPO's last `last` logged explained variances (SB3's `train/explained_variance`)."""
    values = []
    for part in sorted((run / "logs").glob("part_*")):
        path = part / "progress.csv"
        if path.is_file():
            with open(path, newline="") as handle:
                values += [float(r["train/explained_variance"]) for r in csv.DictReader(handle)]
    return sum(values[-last:]) / len(values[-last:]) if values else None


def _rate(result: dict) -> str:
    low, high = result["ci95"]
    return f"{result['win_rate']:.3f} ({low:.3f}-{high:.3f})"


def summarize(out: Path, tasks: list[str]) -> str:
    """The arms of every finished task side by side, as Markdown."""
    lines = [
        "| task | arm | PPO steps | steps/s | explained variance (last 10) | curve vs heuristic (seed + 1) "
        "| final vs heuristic (seed + 2) | final vs random |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for task in tasks:
        for arm in ARMS:
            run = out / task / arm
            if not (run / "evaluation.json").is_file():
                continue
            summary = json.loads((run / "evaluation.json").read_text())
            with open(run / "curve.csv", newline="") as handle:
                curve = [row for row in csv.DictReader(handle) if row["stage"] == "ppo"]
            points = ", ".join(
                f"{int(row['step']) // 1000}k {float(row['win_rate_vs_heuristic']):.2f}"
                for row in curve
                if row.get("win_rate_vs_heuristic")
            )
            variance = _explained_variance(run)
            final = summary.get("evaluation", {})
            lines.append(
                f"| {task} | {arm} | {summary.get('timesteps', 0):,} | {summary.get('ppo_steps_per_s', 0):,.0f} "
                f"| {'-' if variance is None else f'{variance:.3f}'} | {points or '-'} "
                f"| {_rate(final['heuristic']) if 'heuristic' in final else '-'} "
                f"| {_rate(final['random']) if 'random' in final else '-'} |"
            )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m city_envs.training.privileged_ab", description=__doc__)
    parser.add_argument("--out", default="runs/privileged_ab", help="folder of every run and summary.md")
    parser.add_argument("--games", nargs="+", default=list(GAMES), choices=GAMES)
    parser.add_argument("--players", nargs="+", type=int, default=list(PLAYERS), choices=PLAYERS)
    parser.add_argument("--timesteps", type=int, default=300_000, help="PPO steps of each arm")
    parser.add_argument("--start", choices=("warm", "baseline"), default="warm", help="what PPO starts from")
    parser.add_argument("--seed", type=int, default=0, help="the runs' seed (evaluations on seed + 1 and seed + 2)")
    parser.add_argument("--eval-jobs", type=int, default=1, help="processes of each evaluation (config: eval_jobs)")
    parser.add_argument("--dry-run", action="store_true", help="print the commands, run nothing")
    args = parser.parse_args(argv)
    if not 0 <= args.seed <= 900 or args.timesteps < 1 or args.eval_jobs < 1:  # seed + 2 is never 1000
        parser.error("--seed must be 0..900, --timesteps and --eval-jobs at least 1")
    out = Path(args.out)
    tasks = task_names(args.games, args.players)
    for task in tasks:
        for step in plan(out, task, args.timesteps, args.start, args.seed, args.eval_jobs):
            if step.done():
                print(f"# {step.label}: done", flush=True)
                continue
            print(f"# {step.label}\ncity-envs {shlex.join(step.command())}", flush=True)
            if not args.dry_run:
                code = subprocess.run([sys.executable, "-m", "city_envs.cli", *step.command()]).returncode
                if code:
                    print(f"{step.label} stopped (exit status {code}): run again to resume it", file=sys.stderr)
                    return code
    if not args.dry_run:
        table = summarize(out, tasks)
        (out / "summary.md").write_text(table + "\n")
        print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
