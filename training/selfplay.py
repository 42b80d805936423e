"""Self-play MaskablePPO for any registered game: an opponent pool, vectorised envs, resumable runs.

The learner sees a match as a Gymnasium env (`SelfPlayEnv`): it holds one seat, rotated every
episode, and the other seats are played inside the env by opponents drawn per seat from a pool of
frozen snapshots of the learner, the game's heuristic and random play. `action_masks()` is on the
env, so MaskablePPO reads the masks through any VecEnv. Nothing here is game-specific: a game that
registers with `city_envs` and (optionally) a heuristic trains with no new code.

A run directory holds `config.toml` (the resolved config), `snapshots/` (the pool), `logs/part_<k>/`
(SB3's CSV and TensorBoard logs, one part per start or resume), `evals.csv` (win rates against random
and the heuristic every `eval_every` steps), `checkpoint/` (the latest full state, for `--resume`),
`model.zip` (the final policy) and `evaluation.json` (its final evaluation).

Resume: the checkpoint is taken at the start of a rollout and holds the model with its optimizer,
every env's match and opponents (their RNGs included), the envs' RNGs, torch/numpy/python RNG states,
the last observations and the pool. A resumed run therefore continues exactly where the stopped one
was, and ends with the same parameters as an uninterrupted run of the same config, provided torch is
deterministic on the machine (one thread; `tests/training/test_selfplay.py` checks it bit for bit).
"""

from __future__ import annotations

import csv
import json
import pickle
import random
import shutil
import time
from dataclasses import asdict, dataclass, field, fields
from functools import partial
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

from city_envs.agents.base import Agent
from city_envs.agents.random_agent import RandomAgent
from city_envs.agents.registry import HEURISTICS, heuristic_class
from city_envs.core.infoset import InfoSet
from city_envs.core.registry import game_class, make_game

CONFIG_DIR = Path(__file__).resolve().parent / "configs"
REWARDS = ("win", "score")
POOL_KINDS = ("self", "heuristic", "random")


# ----- configuration ----------------------------------------------------------------------------
@dataclass
class TrainConfig:
    """Every setting of a run; `training/configs/<game>.toml` holds a game's defaults."""

    game: str
    players: int = 2
    timesteps: int = 200_000
    seed: int = 0
    options: dict = field(default_factory=dict)  # game options
    n_envs: int = 2
    subprocess: bool = True  # SubprocVecEnv (one process per env) or DummyVecEnv
    torch_threads: int = 1
    # reward: "win" = the learner's terminal return (+1 win / -1 loss); "score" adds, after each of
    # the learner's steps, score_scale x the change of (own score - mean opponent score)
    reward: str = "win"
    score_scale: float = 0.0
    # opponent pool: relative weights of each kind, drawn per seat each episode
    pool_self: float = 0.5
    pool_heuristic: float = 0.25
    pool_random: float = 0.25
    max_snapshots: int = 10  # the most recent snapshots that "self" draws from
    snapshot_every: int = 20_000
    # evaluation through the arena, and checkpoints
    eval_every: int = 50_000
    eval_games: int = 40
    eval_jobs: int = 1
    final_eval_games: int = 200
    checkpoint_every: int = 20_000
    # MaskablePPO
    n_steps: int = 512  # per env per rollout
    batch_size: int = 256
    n_epochs: int = 4
    learning_rate: float = 3e-4
    gamma: float = 0.99
    gae_lambda: float = 0.95
    clip_range: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    net_arch: list = field(default_factory=lambda: [128, 128])

    def __post_init__(self) -> None:
        cls = game_class(self.game)
        cls.check_num_players(self.players)
        if self.reward not in REWARDS:
            raise ValueError(f"invalid reward {self.reward!r}; allowed: {', '.join(REWARDS)}")
        weights = self.pool_weights()
        if min(weights.values()) < 0 or sum(weights.values()) <= 0:
            raise ValueError(f"pool weights must be >= 0 and not all 0: {weights}")
        if weights["heuristic"] > 0 and self.game not in HEURISTICS:
            raise ValueError(f"{self.game} has no heuristic agent: set pool_heuristic = 0")
        for name in ("timesteps", "n_envs", "n_steps", "batch_size", "snapshot_every", "eval_every",
                     "checkpoint_every", "max_snapshots"):
            if int(getattr(self, name)) < 1:
                raise ValueError(f"{name} must be >= 1")

    def pool_weights(self) -> dict[str, float]:
        return {"self": self.pool_self, "heuristic": self.pool_heuristic, "random": self.pool_random}


