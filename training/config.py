"""A training run's settings: `TrainConfig`, read from `training/configs/<game>.toml` plus overrides.

A run has three stages, each optional: the warm start (behaviour cloning of a teacher, then DAgger
rounds; `training/pretrain.py`), self-play PPO from the warm start (`training/selfplay.py`), and
expert iteration from the network they leave (`training/expert.py`).
"""

from __future__ import annotations

import math
from dataclasses import asdict, field, fields
from pathlib import Path
from typing import Annotated, Any, Literal

import tomli_w
from pydantic import ConfigDict, Field, ValidationError
from pydantic.dataclasses import dataclass

from city_envs.agents.guided_ismcts import MAX_BATCH, MAX_C_PUCT, MAX_ITERS, MAX_TEMPERATURE
from city_envs.agents.policy_file import check_entity_head, normalize_net_arch
from city_envs.agents.registry import HEURISTICS, make_agent
from city_envs.core.registry import game_class
from city_envs.core.settings import read_toml

CONFIG_DIR = Path(__file__).resolve().parent / "configs"
# the learner's reward: terminal outcome, or outcome plus shaping by the score margin over the mean or the best opponent
REWARDS = ("win", "score", "lead")
MAX_LAYER = 65_536  # a layer wider than this is a typo, not a network

# typed keys (strict: "2", 1.5 or true is not an integer; NaN and inf are no floats here), with their ranges
Count = Annotated[int, Field(ge=0, le=10**12)]  # how many: 0 allowed
Positive = Annotated[int, Field(ge=1, le=10**12)]
Share = Annotated[float, Field(ge=0, le=1)]
Weight = Annotated[float, Field(ge=0, le=1e6)]
Rate = Annotated[float, Field(gt=0, le=1)]


