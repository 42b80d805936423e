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
    python -m city_envs.training.throughput --split --games metropolys,big_city --players 4 --steps 8192
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import tempfile
import time
from pathlib import Path
from unittest import mock

import gymnasium as gym
import numpy as np

from city_envs.agents.policy_file import build_policy, save_policy
from city_envs.core.markdown import section_names, write_sections
from city_envs.core.registry import GAMES, game_class, make_game
from city_envs.core.settings import read_document
from city_envs.training.pool import OpponentPool
from city_envs.training.split_env import SplitVecEnv
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
    return f"{table(rows)}\n\nThe raw figures are in [{name}]({name})."


def write_doc(path: str | Path, rows: list[dict], source: str | Path) -> None:
    """Fill the section of `source`'s table in the Markdown file at `path` (one ValueError if it has none)."""
    name = section_name(source)
    write_sections(path, {name: doc_section(rows, source)}, (name,), placeholder=None)


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


def _counts(text: str) -> tuple[int, ...]:
    try:
        counts = tuple(int(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"--workers takes comma-separated worker counts, not {text!r}") from None
    if min(counts) < 1 or max(counts) > DEFAULT["n_envs"]:
        raise argparse.ArgumentTypeError(f"worker counts are 1 to {DEFAULT['n_envs']} (the env's matches): {text!r}")
    return counts


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
    if args.batch and args.split:
        parser.error("--batch and --split are two measurements: ask for one")
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
    rows = []
    if args.split or args.batch:
        rows = (_split_rows if args.split else _batch_rows)(games, args.players, args.steps)
        if args.out:
            Path(args.out).write_text(json.dumps(rows, indent=2) + "\n")
        return 0
    counts = sorted(set(args.workers) - {1})
    header = "| game | reference env steps/s | default env steps/s | ratio |"
    header += "".join(f" {c} workers env steps/s | {c} workers / 1 worker |" for c in counts)
    print(header + "\n|" + "---|" * (4 + 2 * len(counts)), flush=True)
    for game in games:
        row = measure(game, args.players, args.steps, tuple(args.workers))
        rows.append(row)
        line = f"| {game} | {row['reference_steps_per_s']:,} | {row['default_steps_per_s']:,} | {row['ratio']}x |"
        for c in counts:
            line += f" {row['workers'][str(c)]:,} | {row['workers_speedup'][str(c)]}x |"
        print(line, flush=True)
    if args.out:
        Path(args.out).write_text(json.dumps(rows, indent=2) + "\n")
    if args.doc:
        write_doc(args.doc, rows, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
