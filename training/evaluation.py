"""How a trained policy is measured: seat-rotated arena matches, tables and learning curves."""

from __future__ import annotations

import csv
import math
import re
from pathlib import Path
from typing import Any

from city_envs.agents.registry import HEURISTICS
from city_envs.core.progress import stage


def evaluate_model(
    model_path: str | Path,
    game: str,
    players: int,
    games: int,
    seed: int,
    jobs: int = 1,
    opponents: tuple[str, ...] = ("random", "heuristic"),
    sample: bool = False,
    label: str = "evaluation",
    **options: Any,
) -> dict[str, dict]:
    """Seat-rotated arena matches of the policy (greedy, or sampling) against each opponent kind filling
    every other seat; win rates with Wilson 95% intervals (ties share the win). `label` names its
    progress bar, which counts the matches against every opponent."""
    spec = f"ppo:{Path(model_path).resolve()}" + (":sample" if sample else "")
    return evaluate_agent(spec, game, players, games, seed, jobs, opponents, label, **options)


def evaluate_agent(
    spec: str,
    game: str,
    players: int,
    games: int,
    seed: int,
    jobs: int = 1,
    opponents: tuple[str, ...] = ("random", "heuristic"),
    label: str = "evaluation",
    **options: Any,
) -> dict[str, dict]:
    """`evaluate_model` for any agent spec (the baselines' reference rows: the heuristic against random)."""
    from city_envs.evaluation.arena import evaluate
    from city_envs.evaluation.workers import Runner

    playing = [opponent for opponent in opponents if opponent != "heuristic" or game in HEURISTICS]
    results = {}
    with stage(label, games * len(playing), "matches"):
        for opponent in playing:
            result = evaluate(game, players, [spec] + [opponent] * (players - 1), games, seed, Runner(jobs), **options)
            a = result["agents"][spec]
            results[opponent] = {
                "games": games,
                "win_rate": a["win_rate"],
                "ci95": [a["ci_low"], a["ci_high"]],
                "mean_score": a["mean_score"],
                "opponent_mean_score": result["mean_score"][opponent],
                "failures": len(result["failures"]),
            }
    return results


def format_evaluation(results: dict[str, dict], title: str) -> str:
    lines = [
        title,
        "",
        "| opponent | games | win rate | 95% CI | mean score (policy vs opponent) |",
        "|---|---|---|---|---|",
    ]
    for opponent, r in results.items():
        lines.append(
            f"| {opponent} | {r['games']} | {r['win_rate']:.3f} | {r['ci95'][0]:.3f}-{r['ci95'][1]:.3f} "
            f"| {r['mean_score']:.1f} vs {r['opponent_mean_score']:.1f} |"
        )
    return "\n".join(lines)


def curve_row(stage: str, step: int, seconds: float, results: dict[str, dict]) -> dict:
    """One point of a run's learning curve (`curve.csv`)."""
    row: dict[str, Any] = {"stage": stage, "step": step, "seconds": round(seconds, 1)}
    for opponent, r in results.items():
        row[f"win_rate_vs_{opponent}"] = round(r["win_rate"], 4)
        row[f"ci_low_vs_{opponent}"] = round(r["ci95"][0], 4)
        row[f"ci_high_vs_{opponent}"] = round(r["ci95"][1], 4)
        row[f"games_vs_{opponent}"] = r["games"]
    return row


CURVE_STAGE = re.compile(r"clone|init|average|ppo|(dagger|expert) \d{1,4}")  # `_evaluate_point` stages
CURVE_FIGURE = re.compile(r"step|seconds|(win_rate|ci_low|ci_high|games)_vs_\w{1,40}")


def read_curve(out: Path) -> list[dict]:
    """The rows of a run's `curve.csv` (numbers as numbers, without the policy file paths): a stage of
    `curve_row`'s and finite figures >= 0 in its columns, or one ValueError naming the file (its rows go
    into the baselines' records and the runs table of docs/training.md)."""
    path = out / "curve.csv"
    if not path.is_file():
        return []
    try:
        with open(path, newline="") as handle:
            rows = list(csv.DictReader(handle))
    except (csv.Error, UnicodeDecodeError) as error:
        raise ValueError(f"{path} is not a curve CSV: {error}") from None

    def figure(key: str, text: str) -> float:
        try:
            value = int(text) if text.isascii() and text.isdigit() and len(text) < 19 else float(text)
        except ValueError:
            value = math.nan
        if not math.isfinite(value) or value < 0:
            raise ValueError(f"{path}: {key} is {text[:40]!r}, not a finite figure >= 0")
        return value

    curve = []
    for row in rows:
        point: dict[str, Any] = {}
        for key, text in row.items():
            if key == "policy" or text == "":
                continue
            if key == "stage" and isinstance(text, str) and CURVE_STAGE.fullmatch(text):
                point[key] = text
            elif isinstance(key, str) and isinstance(text, str) and CURVE_FIGURE.fullmatch(key):
                point[key] = figure(key, text)
            else:
                raise ValueError(f"{path}: column {str(key)[:40]!r} = {str(text)[:40]!r} is not a curve's")
        curve.append(point)
    return curve


def write_curve(out: Path, rows: list[dict], title: str) -> None:
    """`curve.csv` and `learning_curve.png`: win rates (with 95% intervals) after each warm-start round
    and at each PPO evaluation."""
    keys = list(dict.fromkeys(k for row in rows for k in row))
    with open(out / "curve.csv", "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=keys)
        writer.writeheader()
        writer.writerows(rows)
    if not rows:
        return
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    labels = [f"ppo {r['step'] / 1000:,.0f}k" if r["stage"] == "ppo" else r["stage"] for r in rows]
    x = list(range(len(rows)))
    for opponent in ("random", "heuristic"):
        key = f"win_rate_vs_{opponent}"
        points = [(i, r) for i, r in zip(x, rows, strict=True) if key in r]
        if not points:
            continue
        xs = [i for i, _ in points]
        ax.plot(xs, [r[key] for _, r in points], marker="o", label=f"vs {opponent}")
        ax.fill_between(
            xs,
            [r[f"ci_low_vs_{opponent}"] for _, r in points],
            [r[f"ci_high_vs_{opponent}"] for _, r in points],
            alpha=0.2,
        )
    ax.set_xticks(x, labels, fontsize=7, rotation=45, ha="right")  # a long run has many points
    ax.set_ylim(0, 1)
    ax.set_ylabel("win rate (95% CI)")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(out / "learning_curve.png", dpi=100)
    plt.close(fig)