@dataclass(config=ConfigDict(strict=True, extra="forbid", allow_inf_nan=False, validate_assignment=True))
class TrainConfig:
    """Every setting of a run, each typed and ranged (checked by pydantic when made, and on assignment);
    `training/configs/<game>.toml` holds a game's defaults."""

    game: str
    players: Annotated[int, Field(ge=1, le=16)] = 2
    seed: Annotated[int, Field(ge=0, le=2**63 - 1)] = 0
    options: dict[str, Any] = field(default_factory=dict)  # game options
    # the network (policy and value heads, as in a policy file): [sizes] or {pi = [sizes], vf = [sizes]}
    net_arch: Any = field(default_factory=lambda: {"pi": [256, 128], "vf": [128, 64]})
    activation: Literal["tanh", "relu"] = "tanh"
    # {hidden = [sizes]}: score the actions on board entities with one shared MLP (agents/entity_policy.py), for a
    # game whose observation declares an `entity_layout`; {} is the plain flat head
    entity_head: dict[str, Any] = field(default_factory=dict)
    torch_threads: Annotated[int, Field(ge=1, le=1024)] = 1
    # a policy file to start from: PPO's start, or round 0 of the DAgger rounds; a relative path in a config file
    # is read from the file's folder (so a committed baseline that continues another reruns from the wheel too)
    init_from: str = ""
    # warm start: behaviour cloning of `teacher` (an agent spec), then DAgger rounds
    pretrain: bool = True
    teacher: str = "heuristic"
    bc_matches: Count = 600  # teacher-played matches of cloning data (one recorded seat per match)
    dagger_rounds: Count = 3
    dagger_matches: Count = 400  # student-played matches per DAgger round, labelled by the teacher
    pretrain_epochs: Positive = 12
    dagger_epochs: Count = 0  # epochs of a DAgger round, which starts from the last round's weights (0: pretrain's)
    # share of the student's decisions the teacher labels in a DAgger round (a search teacher is slow: label a sample)
    dagger_label_share: Annotated[float, Field(gt=0, le=1)] = 1.0
    # threads asking the teacher for labels, one match each at a time: a native search teacher runs without
    # the GIL, so its labels come in parallel (the same labels in any number of threads)
    teacher_threads: Annotated[int, Field(ge=1, le=1024)] = 1
    pretrain_batch_size: Positive = 512
    pretrain_lr: Rate = 1e-3
    max_samples: Positive = 300_000  # the newest samples kept across rounds (memory bound)
    # self-play PPO after the warm start (0 steps: the warm start is the model)
    timesteps: Count = 0
    n_envs: Annotated[int, Field(ge=1, le=4096)] = 64  # matches stepped together
    # processes that step the matches (each a contiguous share of the n_envs slots; 1: in the trainer's own
    # process); any count gives the same transitions (training/split_env.py)
    env_workers: Annotated[int, Field(ge=1, le=256)] = 1
    reward: Literal["win", "score", "lead"] = "score"
    score_scale: Weight = 0.02
    pool_self: Weight = 0.2
    pool_heuristic: Weight = 0.6
    pool_random: Weight = 0.2
    max_snapshots: Positive = 10
    snapshot_every: Positive = 50_000
    eval_every: Positive = 100_000
    eval_games: Count = 60
    eval_jobs: Annotated[int, Field(ge=1, le=1024)] = 1
    final_eval_games: Count = 200
    checkpoint_every: Positive = 50_000
    # the final model: the curve point that did best on the evaluation seed (`seed + 1`), or the last one
    select_best: bool = True
    # or (k >= 2) the parameter average of the policies at the last k PPO curve points (as many as there are, if
    # at least 2): a tail average, as in stochastic weight averaging, less noisy than one point by 100 matches
    average_last: Count = 0
    n_steps: Positive = 64  # per env per rollout
    batch_size: Positive = 2048
    n_epochs: Positive = 4
    learning_rate: Rate = 1e-4
    gamma: Share = 0.995
    gae_lambda: Share = 0.95
    clip_range: Annotated[float, Field(gt=0, le=10)] = 0.1
    ent_coef: Weight = 0.0
    vf_coef: Weight = 0.5
    # PPO's critic reads every seat's observation (all hands; never the deck order) while the actor reads the
    # seat's own, as in PerfectDou; policy files still play from the seat's observation (agents/privileged_policy.py)
    privileged_critic: bool = False
    # expert iteration after PPO (0 rounds: off): each round the network-guided search (agents/guided_ismcts.py) plays
    # `expert_matches` matches of the learner's seat, and the network learns its root visits and the returns
    expert_rounds: Count = 0
    expert_matches: Positive = 20
    expert_iters: Annotated[int, Field(ge=1, le=MAX_ITERS)] = 100  # search iterations per decision
    expert_batch: Annotated[int, Field(ge=1, le=MAX_BATCH)] = 8  # descents per batched forward pass
    expert_c_puct: Annotated[float, Field(gt=0, le=MAX_C_PUCT)] = 1.5
    # the actor's target is visits^(1/t), normalised: 1 the visit shares, 0 the move the search played
    expert_temperature: Annotated[float, Field(ge=0, le=MAX_TEMPERATURE)] = 1.0
    expert_epochs: Positive = 4
    expert_lr: Rate = 1e-4
    expert_value_weight: Weight = 0.5  # the critic's squared error on the returns, beside the actor's cross-entropy

    def __post_init__(self) -> None:
        """What one key's type cannot say: the game's own checks and the keys that depend on each other."""
        cls = game_class(self.game)
        for key, check in (("players", cls.check_num_players), ("options", cls.check_options)):
            try:
                check(getattr(self, key))
            except ValueError as error:
                raise ValueError(f"{key} = {getattr(self, key)!r}: {error}") from None
        try:
            self.net_arch = normalize_net_arch(self.net_arch)
        except (TypeError, ValueError) as error:
            raise ValueError(f"net_arch = {self.net_arch!r}: {error}") from None
        if max(self.net_arch["pi"] + self.net_arch["vf"], default=0) > MAX_LAYER:
            raise ValueError(f"net_arch = {self.net_arch}: layers have at most {MAX_LAYER} units")
        self.entity_head_spec()  # checks it
        weights = self.pool_weights()
        if sum(weights.values()) <= 0:
            raise ValueError(f"pool weights must be >= 0 and not all 0: {weights}")
        if weights["heuristic"] > 0 and self.game not in HEURISTICS:
            raise ValueError(f"{self.game} has no heuristic agent: set pool_heuristic = 0")
        if self.pretrain:
            try:
                make_agent(self.teacher, self.game, 0)
            except (ValueError, ImportError) as error:
                raise ValueError(f"teacher = {self.teacher!r}: {error}") from None
        if self.average_last:
            if self.average_last < 2:
                raise ValueError(f"average_last must be 0 (off) or >= 2, not {self.average_last!r}")
            if self.select_best:
                raise ValueError("average_last and select_best both choose the final model: set select_best = false")
        if self.env_workers > self.n_envs:
            raise ValueError(
                f"env_workers = {self.env_workers} is more processes than matches (n_envs = {self.n_envs}): "
                "set env_workers <= n_envs"
            )
        if self.privileged_critic and self.timesteps == 0:
            raise ValueError("privileged_critic is PPO's critic, and timesteps = 0 runs no PPO: set one or the other")
        if self.expert_rounds and not (self.pretrain or self.timesteps or self.init_from):
            raise ValueError(
                "expert_rounds needs a network for the search to start from: set pretrain = true, timesteps > 0 "
                "or init_from"
            )
        if self.expert_rounds and self.average_last:
            raise ValueError(
                "average_last averages PPO's policies, which the expert rounds then continue: "
                "set average_last = 0 or expert_rounds = 0"
            )
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
            return check_entity_head(
                {**cls.entity_layout.to_json(), "hidden": self.entity_head["hidden"]},
                math.prod(cls.observation_shape),
                cls.num_actions,
            )
        except ValueError as error:
            raise ValueError(f"entity_head: {error}") from None

    def pool_weights(self) -> dict[str, float]:
        return {"self": self.pool_self, "heuristic": self.pool_heuristic, "random": self.pool_random}


