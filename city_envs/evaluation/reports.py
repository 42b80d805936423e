"""Reports of an arena run: a Markdown table, results.json, matches.csv (with every match's actions,
so that `city-envs serve` can replay it), report.md and two plots."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np


def format_results(results: dict) -> str:
    """A small Markdown table of `evaluate`'s results."""
    lines = [
        f"{results['game']} {results['num_players']}p, {results['games']} games, seed {results['seed']}",
        "",
        "| agent | rating (mu ± sigma) | win rate | failures | 95% CI | mean score | mean decisions |",
        "|---|---|---|---|---|---|---|",
    ]
    for kind, a in results["agents"].items():
        rating = results["ratings"][kind]
        lines.append(
            f"| {kind} | {rating['mu']:.1f} ± {rating['sigma']:.1f} | {a['win_rate']:.3f} | {a['failures']} "
            f"| {a['ci_low']:.3f}-{a['ci_high']:.3f} | {a['mean_score']:.1f} | {a['mean_decisions']:.1f} |"
        )
    lines.append(
        f"\ntruncated matches: {results['truncated']}; failed matches: {len(results['failures'])} "
        "(each a loss for the agent that failed)"
    )
    return "\n".join(lines)


def write_reports(results: dict, out_dir: str | Path) -> list[Path]:
    """results.json, matches.csv (one row per match, with its actions, so that `city-envs serve` can
    replay it), report.md and two PNG plots (ratings, pairwise win rates)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    summary = {k: v for k, v in results.items() if k != "matches"}
    (out / "results.json").write_text(json.dumps(summary, indent=2))
    with open(out / "matches.csv", "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(
            ["match", "seed", "seats", "scores", "winners", "length", "truncated", "failed", "reason", "actions"]
        )
        for r in results["matches"]:
            writer.writerow(
                [
                    r["match"],
                    r["seed"],
                    " ".join(r["kinds"]),
                    " ".join(f"{x:g}" for x in r["scores"]),
                    " ".join(map(str, r["winners"])),
                    sum(r["decisions"]),
                    r["truncated"],
                    r["failed"],
                    r["reason"],
                    " ".join(map(str, r.get("history", ()))),
                ]
            )
    report = [f"# {results['game']}, {results['num_players']} players", "", format_results(results), ""]
    if results["failures"]:
        report += ["## Failed matches", "", "| match | seed | seats | reason |", "|---|---|---|---|"]
        report += [
            f"| {f['match']} | {f['seed']} | {', '.join(f['kinds'])} | {f['reason']} |" for f in results["failures"]
        ]
    report += _match_links(results)
    (out / "report.md").write_text("\n".join(report) + "\n")
    paths = [out / "results.json", out / "matches.csv", out / "report.md"]
    paths += _plots(results, out)
    return paths


VIEWER = "http://127.0.0.1:8000"  # where `city-envs serve` listens by default


def _match_links(results: dict) -> list[str]:
    """Every match with a link that opens it in the web viewer started on this folder."""
    lines = [
        "## Matches",
        "",
        f"Watch any match: `city-envs serve <this folder>` (the `web` extra), then follow its link ({VIEWER}).",
        "",
        "| match | seats | winners | decisions | replay |",
        "|---|---|---|---|---|",
    ]
    for r in results["matches"]:
        winners = ", ".join(f"seat {w}" for w in r["winners"]) if not r["failed"] else "failed"
        lines.append(
            f"| {r['match']} | {', '.join(r['kinds'])} | {winners} | {sum(r['decisions'])} "
            f"| [watch]({VIEWER}/replay?src=0&match={r['match']}) |"
        )
    return lines + [""]


def _plots(results: dict, out: Path) -> list[Path]:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    names = list(results["ratings"])
    fig = Figure(figsize=(6, 3.5), dpi=100)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    mus = [results["ratings"][k]["mu"] for k in names]
    sigmas = [results["ratings"][k]["sigma"] for k in names]
    ax.errorbar(range(len(names)), mus, yerr=sigmas, fmt="o", capsize=6)
    ax.set_xticks(range(len(names)), names)
    ax.set_ylabel("OpenSkill mu ± sigma")
    ax.set_title(f"{results['game']} {results['num_players']}p, {results['games']} games")
    fig.tight_layout()
    fig.savefig(out / "ratings.png")

    fig = Figure(figsize=(5, 4), dpi=100)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    grid = np.array(
        [[np.nan if results["pairwise"][a][b] is None else results["pairwise"][a][b] for b in names] for a in names],
        dtype=float,
    )
    image = ax.imshow(grid, vmin=0, vmax=1, cmap="RdYlGn")
    ax.set_xticks(range(len(names)), names)
    ax.set_yticks(range(len(names)), names)
    for i in range(len(names)):
        for j in range(len(names)):
            if not np.isnan(grid[i, j]):
                ax.text(j, i, f"{grid[i, j]:.2f}", ha="center", va="center", fontsize=9)
    ax.set_title("row finishes ahead of column")
    fig.colorbar(image, ax=ax)
    fig.tight_layout()
    fig.savefig(out / "pairwise.png")
    return [out / "ratings.png", out / "pairwise.png"]