def _read_toml(path: Path) -> dict:
    try:
        import tomllib
    except ImportError:  # Python 3.10
        import tomli as tomllib
    with open(path, "rb") as handle:
        return tomllib.load(handle)


def load_config(game: str, config_path: str | Path | None = None, **overrides: Any) -> TrainConfig:
    """The game's defaults file (or `config_path`), then `overrides` (None values are skipped)."""
    path = Path(config_path) if config_path else CONFIG_DIR / f"{game}.toml"
    values = _read_toml(path) if path.is_file() else {}
    if config_path and not path.is_file():
        raise ValueError(f"no config file {path}")
    values.update({k: v for k, v in overrides.items() if v is not None})
    values["game"] = game
    allowed = {f.name for f in fields(TrainConfig)}
    unknown = sorted(set(values) - allowed)
    if unknown:
        raise ValueError(f"unknown config keys {unknown}; allowed: {', '.join(sorted(allowed))}")
    return TrainConfig(**values)


def config_to_toml(config: TrainConfig) -> str:
    """The config as TOML (flat keys, game options as an inline table)."""

    def value(v: Any) -> str:
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, str):
            return json.dumps(v)
        if isinstance(v, dict):
            return "{" + ", ".join(f"{k} = {value(x)}" for k, x in v.items()) + "}"
        if isinstance(v, list):
            return "[" + ", ".join(value(x) for x in v) + "]"
        return repr(v)

    return "".join(f"{k} = {value(v)}\n" for k, v in asdict(config).items())