def config_error(error: ValidationError, source: str) -> ValueError:
    """A pydantic error as one line: each wrong key, its value and what is allowed."""
    problems = []
    for item in error.errors():
        message = item["msg"].removeprefix("Value error, ")
        key = ".".join(str(part) for part in item["loc"])
        problems.append(f"{key} = {item['input']!r}: {message[:1].lower()}{message[1:]}" if key else message)
    return ValueError(f"config {source}: " + "; ".join(problems))


def make_config(source: str = "values", **values: Any) -> TrainConfig:
    """`TrainConfig(**values)`, with any error as one line (`config_error`)."""
    try:
        return TrainConfig(**values)
    except ValidationError as error:
        raise config_error(error, source) from None


def load_config(game: str, config_path: str | Path | None = None, **overrides: Any) -> TrainConfig:
    """The game's defaults file (or `config_path`), then `overrides` (None values are skipped; the
    command line's `--set` lands here, so it gets the same checks as the file). The file's `init_from`
    is read from the file's folder, an override's from the working directory; either is kept absolute,
    so the config names the same file when a run folder's copy of it is read again."""
    path = Path(config_path) if config_path else CONFIG_DIR / f"{game}.toml"
    if not path.is_file():
        raise ValueError(f"no config file {path}")
    values = read_toml(path)
    if isinstance(values.get("init_from"), str) and values["init_from"]:
        values["init_from"] = str(path.parent.absolute() / values["init_from"])  # an absolute path stays as it is
    values.update({k: v for k, v in overrides.items() if v is not None})
    if isinstance(overrides.get("init_from"), str) and overrides["init_from"]:
        values["init_from"] = str(Path.cwd() / overrides["init_from"])  # an absolute path stays as it is
    if values.get("game", game) != game:
        raise ValueError(f"config {path} is for {values['game']}, not {game}")
    values["game"] = game
    allowed = {f.name for f in fields(TrainConfig)}
    unknown = sorted(set(values) - allowed)
    if unknown:
        raise ValueError(f"unknown config keys {unknown}; allowed: {', '.join(sorted(allowed))}")
    return make_config(str(path), **values)


def config_to_toml(config: TrainConfig) -> str:
    """The config as TOML (the game options and the network as tables), read back by `load_config`."""
    return tomli_w.dumps(asdict(config))
