"""Self-play PPO: the learner's env, the opponent pool, checkpoints and an exact resume, the CLI path."""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

import torch  # noqa: E402

from city_envs import cli  # noqa: E402
from city_envs.agents.random_agent import RandomAgent  # noqa: E402
from city_envs.agents.registry import heuristic_class  # noqa: E402
from city_envs.core.registry import GAMES  # noqa: E402
from city_envs.training.selfplay import (  # noqa: E402
    SelfPlayEnv,
    TrainConfig,
    config_to_toml,
    load_config,
    train,
)

TINY = {"n_envs": 1, "subprocess": False, "n_steps": 64, "batch_size": 32, "n_epochs": 2, "net_arch": [32],
        "snapshot_every": 128, "checkpoint_every": 256, "eval_every": 10**9, "final_eval_games": 0}


def play_episode(env: SelfPlayEnv, rng: np.random.Generator) -> tuple[list[float], dict]:
    env.reset()
    rewards, info, done = [], {}, False
    while not done:
        mask = env.action_masks()
        assert mask.any() and env.game.current_player() == env.learner
        _, reward, done, truncated, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        assert not truncated
        rewards.append(reward)
    return rewards, info


@pytest.mark.parametrize("game", GAMES)
def test_the_learner_rotates_seats_and_is_rewarded_from_its_own_seat_only(game):
    env = SelfPlayEnv(TrainConfig(game, pool_self=0.0, pool_heuristic=0.5, pool_random=0.5), index=0)
    rng = np.random.default_rng(1)
    seats = []
    for _ in range(2):
        rewards, info = play_episode(env, rng)
        seats.append(env.learner)
        assert rewards[:-1] == [0.0] * (len(rewards) - 1)  # reward="win": terminal only
        assert rewards[-1] == env.game.returns()[env.learner]
        assert info["win"] == (1.0 / len(env.game.winners()) if env.learner in env.game.winners() else 0.0)
    assert seats == [0, 1]
    assert env.observation_space.shape == env.game.observation_shape
    assert env.action_space.n == env.game.num_actions


def test_score_shaping_adds_the_change_of_the_relative_score():
    config = TrainConfig("citadels", reward="score", score_scale=0.5, pool_self=0.0, pool_heuristic=1.0,
                         pool_random=0.0)
    env = SelfPlayEnv(config)
    rng = np.random.default_rng(2)
    env.reset(seed=3)
    total, done = 0.0, False
    while not done:
        _, reward, done, _, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        total += reward
    scores = env.game.scores()
    relative = scores[env.learner] - np.mean([s for i, s in enumerate(scores) if i != env.learner])
    assert total == pytest.approx(0.5 * relative + env.game.returns()[env.learner])


def test_the_pool_mix_decides_the_opponents():
    only_random = SelfPlayEnv(TrainConfig("metropolys", players=3, pool_self=0.0, pool_heuristic=0.0,
                                          pool_random=1.0))
    only_random.reset(seed=0)
    assert sorted(only_random.opponent_kinds) == ["learner", "random", "random"]
    assert all(isinstance(a, RandomAgent) for a in only_random.opponents if a is not None)
    # "self" without snapshots yet falls back to the other kinds
    early = SelfPlayEnv(TrainConfig("metropolys", pool_self=1.0, pool_heuristic=1.0, pool_random=0.0))
    early.reset(seed=0)
    assert isinstance(early.opponents[1 - early.learner], heuristic_class("metropolys"))
    mixed = SelfPlayEnv(TrainConfig("citadels", pool_self=0.0, pool_heuristic=1.0, pool_random=1.0))
    kinds = set()
    for _ in range(20):
        mixed.reset()
        kinds.add(mixed.opponent_kinds[1 - mixed.learner])
    assert kinds == {"random", "heuristic"}


def test_bad_configs_are_refused_with_what_is_allowed(tmp_path):
    with pytest.raises(ValueError, match="allowed: win, score"):
        TrainConfig("citadels", reward="points")
    with pytest.raises(ValueError, match="pool weights"):
        TrainConfig("citadels", pool_self=0, pool_heuristic=0, pool_random=0)
    with pytest.raises(ValueError, match="unknown config keys"):
        load_config("citadels", learning_speed=3)
    with pytest.raises(ValueError):
        TrainConfig("citadels", players=9)


@pytest.mark.parametrize("game", GAMES)
def test_every_game_has_a_config_that_round_trips_through_toml(game, tmp_path):
    config = load_config(game)
    path = tmp_path / "c.toml"
    path.write_text(config_to_toml(config))
    assert load_config(game, path) == config


def test_env_state_round_trip_continues_identically():
    config = TrainConfig("citadels", pool_self=0.0, pool_heuristic=0.5, pool_random=0.5)
    env = SelfPlayEnv(config)
    env.reset(seed=5)
    rng = np.random.default_rng(0)
    for _ in range(10):
        env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
    blob = env.get_state()
    twin = SelfPlayEnv(config, index=0)
    np.testing.assert_array_equal(twin.set_state(blob), env._observation())
    for _ in range(300):  # past the end of this match, into the next ones
        action = int(rng.choice(np.flatnonzero(env.action_masks())))
        a, b = env.step(action), twin.step(action)
        np.testing.assert_array_equal(a[0], b[0])
        assert a[1:4] == b[1:4]
        if a[2]:
            np.testing.assert_array_equal(env.reset()[0], twin.reset()[0])
            assert env.opponent_kinds == twin.opponent_kinds


