"""Training throughput, measured side by side: the trainer's vector env against the old set-up.

The reference is how training ran before `SelfPlayVecEnv`: two worker processes (`SubprocVecEnv`),
each holding one match whose opponents act one at a time, with PPO rollouts of 512 steps per env
and minibatches of 256. The new default steps 64 matches in one process, evaluates snapshot
opponents in one batched forward pass, and uses the PPO settings of `training/configs/`. Both
learn from the same pool mix (a snapshot of the initial policy stands in for the learner's copies)
for the same number of env steps, one after the other in the same run, so the ratio is fair on a
shared, noisy machine.

`--batch` measures instead, with the same pool, `SelfPlayVecEnv` beside the native batch the trainer
steps by default (`BatchVecEnv`, training/batch_env.py: the same transitions, the random and heuristic
moves in C++), both with the default settings, one after the other.

`--split` measures where a learning step's CPU time goes on the trainer's default env (`BatchVecEnv`,
default pool and settings): the env's steps (of which the snapshot opponents' forward passes), the
learner's own forward passes while it collects rollouts, and PPO's update.

`--goal` measures issue 45's goal as it is stated: MaskablePPO learning on each game's own training
config (`training/configs/<game>.toml`: its network, PPO settings and pool, one torch thread), (a) as at
the issue, on `SelfPlayVecEnv` stepping the Python engine, with the entity head computed as it was then
(`forward_as_at_issue`), (b) as the trainer runs it by default (its
own env, `make_env`: the native batch), and (c) a candidate recipe, the same config with `--candidate
KEY=VALUE` overrides (default `CANDIDATE`), on the trainer's env; one after the other, from the same
fresh weights and pool, with the ratios b/a and c/a and each one's CPU seconds per 1,000 steps (more
than the wall seconds when a recipe uses two threads), of which those in PPO's update (SB3's `train`).
`--repeats N` measures the three arms N times in turns; from 2, each ratio by CPU time comes with a
bootstrap interval over the repeats.

`--workers 1,2` also measures the default env split over 2 worker processes (`env_workers`,
`training/split_env.py`: the same transitions, stepped in parallel) beside the one-process default;
the ratio is the speed-up over 1 worker. `--doc` writes the rows as the generated table of a Markdown
file (between the markers named after the JSON file, `--out`), `--from-json` makes it from rows
measured before.

    python -m city_envs.training.throughput --games citadels --steps 16384
    python -m city_envs.training.throughput --games citadels,metropolys,blue_moon_city,big_city,urban_sprawl \
        --players 2 --steps 8192 --out docs/throughput_2p.json --doc docs/training.md
    python -m city_envs.training.throughput --games metropolys,blue_moon_city,big_city --players 4 \
        --steps 8192 --workers 1,2 --out docs/throughput_4p.json --doc docs/training.md
    python -m city_envs.training.throughput --batch --players 4 --steps 8192
    python -m city_envs.training.throughput --goal --players 2 --steps 8192 --repeats 4 \
        --out docs/throughput_goal_2p.json --doc docs/training.md
    python -m city_envs.training.throughput --split --games metropolys,big_city --players 4 --steps 8192
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import tempfile
import time
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING
from unittest import mock

import gymnasium as gym
import numpy as np
from pydantic import ValidationError

from city_envs.agents.policy_file import build_policy, save_policy
from city_envs.core.markdown import section_names, write_sections
from city_envs.core.native import ENGINE_VARIABLE
from city_envs.core.paired import Paired
from city_envs.core.registry import GAMES, game_class, make_game
from city_envs.core.settings import parse_assignments, read_document
from city_envs.training.config import TrainConfig, config_error, load_config
from city_envs.training.pool import OpponentPool
from city_envs.training.split_env import SplitVecEnv
from city_envs.training.vec_env import SelfPlayVecEnv

if TYPE_CHECKING:
    import torch

    from city_envs.agents.entity_policy import EntityActionNet

POOL = {"self": 0.2, "heuristic": 0.6, "random": 0.2}
REFERENCE = {"n_envs": 2, "n_steps": 512, "batch_size": 256}
DEFAULT = {"n_envs": 64, "n_steps": 64, "batch_size": 2048}
# the recipe `--goal` measures beside the default when no --candidate is given
CANDIDATE: dict[str, object] = {"n_epochs": 1}
GOAL_ARMS = ("issue", "default", "candidate")  # (a), (b) and (c) of `measure_goal`


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


def _ppo(venv, settings: dict, net_arch):
    """The MaskablePPO both measurements train: `settings`' rollout and batch sizes, 4 epochs, on the CPU."""
    from sb3_contrib import MaskablePPO

    return MaskablePPO(
        "MlpPolicy",
        venv,
        n_steps=settings["n_steps"],
        batch_size=settings["batch_size"],
        n_epochs=4,
        device="cpu",
        seed=0,
        policy_kwargs={"net_arch": net_arch},
    )


