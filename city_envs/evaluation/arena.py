"""Seat-rotated matches between agents, logged as they end and resumable: `evaluate`.

Generic over every game (`city_envs.make_game`) and every agent spec (`city_envs.agents.spec.AgentSpec`).
Match i is seeded from (seed, i) alone and its line-up is fixed by i (`scheduling`), so any match can
be replayed on its own and a run's results do not depend on how many worker processes played it.

    >>> from city_envs.evaluation import evaluate
    >>> evaluate("citadels", 4, ["heuristic", "random", "random", "random"], games=8, seed=0)
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Annotated, Any, TypeGuard

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr, ValidationError

from city_envs.agents.policy_agent import BASELINES_DIR
from city_envs.agents.spec import AgentSpec
from city_envs.core.progress import stage
from city_envs.core.settings import loads_json
from city_envs.evaluation.ratings import summarize
from city_envs.evaluation.workers import Runner, check_lineup, run_matches


def portable_path(path: str | Path) -> str:
    """`path` as a log or result records it, never as a machine's absolute path: a file of the package
    (a committed policy, such as a suite's reference) as `city_envs/...`, the same from a checkout or
    an install; else relative to where the run started when it lies below it; else its file name alone."""
    path = Path(path).resolve()
    package = Path(__file__).resolve().parents[1]
    roots = (
        (BASELINES_DIR.resolve(), "city_envs/training/baselines/"),
        (package, "city_envs/"),
        (Path.cwd().resolve(), ""),
    )
    for root, prefix in roots:
        if path.is_relative_to(root):
            return prefix + path.relative_to(root).as_posix()
    return path.name


def _spec(kind: str) -> AgentSpec | None:
    """`kind` parsed, or None for a name that is no spec (a log read back may hold anything)."""
    try:
        return AgentSpec.parse(kind)
    except ValueError:
        return None


def portable_kind(kind: str) -> str:
    """An agent kind with the absolute policy path it names (`ppo:PATH`, `net=PATH`) as `portable_path`."""
    spec = _spec(kind)
    if spec is None or spec.policy is None or not os.path.isabs(spec.policy):
        return kind
    return spec.with_policy(portable_path(spec.policy))


def _portable(data: dict) -> dict:
    """A log line (the run's settings or a match record) with its agent kinds as `portable_kind`."""
    data = dict(data)
    for key in ("lineup", "kinds"):
        if isinstance(data.get(key), list):
            data[key] = [portable_kind(kind) for kind in data[key]]
    if isinstance(data.get("policies"), dict):
        data["policies"] = {portable_kind(kind): digest for kind, digest in data["policies"].items()}
    return data


class MatchLog:
    """The run's match records on disk as they end: an append-only JSON-lines file whose first line
    is the run's settings, then one record per line (policy paths as `portable_path`), each flushed and
    fsynced before the run goes on, so that a run stopped at any moment (even by SIGKILL) loses at most
    the matches being played."""

    def __init__(self, path: str | Path, settings: dict, resume: bool = False) -> None:
        self.path = Path(path)
        self.settings = json.loads(json.dumps(settings))
        self.records: dict[int, dict] = {}
        if resume and self.path.exists():
            if not self.path.is_file():  # a FIFO or a device would block the run
                raise ValueError(f"--resume: {self.path} is not a regular file")
            self._load()
        else:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with open(self.path, "w") as handle:
                handle.write(json.dumps({"run": _portable(self.settings)}) + "\n")
                handle.flush()
                os.fsync(handle.fileno())

    def _load(self) -> None:
        """Read the finished records; an unfinished last line (a write cut short) is dropped."""
        data = self.path.read_bytes()
        lines = data.split(b"\n")
        complete = lines[:-1]  # what follows the last newline was cut short, or is empty
        try:
            header = loads_json(complete[0].decode(), str(self.path))["run"] if complete else None
        except (ValueError, KeyError, TypeError):
            header = None
        if not _same_run(header, self.settings):
            raise ValueError(
                f"--resume: {self.path} is not a log of this run (it holds {header!r}, this run is {self.settings!r})"
            )
        moved = dict(zip(header["lineup"], self.settings["lineup"], strict=True))
        for number, line in enumerate(complete[1:], start=2):
            try:
                record = loads_json(line.decode(), str(self.path))
                _Record.model_validate(record)
                _check_record(record, header)
            except (ValueError, UnicodeDecodeError) as error:  # pydantic's ValidationError is a ValueError
                problem = error.errors()[0]["msg"] if isinstance(error, ValidationError) else str(error)
                raise ValueError(f"--resume: {self.path} line {number} is not a match record ({problem})") from None
            match = record["match"]
            if isinstance(record.get("kinds"), list):  # a policy moved since: named by its path now
                record["kinds"] = [moved.get(kind, kind) for kind in record["kinds"]]
            self.records.setdefault(match, record)
        if lines[-1]:
            with open(self.path, "r+b") as handle:
                handle.truncate(len(data) - len(lines[-1]))

    def append(self, record: dict) -> None:
        with open(self.path, "a") as handle:
            handle.write(json.dumps(_portable(record)) + "\n")
            handle.flush()
            os.fsync(handle.fileno())
        self.records.setdefault(record["match"], record)


class _Record(BaseModel):
    """A match record as the log holds it: every field the results read, of its type and range."""

    model_config = ConfigDict(allow_inf_nan=False, extra="forbid")

    match: StrictInt = Field(ge=0)
    seed: StrictInt = Field(ge=0)
    kinds: list[StrictStr]
    failed: StrictBool
    culprit: StrictInt | None = Field(ge=0)
    reason: StrictStr
    decisions: list[Annotated[StrictInt, Field(ge=0)]]
    scores: list[float]
    truncated: StrictBool
    win_share: list[Annotated[float, Field(ge=0, le=1)]]
    winners: list[Annotated[StrictInt, Field(ge=0)]]
    history: list[Annotated[StrictInt, Field(ge=0)]] = []


def _check_record(record: dict, header: dict) -> None:
    """A record of this run: one entry per seat, agents of the line-up, a culprit and winners among the seats."""
    n = header["num_players"]
    for key in ("kinds", "decisions", "scores", "win_share"):
        if len(record[key]) != n:
            raise ValueError(f"{key} has {len(record[key])} entries for {n} seats")
    strangers = set(record["kinds"]) - set(header["lineup"])
    if strangers:
        raise ValueError(f"agents {sorted(strangers)} are not in the line-up")
    if record["culprit"] is not None and record["culprit"] >= n or any(seat >= n for seat in record["winners"]):
        raise ValueError(f"a culprit or winner is no seat of {n}")


def _file_digest(path: Path) -> str | None:
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return None


def _policy_file(kind: str, game_name: str, num_players: int) -> Path | None:
    spec = _spec(kind)
    return spec.policy_path(game_name, num_players) if spec is not None else None


def policy_digests(agent_kinds: list[str], game_name: str, num_players: int) -> dict[str, str]:
    """The SHA-256 of every policy file the line-up plays (`ppo[:PATH[:options]]`, `ismcts:net=...`),
    by agent kind: a resumed run goes on only with the same files, the baseline's included."""
    digests = {}
    for kind in agent_kinds:
        path = _policy_file(kind, game_name, num_players)
        if path is not None and (digest := _file_digest(path)) is not None:
            digests[kind] = digest
    return digests


def _policy_identity(kind: str, digests: dict, game_name: str, num_players: int) -> str:
    """A policy agent by its file's SHA-256 (as the log recorded it, else read now) rather than its path,
    so that a run resumes from another checkout or install of the same files."""
    spec = _spec(kind)
    path = _policy_file(kind, game_name, num_players)
    if spec is None or path is None:
        return kind
    return spec.identity(digests.get(kind) or _file_digest(path))


def _same_run(header: object, settings: dict) -> TypeGuard[dict[str, Any]]:
    """Whether a log's header describes the run `settings` describe, its policies compared by content
    (so, when it does, a header that is a dict)."""
    if not isinstance(header, dict) or not isinstance(header.get("lineup"), list):
        return False
    recorded = header.get("policies")
    recorded = recorded if isinstance(recorded, dict) else {}  # logs written before digests were kept
    if {**header, "lineup": None, "policies": None} != {**settings, "lineup": None, "policies": None}:
        return False
    where = settings["game"], settings["num_players"]
    theirs = [_policy_identity(str(k), recorded, *where) for k in header["lineup"]]
    return theirs == [_policy_identity(k, settings["policies"], *where) for k in settings["lineup"]]


def lineup_label(agent_kinds: list[str]) -> str:
    """The agents of a run for its progress bar: each once, a policy by its file's stem, not its whole path."""
    names = [spec.label if (spec := _spec(kind)) is not None else kind for kind in agent_kinds]
    return " v ".join(dict.fromkeys(names))


def run_settings(
    game_name: str, num_players: int, agent_kinds: list[str], games: int, seed: int, options: dict, isolate: bool
) -> dict:
    """A run's settings, the first line of its log: what resuming (and verifying) compares."""
    settings = {
        "game": game_name,
        "num_players": num_players,
        "lineup": list(agent_kinds),
        "games": games,
        "seed": seed,
        "options": dict(options),
        # what resuming compares, wherever the files move
        "policies": policy_digests(list(agent_kinds), game_name, num_players),
    }
    if isolate:
        settings["isolated"] = 0  # the first agent's seat plays in its own process
    return settings


def evaluate(
    game_name: str,
    num_players: int,
    agent_kinds: list[str],
    games: int,
    seed: int,
    runner: Runner | None = None,
    progress: Any = None,
    log: str | Path | None = None,
    resume: bool = False,
    isolate: bool = False,
    **options: Any,
) -> dict:
    """Play `games` scheduled matches of the agents and aggregate them by agent.

    With k seats of one agent in a match, the match counts k appearances of it, so `win_rate` is per
    seat and comparable with 1/num_players. A match won jointly by several seats gives each 1/k of a
    win. A failed match (an agent raising, refusing the rules or running out of time) is a loss for the
    agent that failed and a shared win for the other seats; it counts in that agent's `failures` and
    in the run's `failures` list, and nowhere in scores or lengths. A failure that is no agent's (the
    game raising on a legal move) counts only in the list.

    `runner`: how the matches run (`Runner`: worker processes or Ray tasks, the match timeout); one
    worker process by default.

    `log`: a JSON-lines file that receives every record as its match ends (`MatchLog`); with `resume`,
    the records already in it are kept and only the other matches are played, which gives the
    results of an uninterrupted run.

    `isolate`: the first agent plays in a process of its own and receives, at each decision, a match
    sampled from its seat's information (`city_envs.evaluation.seat`); the benchmark's candidate does.
    """
    if games < 1:
        raise ValueError("games must be >= 1")
    if len(agent_kinds) < num_players:
        raise ValueError(f"{len(agent_kinds)} agent kinds for a {num_players}-player game")
    if resume and log is None:
        raise ValueError("resume needs the log of the run to finish (--out)")
    check_lineup(game_name, num_players, agent_kinds, isolate=isolate, **options)
    settings = run_settings(game_name, num_players, agent_kinds, games, seed, options, isolate)
    match_log = MatchLog(log, settings, resume) if log is not None else None
    finished = {m: r for m, r in match_log.records.items() if m < games} if match_log else {}
    with stage(f"{game_name} {num_players}p, {lineup_label(agent_kinds)}", games, "matches") as bar:

        def one_more() -> None:
            bar.advance()
            if progress is not None:
                progress()

        for _ in finished:
            one_more()
        played_now = run_matches(
            game_name,
            num_players,
            agent_kinds,
            games,
            seed,
            runner,
            progress=one_more,
            skip=finished,
            on_record=match_log.append if match_log else None,
            isolate=isolate,
            **options,
        )
    records = sorted([*finished.values(), *played_now], key=lambda r: r["match"])
    return summarize(records, game_name, num_players, agent_kinds, games, seed, options)