# ----- the learner's view of a match ------------------------------------------------------------
class SelfPlayEnv(gym.Env):
    """One seat of a match against pool opponents, as a single-agent Gymnasium env.

    The learner's seat is `(episode + index) % players`, so every env rotates through the seats.
    Each other seat gets an opponent drawn from the pool weights; "self" picks uniformly among the
    snapshot paths set by `set_snapshots` (and is skipped while there are none).
    """

    metadata = {"render_modes": []}

    def __init__(self, config: TrainConfig, index: int = 0) -> None:
        self.config = config
        self.index = index
        probe = make_game(config.game, config.players, seed=0, **config.options)
        self.observation_space = gym.spaces.Box(-np.inf, np.inf, probe.observation_shape, np.float32)
        self.action_space = gym.spaces.Discrete(probe.num_actions)
        self.np_rng = np.random.default_rng([config.seed, index])
        self.episode = 0
        self.snapshots: list[str] = []
        self.game = probe
        self.learner = 0
        self.opponents: list[Agent | None] = []
        self.opponent_kinds: list[str] = []
        if config.pool_self > 0:
            import torch

            torch.set_num_threads(config.torch_threads)

    # pool ---------------------------------------------------------------------------------------
    def set_snapshots(self, paths: list[str]) -> None:
        self.snapshots = list(paths)

    def _draw_opponent(self) -> tuple[str, Agent]:
        weights = self.config.pool_weights()
        if not self.snapshots:
            weights["self"] = 0.0
        kinds = [k for k in POOL_KINDS if weights[k] > 0]
        p = np.array([weights[k] for k in kinds], dtype=float)
        kind = kinds[self.np_rng.choice(len(kinds), p=p / p.sum())]
        seed = int(self.np_rng.integers(2**63))
        if kind == "random":
            return kind, RandomAgent(seed)
        if kind == "heuristic":
            return kind, heuristic_class(self.config.game)(seed)
        from city_envs.agents.policy_agent import PolicyAgent

        path = self.snapshots[self.np_rng.integers(len(self.snapshots))]
        return f"self:{Path(path).stem}", PolicyAgent(path, seed, greedy=False)

    # gym API ------------------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict]:
        super().reset(seed=seed)
        if seed is not None:
            self.np_rng = np.random.default_rng([seed, self.index])
        n = self.config.players
        while True:
            self.learner = (self.episode + self.index) % n
            self.episode += 1
            self.game = make_game(self.config.game, n, seed=int(self.np_rng.integers(2**63)), **self.config.options)
            drawn = [None if seat == self.learner else self._draw_opponent() for seat in range(n)]
            self.opponent_kinds = ["learner" if d is None else d[0] for d in drawn]
            self.opponents = [None if d is None else d[1] for d in drawn]
            self._play_opponents()
            if not self.game.is_over():
                return self._observation(), {"learner_seat": self.learner, "opponents": self.opponent_kinds}

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict]:
        before = self._relative_score()
        self.game.apply(int(action))
        self._play_opponents()
        reward = self.config.score_scale * (self._relative_score() - before) if self.config.reward == "score" else 0.0
        terminated = self.game.is_over()
        info: dict = {}
        if terminated:
            reward += self.game.returns()[self.learner]
            won = self.game.winners()
            info = {"win": 1.0 / len(won) if self.learner in won else 0.0, "opponents": self.opponent_kinds}
        return self._observation(), float(reward), terminated, False, info

    def action_masks(self) -> np.ndarray:
        return np.array(self.game.legal_actions(), dtype=bool)

    # helpers ------------------------------------------------------------------------------------
    def _play_opponents(self) -> None:
        game = self.game
        while not game.is_over() and game.current_player() != self.learner:
            seat = game.current_player()
            game.apply(self.opponents[seat].act(InfoSet(game, seat)))

    def _observation(self) -> np.ndarray:
        return self.game.observation(self.learner).astype(np.float32, copy=False)

    def _relative_score(self) -> float:
        if self.config.reward != "score":
            return 0.0
        scores = self.game.scores()
        others = [s for seat, s in enumerate(scores) if seat != self.learner]
        return float(scores[self.learner] - np.mean(others))

    # checkpointing ------------------------------------------------------------------------------
    def get_state(self) -> bytes:
        """Everything that decides this env's future: the match, opponents (with RNGs), RNGs, counters."""
        return pickle.dumps({
            "game": self.game.to_dict(), "np_rng": self.np_rng, "episode": self.episode, "learner": self.learner,
            "opponents": self.opponents, "opponent_kinds": self.opponent_kinds, "snapshots": self.snapshots,
            "gym_rng": self._np_random,
        })

    def set_state(self, blob: bytes) -> np.ndarray:
        """Restore `get_state`; returns the learner's current observation."""
        state = pickle.loads(blob)
        self.game = game_class(self.config.game).from_dict(state["game"])
        self.np_rng, self.episode, self.learner = state["np_rng"], state["episode"], state["learner"]
        self.opponents, self.opponent_kinds = state["opponents"], state["opponent_kinds"]
        self.snapshots, self._np_random = state["snapshots"], state["gym_rng"]
        return self._observation()


def make_vec_env(config: TrainConfig):
    """`n_envs` SelfPlayEnvs, in worker processes when `config.subprocess`, with episode statistics."""
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecMonitor

    factories = [partial(SelfPlayEnv, config, i) for i in range(config.n_envs)]
    venv = SubprocVecEnv(factories) if config.subprocess and config.n_envs > 1 else DummyVecEnv(factories)
    return VecMonitor(venv)


# ----- saving and evaluating --------------------------------------------------------------------
def save_policy(model, path: str | Path) -> Path:
    """Save `model` without its optimizer's moments (a third of the size); it loads and plays the same."""
    optimizer = model.policy.optimizer
    model.policy.optimizer = type(optimizer)(model.policy.parameters(), **optimizer.defaults)
    try:
        model.save(path)
    finally:
        model.policy.optimizer = optimizer
    return Path(path)


def evaluate_model(model_path: str | Path, game: str, players: int, games: int, seed: int, jobs: int = 1,
                   opponents: tuple[str, ...] = ("random", "heuristic"), sample: bool = False,
                   **options: Any) -> dict[str, dict]:
    """Seat-rotated arena matches of the model (greedy, or sampling) against each opponent kind filling
    the other seats."""
    from city_envs.training.arena import evaluate

    spec = f"ppo:{Path(model_path).resolve()}" + (":sample" if sample else "")
    results = {}
    for opponent in opponents:
        if opponent == "heuristic" and game not in HEURISTICS:
            continue
        result = evaluate(game, players, [spec] + [opponent] * (players - 1), games, seed, jobs=jobs, **options)
        a = result["agents"][spec]
        results[opponent] = {"games": games, "win_rate": a["win_rate"], "ci95": [a["ci_low"], a["ci_high"]],
                             "mean_score": a["mean_score"], "opponent_mean_score": result["mean_score"][opponent],
                             "failures": len(result["failures"])}
    return results


