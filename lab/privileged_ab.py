"""With and without the privileged critic: the same PPO from the same start, seeds and budget, per task.

For each task (a game at a player count) the committed recipe `training/baselines/<game>_<n>p.toml`
gives the network and PPO settings. Its warm start is trained once (`--start warm`; for a baseline
that continued earlier policies, the first policy's recipe in `training/baselines/lineage/` gives it;
or the committed baseline policy is the start, `--start baseline`, which skips the warm starts), then PPO runs twice
from it for `--timesteps` steps, once with `privileged_critic = true` and once without; everything
else is equal. Each arm is scored by the trainer's own evaluations: every `eval_every` steps on the
run's selection seed (`seed + 1`) and, for its last policy, on `seed + 2`; seed 1000, on which the
baselines are published, is never played. The start policy itself gets the same final evaluation (a
run of 0 PPO steps: the `start` row), the figure both arms move from. `summary.json` holds every arm's
figures, read from its run's own files, with the critic's explained variance from PPO's logs (how much
of the returns' variance the critic accounts for), and `summary.md` puts the arms side by side; both
are rewritten after each step, from every finished run in the folder, so a stopped measurement has
them too.

    python -m lab.privileged_ab --out runs/privileged_ab            # runs what is missing
    python -m lab.privileged_ab --out runs/privileged_ab --dry-run  # the commands only

Every step is a `city-envs train` command (printed before it runs); a finished one is skipped and an
interrupted one resumed, so the script can be stopped and run again. The folder's summary.json is the
record: a row it holds is done even when its run folder is gone, so on a new machine a copy of the
committed summary resumes the measurement (`mkdir -p runs/privileged_ab && cp
benchmarks/privileged_ab/summary.json runs/privileged_ab/`); a summary of other settings (steps,
start, seed) is refused.

The figures reach the docs only from that JSON: `--doc PAGE` fills the page's `<!-- tables:privileged-ab
-->` section as the run goes, and `--from-json FILE --doc PAGE` measures nothing, so the committed copy
(`benchmarks/privileged_ab/summary.json`) writes docs/training.md:

    python -m lab.privileged_ab --from-json benchmarks/privileged_ab/summary.json --doc docs/training.md
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

from city_envs.agents.policy_agent import BASELINES_DIR, STORE
from city_envs.core.markdown import link_from, section_names, write_sections
from city_envs.core.registry import GAMES
from city_envs.core.settings import read_document, read_json, read_measurement
from city_envs.training.lineage import lineage_chain

BASELINES = BASELINES_DIR
PLAYERS = (2, 4)
ARMS = ("plain", "privileged")
START = "start"  # the start policy itself, no PPO: the same final evaluation, the figure both arms move from
ROWS = (*ARMS, START)
SECTION = "privileged-ab"  # the page's <!-- tables:privileged-ab --> section
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
    """One `city-envs train` command, the run folder it fills and the summary row it gives (None: the warm
    start, which gives none)."""

    label: str
    out: Path
    args: list[str]
    row: str | None = None

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
    """The commands of one task: its warm start (with `start = "warm"`), then the two PPO arms, then the
    start policy's own final evaluation (a run of 0 PPO steps); evaluations play in `eval_jobs`
    processes, and the matches are the same in any number."""
    game = task.rsplit("_", 1)[0]
    recipe = BASELINES / f"{task}.toml"
    if not recipe.is_file():
        raise ValueError(f"no committed recipe {recipe} for task {task}")
    if start == "warm":  # a baseline that continued earlier policies: the warm start is its first one's
        recipe = lineage_chain(BASELINES / task)[0].with_suffix(".toml")
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
        init = BASELINES / STORE / f"{read_json(BASELINES / f'{task}.json')['policy']}.safetensors"
    else:
        raise ValueError(f"start must be 'warm' or 'baseline', not {start!r}")

    def from_start(row: str, steps_of_ppo: int, **settings: object) -> list[str]:
        """The `city-envs train` command of one row: PPO from the start with the shared settings."""
        sets = {**ARM_SETTINGS, "eval_jobs": eval_jobs, **settings}
        return [
            "train",
            game,
            "--out",
            str(folder / row),
            "--init-from",
            str(init),
            f"--timesteps={steps_of_ppo}",
            *common,
            *(f"--set={k}={_toml(v)}" for k, v in sets.items()),
        ]

    for arm in ARMS:
        steps.append(
            Step(
                f"{task} {arm}",
                folder / arm,
                from_start(arm, timesteps, privileged_critic=arm == "privileged"),
                arm,
            )
        )
    steps.append(Step(f"{task} start policy", folder / START, from_start(START, 0), START))
    return steps


def _toml(value: object) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def _explained_variance(run: Path, last: int = 10) -> float | None:
    """The mean of PPO's last `last` logged explained variances (SB3's `train/explained_variance`; a part's
    first row, logged before any update, has none)."""
    values = []
    for part in sorted((run / "logs").glob("part_*")):
        path = part / "progress.csv"
        if path.is_file():
            with open(path, newline="") as handle:
                logged = [r.get("train/explained_variance") for r in csv.DictReader(handle)]
            values += [float(value) for value in logged if value]
    return sum(values[-last:]) / len(values[-last:]) if values else None


def arm_figures(run: Path) -> dict | None:
    """A finished arm's figures from its run folder (None while it is not finished): its PPO steps and
    speed, the critic's explained variance, the curve against the heuristic, and the final evaluation."""
    if not (run / "evaluation.json").is_file():
        return None
    summary = json.loads((run / "evaluation.json").read_text())
    with open(run / "curve.csv", newline="") as handle:
        curve = [
            {"step": int(row["step"]), "win_rate_vs_heuristic": float(row["win_rate_vs_heuristic"])}
            for row in csv.DictReader(handle)
            if row["stage"] == "ppo" and row.get("win_rate_vs_heuristic")
        ]
    final = {
        opponent: {key: figures[key] for key in ("win_rate", "ci95", "games")}
        for opponent, figures in summary.get("evaluation", {}).items()
    }
    return {
        "timesteps": summary.get("timesteps", 0),
        "steps_per_s": summary.get("ppo_steps_per_s", 0),
        "explained_variance": _explained_variance(run),
        "curve": curve,
        "final": final,
    }