def _learn(venv, settings: dict, steps: int, net_arch) -> float:
    """Env steps per second of MaskablePPO learning `steps` steps on `venv` (including its updates)."""

    model = _ppo(venv, settings, net_arch)
    clock = time.perf_counter()
    model.learn(steps)
    return model.num_timesteps / (time.perf_counter() - clock)


def measure(game: str, players: int = 2, steps: int = 16_384, workers: tuple[int, ...] = (1,)) -> dict:
    """Reference and default env steps/s for `game`, and the default split over each count of `workers`
    (1 is always measured: the default column and the speed-ups' base), one after the other."""
    import torch
    from stable_baselines3.common.vec_env import SubprocVecEnv

    torch.set_num_threads(1)
    net_arch = {"pi": [256, 128], "vf": [128, 64]}
    with tempfile.TemporaryDirectory() as folder:
        snapshot = _snapshot(game, players, net_arch, folder)
        reference_env = SubprocVecEnv(
            [functools.partial(OneMatchEnv, game, players, i, snapshot) for i in range(REFERENCE["n_envs"])]
        )
        try:
            reference = _learn(reference_env, REFERENCE, steps, net_arch)
        finally:
            reference_env.close()
        rates = {}
        for count in sorted({1, *workers}):
            pool = OpponentPool(game, POOL)
            pool.add_snapshot(snapshot)
            venv: SelfPlayVecEnv | SplitVecEnv
            if count == 1:
                venv = SelfPlayVecEnv(game, players, DEFAULT["n_envs"], seed=0, pool=pool)
            else:
                venv = SplitVecEnv(game, players, DEFAULT["n_envs"], seed=0, pool=pool, workers=count)
            try:
                rates[count] = _learn(venv, DEFAULT, steps, net_arch)
            finally:
                venv.close()
    return {
        "game": game,
        "players": players,
        "steps": steps,
        "reference_steps_per_s": round(reference),
        "default_steps_per_s": round(rates[1]),
        "ratio": round(rates[1] / reference, 2),
        "workers": {str(count): round(rate) for count, rate in rates.items() if count > 1},
        "workers_speedup": {str(count): round(rate / rates[1], 2) for count, rate in rates.items() if count > 1},
    }


def _snapshot(game: str, players: int, net_arch, folder: str) -> str:
    """A policy file of the initial network: the pool's stand-in for the learner's snapshots."""
    probe = make_game(game, players, seed=0)
    policy = build_policy(probe.observation_shape, probe.num_actions, net_arch)
    path = Path(folder) / "snapshot.safetensors"
    return str(save_policy(policy, path, game=game, players=players, net_arch=net_arch, activation="tanh"))


