"""Training throughput, measured side by side: the trainer's vector env against the old set-up.

The reference is how training ran before `SelfPlayVecEnv`: two worker processes (`SubprocVecEnv`),
each holding one match whose opponents act one at a time, with PPO rollouts of 512 steps per env
and minibatches of 256. The new default steps 64 matches in one process, evaluates snapshot
opponents in one batched forward pass, and uses the PPO settings of `training/configs/`. Both
learn from the same pool mix (a snapshot of the initial policy stands in for the learner's copies)
for the same number of env steps, one after the other in the same run, so the ratio is fair on a
shared, noisy machine.

    python -m city_envs.training.throughput --games citadels --steps 16384
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import gymnasium as gym
import numpy as np

from city_envs.agents.policy_file import build_policy, save_policy
from city_envs.core.registry import GAMES, make_game
from city_envs.training.pool import OpponentPool
from city_envs.training.vec_env import SelfPlayVecEnv

POOL = {"self": 0.2, "heuristic": 0.6, "random": 0.2}
REFERENCE = {"n_envs": 2, "n_steps": 512, "batch_size": 256}
DEFAULT = {"n_envs": 64, "n_steps": 64, "batch_size": 2048}


class OneMatchEnv(gym.Env):
    """One slot of `SelfPlayVecEnv` as a Gymnasium env: the reference's one-match-per-process worker."""

    metadata = {"render_modes": []}

    def __init__(self, game: str, players: int, index: int, snapshot: str) -> None:
        import torch

        torch.set_num_threads(1)  # as the reference trainer's workers did
        pool = OpponentPool(game, POOL)
        pool.add_snapshot(snapshot)
        self.slot = SelfPlayVecEnv(game, players, 1, seed=0, pool=pool, first_index=index)
        self.observation_space, self.action_space = self.slot.observation_space, self.slot.action_space

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        return self.slot.reset()[0], {}

    def step(self, action):
        obs, rewards, dones, infos = self.slot.step(np.array([action]))
        info = dict(infos[0])
        if dones[0]:  # the slot restarted at once; a Gymnasium env reports the end instead
            obs = info.pop("terminal_observation")[None]
        return obs[0], float(rewards[0]), bool(dones[0]), False, info

    def action_masks(self) -> np.ndarray:
        return self.slot.action_masks()[0]


def _learn(venv, settings: dict, steps: int, net_arch) -> float:
    """Env steps per second of MaskablePPO learning `steps` steps on `venv` (including its updates)."""
    from sb3_contrib import MaskablePPO

    model = MaskablePPO(
        "MlpPolicy",
        venv,
        n_steps=settings["n_steps"],
        batch_size=settings["batch_size"],
        n_epochs=4,
        device="cpu",
        seed=0,
        policy_kwargs={"net_arch": net_arch},
    )
    clock = time.perf_counter()
    model.learn(steps)
    return model.num_timesteps / (time.perf_counter() - clock)


def measure(game: str, players: int = 2, steps: int = 16_384) -> dict:
    """Reference and default env steps/s for `game`, measured one after the other."""
    import torch
    from stable_baselines3.common.vec_env import SubprocVecEnv

    torch.set_num_threads(1)
    probe = make_game(game, players, seed=0)
    net_arch = {"pi": [256, 128], "vf": [128, 64]}
    with tempfile.TemporaryDirectory() as folder:
        snapshot = str(
            save_policy(
                build_policy(probe.observation_shape, probe.num_actions, net_arch),
                Path(folder) / "snapshot.safetensors",
                game=game,
                players=players,
                net_arch=net_arch,
                activation="tanh",
            )
        )
        workers = SubprocVecEnv(
            [lambda i=i: OneMatchEnv(game, players, i, snapshot) for i in range(REFERENCE["n_envs"])]
        )
        try:
            reference = _learn(workers, REFERENCE, steps, net_arch)
        finally:
            workers.close()
        pool = OpponentPool(game, POOL)
        pool.add_snapshot(snapshot)
        default = _learn(SelfPlayVecEnv(game, players, DEFAULT["n_envs"], seed=0, pool=pool), DEFAULT, steps, net_arch)
    return {
        "game": game,
        "players": players,
        "steps": steps,
        "reference_steps_per_s": round(reference),
        "default_steps_per_s": round(default),
        "ratio": round(default / reference, 2),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.ArgumentDefaultsHelpFormatter
    )
    parser.add_argument("--games", default=",".join(GAMES), help="comma-separated games")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--steps", type=int, default=16_384, help="env steps per measurement")
    parser.add_argument("--out", help="also write the rows as JSON here")
    args = parser.parse_args(argv)
    games = args.games.split(",")
    unknown = sorted(set(games) - set(GAMES))
    if unknown:
        parser.error(f"unknown games {unknown}; allowed: {', '.join(GAMES)}")
    rows = []
    print("| game | reference env steps/s | default env steps/s | ratio |\n|---|---|---|---|", flush=True)
    for game in games:
        row = measure(game, args.players, args.steps)
        rows.append(row)
        print(
            f"| {game} | {row['reference_steps_per_s']:,} | {row['default_steps_per_s']:,} | {row['ratio']}x |",
            flush=True,
        )
    if args.out:
        Path(args.out).write_text(json.dumps(rows, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
