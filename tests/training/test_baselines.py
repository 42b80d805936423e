"""The committed baselines: present, small, data-only, loadable by `ppo`, and their figures reproduce."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

from city_envs.agents.policy_agent import baseline_path, baseline_stem  # noqa: E402
from city_envs.agents.policy_file import read_metadata  # noqa: E402
from city_envs.core.registry import GAMES  # noqa: E402
from city_envs.evaluation import evaluate  # noqa: E402
from city_envs.training.config import load_config  # noqa: E402
from city_envs.training.evaluation import evaluate_model  # noqa: E402

BASELINES = [(game, players) for game in GAMES for players in (2, 4)]


def record(game: str, players: int) -> dict:
    return json.loads(baseline_stem(game, players).with_suffix(".json").read_text())


@pytest.mark.parametrize(("game", "players"), BASELINES)
def test_every_game_ships_small_baselines_with_config_curve_and_figures(game, players):
    path = baseline_path(game, players)
    assert path.is_file() and path.stat().st_size < 5_000_000
    meta = read_metadata(path)
    assert (meta["game"], meta["players"]) == (game, players)
    config = load_config(game, baseline_stem(game, players).with_suffix(".toml"))
    assert config.players == players and meta["entity_head"] == config.entity_head_spec()  # the config rebuilds it
    figures = record(game, players)["evaluation"]
    assert set(figures) == {"random", "heuristic"}
    assert all(r["games"] >= 400 and r["failures"] == 0 for r in figures.values())
    assert record(game, players)["eval_seed"] not in (config.seed + 1, config.seed + 2)  # not a training seed
    assert baseline_stem(game, players).with_name(f"{game}_{players}p_curve.png").is_file()


@pytest.mark.parametrize(("game", "players"), BASELINES)
def test_the_ppo_shorthand_plays_the_baseline_in_the_arena(game, players):
    result = evaluate(game, players, ["ppo"] + ["random"] * (players - 1), games=1, seed=0)
    assert result["failures"] == [] and result["agents"]["ppo"]["appearances"] == 1


@pytest.mark.slow
@pytest.mark.parametrize(("game", "players"), BASELINES)
def test_the_recorded_baseline_figures_reproduce(game, players):
    recorded = record(game, players)["evaluation"]
    measured = evaluate_model(
        baseline_path(game, players),
        game,
        players,
        recorded["random"]["games"],
        seed=record(game, players)["eval_seed"],
    )
    for opponent in recorded:
        assert measured[opponent]["win_rate"] == pytest.approx(recorded[opponent]["win_rate"])
