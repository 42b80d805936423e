"""A training run: the warm start, self-play MaskablePPO from it, expert iteration, with checkpoints and curves.

`train(config, out)` runs the stages a `TrainConfig` asks for and leaves in `out`:

- `config.toml`: the resolved config;
- `warm_start/round_<k>.safetensors` and `warm_start/rounds.json` (`training/pretrain.py`);
- `snapshots/step_<n>.safetensors`: the learner's frozen copies that the pool plays;
- `expert/round_<k>.safetensors`, `expert/rounds.json`, `expert/round_<k>/` (each match's samples and
  the round's checkpoint) with `expert_rounds` (`training/expert.py`);
- `checkpoint/`: the latest PPO state (`training/checkpoint.py`: JSON and a weights-only tensors file);
- `logs/part_<k>/`: SB3's CSV (and TensorBoard, when installed) logs, one part per start or resume;
- `curve.csv` and `learning_curve.png`: win rates with 95% intervals after each stage and evaluation;
- `ppo.safetensors` (the last PPO policy), `average.safetensors` (with `average_last`: the parameter
  average of the last PPO points' policies);
- `model.safetensors` (the final policy: the best curve point, the average, or the last policy) and
  `evaluation.json` (its final evaluation). The expert rounds' points join the curve, so the best
  point may be one of them; without a choice the last round is the model.

With `privileged_critic`, PPO's critic reads every seat's observation while its actor reads the
seat's own (`agents/privileged_policy.py`); the warm start is the same as without it, and PPO starts
from it with the critic widened so that it first values every state as the warm start's did.

Nothing is game-specific: a game that registers with `city_envs` and has a heuristic in
`agents/registry.py` trains with no new code. Resume: every stage continues where it stopped. A
PPO checkpoint is taken at the start of a rollout and holds the policy and optimizer, every match
and opponent (with its generator), the global generators, the monitor and the schedule, so a run
resumed after a crash ends with the same parameters as an uninterrupted one (one torch thread;
`tests/training/test_selfplay.py` checks it bit for bit).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from city_envs.agents.policy_file import load_policy_file, policy_class, policy_kwargs, save_policy
from city_envs.agents.registry import is_user_agent
from city_envs.core import progress
from city_envs.core.settings import parse_assignments, read_toml
from city_envs.core.vector import batch_available
from city_envs.training import checkpoint
from city_envs.training.config import TrainConfig, config_to_toml, load_config
from city_envs.training.evaluation import curve_row, evaluate_model, format_evaluation, write_curve
from city_envs.training.lineage import check_policy_file, keep_parent, run_record
from city_envs.training.pool import OpponentPool


def uses_batch(config: TrainConfig) -> bool:
    """Whether `make_env` steps `config`'s matches on the native batch (`training/batch_env.py`)."""
    if config.env_workers > 1 or not batch_available(config.game):
        return False
    from city_envs.training.batch_env import batch_supports

    return batch_supports(config.privileged_critic)


def make_env(config: TrainConfig, pool: OpponentPool):
    """The learner's vector env with SB3's episode statistics: the native batch (its snapshot opponents
    evaluated here) where the native engine is built, unless the run asks for a privileged critic or
    `env_workers` processes; else SelfPlayVecEnv in this process or split over `env_workers` processes
    (the same transitions in every case)."""
    from stable_baselines3.common.vec_env import VecMonitor

    arguments = (config.game, config.players, config.n_envs, config.seed, pool, config.options, config.reward)
    settings: dict[str, Any] = {"score_scale": config.score_scale, "privileged": config.privileged_critic}
    if uses_batch(config):
        from city_envs.training.batch_env import BatchVecEnv

        return VecMonitor(BatchVecEnv(*arguments, **settings))
    if config.env_workers > 1:
        from city_envs.training.split_env import SplitVecEnv

        return VecMonitor(SplitVecEnv(*arguments, **settings, workers=config.env_workers))
    from city_envs.training.vec_env import SelfPlayVecEnv

    return VecMonitor(SelfPlayVecEnv(*arguments, **settings))