def measure_batch(game: str, players: int = 2, steps: int = 16_384) -> dict:
    """Env steps/s of MaskablePPO learning against the default pool (POOL, a snapshot included) on
    `SelfPlayVecEnv`, then on `BatchVecEnv`, both with the default settings."""
    import torch

    from city_envs.training.batch_env import BatchVecEnv

    torch.set_num_threads(1)
    net_arch = {"pi": [256, 128], "vf": [128, 64]}
    rates = {}
    with tempfile.TemporaryDirectory() as folder:
        snapshot = _snapshot(game, players, net_arch, folder)
        for name, kind in (("selfplay", SelfPlayVecEnv), ("batch", BatchVecEnv)):
            pool = OpponentPool(game, POOL)
            pool.add_snapshot(snapshot)
            venv = kind(game, players, DEFAULT["n_envs"], seed=0, pool=pool)
            rates[name] = _learn(venv, DEFAULT, steps, net_arch)
    return {
        "game": game,
        "players": players,
        "steps": steps,
        "selfplay_steps_per_s": round(rates["selfplay"]),
        "batch_steps_per_s": round(rates["batch"]),
        "batch_ratio": round(rates["batch"] / rates["selfplay"], 2),
    }


@contextlib.contextmanager
def _cpu_timed(owner, name: str, totals: dict[str, float], key: str):
    """While the block runs, add the process CPU seconds of every call of `owner.name` to totals[key]."""
    original = getattr(owner, name)

    def timed(*args, **kwargs):
        start = time.process_time()
        try:
            return original(*args, **kwargs)
        finally:
            totals[key] += time.process_time() - start

    with mock.patch.object(owner, name, timed):
        yield


SPLIT_PARTS = ("env", "snapshot_forward", "learner_forward", "update")


def measure_split(game: str, players: int = 2, steps: int = 16_384) -> dict:
    """CPU seconds of MaskablePPO learning `steps` steps on the trainer's default env (`BatchVecEnv`, POOL,
    DEFAULT settings): in the env's steps (`snapshot_forward` is the part of them in the snapshot
    opponents' forward passes), the learner's forward passes during rollouts, PPO's update, the rest."""
    import torch

    from city_envs.training import batch_env

    torch.set_num_threads(1)
    net_arch = {"pi": [256, 128], "vf": [128, 64]}
    totals = dict.fromkeys(SPLIT_PARTS, 0.0)
    with tempfile.TemporaryDirectory() as folder:
        pool = OpponentPool(game, POOL)
        pool.add_snapshot(_snapshot(game, players, net_arch, folder))
        venv = batch_env.BatchVecEnv(game, players, DEFAULT["n_envs"], seed=0, pool=pool)
        model = _ppo(venv, DEFAULT, net_arch)
        with contextlib.ExitStack() as stack:
            for owner, name, key in (
                (venv, "step_wait", "env"),
                (batch_env, "batch_logits", "snapshot_forward"),
                (model.policy, "forward", "learner_forward"),
                (model, "train", "update"),
            ):
                stack.enter_context(_cpu_timed(owner, name, totals, key))
            clock, cpu = time.perf_counter(), time.process_time()
            model.learn(steps)
            wall, cpu = time.perf_counter() - clock, time.process_time() - cpu
    rest = cpu - totals["env"] - totals["learner_forward"] - totals["update"]
    return {
        "game": game,
        "players": players,
        "steps": steps,
        "steps_per_s": round(model.num_timesteps / wall),
        "cpu_seconds": round(cpu, 2),
        "shares": {key: round(value / cpu, 3) for key, value in {**totals, "other": rest}.items()},
    }


def goal_configs(game: str, players: int, steps: int, candidate: dict) -> dict[str, TrainConfig]:
    """The configs of `measure_goal`'s arms: the game's training config for `steps` PPO steps from fresh
    weights (no warm start), and the candidate's overrides of it (one ValueError naming a bad key)."""
    default = load_config(game, players=players, pretrain=False, init_from="", timesteps=steps)
    try:
        chosen = TrainConfig(**{**asdict(default), **candidate})
    except (ValidationError, TypeError) as error:
        if isinstance(error, ValidationError):
            raise config_error(error, "--candidate") from None
        raise ValueError(f"--candidate: {error}") from None
    return {"issue": default, "default": default, "candidate": chosen}


