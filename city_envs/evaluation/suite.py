"""Benchmark suites: frozen, versioned sets of tasks and the line-ups a candidate meets in each.

A suite is a data file (`suites/<name>.toml`, shipped in the package) read into the models below.
`load_suite("v1")` is the default variant of v1, `load_suite("v1-lite")` its lite variant. A task is
a game at a player count; in each task the candidate holds one seat and a line-up fills the others
(random play, the game's heuristic, or the suite's frozen reference policy for that task), for the
variant's number of matches, seat-rotated, on the line-up's seed.
"""

from __future__ import annotations

import hashlib
from functools import cached_property
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from city_envs.agents.policy_agent import stored_policy
from city_envs.core.aec import ENV_VERSION
from city_envs.core.registry import GAMES, game_class
from city_envs.core.settings import read_toml

SUITES_DIR = Path(__file__).resolve().parent / "suites"
REFERENCE = "reference"  # the opponent name that stands for the task's reference policy
SEED = Annotated[int, Field(ge=0, lt=2**63)]


class SuiteError(ValueError):
    """A suite, variant or task that does not exist, or a suite file that is not valid."""


class Lineup(BaseModel):
    """Who fills every other seat (an agent spec, or `reference`) and the seed of those matches."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    opponent: str
    seed: SEED


class Reference(BaseModel):
    """A frozen policy, by its SHA-256: the policy store's file of that content."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")


class Task(BaseModel):
    """One game at one player count."""

    model_config = ConfigDict(frozen=True)
    game: str
    players: int

    @property
    def name(self) -> str:
        return f"{self.game}:{self.players}"

    @property
    def slug(self) -> str:
        """The task's name as a folder name."""
        return f"{self.game}_{self.players}p"

    @property
    def chance(self) -> float:
        """The win share of a seat that plays no better than the others."""
        return 1.0 / self.players


def parse_task(text: str) -> Task:
    """`game:players`, checked against the registry."""
    game, sep, players = text.partition(":")
    if not sep or not players.isascii() or not players.isdigit():
        raise SuiteError(f"task {text!r}: expected game:players, such as citadels:2")
    if game not in GAMES:
        raise SuiteError(f"task {text!r}: unknown game {game!r}; games: {', '.join(GAMES)}")
    cls, count = game_class(game), int(players)
    if not cls.min_players <= count <= cls.max_players:
        raise SuiteError(f"task {text!r}: {game} takes {cls.min_players}-{cls.max_players} players")
    return Task(game=game, players=count)