def _critic_kwargs(config: TrainConfig) -> dict:
    """The policy kwargs of a privileged critic for `config`'s game and player count (none without one)."""
    if not config.privileged_critic:
        return {}
    from city_envs.core.privileged import all_seats_size
    from city_envs.core.registry import make_game

    probe = make_game(config.game, config.players, seed=0, **config.options)
    return {"seat_shape": probe.observation_shape, "critic_size": all_seats_size(probe)}


def _load_start(config: TrainConfig, policy, init: Path) -> None:
    """Load the policy file `init` into PPO's `policy`, refused with a clear error when its network is
    not the config's; a plain file under a privileged critic gets its critic widened (`widen_critic`)."""
    start, meta = load_policy_file(init)
    head = config.entity_head_spec()
    wanted = (config.net_arch, config.activation, head)
    if (meta["net_arch"], meta["activation"], meta["entity_head"]) != wanted:
        raise ValueError(
            f"{init} holds a {meta['activation']} network {meta['net_arch']} with entity head "
            f"{meta['entity_head']}; the config asks for {config.activation} {config.net_arch} "
            f"with {head}: set net_arch, activation and entity_head to match it"
        )
    state = start.state_dict()
    if meta["critic_input"] == "all_seats":
        if not config.privileged_critic:
            raise ValueError(f"{init} has a privileged critic (critic_input all_seats): set privileged_critic = true")
        if meta["players"] != config.players:
            raise ValueError(
                f"{init}'s critic reads every seat of a {meta['players']}-player match; "
                f"this run trains {config.players} players"
            )
    elif config.privileged_critic:
        from city_envs.agents.privileged_policy import widen_critic

        state = widen_critic(state, policy)
    policy.load_state_dict(state)


def _save(config: TrainConfig, policy, path: Path, **info: Any) -> Path:
    return save_policy(
        policy,
        path,
        game=config.game,
        players=config.players,
        net_arch=config.net_arch,
        activation=config.activation,
        info=info,
    )


def _evaluate_point(config: TrainConfig, path: Path, stage: str, step: int, started: float) -> dict:
    label = f"evaluation at step {step:,}" if stage == "ppo" else f"evaluation of the {stage} policy"
    results = evaluate_model(
        path,
        config.game,
        config.players,
        config.eval_games,
        config.seed + 1,
        jobs=config.eval_jobs,
        label=label,
        **config.options,
    )
    return {**curve_row(stage, step, time.time() - started, results), "policy": str(path)}


def best_point(curve: list[dict]) -> dict | None:
    """The curve point with the best sum of its win rates (against random and against the heuristic, so
    a point that beats the heuristic by luck but fails against random play is not taken); the later one
    on a tie. Its games are on the run's evaluation seed, never the final one."""
    scored = [
        (sum(v for k, v in row.items() if k.startswith("win_rate_vs_")), i)
        for i, row in enumerate(curve)
        if Path(row["policy"]).is_file()
    ]
    return curve[max(scored)[1]] if scored else None


def average_policies(paths: list[Path], target: Path, config: TrainConfig, **info: Any) -> Path:
    """The parameter average of the policies in `paths` (same network), written to `target`."""
    from torch.optim.swa_utils import AveragedModel

    policies = [load_policy_file(path)[0] for path in paths]
    average = AveragedModel(policies[0])
    for policy in policies:
        average.update_parameters(policy)
    policies[0].load_state_dict(average.module.state_dict())
    return _save(config, policies[0], target, **info)


def _average_point(config: TrainConfig, out: Path, points: list[dict], started: float) -> dict:
    """The curve point of the average of the policies of the curve `points`."""
    steps = [row["step"] for row in points]
    path = average_policies(
        [Path(row["policy"]) for row in points], out / "average.safetensors", config, stage="average", steps=steps
    )
    return _evaluate_point(config, path, "average", steps[-1], started)


