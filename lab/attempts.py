"""The ledger of training attempts: every run tried on the way to a baseline, adopted or not, with its
settings and curve read from its own run folder, kept in one JSON file that writes docs/training.md's
table of them.

An attempt that failed is a result too (the project reports every one, with its figures), and a figure
typed into a page drifts from the run that made it. So a run's figures enter the docs only this way:

    python -m lab.attempts add runs/m4p_ei --label "Metropolys 4p, expert iteration" \\
        --why "the guided search as teacher" --start-record training/baselines/metropolys_4p.json
    python -m lab.attempts --from-json benchmarks/attempts.json --doc docs/training.md

`add` reads the run's `config.toml` (the settings that tell attempts apart), its curve (`curve.csv`,
and `expert/curve.json` for expert rounds evaluated before the run chose its model) and its expert
rounds (`expert/rounds.json`), and whether it finished (`evaluation.json`) or where it stopped; it
adds the entry to the ledger (`--ledger`, default `benchmarks/attempts.json`) or replaces the one of
the same label. `--start-record` names the committed baseline record the run started from: its chosen
curve point is the row the attempt's points read against, so the recipe beside it (`<record>.toml`)
must have the run's seed (each curve is on its run's `seed + 1`). The run folder
itself is not kept; the ledger is.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import fields
from pathlib import Path
from typing import Any

from city_envs.core.markdown import link_from, write_sections
from city_envs.core.settings import read_document, read_measurement, read_toml
from city_envs.training.config import TrainConfig
from city_envs.training.evaluation import read_curve
from lab.doc_option import add_doc_options, write_from_json

LEDGER = Path("benchmarks/attempts.json")
SECTION = "attempts"  # the page's <!-- tables:attempts --> section
OPPONENTS = ("heuristic", "random")
# the settings of a run that tell attempts apart (the rest is the committed recipe's)
SETTINGS = (
    "init_from",
    "pretrain",
    "timesteps",
    "reward",
    "privileged_critic",
    "pool_self",
    "pool_heuristic",
    "pool_random",
    "learning_rate",
    "expert_rounds",
    "expert_matches",
    "expert_iters",
    "expert_temperature",
    "expert_epochs",
    "expert_lr",
    "seed",
)
# the opponent pool of a recipe that does not set one (an attempt shows its own only when it differs)
DEFAULT_POOL = {
    kind: next(f.default for f in fields(TrainConfig) if f.name == f"pool_{kind}")
    for kind in ("self", "heuristic", "random")
}
ROUND_FIGURES = ("matches", "samples", "search_win_rate", "val_agreement", "val_value_mse", "play_seconds")


def point(row: dict) -> dict:
    """One curve row as the ledger keeps it: the stage, PPO step and each opponent's figures."""
    figures = {
        opponent: {
            "win_rate": row[f"win_rate_vs_{opponent}"],
            "ci95": [row[f"ci_low_vs_{opponent}"], row[f"ci_high_vs_{opponent}"]],
            "games": row[f"games_vs_{opponent}"],
        }
        for opponent in OPPONENTS
        if row.get(f"win_rate_vs_{opponent}") not in (None, "")
    }
    return {"stage": row["stage"], "step": row["step"], **figures}


def run_curve(run: Path) -> list[dict]:
    """The run's evaluated points in order: `curve.csv`, then expert rounds it does not hold yet (a run
    stopped before choosing its model has them only in `expert/curve.json`)."""
    rows = read_curve(run)
    expert = run / "expert" / "curve.json"
    if expert.is_file():
        stages = {row["stage"] for row in rows}
        rows += [row for row in json.loads(expert.read_text()) if row["stage"] not in stages]
    return [point(row) for row in rows]