def forward_as_at_issue(net: EntityActionNet, latent_and_features: torch.Tensor) -> torch.Tensor:
    """`EntityActionNet.forward` as it was when issue 45 was filed: the shared inputs (context values and
    latent vector) copied to every entity and the scorer run on the whole concatenation. The same logits
    to float rounding, at the cost of the first layer's shared part once per entity instead of once."""
    import torch

    latent = latent_and_features[:, : net.latent_dim]
    features = latent_and_features[:, net.latent_dim :]
    batch, count = latent.shape[0], net.spec["count"]
    shared = torch.cat([features[:, net.context], latent], dim=1).unsqueeze(1).expand(-1, count, -1)
    identity = torch.eye(count, device=latent.device).expand(batch, -1, -1)
    inputs = torch.cat([features[:, net.rows], identity, shared], dim=2)
    scores = net.scorer(inputs).transpose(1, 2).reshape(batch, -1)
    return net.flat(latent).index_add(1, net.targets, scores)


def _learn_config(config: TrainConfig, pool: OpponentPool, as_at_issue: bool) -> tuple[int, float, float, float]:
    """Steps, wall seconds, CPU seconds, and of them those in PPO's update (`train`, between rollouts), of
    the trainer's MaskablePPO (`make_ppo`) learning `config.timesteps` steps on
    `config.torch_threads` threads: as when issue 45 was filed when `as_at_issue` (SelfPlayVecEnv over the
    Python engine, the entity head's `forward_as_at_issue`), else on the trainer's env (`make_env`)."""
    import torch
    from stable_baselines3.common.vec_env import VecMonitor

    from city_envs.agents.entity_policy import EntityActionNet
    from city_envs.training.selfplay import make_env, make_ppo

    torch.set_num_threads(config.torch_threads)
    with contextlib.ExitStack() as stack:
        if as_at_issue:
            stack.enter_context(mock.patch.dict("os.environ", {ENGINE_VARIABLE: "python"}))
            stack.enter_context(mock.patch.object(EntityActionNet, "forward", forward_as_at_issue))
            arguments = (config.game, config.players, config.n_envs, config.seed, pool, config.options, config.reward)
            venv = VecMonitor(SelfPlayVecEnv(*arguments, score_scale=config.score_scale))
        else:
            venv = make_env(config, pool)
        try:
            model = make_ppo(config, venv)
            update = {"update": 0.0}
            with _cpu_timed(model, "train", update, "update"):
                clock, cpu = time.perf_counter(), time.process_time()
                model.learn(config.timesteps)
                wall, cpu = time.perf_counter() - clock, time.process_time() - cpu
        finally:
            venv.close()
    return model.num_timesteps, wall, cpu, update["update"]


