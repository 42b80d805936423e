"""The benchmark's plots: task scores with intervals, and performance profiles with bands."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from city_envs.evaluation.statistics import BOOTSTRAP_REPS, performance_profile

PROFILE_TAUS = np.linspace(-1.0, 1.0, 41)


def plot_tasks(named: dict[str, dict], path: Path) -> None:
    """Per-task scores with their 95% intervals, one bar per result, and each result's IQM band."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    first = next(iter(named.values()))
    tasks = list(first["tasks"])
    width = 0.8 / len(named)
    fig = Figure(figsize=(max(6.0, 0.9 * len(tasks) + 2), 4), dpi=100)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    for i, (label, results) in enumerate(named.items()):
        scores = [results["tasks"][t]["score"] for t in tasks]
        low = [s - results["tasks"][t]["ci95"][0] for s, t in zip(scores, tasks, strict=True)]
        high = [results["tasks"][t]["ci95"][1] - s for s, t in zip(scores, tasks, strict=True)]
        x = np.arange(len(tasks)) + (i - (len(named) - 1) / 2) * width
        bars = ax.bar(x, scores, width, yerr=[low, high], capsize=3, label=label)
        agg = results["aggregate"]
        ax.axhspan(agg["ci95"][0], agg["ci95"][1], color=bars.patches[0].get_facecolor(), alpha=0.15)
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_xticks(range(len(tasks)), tasks, rotation=30, ha="right", fontsize=8)
    ax.set_ylabel("task score (0 = chance, 1 = always wins)")
    ax.set_title(f"suite {first['suite']['suite']}: task scores, 95% CI; bands: IQM 95% CI")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)


def plot_profiles(
    scores: dict[str, np.ndarray], path: Path, over_runs: bool = False, reps: int = BOOTSTRAP_REPS
) -> None:
    """Performance profiles with 95% bands (`statistics.performance_profile`), one line per label."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    profiles, bands = performance_profile(scores, PROFILE_TAUS, over_runs, reps=reps)
    fig = Figure(figsize=(6, 4), dpi=100)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    for label in scores:
        line = ax.plot(PROFILE_TAUS, profiles[label], label=label)[0]
        ax.fill_between(PROFILE_TAUS, bands[label][0], bands[label][1], color=line.get_color(), alpha=0.2)
    ax.set_xlabel("task score threshold tau (0 = chance)")
    ax.set_ylabel("share of (run, task) scores > tau" if over_runs else "share of tasks with score > tau")
    ax.set_ylim(0, 1.02)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