def record(run: str | Path, label: str, why: str, start_record: str | Path | None = None) -> dict:
    """The ledger entry of the run folder `run` (one ValueError if it holds no run)."""
    run = Path(run)
    if not (run / "config.toml").is_file():
        raise ValueError(f"{run} holds no run (config.toml is missing)")
    config = read_toml(run / "config.toml")
    settings = {key: config[key] for key in SETTINGS if key in config}
    if settings.get("init_from"):
        settings["init_from"] = Path(settings["init_from"]).name
    rounds_file = run / "expert" / "rounds.json"
    rounds = json.loads(rounds_file.read_text()) if rounds_file.is_file() else []
    curve = run_curve(run)
    finished = (run / "evaluation.json").is_file()
    entry = {
        "label": label,
        "why": why,
        "game": config["game"],
        "players": config["players"],
        "settings": settings,
        "finished": finished,
        "start": None,
        "curve": curve,
        "expert_rounds": [{key: r[key] for key in ("round", *ROUND_FIGURES) if key in r} for r in rounds],
    }
    if not finished:
        entry["stopped_after"] = _where(curve[-1]) if curve else None
    else:
        entry["final"] = final_evaluation(run / "evaluation.json")
    if start_record:
        baseline = json.loads(read_document(start_record))
        if not isinstance(baseline, dict) or (baseline.get("game"), baseline.get("players")) != (
            config["game"],
            config["players"],
        ):
            raise ValueError(f"{start_record} is not a {config['players']}-player {config['game']} record")
        recipe = Path(start_record).with_suffix(".toml")  # the record's run, whose seed its curve used
        if not recipe.is_file() or read_toml(recipe).get("seed") != config.get("seed"):
            raise ValueError(
                f"{start_record}: its curve is comparable only with the seed of its recipe {recipe.name}, "
                f"which is missing or not this run's seed {config.get('seed')}"
            )
        chosen = baseline.get("selected") or (baseline.get("curve") or [None])[-1]
        if chosen is None:
            raise ValueError(f"{start_record} has no curve point to start from")
        entry["start"] = {"record": Path(start_record).name, **point(chosen)}
    return entry


def final_evaluation(path: Path) -> dict | None:
    """The run's model on its final seed (`seed + 2`, from evaluation.json), as a curve point is kept;
    None when the run made no final evaluation."""
    summary = json.loads(path.read_text())
    results = summary.get("evaluation") if isinstance(summary, dict) else None
    if not results:
        return None
    figures = {
        side: {"win_rate": r["win_rate"], "ci95": r["ci95"], "games": r["games"]}
        for side, r in results.items()
        if side in OPPONENTS
    }
    return {"stage": "final", "step": summary.get("timesteps", 0), "seed": summary.get("eval_seed"), **figures}


def add(ledger: Path, entry: dict) -> dict:
    """The ledger with `entry` added, or in place of the entry of the same label; written back."""
    data: dict[str, Any] = load_ledger(ledger) if ledger.is_file() else {"measurement": "attempts", "attempts": []}
    labels = [a["label"] for a in data["attempts"]]
    if entry["label"] in labels:
        data["attempts"][labels.index(entry["label"])] = entry
    else:
        data["attempts"].append(entry)
    ledger.parent.mkdir(parents=True, exist_ok=True)
    ledger.write_text(json.dumps(data, indent=1) + "\n")
    return data


def _rate(figures: dict | None) -> str:
    if not figures:
        return "-"
    low, high = figures["ci95"]
    return f"{figures['win_rate']:.2f} ({low:.2f}-{high:.2f}) n={figures['games']}"


def _where(p: dict) -> str:
    return f"{p['stage']} {p['step'] // 1000}k" if p["stage"] == "ppo" else p["stage"]


