"""Today's PPO update against a cheaper candidate: the same PPO from the same start, seeds and budget.

Issue 45 asks for training five times faster than at the issue; PPO's update takes most of a learning
step on the native batch (docs/training.md, "Where a learning step's time goes"), so a faster recipe
changes the update: `CANDIDATE` of training/throughput.py, which `--goal` measures (fewer epochs).
Whether it learns as well is measured here: for each task (a committed 2-player baseline: its recipe
`training/baselines/<task>.toml`, and as the start the committed policy it continued, `init_from`, or,
for Metropolys, whose recipe trained its own warm start, the committed baseline policy itself), PPO
runs `--timesteps` steps from that start with each of `--seeds`, once with the recipe as it is
(`default`) and once with the keys of each other arm of `ARMS` over it (the candidate, and the
candidate with a larger learning rate); everything else is equal. No
curve point is evaluated and the last policy is the model. Each model, and the start policy itself
(the `start` row), then plays `--games` seat-rotated matches against the heuristic on `EVAL_SEED`, a
seed no training run plays; win rates with Wilson 95% intervals, per seed and pooled over the seeds.
Each run's wall and process CPU seconds are recorded (the machine is shared: CPU seconds are the
steadier figure).

    nohup nice -n 5 python -m lab.update_recipe_ab --out runs/update_recipe_ab --doc docs/training.md &
    python -m lab.update_recipe_ab --from-json benchmarks/update_recipe_ab/summary.json --doc docs/training.md

Each run trains in its own folder under `--out` with the trainer's checkpoints, so a stopped study run
again resumes the run it was in and skips every row `summary.json` holds (rewritten after each row);
a summary of other settings is refused. The figures reach docs/training.md only from that JSON
(`<!-- tables:update-recipe-ab -->`).
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from pathlib import Path

from city_envs.agents.policy_agent import BASELINES_DIR
from city_envs.core.markdown import link_from, write_sections
from city_envs.core.settings import read_measurement
from city_envs.training.throughput import CANDIDATE
from lab.doc_option import add_doc_options, write_from_json

# the 2-player baselines that continued a committed policy, and one with an entity head that continues its own
TASKS = ("citadels_2p", "urban_sprawl_2p", "metropolys_2p")
# the recipe as committed, the candidate, and the candidate with a 4x learning rate (its 2 gradient steps a rollout
# in place of 8 move the policy about as far as 8 at the committed rate): the same cost per step as the candidate
ARMS: dict[str, dict] = {
    "default": {},
    "candidate": CANDIDATE,
    "candidate_lr": {**CANDIDATE, "learning_rate": 4e-4},
}
START = "start"
EVAL_SEED = 4242  # no training run plays it: runs use seeds 0.. and their evaluations seed + 1, + 2, 1000
SECTION = "update-recipe-ab"
# beside the recipe: no curve points and no final evaluation in the run (the study plays its own), the last policy
RUN_SETTINGS = {"eval_games": 0, "final_eval_games": 0, "select_best": False, "average_last": 0, "pretrain": False}


def task_config(task: str, seed: int, timesteps: int, arm: str):
    """The run config of `arm` for `task` at `seed`: the committed recipe, its start (the policy it continued, or
    the committed baseline policy), `RUN_SETTINGS`, the arm's keys."""
    from city_envs.agents.policy_agent import stored_policy
    from city_envs.training.config import load_config

    game = task.rsplit("_", 1)[0]
    recipe = BASELINES_DIR / f"{task}.toml"
    config = load_config(game, recipe, seed=seed, timesteps=timesteps, **RUN_SETTINGS, **ARMS[arm])
    if not config.init_from:
        record = json.loads((BASELINES_DIR / f"{task}.json").read_text())
        config.init_from = str(stored_policy(record["policy"]))
    return config