def _make_callback(config: TrainConfig, out: Path, pool: OpponentPool, schedule: dict, bar: progress.Stage):
    from stable_baselines3.common.callbacks import BaseCallback

    class SelfPlayCallback(BaseCallback):
        """At rollout starts: pool snapshots, evaluations, checkpoints; on steps: the progress bar, with
        the steps per second since the start and the latest evaluation."""

        def __init__(self) -> None:
            super().__init__()
            self.clock = (time.time(), 0)
            self.last_eval = ""

        def _on_training_start(self) -> None:
            self.clock = (time.time(), self.num_timesteps)

        def _on_rollout_start(self) -> None:
            steps = self.num_timesteps
            if steps >= schedule["next_snapshot"]:
                path = _save(
                    config,
                    self.model.policy,
                    out / "snapshots" / f"step_{steps:09d}.safetensors",
                    stage="ppo",
                    timesteps=steps,
                )
                pool.add_snapshot(str(path))
                schedule["snapshots"] = pool.snapshots
                schedule["next_snapshot"] = steps + config.snapshot_every
            if steps >= schedule["next_eval"] and config.eval_games > 0:
                path = _save(
                    config,
                    self.model.policy,
                    out / "snapshots" / f"eval_{steps:09d}.safetensors",
                    stage="ppo",
                    timesteps=steps,
                )
                row = _evaluate_point(config, path, "ppo", steps, schedule["started"])
                schedule["curve"].append(row)
                write_curve(out, schedule["curve"], f"{config.game} {config.players}p")
                for key, value in row.items():
                    if key.startswith("win_rate"):
                        self.logger.record(f"eval/{key}", value)
                self.last_eval = f"; eval @{steps:,}: " + ", ".join(
                    f"{k.removeprefix('win_rate_')} {v:.2f}" for k, v in row.items() if k.startswith("win_rate")
                )
                schedule["next_eval"] = steps + config.eval_every
            if steps >= schedule["next_checkpoint"]:
                schedule["next_checkpoint"] = steps + config.checkpoint_every
                _save_checkpoint(self.model, out, schedule)

        def _on_step(self) -> bool:
            seconds = time.time() - self.clock[0]
            rate = (self.num_timesteps - self.clock[1]) / seconds if seconds > 0 else 0.0
            bar.update(self.num_timesteps, note=f"{rate:,.0f} steps/s{self.last_eval}")
            return True

    return SelfPlayCallback()


def _save_checkpoint(model, out: Path, schedule: dict) -> None:
    monitor = model.get_env()
    checkpoint.save(
        out / "checkpoint",
        model,
        monitor.venv.get_state(),
        {
            "returns": monitor.episode_returns.tolist(),
            "lengths": monitor.episode_lengths.tolist(),
            "count": int(monitor.episode_count),
        },
        {k: v for k, v in schedule.items() if k != "started"},
    )


def _new_logger(out: Path):
    from stable_baselines3.common.logger import configure

    parts = sorted((out / "logs").glob("part_*"))
    formats = ["csv"]
    try:
        import tensorboard  # noqa: F401

        formats.append("tensorboard")
    except ImportError:
        pass
    return configure(str(out / "logs" / f"part_{len(parts) + 1}"), formats)


