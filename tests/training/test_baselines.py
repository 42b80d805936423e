"""The committed 2-player baselines: present, small, loadable by `ppo`, and their recorded figures reproduce."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

from city_envs.agents.policy_agent import baseline_path  # noqa: E402
from city_envs.core.registry import GAMES  # noqa: E402
from city_envs.training.arena import evaluate  # noqa: E402
from city_envs.training.selfplay import evaluate_model, load_config  # noqa: E402


def record(game: str) -> dict:
    return json.loads(baseline_path(game, 2).with_suffix(".json").read_text())


@pytest.mark.parametrize("game", GAMES)
def test_every_game_ships_a_small_baseline_with_its_config_and_figures(game):
    path = baseline_path(game, 2)
    assert path.is_file() and path.stat().st_size < 5_000_000
    config = load_config(game, path.with_suffix(".toml"))
    assert config.players == 2
    assert record(game)["agent"] in ("ppo", "ppo:sample")
    figures = record(game)["evaluation"]
    assert set(figures) == {"random", "heuristic"}
    assert all(r["games"] >= 400 for r in figures.values())


@pytest.mark.parametrize("game", GAMES)
def test_the_ppo_shorthand_plays_the_baseline_in_the_arena(game):
    result = evaluate(game, 2, ["ppo", "random"], games=2, seed=0)
    assert result["failures"] == [] and result["agents"]["ppo"]["appearances"] == 2


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
def test_the_recorded_baseline_figures_reproduce(game):
    recorded = record(game)["evaluation"]
    games = recorded["random"]["games"]
    measured = evaluate_model(baseline_path(game, 2), game, 2, games, seed=record(game)["eval_seed"],
                              sample=record(game)["agent"] == "ppo:sample")
    for opponent in recorded:
        assert measured[opponent]["win_rate"] == pytest.approx(recorded[opponent]["win_rate"])
