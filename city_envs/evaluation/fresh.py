"""Fresh matches for a recorded result: `city-envs benchmark verify DIR --fresh N`.

The recorded agent plays N new matches per task, shared equally by the task's line-ups, on secret
seeds that nobody knew before (a salt drawn with `secrets` for this check alone, `salted_seed`). Each
task's fresh score is then checked against the recorded one: an agent whose recorded score came from
knowing the public seeds, or from anything but its play, falls outside.

The recorded 95% interval is the interval of the recorded score, over the recorded matches; a score
over N fresh matches varies more than that (a few fresh matches, much more). So a fresh score is
checked against the recorded score's 95% prediction interval for N fresh matches: the recorded
score plus or minus 1.96 times the square root of, over the line-ups, var * (1/n + 1/m) / L^2 (n
recorded and m fresh matches of each of the L line-ups). Each line-up's variance is that of its
recorded match scores with one loss and one win added, so that a line-up that always lost (or won)
still allows the other outcome now and then.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from statistics import NormalDist

import numpy as np

from city_envs.evaluation.benchmark import check_agent, evaluate_task
from city_envs.evaluation.provenance import agent_files
from city_envs.evaluation.results import BenchmarkError
from city_envs.evaluation.scoring import normalised, task_score
from city_envs.evaluation.suite import Suite, SuiteError, load_suite
from city_envs.evaluation.workers import Runner

Z95 = NormalDist().inv_cdf(0.975)


def fresh_suite(results: dict, matches: int) -> Suite:
    """The suite of `results`, once `matches` fresh matches per task can be shared equally by each
    task's line-ups and seats; otherwise a `BenchmarkError` in one line."""
    if matches < 1:
        raise BenchmarkError(f"--fresh {matches}: the fresh matches per task must be at least 1")
    try:
        suite = load_suite(results["suite"]["suite"])
    except SuiteError as error:
        raise BenchmarkError(f"--fresh: {error}") from None
    for task in suite.tasks:
        share = len(suite.lineups_for(task)) * task.players
        if matches % share:
            raise BenchmarkError(
                f"--fresh {matches}: {task.name} shares its matches among {len(suite.lineups_for(task))} "
                f"line-ups and {task.players} seats, so N must be a multiple of {share}"
            )
    return suite


def prediction_interval(task: dict, fresh: int) -> tuple[float, float]:
    """Where a fresh score of `task` (a task of a result) over `fresh` matches per line-up lies with
    95% probability, if the recorded score is what the agent plays (see the module's docstring)."""
    variance = 0.0
    players = task["players"]
    for lineup in task["lineups"].values():
        scores = normalised(lineup["win_share"], players)
        scores = scores[~np.isnan(scores)]
        padded = np.append(scores, [-1.0 / (players - 1), 1.0])
        variance += float(np.var(padded, ddof=1)) * (1.0 / max(len(scores), 1) + 1.0 / fresh)
    half = Z95 * np.sqrt(variance) / len(task["lineups"])
    return task["score"] - half, task["score"] + half


def changed_files(results: dict, suite: Suite) -> list[str]:
    """The agent's recorded files whose SHA-256 differs now (or that are gone), and files it has now
    that the record lacks: the fresh matches must be played by the recorded agent."""
    spec = results["agent"]["spec"]
    recorded = results["agent"].get("files") or {}
    now = agent_files(spec, suite.tasks, check_agent(spec, suite.tasks))
    digest = lambda files, name: files.get(name, {}).get("sha256")  # noqa: E731
    return sorted(name for name in {*recorded, *now} if digest(recorded, name) != digest(now, name))


def fresh_check(
    results: dict,
    suite: Suite,
    matches: int,
    runner: Runner | None = None,
    say: Callable[[str], None] = print,
) -> bool:
    """Play `matches` fresh matches per task with the recorded agent and say, one line per task,
    whether its fresh score lies within the recorded score's prediction interval; True if every task's does."""
    changed = changed_files(results, suite)
    if changed:
        say(f"fresh matches: not played, the agent's files differ from the recorded ones: {', '.join(changed)}")
        return False
    salt = secrets.token_hex(32).encode()
    clean = True
    for task in suite.tasks:
        per_lineup = matches // len(suite.lineups_for(task))
        played = evaluate_task(
            results["agent"]["spec"],
            suite,
            task,
            None,
            matches=per_lineup,
            runner=runner,
            salt=salt,
        )
        recorded = results["tasks"][task.name]
        score, (low, high) = task_score(played), prediction_interval(recorded, per_lineup)
        within = low <= score <= high
        clean = clean and within
        ci = recorded["ci95"]
        say(
            f"{task.name}: fresh {score:+.3f} over {matches} matches; recorded {recorded['score']:+.3f} "
            f"(95% CI {ci[0]:+.3f} to {ci[1]:+.3f}; for {matches} fresh matches {low:+.3f} to {high:+.3f}): "
            + ("within" if within else "OUTSIDE")
        )
    return clean
