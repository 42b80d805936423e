"""The benchmark's figures, computed from match records alone (no files, no matches played).

A match's score for the candidate is its win share normalised to chance,
`(share - 1/n) / (1 - 1/n)`: 1 for a win, 0 for a seat that does no better than chance (or a tie of
two at 2 players), -1/(n-1) for a loss. A line-up's score is the mean over its matches, a task's the
mean over its line-ups, and the aggregate the interquartile mean over tasks, with 95% stratified-
bootstrap intervals (`statistics`). Running a benchmark and verifying one both compute their figures here.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from city_envs.evaluation.ratings import counts, wilson_interval
from city_envs.evaluation.statistics import BOOTSTRAP_REPS, BOOTSTRAP_SEED, aggregate


def candidate_matches(records: Sequence[dict], players: int) -> dict[str, list]:
    """The candidate's win share and score margin (its score less the mean of the other seats') in each
    match; the candidate sits first in the line-up, so the arena's rotation puts it in seat
    `match % players`. A match that failed through no agent's fault counts for nobody (None)."""
    shares: list[float | None] = []
    margins: list[float | None] = []
    for record in records:
        seat = record["match"] % players
        if not counts(record):
            shares.append(None)
            margins.append(None)
            continue
        shares.append(float(record["win_share"][seat]))
        others = [s for i, s in enumerate(record["scores"]) if i != seat]
        margins.append(None if record["failed"] else float(record["scores"][seat] - np.mean(others)))
    return {
        "win_share": shares,
        "margin": margins,
        "failures": sum(bool(r["failed"]) and r.get("culprit") == r["match"] % players for r in records),
    }


def normalised(shares: Sequence[float | None], players: int) -> np.ndarray:
    """Win shares normalised to chance (NaN for matches that count for nobody)."""
    chance = 1.0 / players
    values = np.array([np.nan if s is None else s for s in shares], dtype=float)
    return (values - chance) / (1.0 - chance)


def lineup_summary(matches: dict[str, list], players: int) -> dict:
    """A line-up's win rate with its Wilson interval, mean margin, failures and score."""
    shares = [s for s in matches["win_share"] if s is not None]
    margins = [m for m in matches["margin"] if m is not None]
    low, high = wilson_interval(sum(shares), len(shares))
    return {
        "win_rate": sum(shares) / len(shares) if shares else 0.0,
        "ci95": [low, high],
        "mean_margin": float(np.mean(margins)) if margins else 0.0,
        "failures": matches["failures"],
        "score": float(np.nanmean(normalised(matches["win_share"], players))) if shares else 0.0,
    }


def task_score(task_result: dict) -> float:
    """A task's score: the mean over its line-ups of their scores."""
    return float(np.mean([s["score"] for s in task_result["lineups"].values()]))


def score_array(results: dict) -> np.ndarray:
    """(matches, tasks, line-ups) of normalised match scores, NaN where a task has fewer line-ups."""
    tasks = results["tasks"]
    width = max(len(t["lineups"]) for t in tasks.values())
    rows = results["suite"]["matches"]
    scores = np.full((rows, len(tasks), width), np.nan)
    for column, task in enumerate(tasks.values()):
        for depth, lineup in enumerate(task["lineups"].values()):
            scores[:, column, depth] = normalised(lineup["win_share"], task["players"])
    return scores


def add_aggregate(results: dict, reps: int = BOOTSTRAP_REPS) -> None:
    """The task scores and their IQM, with stratified-bootstrap 95% intervals, into `results`."""
    summary = aggregate(score_array(results), reps=reps)
    for task, value, ci in zip(results["tasks"].values(), summary["task_scores"], summary["task_ci95"], strict=True):
        task["score"], task["ci95"] = value, ci
    results["aggregate"] = {
        "iqm": summary["iqm"],
        "ci95": summary["iqm_ci95"],
        "bootstrap": {"reps": reps, "seed": BOOTSTRAP_SEED, "method": "percentile, stratified"},
    }