def measure_goal(
    game: str, players: int = 2, steps: int = 8192, candidate: dict | None = None, repeats: int = 1
) -> dict:
    """Issue 45's goal for `game`: env steps/s of MaskablePPO learning `steps` steps with the game's training
    config (a) on SelfPlayVecEnv over the Python engine (the default when the issue was filed), (b) on the
    trainer's own env, (c) with the `candidate` overrides on the trainer's env; one after the other, each
    from the same fresh weights against the config's pool with a snapshot of them. `repeats` times, in
    turns (a b c, then c b a, ...) so that the machine's drift hits every arm alike; the figures are over
    all repeats, and with two or more each ratio by CPU time has a bootstrap interval over them."""
    import torch

    configs = goal_configs(game, players, steps, CANDIDATE if candidate is None else candidate)
    default = configs["default"]
    runs: dict[str, list[tuple[int, float, float, float]]] = {arm: [] for arm in GOAL_ARMS}
    threads = torch.get_num_threads()
    try:
        with tempfile.TemporaryDirectory() as folder:
            probe = make_game(game, players, seed=0, **default.options)
            policy = build_policy(
                probe.observation_shape,
                probe.num_actions,
                default.net_arch,
                default.activation,
                default.entity_head_spec(),
            )
            path = Path(folder) / "snapshot.safetensors"
            snapshot = str(
                save_policy(
                    policy, path, game=game, players=players, net_arch=default.net_arch, activation=default.activation
                )
            )
            for repeat in range(repeats):
                for arm in GOAL_ARMS if repeat % 2 == 0 else GOAL_ARMS[::-1]:
                    config = configs[arm]
                    pool = OpponentPool(game, config.pool_weights(), config.max_snapshots)
                    pool.add_snapshot(snapshot)
                    runs[arm].append(_learn_config(config, pool, as_at_issue=arm == "issue"))
    finally:
        torch.set_num_threads(threads)
    chosen, base = asdict(configs["candidate"]), asdict(default)
    changed = {key: value for key, value in chosen.items() if base[key] != value}
    done, wall, cpu, update = ({arm: sum(run[i] for run in runs[arm]) for arm in GOAL_ARMS} for i in range(4))
    rates = {arm: done[arm] / wall[arm] for arm in GOAL_ARMS}
    row = {
        "game": game,
        "players": players,
        "steps": steps,
        "candidate": changed,
        "repeats": repeats,
        **{f"{arm}_steps_per_s": round(rates[arm]) for arm in GOAL_ARMS},
        **{f"{arm}_cpu_ms_per_step": round(1000 * cpu[arm] / done[arm], 3) for arm in GOAL_ARMS},
        **{f"{arm}_update_cpu_ms_per_step": round(1000 * update[arm] / done[arm], 3) for arm in GOAL_ARMS},
        "default_ratio": round(rates["default"] / rates["issue"], 2),
        "candidate_ratio": round(rates["candidate"] / rates["issue"], 2),
    }
    if repeats > 1:  # each arm's (steps, CPU s) beside the issue's of the same repeat: the ratio's pairs
        for arm in GOAL_ARMS[1:]:
            pairs = np.array([[a[0], a[2], i[0], i[2]] for a, i in zip(runs[arm], runs["issue"], strict=True)])
            row[f"{arm}_by_cpu_interval"] = [round(end, 3) for end in Paired(pairs).interval()]
    return row


def is_goal(rows: list[dict]) -> bool:
    """Whether `rows` are `measure_goal`'s (else the reference-and-workers rows of `measure`)."""
    return bool(rows) and "issue_steps_per_s" in rows[0]


def _recipe(changed: dict) -> str:
    return ", ".join(f"{key} = {value}" for key, value in sorted(changed.items())) or "the default"


def goal_table(rows: list[dict]) -> str:
    """`measure_goal`'s rows as a Markdown table: each arm's env steps/s and their ratios to the issue's
    default, each arm's CPU milliseconds per env step, those of them in PPO's update (a column only when
    the rows timed it), and the same ratios by CPU time (the issue's CPU time per step over the arm's);
    the candidate recipe(s) named under it."""
    timed = any(f"{arm}_update_cpu_ms_per_step" in row for row in rows for arm in GOAL_ARMS)
    head = [
        "game",
        "players",
        "(a) issue default env steps/s",
        "(b) today's default env steps/s",
        "(c) candidate env steps/s",
        "b/a",
        "c/a",
        "CPU ms per step a / b / c",
        *(["of it PPO's update a / b / c"] if timed else []),
        "by CPU b/a",
        "by CPU c/a",
    ]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for row in rows:
        cpu = " / ".join(f"{row[f'{arm}_cpu_ms_per_step']:.2f}" for arm in GOAL_ARMS)
        update = " / ".join(
            f"{row[f'{arm}_update_cpu_ms_per_step']:.2f}" if f"{arm}_update_cpu_ms_per_step" in row else "-"
            for arm in GOAL_ARMS
        )
        issue = row["issue_cpu_ms_per_step"]
        by_cpu = " | ".join(
            f"{issue / row[f'{arm}_cpu_ms_per_step']:.2f}x{_bracketed(row.get(f'{arm}_by_cpu_interval'))}"
            for arm in GOAL_ARMS[1:]
        )
        lines.append(
            f"| {row['game']} | {row['players']} | {row['issue_steps_per_s']:,} | {row['default_steps_per_s']:,} "
            f"| {row['candidate_steps_per_s']:,} | {row['default_ratio']}x | {row['candidate_ratio']}x | {cpu} "
            f"| {update + ' | ' if timed else ''}{by_cpu} |"
        )
    recipes = sorted({_recipe(row["candidate"]) for row in rows})
    steps = sorted({row["steps"] for row in rows})
    repeats = sorted({row.get("repeats", 1) for row in rows})
    repeated = (
        ""
        if repeats == [1]
        else f", {'/'.join(map(str, repeats))} times in turns (in brackets, the 95% bootstrap interval of a "
        "ratio by CPU over the repeats)"
    )
    lines += ["", f"{'/'.join(f'{s:,}' for s in steps)} env steps each{repeated}; the candidate: {'; '.join(recipes)}."]
    if rows:
        lines[-1] += " " + _goal_summary(rows)
    return "\n".join(lines)