def train_row(out: Path, task: str, seed: int, timesteps: int, arm: str) -> dict:
    """Train one run (resuming its folder if an earlier start left it unfinished); its model, steps and times."""
    from city_envs.training.selfplay import train

    config = task_config(task, seed, timesteps, arm)
    folder = out / task / f"{arm}_seed{seed}"
    resumed = (folder / "config.toml").is_file()
    clock, cpu = time.perf_counter(), time.process_time()
    summary = train(config, folder, resume=resumed, log=lambda *_: None)
    wall, cpu = time.perf_counter() - clock, time.process_time() - cpu
    return {
        "model": str(folder / "model.safetensors"),
        "timesteps": summary["timesteps"],
        "wall_seconds": round(wall, 1),
        "cpu_seconds": round(cpu, 1),
        "resumed": resumed,
    }


def score(model: str, task: str, games: int) -> dict:
    """`games` seat-rotated matches of `model` against the heuristic on `EVAL_SEED`: win rate, interval, wins."""
    from city_envs.training.evaluation import evaluate_model

    game, players = task.rsplit("_", 1)[0], int(task.rsplit("_", 1)[1].removesuffix("p"))
    result = evaluate_model(model, game, players, games, EVAL_SEED, opponents=("heuristic",), label=task)["heuristic"]
    return {"win_rate": result["win_rate"], "ci95": list(result["ci95"]), "games": result["games"]}


def pooled(rows: list[dict]) -> dict:
    """The seeds' evaluations as one: wins (ties shared) over all their matches, with a Wilson 95% interval."""
    from city_envs.evaluation.ratings import wilson_interval

    games = sum(row["games"] for row in rows)
    wins = sum(row["win_rate"] * row["games"] for row in rows)
    low, high = wilson_interval(wins, games)
    return {"win_rate": round(wins / games, 4), "ci95": [round(low, 4), round(high, 4)], "games": games}


def _arms(arms: dict[str, dict]) -> str:
    """`candidate`: `n_epochs = 1`; ... for every arm but the default."""
    named = [f"`{arm}`: " + ", ".join(f"`{k} = {v}`" for k, v in keys.items()) for arm, keys in arms.items() if keys]
    return "; ".join(named)


def _rate(result: dict) -> str:
    low, high = result["ci95"]
    return f"{result['win_rate']:.3f} ({low:.3f}-{high:.3f})"


def table(summary: dict) -> str:
    """Each task's start and arms: per-seed and pooled win rates against the heuristic, and the runs' times."""
    options = summary["options"]
    lines = [
        f"PPO from each committed start for {options['timesteps']:,} steps, seeds {options['seeds']}, with the "
        f"recipe as committed (`default`) and with each arm's keys over it ({_arms(summary['arms'])}); "
        f"each last policy against the heuristic in {options['games']} seat-rotated matches on "
        f"seed {EVAL_SEED} (win rate, Wilson 95% interval; pooled: all seeds' matches). Times are each run's "
        "wall and process CPU seconds on the shared machine.",
        "",
        "| task | row | per seed vs heuristic | pooled vs heuristic | PPO wall s (per seed) | PPO CPU s (per seed) |",
        "|---|---|---|---|---|---|",
    ]
    for task, rows in summary["tasks"].items():
        if START in rows:
            lines.append(f"| {task} | start policy | - | {_rate(rows[START])} n={rows[START]['games']} | - | - |")
        for arm in summary["arms"]:
            runs = rows.get(arm, {})
            if not runs:
                continue
            seeds = sorted(runs, key=int)
            each = ", ".join(f"{seed}: {_rate(runs[seed]['evaluation'])}" for seed in seeds)
            together = pooled([runs[seed]["evaluation"] for seed in seeds])
            walls = ", ".join(f"{runs[seed]['wall_seconds']:,.0f}" for seed in seeds)
            cpus = ", ".join(f"{runs[seed]['cpu_seconds']:,.0f}" for seed in seeds)
            lines.append(f"| {task} | {arm} | {each} | {_rate(together)} n={together['games']} | {walls} | {cpus} |")
    return "\n".join(lines) + "\n"


def load_summary(path: str | Path) -> dict:
    """A summary.json this study wrote, checked for every figure its table reads (one ValueError if not)."""

    def check(summary: dict) -> None:
        table(summary)
        if not all(isinstance(command, str) for command in summary["commands"]):
            raise TypeError("commands must be a list of command lines")

    return read_measurement(path, "update_recipe_ab", "an update_recipe_ab summary.json", check)


