"""Aggregate scores with intervals, following rliable (Agarwal et al. 2021) and Lanctot et al. 2023.

Scores are arrays whose first axis is what is resampled (matches of one agent's benchmark, or the
independent training seeds of an algorithm) and whose second axis is the task; an agent benchmark
has a third axis, the task's line-ups (NaN where a task has fewer). The bootstrap is rliable's
stratified bootstrap: rows are resampled within each task (and line-up), never across.

rliable draws its resamples from numpy's global generator; `_seeded` sets and restores it, so every
interval here is the same from one run to the next.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping, Sequence

import numpy as np

BOOTSTRAP_REPS = 2000
BOOTSTRAP_SEED = 0


def require_statistics() -> None:
    """Fail at once, in one line, where the benchmark's statistics cannot be imported (not after hours of
    matches): the extra missing, or one of its dependencies broken by another's version. The modules
    imported are those used below: `import rliable` alone succeeds where `rliable.library` fails."""
    try:
        from rliable import library, metrics  # noqa: F401
        from scipy import optimize, stats  # noqa: F401
    except ModuleNotFoundError as error:
        raise ImportError(
            f"the benchmark needs its extra ({error.name} is not installed): pip install 'city-envs[benchmark]'"
        ) from None
    except Exception as error:  # a dependency that fails while importing: a version clash, not a missing extra
        raise ImportError(
            f"the benchmark's statistics (rliable, scipy) fail to import ({type(error).__name__}: {error}); "
            "reinstall with the versions its extra allows: pip install 'city-envs[benchmark]'"
        ) from None


@contextlib.contextmanager
def _seeded(seed: int) -> Iterator[None]:
    state = np.random.get_state()
    np.random.seed(seed)
    try:
        yield
    finally:
        np.random.set_state(state)


def task_means(scores: np.ndarray) -> np.ndarray:
    """Each task's score: the mean over its rows (and its line-ups, NaN padding left out)."""
    if scores.ndim == 2:
        return scores.mean(axis=0)
    return np.nanmean(scores.reshape(scores.shape[0], scores.shape[1], -1), axis=(0, 2))


def iqm_of_tasks(scores: np.ndarray) -> float:
    """The interquartile mean over tasks of the task scores (25% trimmed from each end)."""
    from scipy.stats import trim_mean

    return float(trim_mean(task_means(scores), proportiontocut=0.25))


def iqm_over_runs(scores: np.ndarray) -> float:
    """rliable's IQM: the interquartile mean over every (run, task) score."""
    from rliable import metrics

    return float(metrics.aggregate_iqm(scores))


