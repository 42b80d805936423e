"""Comparing benchmark results of one suite: probability of improvement with its interval, a ranking
by maximal lotteries with each task as a voter, and OpenSkill ratings as a secondary number."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from city_envs.core.markdown import cell
from city_envs.core.progress import stage
from city_envs.evaluation.plots import plot_profiles, plot_tasks
from city_envs.evaluation.results import BenchmarkError
from city_envs.evaluation.scoring import score_array
from city_envs.evaluation.statistics import (
    BOOTSTRAP_REPS,
    maximal_lottery_tiers,
    openskill_over_tasks,
    probability_of_improvement,
    require_statistics,
)
from city_envs.evaluation.verify import require_verified


def suite_key(results: dict) -> dict:
    """What two results must share to be compared: the suite file, variant, matches and references."""
    suite = results["suite"]
    return {k: suite[k] for k in ("version", "variant", "matches", "env_version", "tasks", "lineups", "references")}


def labels_for(results: Sequence[dict], paths: Sequence[str | Path]) -> list[str]:
    """Each result's agent spec, or its folder where two results share a spec."""
    specs = [r["agent"]["spec"] for r in results]
    return [
        spec if specs.count(spec) == 1 else f"{spec} ({Path(p).name})" for spec, p in zip(specs, paths, strict=True)
    ]


def compare_results(paths: Sequence[str | Path], reps: int = BOOTSTRAP_REPS) -> tuple[dict, dict[str, dict]]:
    """Rank the results in `paths` (at least two) and measure how likely each beats the next; also the
    results by label."""
    if len(paths) < 2:
        raise BenchmarkError("compare needs at least two results")
    require_statistics()
    results = []
    with stage("verifying the results", len(paths), "results") as bar:
        for path in paths:
            results.append(require_verified(path))
            bar.advance()
    key = suite_key(results[0])
    for path, other in zip(paths[1:], results[1:], strict=True):
        if suite_key(other) != key:
            raise BenchmarkError(
                f"{path} was made with suite {other['suite']['suite']} "
                f"({other['suite']['version']}, variant {other['suite']['variant']}), "
                f"{paths[0]} with {results[0]['suite']['suite']}: results of different suites "
                "or versions are not comparable"
            )
    labels = labels_for(results, paths)
    if len(set(labels)) != len(labels):
        raise BenchmarkError("the same result is listed twice")
    named = dict(zip(labels, results, strict=True))
    task_scores = {label: [t["score"] for t in r["tasks"].values()] for label, r in named.items()}
    tiers = maximal_lottery_tiers(task_scores)
    ratings = openskill_over_tasks(task_scores)
    order = sorted(labels, key=lambda a: (tiers[a]["tier"], -named[a]["aggregate"]["iqm"]))
    improvements = []
    with stage("probability of improvement", len(order) - 1, "pairs") as bar:
        for better, worse in zip(order, order[1:], strict=False):
            poi = probability_of_improvement(score_array(named[better]), score_array(named[worse]), reps=reps)
            improvements.append({"x": better, "y": worse, **poi})
            bar.advance()
    return {
        "suite": results[0]["suite"]["suite"],
        "order": order,
        "agents": {
            a: {
                "path": str(paths[labels.index(a)]),
                "iqm": named[a]["aggregate"]["iqm"],
                "iqm_ci95": named[a]["aggregate"]["ci95"],
                "maximal_lottery": tiers[a],
                "openskill": ratings[a],
            }
            for a in order
        },
        "probability_of_improvement": improvements,
        "reps": reps,
    }, named


def format_comparison(comparison: dict) -> str:
    lines = [
        f"# Comparison on suite {cell(comparison['suite'])}",
        "",
        "Ranked by maximal lotteries with each task a voter (tier 1 first; within a tier by IQM).",
        "",
        "Lottery probability: the weight the maximal lottery of the agent's tier gives it. Tier by tier,",
        "each task votes among the agents not yet ranked for the one with the higher task score; the",
        "maximal lottery is the random pick among them that no agent beats on more votes than it loses,",
        "and the agents it does not beat form the tier. 1.000: the agent beats every agent remaining on",
        "a majority of tasks; shares below 1: a cycle (A beats B, B beats C, C beats A) splits the weight;",
        "0.000 within a tier: the agent only ties the lottery.",
        "",
        "| rank | agent | tier | lottery probability | IQM (95% CI) | OpenSkill mu ± sigma |",
        "|---|---|---|---|---|---|",
    ]
    for rank, (agent, a) in enumerate(comparison["agents"].items(), start=1):
        lines.append(
            f"| {rank} | {cell(agent)} | {a['maximal_lottery']['tier']} | "
            f"{a['maximal_lottery']['probability']:.3f} | {a['iqm']:.3f} ({a['iqm_ci95'][0]:.3f} to "
            f"{a['iqm_ci95'][1]:.3f}) | {a['openskill']['mu']:.1f} ± {a['openskill']['sigma']:.1f} |"
        )
    lines += ["", "| X | Y | P(X > Y) (95% CI) |", "|---|---|---|"]
    for p in comparison["probability_of_improvement"]:
        low, high = p["ci95"]
        lines.append(f"| {cell(p['x'])} | {cell(p['y'])} | {p['probability']:.3f} ({low:.3f}-{high:.3f}) |")
    return "\n".join(lines)


def write_comparison(paths: Sequence[str | Path], out: str | Path, reps: int = BOOTSTRAP_REPS) -> dict:
    comparison, named = compare_results(paths, reps)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "comparison.json").write_text(json.dumps(comparison, indent=1) + "\n")
    (out / "comparison.md").write_text(format_comparison(comparison) + "\n")
    with stage("drawing the plots", None, "plots"):
        plot_tasks(named, out / "tasks.png")
        plot_profiles({label: score_array(r) for label, r in named.items()}, out / "profile.png", reps=reps)
    return comparison
