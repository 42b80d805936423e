"""PPO checkpoints as data: tensors in a `weights_only` torch file, everything else in JSON.

`checkpoint/state.json` is written last (atomically) and names its tensors file, so a crash while
writing leaves the previous checkpoint whole. Opening a checkpoint unpickles nothing: the tensors
file is read with `torch.load(weights_only=True)`, which accepts tensors and plain containers only.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np

from city_envs.core.files import write_text_whole

FORMAT = "city-envs-checkpoint"
FORMAT_VERSION = 1


def global_rng_states() -> dict:
    """numpy's and Python's global generator states as JSON-safe data (torch's goes with the tensors)."""
    state = np.random.get_state(legacy=True)
    assert isinstance(state, tuple), "numpy's global generator is an MT19937, whose legacy state is a tuple"
    kind, keys, pos, has_gauss, gauss = state
    version, internal, gauss_next = random.getstate()
    return {
        "numpy": [kind, keys.tolist(), int(pos), int(has_gauss), float(gauss)],
        "python": [version, list(internal), gauss_next],
    }


def set_global_rng_states(states: dict) -> None:
    kind, keys, pos, has_gauss, gauss = states["numpy"]
    np.random.set_state((kind, np.array(keys, dtype=np.uint32), pos, has_gauss, gauss))
    version, internal, gauss_next = states["python"]
    random.setstate((version, tuple(internal), gauss_next))


def save(folder: Path, model, env_state: dict, monitor: dict, schedule: dict) -> None:
    """The full state of a run at a rollout start (see `training/selfplay.py`)."""
    import torch

    folder.mkdir(parents=True, exist_ok=True)
    steps = int(model.num_timesteps)
    tensors = folder / f"tensors_{steps:09d}.pt"
    torch.save(
        {
            "policy": model.policy.state_dict(),
            "optimizer": model.policy.optimizer.state_dict(),
            "torch_rng": torch.get_rng_state(),
        },
        tensors,
    )
    state = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "num_timesteps": steps,
        "n_updates": int(model._n_updates),
        "tensors": tensors.name,
        "env": env_state,
        "last_episode_starts": np.asarray(model._last_episode_starts).astype(bool).tolist(),
        "monitor": monitor,
        "rng": global_rng_states(),
        "schedule": schedule,
    }
    write_text_whole(folder / "state.json", json.dumps(state))
    for old in folder.glob("tensors_*.pt"):
        if old != tensors:
            old.unlink()


def load(folder: Path) -> tuple[dict, dict]:
    """(state, tensors) of the checkpoint in `folder`; a missing or foreign one raises ValueError."""
    import torch

    path = folder / "state.json"
    if not path.is_file():
        raise ValueError(f"no checkpoint in {folder} (state.json is missing)")
    try:
        state = json.loads(path.read_text())
    except json.JSONDecodeError as error:
        raise ValueError(f"{path} is not valid JSON: {error}") from None
    if state.get("format") != FORMAT or state.get("format_version") != FORMAT_VERSION:
        raise ValueError(f"{path} is not a city-envs checkpoint of format version {FORMAT_VERSION}")
    tensors = torch.load(folder / state["tensors"], map_location="cpu", weights_only=True)
    return state, tensors