def ppo_end_step(done: int, asked: int, rollout: int) -> int:
    """Where PPO stops when asked for `asked` steps in all from step `done`: it collects whole rollouts
    of `rollout` steps (n_steps x n_envs), so at the first rollout boundary at or past `asked`."""
    return done + max(0, -(-(asked - done) // rollout)) * rollout


def train_ppo(
    config: TrainConfig,
    out: Path,
    init: Path | None,
    curve: list[dict],
    started: float,
    pool: OpponentPool | None = None,
) -> tuple[Path, dict]:
    """Self-play MaskablePPO from `init` (or fresh weights), resuming from `out/checkpoint` if there is one;
    the opponents come from `pool` (default: the config's pool weights)."""
    if pool is None:
        pool = OpponentPool(config.game, config.pool_weights(), config.max_snapshots)
    venv = make_env(config, pool)
    try:
        return _run_ppo(config, out, init, curve, started, pool, venv)
    finally:
        venv.close()  # ends the env's worker processes, if it has any


def make_ppo(config: TrainConfig, venv):
    """The trainer's MaskablePPO of `config` (network, PPO settings, seed) on `venv`, on the CPU, fresh weights."""
    from sb3_contrib import MaskablePPO

    head = config.entity_head_spec()
    return MaskablePPO(
        policy_class(head, config.privileged_critic),
        venv,
        seed=config.seed,
        device="cpu",
        verbose=0,
        n_steps=config.n_steps,
        batch_size=config.batch_size,
        n_epochs=config.n_epochs,
        learning_rate=config.learning_rate,
        gamma=config.gamma,
        gae_lambda=config.gae_lambda,
        clip_range=config.clip_range,
        ent_coef=config.ent_coef,
        vf_coef=config.vf_coef,
        policy_kwargs=policy_kwargs(config.net_arch, config.activation, head, **_critic_kwargs(config)),
    )


def _run_ppo(
    config: TrainConfig, out: Path, init: Path | None, curve: list[dict], started: float, pool: OpponentPool, venv
) -> tuple[Path, dict]:
    """`train_ppo` on the vector env `venv`."""
    import torch

    model = make_ppo(config, venv)
    if (out / "checkpoint" / "state.json").is_file():
        state, tensors = checkpoint.load(out / "checkpoint")
        if state["env"].get("privileged", False) != config.privileged_critic:
            raise ValueError(
                f"the checkpoint in {out} was taken with privileged_critic = "
                f"{str(state['env'].get('privileged', False)).lower()}: resume with the same setting"
            )
        model.policy.load_state_dict(tensors["policy"])
        model.policy.optimizer.load_state_dict(tensors["optimizer"])
        model.num_timesteps, model._n_updates = state["num_timesteps"], state["n_updates"]
        schedule = state["schedule"]
        for path in schedule["snapshots"]:
            pool.add_snapshot(path)
        model._last_obs = venv.venv.set_state(state["env"])
        model._last_episode_starts = np.array(state["last_episode_starts"], dtype=bool)
        venv.episode_returns = np.array(state["monitor"]["returns"], dtype=np.float32)
        venv.episode_lengths = np.array(state["monitor"]["lengths"], dtype=np.int32)
        venv.episode_count = state["monitor"]["count"]
        torch.set_rng_state(tensors["torch_rng"])
        checkpoint.set_global_rng_states(state["rng"])
        resumed = True
    else:
        if init is not None:
            _load_start(config, model.policy, init)
        schedule = {
            "snapshots": [],
            "curve": curve,
            "next_snapshot": config.snapshot_every,
            "next_eval": config.eval_every,
            "next_checkpoint": config.checkpoint_every,
        }
        resumed = False
    schedule["started"] = started
    model.set_logger(_new_logger(out))
    remaining = config.timesteps - model.num_timesteps
    rollout = config.n_steps * config.n_envs
    end = ppo_end_step(model.num_timesteps, config.timesteps, rollout)
    title = "PPO" if end == config.timesteps else f"PPO to {end:,} (rollouts of {rollout:,})"
    clock, start_steps = time.time(), model.num_timesteps
    if remaining > 0:
        if not resumed:
            # _setup_learn resets the env unless told otherwise; a resumed run keeps the restored one
            model._last_obs = None
        with progress.stage(title, end, "steps", completed=model.num_timesteps) as bar:
            model.learn(
                total_timesteps=remaining,
                reset_num_timesteps=False,
                callback=_make_callback(config, out, pool, schedule, bar),
            )
    seconds = time.time() - clock
    path = _save(config, model.policy, out / "ppo.safetensors", stage="ppo", timesteps=int(model.num_timesteps))
    if config.eval_games > 0 and not any(row["step"] == model.num_timesteps for row in schedule["curve"]):
        schedule["curve"].append(_evaluate_point(config, path, "ppo", int(model.num_timesteps), started))
    timed = int(model.num_timesteps - start_steps)  # this sitting's steps: a resumed run timed only these
    stats = {
        "timesteps": int(model.num_timesteps),
        "ppo_timed_steps": timed,
        "ppo_seconds": round(seconds, 1),
        "ppo_steps_per_s": round(timed / seconds, 1) if seconds > 0 else 0.0,
    }
    return path, {**stats, "curve": schedule["curve"]}


def train(
    config: TrainConfig, out: str | Path, resume: bool = False, log=print, pool: OpponentPool | None = None
) -> dict:
    """Run (or resume) every stage of `config` in `out`; returns the summary written to evaluation.json,
    with the seconds of each stage: `seconds` up to the chosen model, `total_seconds` with the final
    evaluation. `pool` replaces the config's opponent pool in the PPO stage (the exploit probe's fixed
    opponent). Each stage reports its progress (`city_envs.core.progress`)."""
    import torch

    out = Path(out)
    torch.set_num_threads(config.torch_threads)
    _open_run(config, out, resume)
    started = time.time()
    summary: dict[str, Any] = {"game": config.game, "players": config.players}
    init, curve = _warm_start_stage(config, out, started, summary, log)
    model_path = init
    if config.timesteps > 0:
        model_path, stats = train_ppo(config, out, init, list(curve), started, pool)
        curve = stats.pop("curve")
        summary.update(stats)
    if model_path is None:
        raise ValueError("nothing to train: set pretrain = true, timesteps > 0, or init_from")
    if config.expert_rounds > 0:
        model_path, curve = _expert_stage(config, out, model_path, curve, started, summary, log)
    final = _choose_model(config, out, curve, model_path, started, summary, log)
    summary["seconds"] = round(time.time() - started, 1)
    if config.final_eval_games > 0:
        _final_evaluation(config, final, summary)
    summary["total_seconds"] = round(time.time() - started, 1)
    (out / "evaluation.json").write_text(json.dumps(summary, indent=2))
    return summary


def _open_run(config: TrainConfig, out: Path, resume: bool) -> None:
    """A new run needs a folder without one; a resumed run needs its own (whose config is rewritten)."""
    if not resume and (out / "config.toml").exists():
        raise ValueError(f"{out} already holds a run: use --resume, or --fresh, or another --out")
    if resume and not (out / "config.toml").exists():
        raise ValueError(f"--resume: {out} holds no run (config.toml is missing)")
    out.mkdir(parents=True, exist_ok=True)
    (out / "config.toml").write_text(config_to_toml(config))


def _win_rates(row: dict) -> str:
    return ", ".join(f"{k.removeprefix('win_rate_')} {v:.2f}" for k, v in row.items() if k.startswith("win_rate"))


def _warm_start_stage(
    config: TrainConfig, out: Path, started: float, summary: dict, log
) -> tuple[Path | None, list[dict]]:
    """Behaviour cloning and DAgger rounds when the config asks for them, each round evaluated once
    (the curve kept in warm_start/curve.json survives a resume); returns the policy PPO starts from
    and the curve so far."""
    curve_file = out / "warm_start" / "curve.json"
    curve: list[dict] = json.loads(curve_file.read_text()) if curve_file.is_file() else []
    init = Path(config.init_from) if config.init_from else None
    if not config.pretrain:
        return init, curve
    from city_envs.training.pretrain import warm_start

    clock = time.time()
    init = warm_start(config, out, log)
    summary["warm_start_seconds"] = round(time.time() - clock, 1)
    clock = time.time()
    done = {row["stage"] for row in curve}
    for round_file in sorted((out / "warm_start").glob("round_*.safetensors")):
        if round_file.stem == "round_0":
            stage = "init" if config.init_from else "clone"
        else:
            stage = f"dagger {round_file.stem.split('_')[1]}"
        if config.eval_games > 0 and stage not in done:
            curve.append(_evaluate_point(config, round_file, stage, 0, started))
            curve_file.write_text(json.dumps(curve))
            log(f"{stage}: {_win_rates(curve[-1])}")
    summary["warm_start_evaluation_seconds"] = round(time.time() - clock, 1)
    return init, curve


def _expert_stage(
    config: TrainConfig, out: Path, start: Path, curve: list[dict], started: float, summary: dict, log
) -> tuple[Path, list[dict]]:
    """Expert iteration from `start` (`training/expert.py`), each round evaluated once (the rows kept in
    expert/curve.json survive a resume, at the PPO step the rounds continue); returns the last round's
    policy and the curve with the rounds' points."""
    from city_envs.training.expert import expert_iteration

    clock = time.time()
    last = expert_iteration(config, out, Path(start), log)
    summary["expert_seconds"] = round(time.time() - clock, 1)
    clock = time.time()
    curve_file = out / "expert" / "curve.json"
    rows: list[dict] = json.loads(curve_file.read_text()) if curve_file.is_file() else []
    done = {row["stage"] for row in rows}
    for k in range(1, config.expert_rounds + 1):
        stage = f"expert {k}"
        if config.eval_games > 0 and stage not in done:
            path = out / "expert" / f"round_{k}.safetensors"
            rows.append(_evaluate_point(config, path, stage, summary.get("timesteps", 0), started))
            curve_file.write_text(json.dumps(rows))
            log(f"{stage}: {_win_rates(rows[-1])}")
    summary["expert_evaluation_seconds"] = round(time.time() - clock, 1)
    return last, curve + [row for row in rows if int(row["stage"].split()[1]) <= config.expert_rounds]


def _choose_model(
    config: TrainConfig, out: Path, curve: list[dict], model_path: Path, started: float, summary: dict, log
) -> Path:
    """The run's model, copied to model.safetensors: the best curve point (`select_best`), or the
    average of the last PPO points (`average_last`), else the last policy trained."""
    best = best_point(curve) if config.select_best else None
    tail = [row for row in curve if row["stage"] == "ppo"][-config.average_last :] if config.average_last else []
    if len(tail) >= 2:  # fewer PPO points (a short run, or none): the last policy is the model
        best = _average_point(config, out, tail, started)
        curve.append(best)
        log(f"average of the last {len(tail)} PPO points: {_win_rates(best)}")
    if best is not None:
        model_path = Path(best["policy"])
        summary["selected"] = {k: v for k, v in best.items() if k != "policy"}
    final = out / "model.safetensors"
    if Path(model_path).resolve() != final.resolve():
        shutil.copyfile(model_path, final)
    write_curve(out, curve, f"{config.game} {config.players}p")
    summary["model"] = str(final)
    return final


def _final_evaluation(config: TrainConfig, final: Path, summary: dict) -> None:
    """The model against random and the heuristic on the seed no stage used (config seed + 2)."""
    clock = time.time()
    summary["eval_seed"] = config.seed + 2
    summary["evaluation"] = evaluate_model(
        final,
        config.game,
        config.players,
        config.final_eval_games,
        config.seed + 2,
        jobs=config.eval_jobs,
        label="final evaluation",
        **config.options,
    )
    summary["final_evaluation_seconds"] = round(time.time() - clock, 1)


def retrain_baseline(config_path: str | Path, out: str | Path, log=print) -> dict:
    """Train the run a committed baseline config describes (resuming one stopped in `out`)."""
    config_path = Path(config_path)
    config = load_config(read_toml(config_path)["game"], config_path)
    out = Path(out)
    return train(config, out, resume=(out / "config.toml").is_file(), log=log)


def check_finished_run(run: Path, game: str, players: int) -> None:
    """One ValueError unless `run` is a finished training run of `game` at `players` (config, model and
    evaluation.json all there and well-formed), whose config names only agents and files the command line
    would allow (`run_config`)."""
    missing = [name for name in ("config.toml", "model.safetensors", "evaluation.json") if not (run / name).is_file()]
    if missing:
        raise ValueError(f"{run} is not a finished run: {', '.join(missing)} missing")
    config = read_toml(run / "config.toml")
    if (config.get("game"), config.get("players")) != (game, players):
        raise ValueError(
            f"{run} is a run of {config.get('game')} with {config.get('players')} players, not {game} with {players}"
        )
    run_files(run, run_config(run))  # checked before the evaluation, which takes minutes
    run_record(run)  # a malformed evaluation.json is refused before anything is written


def run_files(run: Path, config: TrainConfig) -> Path | None:
    """The files publishing copies from a run, checked: its model a policy file that plays the run's game
    at its player count (`load_policy_file`), its learning curve, if any, a PNG file in the folder (no
    link). Returns the curve's path (None without one); anything else is one ValueError."""
    load_policy_file(run / "model.safetensors", config.game, config.players)
    curve = run / "learning_curve.png"
    if not curve.exists() and not curve.is_symlink():
        return None
    if curve.is_symlink() or not curve.is_file():
        raise ValueError(f"{curve} is not a regular file: publishing copies only the run's own files")
    with open(curve, "rb") as handle:
        if handle.read(8) != b"\x89PNG\r\n\x1a\n":
            raise ValueError(f"{curve} is not a PNG image")
    return curve


def run_config(run: Path) -> TrainConfig:
    """A run folder's config.toml, loaded only when the file decides no code: its teacher is a built-in
    agent (never a module of the user's, `module:Class`, nor a pickle, `:trust_pickle`), and its
    `init_from` lies in the run folder or the committed baselines' folder."""
    from city_envs.agents.policy_agent import BASELINES_DIR

    path = run / "config.toml"
    values = read_toml(path)
    teacher = values.get("teacher", "")
    if isinstance(teacher, str) and (is_user_agent(teacher) or "trust_pickle" in teacher.split(":")):
        raise ValueError(
            f"{path}: teacher = {teacher!r} would run code named in a file; a run folder's teacher is a built-in agent"
        )
    config = load_config(values.get("game", ""), path)
    if config.init_from:
        if not Path(config.init_from).is_file():
            raise ValueError(
                f"{run} continued {config.init_from}, which is gone: publishing keeps the policy a run continued"
            )
        start = Path(config.init_from).resolve()
        places = (run.resolve(), BASELINES_DIR.resolve())
        if not any(start.is_relative_to(place) for place in places):
            raise ValueError(
                f"{path}: init_from = {config.init_from!r} lies outside the run folder and the baselines' folder; "
                "copy the policy the run continued into the run folder"
            )
        check_policy_file(start)
    return config


def publish_baseline(run: str | Path, games: int = 400, seed: int = 1000, jobs: int = 1) -> dict:
    """Copy a finished run's policy into the policy store (`training/baselines/policies/<sha256>.safetensors`)
    and its config, curve and record to `training/baselines/<game>_<n>p.*`, the record naming the
    policy's SHA-256, with a `games`-game seat-rotated evaluation against random and the heuristic on
    `seed` (one training never used: runs evaluate on seeds `seed + 1` and `seed + 2` of their config,
    0-100 in the committed ones). A run that continued a policy (`init_from`) keeps it
    (`training/lineage.py`). All or nothing: every file is written into a temporary folder beside the
    baselines, then moved, the record last."""
    from city_envs.agents.policy_agent import STORE, baseline_stem

    run = Path(run)
    config = run_config(run)
    curve = run_files(run, config)
    made = run_record(run)
    evaluation = evaluate_model(
        run / "model.safetensors", config.game, config.players, games, seed, jobs=jobs, **config.options
    )
    failed = {opponent: r["failures"] for opponent, r in evaluation.items() if r["failures"]}
    if failed:  # e.g. worker processes that could not start: a baseline is never published on lost matches
        raise RuntimeError(f"failed evaluation matches {failed} (see `city-envs evaluate`): nothing published")
    target = baseline_stem(config.game, config.players)
    target.parent.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256((run / "model.safetensors").read_bytes()).hexdigest()
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=".publishing-") as folder:
        staged = Path(folder)
        if config.init_from:  # kept before the record is replaced: it may be the policy the run continued
            config.init_from = keep_parent(config.init_from, staged, target.name)
        (staged / STORE).mkdir(exist_ok=True)
        shutil.copyfile(run / "model.safetensors", staged / STORE / f"{digest}.safetensors")
        (staged / f"{target.name}.toml").write_text(config_to_toml(config))
        if curve is not None:
            shutil.copyfile(curve, staged / f"{target.name}_curve.png")
        record = {
            "game": config.game,
            "players": config.players,
            "eval_seed": seed,
            "agent": "ppo",
            "policy": digest,
            "training": made["training"],
            "init_from": config.init_from,
            "selected": made["selected"],
            "curve": made["curve"],
            "evaluation": evaluation,
        }
        (staged / f"{target.name}.json").write_text(json.dumps(record, indent=2) + "\n")
        for file in sorted(staged.rglob("*"), key=lambda p: p.name == f"{target.name}.json"):  # the record last
            if file.is_file():
                destination = target.parent / file.relative_to(staged)
                destination.parent.mkdir(parents=True, exist_ok=True)
                os.replace(file, destination)
    return record


# ----- command line -----------------------------------------------------------------------------
def add_arguments(parser) -> None:
    parser.add_argument("--timesteps", type=int, help="PPO env steps after the warm start (config: timesteps)")
    parser.add_argument("--out", help="run directory (default runs/<game>)")
    parser.add_argument("--config", help="TOML config (default training/configs/<game>.toml)")
    parser.add_argument("--envs", type=int, dest="n_envs", help="matches stepped together (config: n_envs)")
    parser.add_argument(
        "--init-from",
        dest="init_from",
        help="start from this policy file: PPO starts from it (pretrain = false), or, with "
        "--set pretrain=true, the DAgger rounds continue it",
    )
    parser.add_argument(
        "--set",
        action="append",
        metavar="KEY=VALUE",
        default=[],
        help="override a config key, e.g. --set dagger_rounds=2 --set reward=win",
    )
    parser.add_argument("--resume", action="store_true", help="continue the run in --out where it stopped")
    parser.add_argument("--fresh", action="store_true", help="delete the run already in --out and start over")
    parser.add_argument("--quiet", action="store_true", help="no progress bars (the log lines still print)")


def ppo_steps(training: dict) -> str:
    """The PPO steps its seconds timed: all of them, or a resumed run's last sitting's of its total."""
    total, timed = training["timesteps"], training.get("ppo_timed_steps", training["timesteps"])
    return f"{total:,} steps" if timed == total else f"{timed:,} of its {total:,} steps in this sitting"


def time_line(summary: dict) -> str:
    """The closing line of `city-envs train`: the whole time, and what took how long."""
    stages = []
    for name, key in (
        ("warm start", "warm_start_seconds"),
        ("evaluations of its rounds", "warm_start_evaluation_seconds"),
        ("PPO", "ppo_seconds"),
        ("expert iteration", "expert_seconds"),
        ("evaluations of the expert rounds", "expert_evaluation_seconds"),
        ("final evaluation", "final_evaluation_seconds"),
    ):
        if summary.get(key):
            stages.append(f"{name} {progress.format_duration(summary[key])}")
            if key == "ppo_seconds":
                stages[-1] += f" ({ppo_steps(summary)} at {summary['ppo_steps_per_s']:,.0f} env steps/s)"
    return (
        f"trained {summary['game']} {summary['players']}p in {progress.format_duration(summary['total_seconds'])}"
        + (f": {', '.join(stages)}" if stages else "")
        + f"; model: {summary['model']}"
    )


def run_command(args) -> int:
    """`city-envs train`: train, then print the final evaluation table and the time each stage took."""
    try:
        import sb3_contrib  # noqa: F401
    except ImportError:
        raise ValueError(
            "training needs the train extra: pip install torch==2.13.0 && pip install -e '.[train]'"
        ) from None
    out = Path(args.out or f"runs/{args.game}")
    if args.fresh and not args.resume and out.exists():
        if not (out / "config.toml").is_file():
            raise ValueError(f"--fresh: {out} does not hold a training run; not deleting it")
        shutil.rmtree(out)
    overrides = parse_assignments(args.set, "--set")
    if args.option:
        overrides["options"] = parse_assignments(args.option, "--option")
    if args.init_from:
        overrides = {"init_from": args.init_from, "pretrain": False, **overrides}
    flags = (
        {"timesteps": args.timesteps}
        if args.resume
        else {"players": args.players, "timesteps": args.timesteps, "n_envs": args.n_envs, "seed": args.seed}
    )
    values = {**flags, **overrides}  # --set KEY=VALUE has the last word
    config = load_config(args.game, out / "config.toml" if args.resume else args.config, **values)
    with progress.showing(not args.quiet):
        summary = train(config, out, resume=args.resume, log=lambda text: print(text, flush=True))
    if "evaluation" in summary:
        print(format_evaluation(summary["evaluation"], f"final evaluation, seat-rotated, seed {summary['eval_seed']}"))
    print(time_line(summary))
    return 0
