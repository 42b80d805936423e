"""The benchmark's statistics against hand-computed cases: IQM, bootstrap coverage, probability of
improvement, maximal lotteries on a cycle, and OpenSkill over tasks."""

from __future__ import annotations

import builtins

import numpy as np
import pytest

from city_envs.evaluation import statistics as stats


def test_iqm_of_tasks_trims_a_quarter_of_the_task_means_from_each_end():
    # task means 0.0, 0.1, 0.2, 0.3, 0.9, 1.0, 0.5, 0.6: sorted, the two lowest and two highest go
    means = np.array([0.0, 0.1, 0.2, 0.3, 0.9, 1.0, 0.5, 0.6])
    scores = np.tile(means, (3, 1))
    assert stats.iqm_of_tasks(scores) == pytest.approx((0.2 + 0.3 + 0.5 + 0.6) / 4)
    # line-ups on a third axis are averaged first, NaN padding (a task with fewer line-ups) left out
    three = np.stack([scores, scores + 0.2, np.full_like(scores, np.nan)], axis=2)
    assert stats.task_means(three) == pytest.approx(means + 0.1)


def test_iqm_over_runs_is_rliables_over_every_run_and_task():
    scores = np.array([[0.0, 1.0], [2.0, 3.0], [4.0, 5.0], [6.0, 7.0]])  # eight values: the middle four
    assert stats.iqm_over_runs(scores) == pytest.approx((2 + 3 + 4 + 5) / 4)


def test_aggregate_gives_point_estimates_inside_their_intervals_and_is_repeatable():
    rng = np.random.default_rng(3)
    scores = rng.choice([-1.0, 1.0], size=(40, 5, 2), p=[0.3, 0.7])
    first = stats.aggregate(scores, reps=100)
    assert first == stats.aggregate(scores, reps=100)  # the bootstrap is seeded
    assert first["iqm_ci95"][0] <= first["iqm"] <= first["iqm_ci95"][1]
    for value, (low, high) in zip(first["task_scores"], first["task_ci95"], strict=True):
        assert low <= value <= high
    assert first["task_scores"] == pytest.approx(list(stats.task_means(scores)))
    state = np.random.get_state()[1].copy()
    stats.aggregate(scores, reps=50)
    assert (np.random.get_state()[1] == state).all()  # numpy's global generator is left as it was


def test_bootstrap_interval_covers_the_true_iqm_about_95_percent_of_the_time():
    """Synthetic matches: five tasks with known win probabilities, so the true IQM of the task means
    is known; over many simulated benchmarks the 95% interval holds it in about 95% of them."""
    p = np.array([0.2, 0.4, 0.5, 0.7, 0.9])
    true_iqm = np.mean(np.sort(2 * p - 1)[1:4])  # a match scores +1 or -1: a task's mean is 2p - 1
    rng = np.random.default_rng(0)
    covered = 0
    trials = 40
    for trial in range(trials):
        scores = np.where(rng.random((60, 5)) < p, 1.0, -1.0)
        low, high = stats.aggregate(scores, reps=200, seed=trial)["iqm_ci95"]
        covered += low <= true_iqm <= high
    assert 0.85 <= covered / trials <= 1.0


def test_probability_of_improvement():
    ones, zeros = np.ones((20, 3)), np.zeros((20, 3))
    assert stats.probability_of_improvement(ones, zeros, reps=100)["probability"] == 1.0
    assert stats.probability_of_improvement(zeros, ones, reps=100)["probability"] == 0.0
    same = stats.probability_of_improvement(ones, ones, reps=100)
    assert same["probability"] == 0.5 and same["ci95"] == [0.5, 0.5]
    # one task where X always beats Y, one where they draw: (1 + 0.5) / 2
    x, y = np.array([[1.0, 0.0]] * 10), np.array([[0.0, 0.0]] * 10)
    assert stats.probability_of_improvement(x, y, reps=100)["probability"] == pytest.approx(0.75)
    with pytest.raises(ValueError, match="compare results of one suite"):
        stats.probability_of_improvement(np.ones((5, 2)), np.ones((5, 3)), reps=10)


def test_maximal_lotteries_share_a_cycle_and_rank_what_it_beats_below():
    # three voters (tasks) with a Condorcet cycle a > b > c > a, and d last everywhere
    scores = {"a": [3, 1, 2], "b": [2, 3, 1], "c": [1, 2, 3], "d": [0, 0, 0]}
    tiers = stats.maximal_lottery_tiers(scores)
    for agent in "abc":
        assert tiers[agent]["tier"] == 1 and tiers[agent]["probability"] == pytest.approx(1 / 3)
    assert tiers["d"] == {"tier": 2, "probability": 1.0}


def test_maximal_lotteries_order_a_strict_ranking_and_tie_equal_agents():
    tiers = stats.maximal_lottery_tiers({"x": [3, 3], "y": [2, 2], "z": [1, 1]})
    assert [tiers[a]["tier"] for a in "xyz"] == [1, 2, 3]
    tied = stats.maximal_lottery_tiers({"x": [1, 1], "y": [1, 1], "z": [0, 2]})
    assert {tied[a]["tier"] for a in "xyz"} == {1}
    with pytest.raises(ValueError, match="every agent needs a score on every task"):
        stats.maximal_lottery_tiers({"x": [1, 2], "y": [1]})


def test_openskill_over_tasks_orders_a_dominant_agent_first():
    ratings = stats.openskill_over_tasks({"weak": [0, 0, 0], "strong": [1, 1, 1]})
    assert ratings["strong"]["mu"] > ratings["weak"]["mu"]


def _import_failing(monkeypatch: pytest.MonkeyPatch, error: Exception) -> None:
    """`from rliable import library, ...` raises `error`, as a broken or missing dependency makes it."""
    real_import = builtins.__import__

    def failing(name, globals=None, locals=None, fromlist=(), level=0):
        if name == "rliable" and "library" in (fromlist or ()):
            raise error
        return real_import(name, globals, locals, fromlist, level)

    monkeypatch.setattr(builtins, "__import__", failing)


def test_require_statistics_names_the_missing_extra(monkeypatch):
    _import_failing(monkeypatch, ModuleNotFoundError("No module named 'arch'", name="arch"))
    with pytest.raises(ImportError, match=r"needs its extra \(arch is not installed\).*city-envs\[benchmark\]"):
        stats.require_statistics()


def test_require_statistics_turns_a_dependency_failing_on_import_into_one_clear_error(monkeypatch):
    # rliable 1.2 imports arch, and arch 7 raised this TypeError on import with pandas 3
    clash = TypeError("deprecate_kwarg() missing 1 required positional argument: 'new_arg_name'")
    _import_failing(monkeypatch, clash)
    with pytest.raises(ImportError, match=r"fail to import \(TypeError: deprecate_kwarg\(\).*city-envs\[benchmark\]"):
        stats.require_statistics()


def test_a_broken_statistics_dependency_is_one_line_and_exit_2_before_any_match(monkeypatch, tmp_path, capsys):
    from city_envs import cli

    _import_failing(monkeypatch, TypeError("a clash"))
    out = tmp_path / "bench"
    code = cli.main(["benchmark", "agent", "random", "--suite", "v1-lite", "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "fail to import (TypeError: a clash)" in err
    assert not out.exists()  # nothing played