def table(data: dict) -> str:
    """Every attempt's points against the heuristic and random play, and the expert rounds' own figures."""
    lines = [
        "Win rates on the run's selection seed (`seed + 1`) with Wilson 95% intervals and matches played; "
        "`start` is the committed policy the run began from, on the same seed; `final` is the run's model on "
        "its final seed (`seed + 2`), where the run finished. Chance against the heuristic is 1/players.",
        "",
        "| attempt | task | what ran | point | vs heuristic | vs random |",
        "|---|---|---|---|---|---|",
    ]
    expert_lines = []
    for attempt in data["attempts"]:
        settings = attempt["settings"]
        ran = []
        if settings.get("timesteps"):
            ran.append(f"PPO {settings['timesteps']:,} steps")
        if settings.get("expert_rounds"):
            ran.append(
                f"{settings['expert_rounds']} expert rounds of {settings['expert_matches']} matches at "
                f"{settings['expert_iters']} iterations"
            )
        if settings.get("privileged_critic"):
            ran.append("privileged critic")
        pool = tuple(settings.get(f"pool_{kind}", DEFAULT_POOL[kind]) for kind in DEFAULT_POOL)
        if pool != tuple(DEFAULT_POOL.values()):
            ran.append("opponents " + ", ".join(f"{kind} {w:g}" for kind, w in zip(DEFAULT_POOL, pool, strict=True)))
        if not attempt["finished"]:
            ran.append(f"stopped after {attempt.get('stopped_after') or 'no point'}")
        task = f"{attempt['game']} {attempt['players']}p"
        points = ([attempt["start"]] if attempt["start"] else []) + attempt["curve"]
        points += [attempt["final"]] if attempt.get("final") else []
        for i, p in enumerate(points):
            name = f"start ({attempt['start']['stage']})" if attempt["start"] and i == 0 else _where(p)
            name = f"final (seed {p['seed']})" if p["stage"] == "final" else name
            first = i == 0
            lines.append(
                f"| {attempt['label'] if first else ''} | {task if first else ''} | {'; '.join(ran) if first else ''} "
                f"| {name} | {_rate(p.get('heuristic'))} | {_rate(p.get('random'))} |"
            )
        for r in attempt["expert_rounds"]:
            expert_lines.append(
                f"| {attempt['label']} | {r['round']} | {r['matches']} | {r['samples']:,} "
                f"| {r['search_win_rate']:.2f} | {r['val_agreement']:.3f} | {r['val_value_mse']:.3f} "
                f"| {r['play_seconds']:,.0f} |"
            )
    if expert_lines:
        lines += [
            "",
            "Expert rounds: the search's win rate is against the run's opponent pool (not the heuristic "
            "alone); agreement and value error are the fitted network's on the round's held-out matches.",
            "",
            "| attempt | round | matches | decisions | search win rate | held-out agreement "
            "| held-out value mse | play s |",
            "|---|---|---|---|---|---|---|---|",
            *expert_lines,
        ]
    whys = [f"- **{a['label']}**: {a['why']}" for a in data["attempts"] if a["why"]]
    return "\n".join(lines + ([""] + whys if whys else [])) + "\n"


def load_ledger(path: str | Path) -> dict:
    """A ledger this module wrote, checked for every figure its table reads; anything else is one
    ValueError naming the file."""
    return read_measurement(path, "attempts", "an attempts ledger", table)


def doc_section(data: dict, source: str | Path, page: str | Path) -> str:
    return f"{table(data)}\nEvery figure, with each run's settings: {link_from(page, source)}."


def write_doc(page: str | Path, source: str | Path) -> None:
    """Fill `page`'s attempts section from the ledger `source` (one ValueError if either is wrong)."""
    write_sections(page, {SECTION: doc_section(load_ledger(source), source, page)}, (SECTION,))


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(
        prog="python -m lab.attempts",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("action", nargs="?", choices=("add",), help="add a run folder to the ledger")
    parser.add_argument("run", nargs="?", help="the run folder to add")
    parser.add_argument("--label", help="the attempt's name (an entry of the same label is replaced)")
    parser.add_argument("--why", default="", help="what was tried and why, in a sentence")
    parser.add_argument("--start-record", help="the committed baseline record (JSON) the run started from")
    parser.add_argument("--ledger", default=str(LEDGER), help="the ledger file (default: %(default)s)")
    add_doc_options(parser, SECTION, "ledger")
    args = parser.parse_args(argv)
    try:
        if args.from_json and args.action:
            raise ValueError("--from-json only writes a --doc page")
        if write_from_json(args, SECTION, write_doc):
            return 0
        if args.action != "add" or not args.run or not args.label:
            raise ValueError("add RUN --label TEXT adds a run; --from-json LEDGER --doc PAGE writes a page")
        ledger = Path(args.ledger)
        data = add(ledger, record(args.run, args.label, args.why, args.start_record))
        if args.doc:
            write_doc(args.doc, ledger)
    except (ValueError, OSError) as error:
        parser.error(str(error))
    print(table(data), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