# the options that make two summaries one measurement (which games, player counts and processes do not)
SAME_MEASUREMENT = ("timesteps", "start", "seed")


def earlier_summary(out: Path, options: dict) -> dict | None:
    """`out`'s summary.json, whose rows count as done even where their run folders are gone (a copy of the
    committed summary in a new folder resumes the measurement); one ValueError if it measured with other
    settings."""
    path = out / "summary.json"
    if not path.is_file():
        return None
    summary = load_summary(path)
    differ = [
        f"{key} {summary['options'][key]!r}, not {options[key]!r}"
        for key in SAME_MEASUREMENT
        if summary["options"].get(key) != options[key]
    ]
    if summary["arm_settings"] != ARM_SETTINGS:
        differ.append("other arm settings")
    if differ:
        raise ValueError(f"{path} holds a measurement with other settings ({'; '.join(differ)}): pass another --out")
    return summary


def collect(out: Path, command: str, options: dict, earlier: dict | None = None) -> dict:
    """summary.json: every finished arm under `out` (of any task, whichever command ran it) and every row of
    the `earlier` summary that no run folder replaces, the command that wrote it and its options, and the
    settings every arm shares."""
    tasks: dict[str, dict] = {task: dict(rows) for task, rows in (earlier or {}).get("tasks", {}).items()}
    for task in task_names(list(GAMES), list(PLAYERS)):
        rows = {row: arm_figures(out / task / row) for row in ROWS}
        if any(rows.values()):
            tasks.setdefault(task, {}).update({row: figures for row, figures in rows.items() if figures})
    return {
        "measurement": "privileged_ab",
        "command": command,
        "options": options,
        "arm_settings": ARM_SETTINGS,
        "tasks": tasks,
    }


def _rate(result: dict | None) -> str:
    if result is None:
        return "-"
    low, high = result["ci95"]
    return f"{result['win_rate']:.3f} ({low:.3f}-{high:.3f}) n={result['games']}"


def table(summary: dict) -> str:
    """The arms of every task side by side, as Markdown, and the tasks or arms not finished yet (of every
    game at 2 and 4 players)."""
    options, settings = summary["options"], summary["arm_settings"]
    lines = [
        f"PPO from the same start (`--start {options['start']}`), seed {options['seed']}, for the same steps "
        f"with and without `privileged_critic`; the curve every {settings['eval_every']:,} steps on seed + 1 "
        f"({settings['eval_games']} matches a point), the last policy on seed + 2; win rates with Wilson 95% "
        "intervals and matches played. The start row is the start policy itself on the same final evaluation.",
        "",
        "| task | arm | PPO steps | steps/s | explained variance (last 10) | curve vs heuristic (seed + 1) "
        "| final vs heuristic (seed + 2) | final vs random |",
        "|---|---|---|---|---|---|---|---|",
    ]
    unfinished = []
    for task in task_names(list(GAMES), list(PLAYERS)):
        arms = summary["tasks"].get(task, {})
        missing = [row for row in ROWS if row not in arms]
        if missing:
            unfinished.append(f"{task} ({'nothing yet' if len(missing) == len(ROWS) else ', '.join(missing)})")
        for row in ROWS:
            if row not in arms:
                continue
            figures = arms[row]
            points = ", ".join(
                f"{point['step'] // 1000}k {point['win_rate_vs_heuristic']:.2f}" for point in figures["curve"]
            )
            variance = figures["explained_variance"]
            final = figures["final"]
            speed = f"{figures['steps_per_s']:,.0f}" if figures["timesteps"] else "-"
            lines.append(
                f"| {task} | {row} | {figures['timesteps']:,} | {speed} "
                f"| {'-' if variance is None else f'{variance:.3f}'} | {points or '-'} "
                f"| {_rate(final.get('heuristic'))} | {_rate(final.get('random'))} |"
            )
    if unfinished:
        lines += ["", f"Not finished yet: {', '.join(unfinished)}."]
    return "\n".join(lines) + "\n"


