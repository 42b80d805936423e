"""A benchmark result's reports, made from its figures alone: the Markdown report, the marl-eval
export and the plots, written beside `results.json`."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from city_envs.evaluation.plots import plot_profiles, plot_tasks
from city_envs.evaluation.results import write_results
from city_envs.evaluation.scoring import normalised, score_array


def timing(results: dict) -> str:
    """How long the run took and on how many workers; a resumed run's clock holds only its last part."""
    if results.get("jobs") is None:  # written before runs recorded how they ran
        return f"Took {results['seconds']:.0f} s"
    where = f"{results['jobs']} {'job' if results['jobs'] == 1 else 'jobs'} ({results['backend']})"
    if results["resumed"]:
        return f"Resumed: its last part took {results['seconds']:.0f} s on {where}"
    return f"Took {results['seconds']:.0f} s on {where}"


def format_agent_results(results: dict) -> str:
    """The Markdown report: the aggregate, then each task's score and each line-up's figures."""
    agg = results["aggregate"]
    suite = results["suite"]
    lines = [
        f"# {results['agent']['spec']} on suite {suite['suite']}",
        "",
        f"IQM over {len(results['tasks'])} tasks: **{agg['iqm']:.3f}** (95% CI {agg['ci95'][0]:.3f} to "
        f"{agg['ci95'][1]:.3f}; stratified bootstrap, {agg['bootstrap']['reps']} resamples). "
        f"{suite['matches']} matches per line-up; score 1 = wins every match, 0 = chance.",
        "",
        "| task | score (95% CI) | line-up | win rate (95% CI) | mean margin | failures |",
        "|---|---|---|---|---|---|",
    ]
    for name, task in results["tasks"].items():
        first = True
        for lineup, s in task["lineups"].items():
            head = f"{task['score']:.3f} ({task['ci95'][0]:.3f} to {task['ci95'][1]:.3f})" if first else ""
            lines.append(
                f"| {name if first else ''} | {head} | {lineup} | {s['win_rate']:.3f} ({s['ci95'][0]:.3f}-"
                f"{s['ci95'][1]:.3f}) | {s['mean_margin']:+.1f} | {s['failures']} |"
            )
            first = False
    versions = ", ".join(f"{k} {v}" for k, v in results["versions"].items())
    lines += ["", f"Versions: {versions}. {timing(results)}."]
    if results.get("salt"):
        lines.append(f"Played on secret seeds from a salt of SHA-256 {results['salt']['sha256']}.")
    return "\n".join(lines)


def marl_eval_export(results: dict) -> dict:
    """The results in marl-eval's raw-data layout (environment, task, algorithm, run, step): one run
    per line-up, one evaluation at step 0, each match an evaluation episode of `win_share`,
    `normalised_score` and `score_margin`; `absolute_metrics` repeat them, as no larger final
    evaluation exists for a fixed agent."""
    algorithm = results["agent"]["spec"]
    export: dict[str, dict] = {"city_envs": {}}
    for name, task in results["tasks"].items():
        runs = {}
        for i, (_lineup, s) in enumerate(task["lineups"].items()):
            metrics = {
                "win_share": [x for x in s["win_share"] if x is not None],
                "normalised_score": [float(x) for x in normalised(s["win_share"], task["players"]) if not np.isnan(x)],
                "score_margin": [x for x in s["margin"] if x is not None],
            }
            runs[f"run_{i}"] = {"step_0": {"step_count": 0, **metrics}, "absolute_metrics": metrics}
        export["city_envs"][name] = {algorithm: runs}
    return export


def write_agent_reports(results: dict, out: Path) -> dict:
    """`results.json` (through `results.ResultFile`), `report.md`, `marl_eval.json`, `tasks.png` and
    `profile.png` in `out`; the results as written."""
    results = write_results(results, out)
    (out / "report.md").write_text(format_agent_results(results) + "\n")
    (out / "marl_eval.json").write_text(json.dumps(marl_eval_export(results)) + "\n")
    named = {results["agent"]["spec"]: results}
    plot_tasks(named, out / "tasks.png")
    reps = results["aggregate"]["bootstrap"]["reps"]  # the bands resample as often as the run's intervals
    plot_profiles({label: score_array(r) for label, r in named.items()}, out / "profile.png", reps=reps)
    return results
