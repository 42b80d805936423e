"""What the trainer's tests share: tiny configs that train in seconds, and a run stopped and resumed
beside an uninterrupted one (imported only by test modules that first skip without torch)."""

from __future__ import annotations

import json
from pathlib import Path

import torch

from city_envs.agents.policy_file import load_policy_file
from city_envs.training.config import TrainConfig
from city_envs.training.selfplay import train

TINY = {
    "n_envs": 2,
    "n_steps": 32,
    "batch_size": 32,
    "n_epochs": 2,
    "net_arch": [32],
    "snapshot_every": 64,
    "checkpoint_every": 128,
    "eval_every": 10**9,
    "final_eval_games": 0,
    "eval_games": 0,
    "pretrain": False,
}
TINY_WARM = {
    **TINY,
    "pretrain": True,
    "bc_matches": 6,
    "dagger_rounds": 1,
    "dagger_matches": 4,
    "pretrain_epochs": 2,
    "pretrain_batch_size": 64,
}


def final_parameters(out: Path) -> dict[str, torch.Tensor]:
    return load_policy_file(out / "model.safetensors")[0].state_dict()


def whole_and_resumed(config: TrainConfig, tmp_path: Path, stop_at: int = 192) -> tuple[dict, dict, dict]:
    """Train `config` in one go (into tmp_path/whole), and again stopped after `stop_at` steps and
    resumed from its last checkpoint (tmp_path/split): both runs' final parameters and the stopped
    run's checkpoint state."""
    torch.use_deterministic_algorithms(True)
    whole = train(config, tmp_path / "whole", log=lambda _: None)
    train(TrainConfig(**{**config.__dict__, "timesteps": stop_at}), tmp_path / "split", log=lambda _: None)
    state = json.loads((tmp_path / "split" / "checkpoint" / "state.json").read_text())
    (tmp_path / "split" / "model.safetensors").unlink()
    resumed = train(config, tmp_path / "split", resume=True, log=lambda _: None)
    assert whole["timesteps"] == resumed["timesteps"] == config.timesteps
    return final_parameters(tmp_path / "whole"), final_parameters(tmp_path / "split"), state