def plot(summary: dict, path: str | Path) -> None:
    """The arms' learning curves side by side, one panel per task measured (a row per player count, a
    column per game):
    each arm's curve points on seed + 1 with their Wilson 95% bands, its final evaluation on seed + 2
    as a point with its interval just past the last step, and the start policy's final evaluation as a
    dashed line in its band, all against the heuristic; chance dotted."""
    import matplotlib
    import matplotlib.ticker

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from city_envs.evaluation.ratings import wilson_interval

    measured = set(summary["tasks"])
    counts = [n for n in PLAYERS if any(task in measured for task in task_names(list(GAMES), [n]))] or [PLAYERS[0]]
    games = [game for game in GAMES if any(task in measured for task in task_names([game], list(PLAYERS)))]
    games = games or [next(iter(GAMES))]
    matches = summary["arm_settings"]["eval_games"]
    figure, grid = plt.subplots(len(counts), len(games), figsize=(3.2 * len(games), 3.0 * len(counts)), squeeze=False)
    for (i, players), (j, game) in ((a, b) for a in enumerate(counts) for b in enumerate(games)):
        ax, task = grid[i][j], f"{game}_{players}p"
        if task not in measured:
            ax.set_visible(False)
            continue
        rows = summary["tasks"][task]
        ax.axhline(1 / players, color="grey", linestyle=":", linewidth=1)
        end = max((row["timesteps"] for row in rows.values()), default=0) or summary["options"]["timesteps"]
        start = rows.get(START, {}).get("final", {}).get("heuristic")
        if start:
            ax.axhline(start["win_rate"], color="black", linestyle="--", linewidth=1, label="start")
            ax.axhspan(*start["ci95"], color="black", alpha=0.08)
        for arm, colour in zip(ARMS, ("tab:blue", "tab:orange"), strict=True):
            if arm not in rows:
                continue
            curve = rows[arm]["curve"]
            steps = [point["step"] for point in curve]
            rates = [point["win_rate_vs_heuristic"] for point in curve]
            bands = [wilson_interval(rate * matches, matches) for rate in rates]
            ax.plot(steps, rates, marker="o", markersize=3, color=colour, label=arm)
            ax.fill_between(steps, [b[0] for b in bands], [b[1] for b in bands], color=colour, alpha=0.15)
            final = rows[arm]["final"].get("heuristic")
            if final:
                x = end * (1.04 if arm == "plain" else 1.08)
                low, high = final["ci95"]
                ax.errorbar(
                    [x],
                    [final["win_rate"]],
                    yerr=[[final["win_rate"] - low], [high - final["win_rate"]]],
                    fmt="s",
                    color=colour,
                    markersize=4,
                    capsize=2,
                )
        ax.set_ylim(0, 1)
        ax.set_title(task.replace("_", " "), fontsize=9)
        ax.set_xlabel("PPO steps (squares: final, seed + 2)", fontsize=7)
        ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda x, _: f"{x / 1000:.0f}k"))
        ax.tick_params(labelsize=7)
    shown = [ax for ax in grid.flatten() if ax.get_visible()]
    shown[0].set_ylabel("win rate vs heuristic", fontsize=8)
    shown[0].legend(fontsize=7, loc="lower left")
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)


def load_summary(path: str | Path) -> dict:
    """A summary.json this measurement wrote, checked for every figure its table reads; anything else is
    one ValueError naming the file."""
    return read_measurement(path, "privileged_ab", "a privileged_ab summary.json", table)


def doc_section(summary: dict, source: str | Path, page: str | Path) -> str:
    """The page's section: the table and a link to the JSON it was written from."""
    return f"{table(summary)}\nEvery figure, with the command that measured it: {link_from(page, source)}."