def _bracketed(interval: list[float] | None) -> str:
    return "" if interval is None else f" ({interval[0]:.2f}-{interval[1]:.2f})"


def _goal_summary(rows: list[dict]) -> str:
    """One sentence over `rows`: the range of each arm's ratio to the issue's default by CPU time, and
    which rows reach the goal's 5x; then, where the rows timed PPO's update, the most today's PPO settings
    allow: the issue's CPU time per step over today's default's update alone (an env and rollouts that
    cost nothing would reach no more)."""

    def by_cpu(row: dict, arm: str) -> float:
        return row["issue_cpu_ms_per_step"] / row[f"{arm}_cpu_ms_per_step"]

    ranges = []
    for arm, name in (("default", "today's default"), ("candidate", "the candidate")):
        ratios = [by_cpu(row, arm) for row in rows]
        ranges.append(f"{name} {min(ratios):.2f}-{max(ratios):.2f}x")
    reached = [
        f"{name} in {row['game']} {row['players']}p"
        for row in rows
        for arm, name in (("default", "today's default"), ("candidate", "the candidate"))
        if by_cpu(row, arm) >= 5
    ]
    summary = (
        f"By CPU time, {' and '.join(ranges)} the issue's default; "
        f"at 5x or more: {', '.join(reached) if reached else 'none'}."
    )
    timed = [row for row in rows if row.get("default_update_cpu_ms_per_step")]
    if timed:
        ceilings = [row["issue_cpu_ms_per_step"] / row["default_update_cpu_ms_per_step"] for row in timed]
        summary += (
            f" Today's default spends {min(r['default_update_cpu_ms_per_step'] for r in timed):.2f}-"
            f"{max(r['default_update_cpu_ms_per_step'] for r in timed):.2f} CPU ms a step in PPO's update alone, "
            f"so with today's PPO settings even an env and rollouts that cost nothing would give at most "
            f"{min(ceilings):.2f}-{max(ceilings):.2f}x."
        )
    return summary