def final_parameters(out: Path) -> dict[str, torch.Tensor]:
    from sb3_contrib import MaskablePPO

    return MaskablePPO.load(out / "model.zip", device="cpu").policy.state_dict()


@pytest.mark.parametrize("vec", ["dummy", pytest.param("subprocess", marks=pytest.mark.slow)])
def test_resume_after_a_stop_ends_with_the_parameters_of_an_uninterrupted_run(tmp_path, vec):
    """640 steps in one go vs a run stopped at 384 (its last checkpoint is at 256) resumed to 640.

    The pool gets snapshots every 128 steps and plays them, so the resumed envs must also restore
    policy opponents mid-match. One env in-process, or two in worker processes."""
    torch.use_deterministic_algorithms(True)
    envs = {"n_envs": 1, "subprocess": False} if vec == "dummy" else {"n_envs": 2, "subprocess": True}
    config = TrainConfig("citadels", timesteps=640, seed=7, pool_self=0.6, pool_heuristic=0.2, pool_random=0.2,
                         **{**TINY, **envs})
    whole = train(config, tmp_path / "whole")
    stopped = TrainConfig(**{**config.__dict__, "timesteps": 384})
    train(stopped, tmp_path / "split")
    state = pickle.loads((tmp_path / "split" / "checkpoint" / "state.pkl").read_bytes())
    assert state["num_timesteps"] == 256 and len(state["schedule"]["snapshots"]) == 2
    resumed = train(config, tmp_path / "split", resume=True)
    assert whole["timesteps"] == resumed["timesteps"] == 640
    a, b = final_parameters(tmp_path / "whole"), final_parameters(tmp_path / "split")
    assert a.keys() == b.keys()
    for key in a:
        assert torch.equal(a[key], b[key]), key
    # and the run did learn something: parameters moved from the initialisation
    fresh = TrainConfig(**{**config.__dict__, "timesteps": 64})
    train(fresh, tmp_path / "fresh")
    assert any(not torch.equal(a[k], final_parameters(tmp_path / "fresh")[k]) for k in a)


def test_a_new_run_refuses_a_directory_that_holds_one(tmp_path):
    config = TrainConfig("metropolys", timesteps=320, pool_self=0.0, **TINY)
    train(config, tmp_path)
    with pytest.raises(ValueError, match="--resume"):
        train(config, tmp_path)


@pytest.mark.parametrize("game", GAMES)
def test_every_game_trains_and_evaluates_with_no_game_code(game, tmp_path):
    config = TrainConfig(game, timesteps=128, **{**TINY, "final_eval_games": 2, "eval_every": 64, "eval_games": 2})
    summary = train(config, tmp_path)
    assert set(summary["evaluation"]) == {"random", "heuristic"}
    for result in summary["evaluation"].values():
        assert result["games"] == 2 and result["failures"] == 0
    assert (tmp_path / "evals.csv").read_text().startswith("timesteps,seconds,win_rate_vs_random")


def test_cli_smoke_train_resume_evaluate_and_play(tmp_path, capsys):
    """The whole path in processes: train with two worker envs, resume further, evaluate, play."""
    out = tmp_path / "run"
    flags = ["--set", "n_steps=256", "--set", "batch_size=128", "--set", "snapshot_every=512",
             "--set", "eval_every=1024", "--set", "eval_games=4", "--set", "checkpoint_every=1024",
             "--set", "final_eval_games=4"]
    assert cli.main(["train", "citadels", "--timesteps", "1536", "--envs", "2", "--out", str(out), *flags]) == 0
    assert (out / "checkpoint" / "state.pkl").exists() and (out / "logs" / "part_1" / "progress.csv").exists()
    assert cli.main(["train", "citadels", "--resume", "--timesteps", "3072", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "to 3,072 steps" in text and "| heuristic | 4 |" in text
    assert (out / "logs" / "part_2").is_dir()
    assert json.loads((out / "evaluation.json").read_text())["timesteps"] == 3072
    model = out / "model.zip"
    assert model.stat().st_size < 5_000_000
    code = cli.main(["evaluate", "citadels", "--players", "2", "--agents", f"ppo:{model},random", "--games", "4"])
    assert code == 0 and f"ppo:{model}" in capsys.readouterr().out
    code = cli.main(["play", "citadels", "--players", "2", "--seats", f"ppo:{model},heuristic", "--quiet"])
    assert code == 0 and "final scores:" in capsys.readouterr().out
    # --fresh starts the run in --out over
    assert cli.main(["train", "citadels", "--fresh", "--timesteps", "128", "--envs", "1", "--out", str(out),
                     "--set", "n_steps=128", "--set", "final_eval_games=0"]) == 0
    assert json.loads((out / "evaluation.json").read_text())["timesteps"] == 128
    assert not (out / "logs" / "part_2").exists()


def test_fresh_never_deletes_a_directory_that_is_not_a_run(tmp_path, capsys):
    (tmp_path / "notes.txt").write_text("keep me")
    assert cli.main(["train", "citadels", "--fresh", "--out", str(tmp_path)]) == 2
    assert "does not hold a training run" in capsys.readouterr().err
    assert (tmp_path / "notes.txt").exists()


@pytest.mark.slow
def test_a_short_citadels_run_learns_to_beat_random_play(tmp_path):
    """Learning quality: 100k steps of the default config (a few minutes) beat random play clearly."""
    config = load_config("citadels", timesteps=100_000, eval_every=10**9, final_eval_games=100)
    summary = train(config, tmp_path)
    assert summary["evaluation"]["random"]["win_rate"] >= 0.8