def write_doc(page: str | Path, source: str | Path) -> None:
    """Fill `page`'s privileged-ab section from the summary file `source` (one ValueError if the page has
    no such section or the file is not such a summary)."""
    write_sections(page, {SECTION: doc_section(load_summary(source), source, page)}, (SECTION,))


def publish(out: Path, command: str, options: dict, doc: str | None, earlier: dict | None = None) -> str:
    """Write summary.json and summary.md (and `doc`'s section) from the runs under `out` and the `earlier`
    summary's rows; the table."""
    summary = collect(out, command, options, earlier)
    out.mkdir(parents=True, exist_ok=True)
    (out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    text = table(summary)
    (out / "summary.md").write_text(text)
    if summary["tasks"]:
        plot(summary, out / "curves.png")
    if doc:
        write_doc(doc, out / "summary.json")
    return text


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(prog="python -m lab.privileged_ab", description=__doc__)
    parser.add_argument("--out", default="runs/privileged_ab", help="folder of every run, summary.json and .md")
    parser.add_argument("--games", nargs="+", default=list(GAMES), choices=GAMES)
    parser.add_argument("--players", nargs="+", type=int, default=list(PLAYERS), choices=PLAYERS)
    parser.add_argument("--timesteps", type=int, default=300_000, help="PPO steps of each arm")
    parser.add_argument("--start", choices=("warm", "baseline"), default="warm", help="what PPO starts from")
    parser.add_argument("--seed", type=int, default=0, help="the runs' seed (evaluations on seed + 1 and seed + 2)")
    parser.add_argument("--eval-jobs", type=int, default=1, help="processes of each evaluation (config: eval_jobs)")
    parser.add_argument("--dry-run", action="store_true", help="print the commands, run nothing")
    parser.add_argument("--doc", help=f"fill this page's <!-- tables:{SECTION} --> section from summary.json")
    parser.add_argument(
        "--from-json", dest="from_json", help="run nothing: write --doc (and --plot) from this summary.json"
    )
    parser.add_argument("--plot", help="with --from-json: draw the arms' curves (curves.png) into this file")
    args = parser.parse_args(argv)
    if args.from_json or args.doc or args.plot:
        try:  # a page without the section is refused before any run
            if args.from_json and not (args.doc or args.plot):
                raise ValueError("--from-json only writes a --doc page or a --plot")
            if args.plot and not args.from_json:
                raise ValueError("--plot draws a --from-json summary (a run draws curves.png in --out itself)")
            if args.doc and SECTION not in section_names(read_document(args.doc)):
                raise ValueError(f"{args.doc} has no <!-- tables:{SECTION} --> section to fill")
            if args.from_json:
                if args.doc:
                    write_doc(args.doc, args.from_json)
                    print(f"wrote {SECTION} into {args.doc} from {args.from_json}")
                if args.plot:
                    plot(load_summary(args.from_json), args.plot)
                    print(f"drew {args.plot} from {args.from_json}")
                return 0
        except (ValueError, OSError) as error:
            parser.error(str(error))
    if not 0 <= args.seed <= 900 or args.timesteps < 1 or args.eval_jobs < 1:  # seed + 2 is never 1000
        parser.error("--seed must be 0..900, --timesteps and --eval-jobs at least 1")
    out = Path(args.out)
    tasks = task_names(args.games, args.players)
    command = f"python -m lab.privileged_ab {shlex.join(argv)}"
    options = {
        "games": args.games,
        "players": args.players,
        "timesteps": args.timesteps,
        "start": args.start,
        "seed": args.seed,
        "eval_jobs": args.eval_jobs,
    }
    try:
        earlier = earlier_summary(out, options)
    except ValueError as error:
        parser.error(str(error))
    recorded = (earlier or {}).get("tasks", {})
    for task in tasks:
        for step in plan(out, task, args.timesteps, args.start, args.seed, args.eval_jobs):
            rows = recorded.get(task, {})
            if step.done() or (step.row in rows if step.row else set(ROWS) <= set(rows)):
                print(f"# {step.label}: done", flush=True)
                continue
            print(f"# {step.label}\ncity-envs {shlex.join(step.command())}", flush=True)
            if not args.dry_run:
                code = subprocess.run([sys.executable, "-m", "city_envs.cli", *step.command()]).returncode
                publish(out, command, options, args.doc, earlier)
                if code:
                    print(f"{step.label} stopped (exit status {code}): run again to resume it", file=sys.stderr)
                    return code
    if not args.dry_run:
        print(publish(out, command, options, args.doc, earlier), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