def table(rows: list[dict]) -> str:
    """The rows as a Markdown table: the reference, the default (1 worker) and each worker count's
    env steps/s with its speed-up over 1 worker."""
    counts = sorted({int(c) for row in rows for c in row.get("workers", {})})
    players, steps = {row["players"] for row in rows}, {row["steps"] for row in rows}
    scope = f"{'/'.join(map(str, sorted(players)))} players, {'/'.join(f'{s:,}' for s in sorted(steps))} steps each"
    head = [f"game ({scope})", "reference env steps/s", "default (1 worker) env steps/s", "ratio"]
    for count in counts:
        head += [f"{count} workers env steps/s", f"{count} workers / 1 worker"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for row in rows:
        cells = [
            row["game"],
            f"{row['reference_steps_per_s']:,}",
            f"{row['default_steps_per_s']:,}",
            f"{row['ratio']}x",
        ]
        for count in counts:
            rate, speedup = row.get("workers", {}).get(str(count)), row.get("workers_speedup", {}).get(str(count))
            cells += [f"{rate:,}" if rate is not None else "-", f"{speedup}x" if speedup is not None else "-"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def section_name(source: str | Path) -> str:
    """The name of the generated section of the JSON `source`'s table, made from its file name, so a page
    holds one table per JSON (docs/training.md: throughput-2p and throughput-4p)."""
    return Path(source).stem.replace("_", "-")


def doc_section(rows: list[dict], source: str | Path) -> str:
    """The generated section of a Markdown file: the table of `rows` and where its JSON is."""
    name = Path(source).name
    return f"{(goal_table if is_goal(rows) else table)(rows)}\n\nThe raw figures are in [{name}]({name})."


def write_doc(path: str | Path, rows: list[dict], source: str | Path) -> None:
    """Fill the section of `source`'s table in the Markdown file at `path` (one ValueError if it has none)."""
    name = section_name(source)
    write_sections(path, {name: doc_section(rows, source)}, (name,))


def _split_rows(games: list[str], players: int, steps: int) -> list[dict]:
    """`measure_split` of each game, each printed as a Markdown row as it is measured."""
    print("| game | players | env steps/s | env | of it snapshot forwards | learner forwards | PPO update | other |")
    print("|---|---|---|---|---|---|---|---|", flush=True)
    rows = []
    for game in games:
        row = measure_split(game, players, steps)
        rows.append(row)
        parts = " | ".join(f"{row['shares'][key]:.0%}" for key in (*SPLIT_PARTS, "other"))
        print(f"| {game} | {players} | {row['steps_per_s']:,} | {parts} |", flush=True)
    return rows


def _batch_rows(games: list[str], players: int, steps: int) -> list[dict]:
    """`measure_batch` of each game, each printed as a Markdown row as it is measured."""
    print("| game | SelfPlayVecEnv env steps/s | native batch env steps/s | ratio |\n|---|---|---|---|", flush=True)
    rows = []
    for game in games:
        row = measure_batch(game, players, steps)
        rows.append(row)
        print(
            f"| {game} | {row['selfplay_steps_per_s']:,} | {row['batch_steps_per_s']:,} | {row['batch_ratio']}x |",
            flush=True,
        )
    return rows


def _goal_rows(games: list[str], players: int, steps: int, candidate: dict, repeats: int = 1) -> list[dict]:
    """`measure_goal` of each game, each printed as a Markdown row as it is measured."""
    rows = []
    for game in games:
        row = measure_goal(game, players, steps, candidate, repeats)
        rows.append(row)
        lines = goal_table([row]).splitlines()  # the head (its columns depend on the rows) with the first row
        print("\n".join(lines[:3] if len(rows) == 1 else lines[2:3]), flush=True)
    return rows


def _counts(text: str) -> tuple[int, ...]:
    try:
        counts = tuple(int(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"--workers takes comma-separated worker counts, not {text!r}") from None
    if min(counts) < 1 or max(counts) > DEFAULT["n_envs"]:
        raise argparse.ArgumentTypeError(f"worker counts are 1 to {DEFAULT['n_envs']} (the env's matches): {text!r}")
    return counts


def _checked_games(parser: argparse.ArgumentParser, args: argparse.Namespace) -> list[str]:
    """The games to measure, once every option is checked against the others (one parser error if not)."""
    if sum((args.batch, args.split, args.goal)) > 1:
        parser.error("--batch, --split and --goal are three measurements: ask for one")
    if args.candidate and not args.goal:
        parser.error("--candidate is the recipe --goal measures: add --goal")
    if args.goal and args.workers != (1,):
        parser.error("--goal measures the trainer's own env: drop --workers")
    if args.repeats != 1 and not args.goal:
        parser.error("--repeats repeats the --goal measurement: add --goal")
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")
    if (args.batch or args.split) and (args.doc or args.from_json or args.workers != (1,)):
        parser.error("--batch and --split measure one process, no --doc: drop --doc, --from-json and --workers")
    if args.doc and not args.out:
        parser.error("--doc needs --out: the table links the JSON it is made from")
    if args.doc:  # refused before the measurements, not after
        try:
            if section_name(args.out) not in section_names(read_document(args.doc)):
                raise ValueError(f"{args.doc} has no <!-- tables:{section_name(args.out)} --> section to fill")
        except (OSError, ValueError) as error:
            parser.error(f"--doc {args.doc}: {error}")
    games = args.games.split(",")
    unknown = sorted(set(games) - set(GAMES))
    if unknown:
        parser.error(f"unknown games {unknown}; allowed: {', '.join(GAMES)}")
    for game in games:
        try:
            game_class(game).check_num_players(args.players)
        except ValueError as error:
            parser.error(f"--players {args.players}: {game}: {error}")
    return games


def _reference_rows(games: list[str], players: int, steps: int, workers: tuple[int, ...]) -> list[dict]:
    """`measure` of each game, each printed as a Markdown row as it is measured."""
    counts = sorted(set(workers) - {1})
    header = "| game | reference env steps/s | default env steps/s | ratio |"
    header += "".join(f" {c} workers env steps/s | {c} workers / 1 worker |" for c in counts)
    print(header + "\n|" + "---|" * (4 + 2 * len(counts)), flush=True)
    rows = []
    for game in games:
        row = measure(game, players, steps, workers)
        rows.append(row)
        line = f"| {game} | {row['reference_steps_per_s']:,} | {row['default_steps_per_s']:,} | {row['ratio']}x |"
        for c in counts:
            line += f" {row['workers'][str(c)]:,} | {row['workers_speedup'][str(c)]}x |"
        print(line, flush=True)
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.ArgumentDefaultsHelpFormatter
    )
    parser.add_argument("--games", default=",".join(GAMES), help="comma-separated games")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--steps", type=int, default=16_384, help="env steps per measurement")
    parser.add_argument(
        "--workers",
        type=_counts,
        default=(1,),
        help="comma-separated worker counts of the default env, e.g. 1,2 (1 is always measured)",
    )
    parser.add_argument(
        "--batch", action="store_true", help="measure SelfPlayVecEnv beside the native batch (the trainer's default)"
    )
    parser.add_argument(
        "--split", action="store_true", help="where a learning step's CPU time goes on the trainer's default env"
    )
    parser.add_argument(
        "--goal",
        action="store_true",
        help="issue 45's goal: the issue's default (Python engine), today's and a candidate recipe, same run",
    )
    parser.add_argument(
        "--candidate",
        action="append",
        metavar="KEY=VALUE",
        help="with --goal: a training config key of the candidate recipe (repeat it; default: CANDIDATE)",
    )
    parser.add_argument(
        "--repeats",
        type=int,
        default=1,
        help="with --goal: measure every arm this many times, in turns (2 or more: an interval on each ratio)",
    )
    parser.add_argument("--out", help="also write the rows as JSON here")
    parser.add_argument(
        "--doc", help="write the rows' table into this Markdown file's generated section for the JSON (--out)"
    )
    parser.add_argument("--from-json", dest="from_json", help="measure nothing: take the rows from this JSON")
    args = parser.parse_args(argv)
    if args.from_json:
        if not args.doc:
            parser.error("--from-json only writes a --doc")
        try:
            rows = json.loads(Path(args.from_json).read_text())
            write_doc(args.doc, rows, args.from_json)
        except (OSError, ValueError, KeyError, TypeError) as error:
            parser.error(f"--from-json {args.from_json} --doc {args.doc}: {error}")
        return 0
    games = _checked_games(parser, args)
    if args.goal:
        try:
            candidate = parse_assignments(args.candidate, "--candidate") if args.candidate else dict(CANDIDATE)
            for game in games:  # every recipe checked before the first measurement
                goal_configs(game, args.players, args.steps, candidate)
        except ValueError as error:
            parser.error(str(error))
        rows = _goal_rows(games, args.players, args.steps, candidate, args.repeats)
    elif args.split or args.batch:
        rows = (_split_rows if args.split else _batch_rows)(games, args.players, args.steps)
    else:
        rows = _reference_rows(games, args.players, args.steps, tuple(args.workers))
    if args.out:
        Path(args.out).write_text(json.dumps(rows, indent=2) + "\n")
    if args.doc:
        write_doc(args.doc, rows, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
