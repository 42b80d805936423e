"""`city-envs bench <game>`'s batch figures: the native batch beside SelfPlayVecEnv, each on its own clock."""

from __future__ import annotations

import pytest

from city_envs import bench
from city_envs.core.native import _native

pytest.importorskip("stable_baselines3")


@pytest.mark.skipif(_native is None, reason="the native engine is not built")
def test_batch_figures_pair_the_batch_with_selfplay_vec_env(monkeypatch):
    monkeypatch.setattr(bench, "BATCH_ENVS", 4)
    figures = bench.batch_figures("metropolys", 3, seconds=0.05)
    assert set(figures) == {key for _, key, _ in bench.BATCH_COLUMNS} | {"batch_env_ratio_vs_selfplay_interval"}
    assert figures["batch_env_steps_per_s"] > 0 and figures["selfplay_env_steps_per_s_beside_batch"] > 0
    ratio = figures["batch_env_steps_per_s"] / figures["selfplay_env_steps_per_s_beside_batch"]
    assert figures["batch_env_ratio_vs_selfplay"] == pytest.approx(ratio)
    low, high = figures["batch_env_ratio_vs_selfplay_interval"]
    assert low <= ratio <= high


def test_without_the_native_batch_there_are_no_batch_figures(monkeypatch):
    monkeypatch.setattr("city_envs.core.vector._native", None)
    assert bench.batch_figures("metropolys", 2, seconds=0.05) == {}