class Variant(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    description: str
    tasks: list[str] = Field(min_length=1)
    matches: int = Field(ge=1, le=100_000)

    @field_validator("tasks")
    @classmethod
    def _known_tasks(cls, tasks: list[str]) -> list[str]:
        for text in tasks:
            parse_task(text)
        if len(set(tasks)) != len(tasks):
            raise ValueError("a task is listed twice")
        return tasks


class SuiteFile(BaseModel):
    """The contents of `suites/<name>.toml`."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    name: str
    env_version: int
    lineups: dict[str, Lineup] = Field(min_length=1)
    references: dict[str, Reference] = {}
    variants: dict[str, Variant]

    @model_validator(mode="after")
    def _consistent(self) -> SuiteFile:
        if "default" not in self.variants:
            raise ValueError("the suite has no default variant")
        for task in self.references:
            parse_task(task)
        for variant in self.variants.values():
            for task in variant.tasks:
                players = parse_task(task).players
                if variant.matches % players:
                    raise ValueError(f"{variant.matches} matches do not seat every player of {task} equally often")
        return self


class Suite(BaseModel):
    """One variant of a suite, ready to run: `tasks`, `lineups_for(task)`, `opponent_spec(task, lineup)`."""

    model_config = ConfigDict(frozen=True)
    name: str  # as asked for: v1, v1-lite, ...
    version: str  # the suite file: v1
    variant: str
    spec: SuiteFile

    @property
    def matches(self) -> int:
        return self.spec.variants[self.variant].matches

    @cached_property
    def tasks(self) -> list[Task]:
        return [parse_task(text) for text in self.spec.variants[self.variant].tasks]

    def task(self, text: str) -> Task:
        task = parse_task(text)
        if task not in self.tasks:
            names = ", ".join(t.name for t in self.tasks)
            raise SuiteError(f"suite {self.name} has no task {text}; its tasks: {names}")
        return task

    def lineups_for(self, task: Task) -> list[str]:
        """The task's line-ups: every line-up of the suite, but `reference` only where it has one."""
        return [
            name
            for name, lineup in self.spec.lineups.items()
            if lineup.opponent != REFERENCE or task.name in self.spec.references
        ]

    def seed(self, lineup: str) -> int:
        return self.spec.lineups[lineup].seed

    def reference_path(self, task: Task) -> Path:
        """The task's frozen reference policy, checked against its SHA-256."""
        reference = self.spec.references[task.name]
        path = stored_policy(reference.sha256)
        if not path.is_file():
            raise SuiteError(f"suite {self.version}: the reference policy of {task.name} ({path.name}) is missing")
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        if digest != reference.sha256:
            raise SuiteError(
                f"suite {self.version}: {path.name} has SHA-256 {digest}, not the frozen {reference.sha256}"
            )
        return path

    def opponent_spec(self, task: Task, lineup: str) -> str:
        """The agent spec that fills the other seats of `task` in `lineup`."""
        opponent = self.spec.lineups[lineup].opponent
        return f"ppo:{self.reference_path(task)}" if opponent == REFERENCE else opponent

    def describe(self) -> dict:
        """What a result records of the suite: enough to recognise it and to rerun it."""
        return {
            "suite": self.name,
            "version": self.version,
            "variant": self.variant,
            "matches": self.matches,
            "env_version": self.spec.env_version,
            "tasks": [t.name for t in self.tasks],
            "lineups": {name: lineup.model_dump() for name, lineup in self.spec.lineups.items()},
            "references": {task: ref.sha256 for task, ref in self.spec.references.items()},
        }


def available_suites() -> list[str]:
    """Every suite and variant name `load_suite` takes."""
    names = []
    for path in sorted(SUITES_DIR.glob("*.toml")):
        spec = _read(path.stem)
        names += [path.stem if variant == "default" else f"{path.stem}-{variant}" for variant in spec.variants]
    return names


def _read(version: str) -> SuiteFile:
    path = SUITES_DIR / f"{version}.toml"
    if not version.isidentifier() or not path.is_file():
        known = ", ".join(p.stem for p in sorted(SUITES_DIR.glob("*.toml")))
        raise SuiteError(f"unknown suite {version!r}; suites: {known}")
    try:
        data = read_toml(path)
    except (OSError, ValueError) as error:
        raise SuiteError(f"suite file {path.name}: {error}") from None
    try:
        spec = SuiteFile.model_validate(data)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(map(str, first["loc"])) or "(top level)"
        raise SuiteError(f"suite file {path.name}: {where}: {first['msg']}") from None
    if spec.name != version:
        raise SuiteError(f"suite file {path.name} names itself {spec.name!r}")
    if spec.env_version != ENV_VERSION:
        raise SuiteError(f"suite {version} measures env version {spec.env_version}; this city-envs has {ENV_VERSION}")
    return spec


def load_suite(name: str) -> Suite:
    """`v1` (the default variant), or `v1-<variant>` such as `v1-lite`."""
    version, dash, variant = name.partition("-")
    spec = _read(version)
    variant = variant if dash else "default"
    if variant not in spec.variants:
        raise SuiteError(
            f"suite {version} has no variant {variant!r}; it has: "
            + ", ".join(version if v == "default" else f"{version}-{v}" for v in spec.variants)
        )
    return Suite(name=name, version=version, variant=variant, spec=spec)