def format_evaluation(results: dict[str, dict], title: str) -> str:
    lines = [title, "", "| opponent | games | win rate | 95% CI | mean score (ppo vs opponent) |",
             "|---|---|---|---|---|"]
    for opponent, r in results.items():
        lines.append(f"| {opponent} | {r['games']} | {r['win_rate']:.3f} | {r['ci95'][0]:.3f}-{r['ci95'][1]:.3f} "
                     f"| {r['mean_score']:.1f} vs {r['opponent_mean_score']:.1f} |")
    return "\n".join(lines)


# ----- the training loop ------------------------------------------------------------------------
def _rng_states() -> dict:
    import torch

    return {"torch": torch.get_rng_state(), "numpy": np.random.get_state(), "python": random.getstate()}


def _set_rng_states(states: dict) -> None:
    import torch

    torch.set_rng_state(states["torch"])
    np.random.set_state(states["numpy"])
    random.setstate(states["python"])


def _make_callback(config: TrainConfig, out: Path, schedule: dict, progress: Any):
    from stable_baselines3.common.callbacks import BaseCallback

    class SelfPlayCallback(BaseCallback):
        """At rollout starts: pool snapshots, arena evaluations, checkpoints; on steps: the progress bar."""

        def __init__(self) -> None:
            super().__init__()
            self.schedule = schedule
            self.last_shown = 0

        def _on_training_start(self) -> None:
            self.training_env.env_method("set_snapshots", self.schedule["snapshots"])

        def _on_rollout_start(self) -> None:
            steps = self.num_timesteps
            s = self.schedule
            if steps >= s["next_snapshot"]:
                path = save_policy(self.model, out / "snapshots" / f"step_{steps:09d}.zip")
                s["snapshots"] = (s["snapshots"] + [str(path)])[-config.max_snapshots:]
                s["next_snapshot"] = steps + config.snapshot_every
                self.training_env.env_method("set_snapshots", s["snapshots"])
            if steps >= s["next_eval"]:
                self._evaluate(steps)
                s["next_eval"] = steps + config.eval_every
            if steps >= s["next_checkpoint"]:
                s["next_checkpoint"] = steps + config.checkpoint_every
                save_checkpoint(self.model, out, s)

        def _evaluate(self, steps: int) -> None:
            path = save_policy(self.model, out / "snapshots" / f"eval_{steps:09d}.zip")
            results = evaluate_model(path, config.game, config.players, config.eval_games, config.seed + 1,
                                     jobs=config.eval_jobs, **config.options)
            row = {"timesteps": steps, "seconds": round(time.time() - self.schedule["started"], 1)}
            for opponent, r in results.items():
                row[f"win_rate_vs_{opponent}"] = r["win_rate"]
                self.logger.record(f"eval/win_rate_vs_{opponent}", r["win_rate"])
            self.schedule["evals"].append(row)
            write_evals(out, self.schedule["evals"])
            if progress is not None:
                progress.show_eval(row)

        def _on_step(self) -> bool:
            if progress is not None and self.num_timesteps - self.last_shown >= 256:
                progress.advance(self.num_timesteps)
                self.last_shown = self.num_timesteps
            return True

    return SelfPlayCallback()


