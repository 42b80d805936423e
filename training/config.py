"""A training run's settings: `TrainConfig`, read from `training/configs/<game>.toml` plus overrides.

A run has two stages, both optional: the warm start (behaviour cloning of a teacher, then DAgger
rounds; `training/pretrain.py`) and self-play PPO from the warm start (`training/selfplay.py`).
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from city_envs.agents.policy_file import ACTIVATIONS, check_entity_head, normalize_net_arch
from city_envs.agents.registry import HEURISTICS
from city_envs.core.registry import game_class
from city_envs.core.settings import read_toml

CONFIG_DIR = Path(__file__).resolve().parent / "configs"
# the learner's reward: terminal outcome, or outcome plus shaping by the score margin over the mean or the best opponent
REWARDS = ("win", "score", "lead")


@dataclass
class TrainConfig:
    """Every setting of a run; `training/configs/<game>.toml` holds a game's defaults."""

    game: str
    players: int = 2
    seed: int = 0
    options: dict = field(default_factory=dict)  # game options
    # the network (policy and value heads, as in a policy file)
    net_arch: Any = field(default_factory=lambda: {"pi": [256, 128], "vf": [128, 64]})
    activation: str = "tanh"
    # {hidden = [sizes]}: score the actions on board entities with one shared MLP (agents/entity_policy.py), for a
    # game whose observation declares an `entity_layout`; {} is the plain flat head
    entity_head: dict = field(default_factory=dict)
    torch_threads: int = 1
    init_from: str = ""  # a policy file to start from: PPO's start, or round 0 of the DAgger rounds
    # warm start: behaviour cloning of `teacher` (an agent spec), then DAgger rounds
    pretrain: bool = True
    teacher: str = "heuristic"
    bc_matches: int = 600  # teacher-played matches of cloning data (one recorded seat per match)
    dagger_rounds: int = 3
    dagger_matches: int = 400  # student-played matches per DAgger round, labelled by the teacher
    pretrain_epochs: int = 12
    dagger_epochs: int = 0  # epochs of a DAgger round, which starts from the last round's weights (0: pretrain_epochs)
    # share of the student's decisions the teacher labels in a DAgger round (a search teacher is slow: label a sample)
    dagger_label_share: float = 1.0
    pretrain_batch_size: int = 512
    pretrain_lr: float = 1e-3
    max_samples: int = 300_000  # the newest samples kept across rounds (memory bound)
    # self-play PPO after the warm start (0 steps: the warm start is the model)
    timesteps: int = 0
    n_envs: int = 64  # matches stepped together in one process
    reward: str = "score"
    score_scale: float = 0.02
    pool_self: float = 0.2
    pool_heuristic: float = 0.6
    pool_random: float = 0.2
    max_snapshots: int = 10
    snapshot_every: int = 50_000
    eval_every: int = 100_000
    eval_games: int = 60
    eval_jobs: int = 1
    final_eval_games: int = 200
    checkpoint_every: int = 50_000
    # the final model: the curve point that did best on the evaluation seed (`seed + 1`), or the last one
    select_best: bool = True
    # or (k >= 2) the parameter average of the policies at the last k PPO curve points (as many as there are, if
    # at least 2): a tail average, as in stochastic weight averaging, less noisy than one point by 100 matches
    average_last: int = 0
    n_steps: int = 64  # per env per rollout
    batch_size: int = 2048
    n_epochs: int = 4
    learning_rate: float = 1e-4
    gamma: float = 0.995
    gae_lambda: float = 0.95
    clip_range: float = 0.1
    ent_coef: float = 0.0
    vf_coef: float = 0.5

    def __post_init__(self) -> None:
        for name in ("pretrain", "select_best"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"{name} must be true or false (--set {name}=false), not {getattr(self, name)!r}")
        cls = game_class(self.game)
        cls.check_num_players(self.players)
        cls.check_options(self.options)
        self.net_arch = normalize_net_arch(self.net_arch)
        self.entity_head_spec()  # checks it
        if self.activation not in ACTIVATIONS:
            raise ValueError(f"invalid activation {self.activation!r}; allowed: {', '.join(ACTIVATIONS)}")
        if self.reward not in REWARDS:
            raise ValueError(f"invalid reward {self.reward!r}; allowed: {', '.join(REWARDS)}")
        weights = self.pool_weights()
        if min(weights.values()) < 0 or sum(weights.values()) <= 0:
            raise ValueError(f"pool weights must be >= 0 and not all 0: {weights}")
        if weights["heuristic"] > 0 and self.game not in HEURISTICS:
            raise ValueError(f"{self.game} has no heuristic agent: set pool_heuristic = 0")
        for name in ("n_envs", "n_steps", "batch_size", "snapshot_every", "eval_every", "checkpoint_every",
                     "max_snapshots", "pretrain_epochs", "pretrain_batch_size", "max_samples", "torch_threads"):
            if int(getattr(self, name)) < 1:
                raise ValueError(f"{name} must be >= 1")
        for name in ("timesteps", "bc_matches", "dagger_rounds", "dagger_matches", "dagger_epochs", "eval_games",
                     "final_eval_games"):
            if int(getattr(self, name)) < 0:
                raise ValueError(f"{name} must be >= 0")
        if not 0 < self.dagger_label_share <= 1:
            raise ValueError(f"dagger_label_share must be in (0, 1], not {self.dagger_label_share!r}")
        if self.average_last:
            if self.average_last < 2:
                raise ValueError(f"average_last must be 0 (off) or >= 2, not {self.average_last!r}")
            if self.select_best:
                raise ValueError("average_last and select_best both choose the final model: set select_best = false")
        if self.init_from and self.pretrain and self.dagger_rounds < 1:
            raise ValueError("init_from with pretrain = true needs dagger_rounds >= 1 (the rounds continue it)")

    def entity_head_spec(self) -> dict | None:
        """The policy's entity head (the game's layout plus `hidden`), or None for the flat head."""
        if not self.entity_head:
            return None
        if not isinstance(self.entity_head, dict) or set(self.entity_head) != {"hidden"}:
            raise ValueError(f"entity_head must be {{}} or {{hidden = [layer sizes]}}, not {self.entity_head!r}")
        cls = game_class(self.game)
        if cls.entity_layout is None:
            raise ValueError(f"{self.game}'s observation declares no entity rows: set entity_head = {{}}")
        try:  # the same check a policy file's head gets
            return check_entity_head({**cls.entity_layout.to_json(), "hidden": self.entity_head["hidden"]},
                                     math.prod(cls.observation_shape), cls.num_actions)
        except ValueError as error:
            raise ValueError(f"entity_head: {error}") from None

    def pool_weights(self) -> dict[str, float]:
        return {"self": self.pool_self, "heuristic": self.pool_heuristic, "random": self.pool_random}


def load_config(game: str, config_path: str | Path | None = None, **overrides: Any) -> TrainConfig:
    """The game's defaults file (or `config_path`), then `overrides` (None values are skipped)."""
    path = Path(config_path) if config_path else CONFIG_DIR / f"{game}.toml"
    if not path.is_file():
        raise ValueError(f"no config file {path}")
    values = read_toml(path)
    values.update({k: v for k, v in overrides.items() if v is not None})
    if values.get("game", game) != game:
        raise ValueError(f"config {path} is for {values['game']}, not {game}")
    values["game"] = game
    allowed = {f.name for f in fields(TrainConfig)}
    unknown = sorted(set(values) - allowed)
    if unknown:
        raise ValueError(f"unknown config keys {unknown}; allowed: {', '.join(sorted(allowed))}")
    try:
        return TrainConfig(**values)
    except TypeError as error:
        raise ValueError(f"bad config value: {error}") from None


def config_to_toml(config: TrainConfig) -> str:
    """The config as TOML (flat keys, inline tables for the game options and the network)."""

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