def interval(
    scores: np.ndarray,
    statistic: Callable[[np.ndarray], np.ndarray],
    reps: int = BOOTSTRAP_REPS,
    seed: int = BOOTSTRAP_SEED,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(point estimates, lower ends, upper ends) of the vector `statistic(scores)`, with 95% percentile
    intervals from the stratified bootstrap."""
    from rliable import library

    with _seeded(seed):
        points, intervals = library.get_interval_estimates({"x": scores}, statistic, reps=reps)
    return np.asarray(points["x"]), np.asarray(intervals["x"][0]), np.asarray(intervals["x"][1])


def aggregate(
    scores: np.ndarray, over_runs: bool = False, reps: int = BOOTSTRAP_REPS, seed: int = BOOTSTRAP_SEED
) -> dict:
    """The IQM and each task's score, with 95% stratified-bootstrap intervals.

    `over_runs`: rliable's IQM over every (run, task) score, for independent training runs; otherwise
    the IQM over tasks of the task means, for one agent's matches (a match outcome is not a run score).
    """
    iqm = iqm_over_runs if over_runs else iqm_of_tasks
    points, low, high = interval(scores, lambda x: np.array([iqm(x), *task_means(x)]), reps, seed)
    return {
        "iqm": float(points[0]),
        "iqm_ci95": [float(low[0]), float(high[0])],
        "task_scores": [float(v) for v in points[1:]],
        "task_ci95": [[float(a), float(b)] for a, b in zip(low[1:], high[1:], strict=True)],
    }


def match_slots(scores: np.ndarray) -> np.ndarray:
    """(matches, tasks): match i of every line-up of a task averaged, so that each row samples the
    task's score with its line-ups equally weighted (what probability of improvement compares)."""
    return scores if scores.ndim == 2 else np.nanmean(scores, axis=2)


def probability_of_improvement(
    x: np.ndarray, y: np.ndarray, reps: int = BOOTSTRAP_REPS, seed: int = BOOTSTRAP_SEED
) -> dict:
    """P(X > Y) averaged over tasks (rliable: per task, the Mann-Whitney statistic over every pair of
    X's and Y's rows, ties counted half), with its 95% interval from resampling X and Y independently."""
    from rliable import library, metrics

    x, y = match_slots(x), match_slots(y)
    if x.shape[1] != y.shape[1]:
        raise ValueError(f"the results cover {x.shape[1]} and {y.shape[1]} tasks: compare results of one suite")
    with _seeded(seed):
        points, intervals = library.get_interval_estimates(
            {"xy": [x, y]}, lambda a, b: np.array([metrics.probability_of_improvement(a, b)]), reps=reps
        )
    return {"probability": float(points["xy"][0]), "ci95": [float(intervals["xy"][0][0]), float(intervals["xy"][1][0])]}


def performance_profile(
    score_dict: Mapping[str, np.ndarray],
    taus: np.ndarray,
    over_runs: bool = False,
    reps: int = BOOTSTRAP_REPS,
    seed: int = BOOTSTRAP_SEED,
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """rliable's performance profile with 95% bands: at each threshold tau, the share of tasks whose
    score is above it (one agent's matches), or with `over_runs` the share of (run, task) scores above
    it (independent training runs)."""
    from rliable import library

    with _seeded(seed):
        return library.create_performance_profile(
            {k: match_slots(v) for k, v in score_dict.items()}, taus, use_score_distribution=over_runs, reps=reps
        )


def maximal_lottery(margins: np.ndarray) -> np.ndarray:
    """A maximal lottery (Fishburn 1984) of a margin matrix (`margins[i, j]`: the voters that prefer i to
    j, less those that prefer j to i): probabilities p that maximise v with p @ margins[:, j] >= v for
    every j. Solved as one linear program by scipy's HiGHS, as pref-voting's "lp" algorithm does."""
    from scipy.optimize import linprog

    n = len(margins)
    objective = np.zeros(n + 1)
    objective[-1] = -1.0  # maximise v
    solution = linprog(
        objective,
        A_ub=np.hstack([-margins.T, np.ones((n, 1))]),  # v - p @ margins[:, j] <= 0
        b_ub=np.zeros(n),
        A_eq=np.append(np.ones(n), 0.0)[None, :],  # the probabilities sum to 1
        b_eq=[1.0],
        bounds=[(0, None)] * n + [(None, None)],
        method="highs",
    )
    if not solution.success:
        raise ValueError(f"the maximal lottery's linear program failed: {solution.message}")
    probabilities = np.maximum(solution.x[:n], 0.0)
    return probabilities / probabilities.sum()


def maximal_lottery_tiers(task_scores: Mapping[str, Sequence[float]]) -> dict[str, dict]:
    """Rank agents with each task as a voter (Lanctot et al. 2023): a voter prefers the agent with the
    higher task score (equal scores tie). The maximal lottery of the voters' margins gives each agent a
    probability; the agents it does not beat (its support, and any agent that does as well against it)
    are the top tier, which is removed before the next tier's lottery is drawn.
    No normalisation across tasks is needed, and a cycle among agents is a tier, not an error."""
    agents = list(task_scores)
    tasks = {len(v) for v in task_scores.values()}
    if len(tasks) != 1:
        raise ValueError("every agent needs a score on every task")
    scores = np.array([task_scores[a] for a in agents], dtype=float)  # (agents, tasks)
    margins = np.sign(scores[:, None, :] - scores[None, :, :]).sum(axis=2)  # i over j: tasks won less lost
    result: dict[str, dict] = {}
    remaining = list(range(len(agents)))
    tier = 1
    while remaining:
        sub = margins[np.ix_(remaining, remaining)]
        lottery = np.ones(1) if len(remaining) == 1 else maximal_lottery(sub)
        # the tier: every agent the lottery does not beat (its support, and any agent as good as it;
        # agents with equal scores everywhere share a tier)
        top = [y for k, y in enumerate(remaining) if lottery @ sub[k] > -1e-9]
        for k, agent in enumerate(remaining):
            if agent in top:
                result[agents[agent]] = {"tier": tier, "probability": float(lottery[k])}
        remaining = [a for a in remaining if a not in top]
        tier += 1
    return result


def openskill_over_tasks(task_scores: Mapping[str, Sequence[float]]) -> dict[str, dict]:
    """A secondary number: OpenSkill (Plackett-Luce) ratings with each task a match among the agents,
    ranked by task score, taken in task order."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings = {a: model.rating(name=a) for a in task_scores}
    tasks = len(next(iter(task_scores.values())))
    for task in range(tasks):
        agents = list(task_scores)
        order = sorted({task_scores[a][task] for a in agents}, reverse=True)
        teams = model.rate([[ratings[a]] for a in agents], ranks=[order.index(task_scores[a][task]) for a in agents])
        ratings = {a: team[0] for a, team in zip(agents, teams, strict=True)}
    return {a: {"mu": r.mu, "sigma": r.sigma, "ordinal": r.ordinal()} for a, r in ratings.items()}