def write_evals(out: Path, rows: list[dict]) -> None:
    keys = list(dict.fromkeys(k for row in rows for k in row))
    with open(out / "evals.csv", "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=keys)
        writer.writeheader()
        writer.writerows(rows)


def save_checkpoint(model, out: Path, schedule: dict) -> None:
    """The full state at a rollout start; state.pkl is written last and names the model file."""
    folder = out / "checkpoint"
    folder.mkdir(parents=True, exist_ok=True)
    steps = model.num_timesteps
    model_file = folder / f"model_{steps:09d}.zip"
    model.save(model_file)
    venv = model.get_env()
    state = {
        "num_timesteps": steps,
        "model_file": model_file.name,
        "env_states": venv.env_method("get_state"),
        "last_episode_starts": np.array(model._last_episode_starts),
        "monitor": (venv.episode_returns.copy(), venv.episode_lengths.copy(), venv.episode_count),
        "rng": _rng_states(),
        "schedule": {k: v for k, v in schedule.items() if k != "started"},
    }
    tmp = folder / "state.pkl.tmp"
    tmp.write_bytes(pickle.dumps(state))
    tmp.replace(folder / "state.pkl")
    for old in folder.glob("model_*.zip"):
        if old != model_file:
            old.unlink()


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


def train(config: TrainConfig, out: str | Path, resume: bool = False, progress: Any = None) -> dict:
    """Train (or resume) a run in `out`; returns the final model path and its evaluation."""
    import torch
    from sb3_contrib import MaskablePPO

    out = Path(out)
    torch.set_num_threads(config.torch_threads)
    if resume:
        state = pickle.loads((out / "checkpoint" / "state.pkl").read_bytes())
        (out / "config.toml").write_text(config_to_toml(config))  # the config in force (resume may change keys)
    else:
        if (out / "checkpoint" / "state.pkl").exists():
            raise ValueError(f"{out} already holds a run: use --resume, or another --out")
        out.mkdir(parents=True, exist_ok=True)
        (out / "config.toml").write_text(config_to_toml(config))
    venv = make_vec_env(config)
    try:
        if resume:
            model = MaskablePPO.load(out / "checkpoint" / state["model_file"], env=venv, device="cpu")
            model._last_obs = np.stack(
                [venv.env_method("set_state", blob, indices=[i])[0] for i, blob in enumerate(state["env_states"])])
            model._last_episode_starts = state["last_episode_starts"]
            venv.episode_returns, venv.episode_lengths, venv.episode_count = state["monitor"]
            _set_rng_states(state["rng"])
            schedule = state["schedule"]
        else:
            model = MaskablePPO(
                "MlpPolicy", venv, seed=config.seed, device="cpu", verbose=0,
                n_steps=config.n_steps, batch_size=config.batch_size, n_epochs=config.n_epochs,
                learning_rate=config.learning_rate, gamma=config.gamma, gae_lambda=config.gae_lambda,
                clip_range=config.clip_range, ent_coef=config.ent_coef, vf_coef=config.vf_coef,
                policy_kwargs={"net_arch": list(config.net_arch)},
            )
            schedule = {"snapshots": [], "evals": [], "next_snapshot": config.snapshot_every,
                        "next_eval": config.eval_every, "next_checkpoint": config.checkpoint_every}
        schedule["started"] = time.time()
        model.set_logger(_new_logger(out))
        remaining = config.timesteps - model.num_timesteps
        if progress is not None:
            progress.start(config.timesteps, model.num_timesteps, schedule["evals"][-1] if schedule["evals"] else None)
        started, start_steps = time.time(), model.num_timesteps
        if remaining > 0:
            callback = _make_callback(config, out, schedule, progress)
            model.learn(total_timesteps=remaining, reset_num_timesteps=False, callback=callback)
        seconds = time.time() - started
        steps_per_s = (model.num_timesteps - start_steps) / seconds if seconds > 0 else 0.0
        model_path = save_policy(model, out / "model.zip")
    finally:
        venv.close()
    summary = {"model": str(model_path), "timesteps": int(model.num_timesteps), "steps_per_s": steps_per_s,
               "train_seconds": seconds}
    if config.final_eval_games > 0:
        summary["evaluation"] = evaluate_model(model_path, config.game, config.players, config.final_eval_games,
                                               config.seed + 2, jobs=config.eval_jobs, **config.options)
    (out / "evaluation.json").write_text(json.dumps(summary, indent=2))
    return summary


def publish_baseline(run: str | Path, games: int = 400, seed: int = 0, jobs: int = 1, sample: bool = False) -> dict:
    """Copy a finished run's model and config to `training/baselines/<game>_<n>p.*` with a `games`-game
    seat-rotated evaluation against random and the heuristic (what `ppo` agents load); with `sample`,
    the evaluation is of `ppo:sample` (the policy sampled) instead of the greedy `ppo`."""
    from city_envs.agents.policy_agent import baseline_path

    run = Path(run)
    config = load_config(_read_toml(run / "config.toml")["game"], run / "config.toml")
    target = baseline_path(config.game, config.players)
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(run / "model.zip", target)
    shutil.copyfile(run / "config.toml", target.with_suffix(".toml"))
    trained = json.loads((run / "evaluation.json").read_text())
    record = {"game": config.game, "players": config.players, "timesteps": trained["timesteps"],
              "steps_per_s": trained["steps_per_s"], "train_seconds": trained["train_seconds"], "eval_seed": seed,
              "agent": "ppo:sample" if sample else "ppo",
              "evaluation": evaluate_model(target, config.game, config.players, games, seed, jobs=jobs,
                                           sample=sample, **config.options)}
    target.with_suffix(".json").write_text(json.dumps(record, indent=2) + "\n")
    return record


# ----- command line -----------------------------------------------------------------------------
class TrainProgress:
    """A rich progress bar: steps, steps/s and the latest evaluation."""

    def __init__(self) -> None:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self.bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                            TextColumn("{task.fields[rate]} steps/s"), TimeElapsedColumn(),
                            TextColumn("{task.fields[eval]}"))
        self.task = None
        self.clock: tuple[float, int] = (0.0, 0)

    def start(self, total: int, done: int, last_eval: dict | None) -> None:
        self.bar.start()
        self.task = self.bar.add_task("training", total=total, completed=done, rate="-", eval="")
        self.clock = (time.time(), done)
        if last_eval:
            self.show_eval(last_eval)

    def advance(self, steps: int) -> None:
        seconds = time.time() - self.clock[0]
        rate = f"{(steps - self.clock[1]) / seconds:,.0f}" if seconds > 0 else "-"
        self.bar.update(self.task, completed=steps, rate=rate)

    def show_eval(self, row: dict) -> None:
        text = ", ".join(f"{k.removeprefix('win_rate_')} {v:.2f}" for k, v in row.items() if k.startswith("win_rate"))
        self.bar.update(self.task, eval=f"eval @{row['timesteps']:,}: {text}")

    def stop(self) -> None:
        self.bar.stop()