def doc_section(summary: dict, source: str | Path, page: str | Path) -> str:
    return f"{table(summary)}\nEvery figure, with the commands that measured it: {link_from(page, source)}."


def write_doc(page: str | Path, source: str | Path) -> None:
    """Fill `page`'s update-recipe-ab section from the summary file `source`."""
    write_sections(page, {SECTION: doc_section(load_summary(source), source, page)}, (SECTION,))


def _earlier(path: Path, options: dict) -> dict:
    """The study so far in `path` (a new one if there is none); one ValueError if it measured other settings."""
    if not path.is_file():
        return {"measurement": "update_recipe_ab", "options": options, "arms": ARMS, "commands": [], "tasks": {}}
    summary = load_summary(path)
    same = ("timesteps", "games")
    other_arms = any(ARMS.get(arm) != keys for arm, keys in summary["arms"].items())
    if any(summary["options"][key] != options[key] for key in same) or other_arms:
        raise ValueError(f"{path} holds a study of other settings ({summary['options']}): pass another --out")
    summary["arms"] = ARMS
    summary["options"]["seeds"] = sorted(set(summary["options"]["seeds"]) | set(options["seeds"]))
    return summary


def run(
    out: Path,
    tasks: list[str],
    seeds: list[int],
    timesteps: int,
    games: int,
    doc: str | None,
    command: str,
    arms: list[str],
):
    """Every missing row of `arms`, seed after seed (each seed's tasks and arms before the next seed's), saving the
    summary (and `doc`) after each."""
    path = out / "summary.json"
    summary = _earlier(path, {"timesteps": timesteps, "games": games, "seeds": seeds})
    if command not in summary["commands"]:  # every command that added rows, in order
        summary["commands"].append(command)

    def save() -> None:
        out.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(summary, indent=1) + "\n")
        (out / "summary.md").write_text(table(summary))
        if doc:
            write_doc(doc, path)

    for task in tasks:
        rows = summary["tasks"].setdefault(task, {})
        if START not in rows:
            print(f"# {task}: the start policy", flush=True)
            rows[START] = score(task_config(task, 0, timesteps, "default").init_from, task, games)
            save()
    for seed in seeds:
        for task in tasks:
            for arm in arms:
                runs = summary["tasks"][task].setdefault(arm, {})
                if str(seed) in runs:
                    continue
                print(f"# {task} {arm} seed {seed}", flush=True)
                row = train_row(out, task, seed, timesteps, arm)
                row["evaluation"] = score(row.pop("model"), task, games)
                runs[str(seed)] = row
                save()
                print(f"  {_rate(row['evaluation'])}, {row['wall_seconds']} s wall, {row['cpu_seconds']} s CPU")
    print(table(summary), end="")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(prog="python -m lab.update_recipe_ab", description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default="runs/update_recipe_ab", help="folder of every run and summary.json")
    parser.add_argument("--tasks", nargs="+", default=list(TASKS), choices=TASKS)
    parser.add_argument("--arms", nargs="+", default=list(ARMS), choices=ARMS, help="the arms to run")
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2], help="training seeds (0..900)")
    parser.add_argument("--timesteps", type=int, default=200_000, help="PPO steps of each run")
    parser.add_argument("--games", type=int, default=200, help="evaluation matches of each policy")
    add_doc_options(parser, SECTION, "summary.json")
    args = parser.parse_args(argv)
    try:
        if write_from_json(args, SECTION, write_doc):
            return 0
        if not all(0 <= seed <= 900 for seed in args.seeds) or args.timesteps < 1 or args.games < 1:
            raise ValueError("--seeds must be 0..900, --timesteps and --games at least 1")
        command = f"python -m lab.update_recipe_ab {shlex.join(argv)}"
        run(Path(args.out), args.tasks, args.seeds, args.timesteps, args.games, args.doc, command, args.arms)
    except (ValueError, OSError) as error:
        parser.error(str(error))
    return 0


if __name__ == "__main__":
    sys.exit(main())