def add_arguments(parser) -> None:
    parser.add_argument("--timesteps", type=int, help="total env steps of the learner (config: timesteps)")
    parser.add_argument("--out", help="run directory (default runs/<game>)")
    parser.add_argument("--config", help="TOML config (default training/configs/<game>.toml)")
    parser.add_argument("--envs", type=int, dest="n_envs", help="parallel envs (config: n_envs)")
    parser.add_argument("--set", action="append", metavar="KEY=VALUE", default=[],
                        help="override a config key, e.g. --set reward=score --set score_scale=0.02")
    parser.add_argument("--resume", action="store_true", help="continue the run in --out from its last checkpoint")
    parser.add_argument("--fresh", action="store_true", help="delete the run already in --out and start over")


def run_command(args) -> int:
    """`city-envs train`: train, then print the final evaluation table."""
    from city_envs.cli import parse_options

    try:
        import sb3_contrib  # noqa: F401
    except ImportError:
        raise ValueError("training needs the train extra: "
                         "pip install torch==2.13.0 && pip install -e '.[train]'") from None
    out = Path(args.out or f"runs/{args.game}")
    if args.fresh and not args.resume and out.exists():
        if not (out / "config.toml").is_file():
            raise ValueError(f"--fresh: {out} does not hold a training run; not deleting it")
        shutil.rmtree(out)
    overrides = parse_options(args.set)
    if args.option:
        overrides["options"] = parse_options(args.option)
    if args.resume:
        config = load_config(args.game, out / "config.toml", timesteps=args.timesteps, **overrides)
    else:
        config = load_config(args.game, args.config, players=args.players, timesteps=args.timesteps,
                             n_envs=args.n_envs, seed=args.seed, **overrides)
    progress = TrainProgress()
    try:
        summary = train(config, out, resume=args.resume, progress=progress)
    finally:
        progress.stop()
    print(f"trained {config.game} {config.players}p to {summary['timesteps']:,} steps "
          f"({summary['steps_per_s']:,.0f} env steps/s); model: {summary['model']}")
    if "evaluation" in summary:
        print(format_evaluation(summary["evaluation"], f"final evaluation, seat-rotated, seed {config.seed + 2}"))
    return 0
