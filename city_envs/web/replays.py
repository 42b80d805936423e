"""Replays from the folders the user served: saved games (`Game.to_dict()` JSON) and arena runs.

A replay is a game's seed, options and action history; position N is rebuilt by replaying the
first N actions. An arena run folder (`city-envs evaluate --out`) holds `results.json` (game, player
count, options, run seed) and its match records with each match's actions: `matches.jsonl` where
the arena wrote one, else `matches.csv` (column `actions`). A run written before the arena kept
actions is rebuilt by playing its agents again from the match's seeds (checked against the recorded
length; an agent limited by seconds rather than iterations does not repeat its moves, and is
reported as such).

Only paths inside a served folder are read (`Sources.resolve`), and files are parsed as JSON or
CSV data, never executed.
"""

from __future__ import annotations

import csv
import json
import os
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

from city_envs.core.game import Game
from city_envs.core.registry import GAMES, game_class

MAX_FILE_BYTES = 64 * 1024 * 1024
MAX_LISTED = 400  # files shown on the home page; deeper trees are still reachable by link


@dataclass(frozen=True)
class Step:
    """Decision `index` of a replay: who chose, and how it reads publicly and to its own seat."""

    index: int
    seat: int
    public: str
    private: str
    outcome: tuple[str, ...] = ()  # what the table learnt from it (`Game.describe_outcome`), public


@dataclass
class Replay:
    """Everything needed to show any position of one recorded match."""

    title: str
    game_name: str
    num_players: int
    options: dict
    seed: int | None
    history: list[int]
    seats: list[str]
    note: str = ""
    steps: list[Step] | None = None

    def game_at(self, step: int) -> Game:
        if not 0 <= step <= len(self.history):
            raise ValueError(f"decision {step} is outside this replay (0..{len(self.history)})")
        return game_class(self.game_name).replay(self.num_players, self.seed, self.history[:step], **self.options)

    def describe_steps(self) -> list[Step]:
        """Each decision's description, computed once (replaying the whole match)."""
        if self.steps is None:
            game = game_class(self.game_name)(self.num_players, seed=self.seed, **self.options)
            steps = []
            for index, action in enumerate(self.history):
                seat = game.current_player()
                public, private = game.describe_public_action(action), game.describe_action(action)
                before = game.clone()
                game.apply(action)
                steps.append(Step(index, seat, public, private, tuple(game.describe_outcome(before))))
            self.steps = steps
        return self.steps


def _read_json(path: Path) -> object:
    if path.stat().st_size > MAX_FILE_BYTES:
        raise ValueError(f"{path.name} is larger than {MAX_FILE_BYTES // 2**20} MB")
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ValueError(f"{path.name} is not valid JSON: {error}") from None


def load_saved_game(path: Path) -> Replay:
    """A `to_dict()` file: checked by `from_dict`, and its history must lead to its saved state."""
    data = _read_json(path)
    if not isinstance(data, dict) or data.get("game") not in GAMES:
        raise ValueError(f"{path.name} is not a saved city-envs game (no known 'game' field)")
    try:
        game = game_class(data["game"]).from_dict(data)
    except (KeyError, TypeError, ValueError) as error:
        raise ValueError(f"{path.name} is not a valid saved game: {type(error).__name__}: {error}") from None
    if game.seed is None:
        raise ValueError(f"{path.name} was saved from a match without a seed, so its decisions cannot be replayed")
    replay = Replay(path.name, game.name, game.num_players, dict(game.options), game.seed, list(game.history),
                    [f"seat {seat}" for seat in range(game.num_players)])
    try:
        final = replay.game_at(len(replay.history))
    except ValueError as error:
        raise ValueError(f"{path.name}: its history cannot be replayed: {error}") from None
    if final.to_dict()["state"] != game.to_dict()["state"]:
        raise ValueError(f"{path.name}: replaying its history from its seed does not give its saved state")
    return replay


def is_arena_run(folder: Path) -> bool:
    return (folder / "results.json").is_file() and any(
        (folder / name).is_file() for name in ("matches.jsonl", "matches.csv"))


def arena_records(folder: Path) -> list[dict]:
    """The run's match records: from matches.jsonl (with histories) when present, else matches.csv."""
    jsonl = folder / "matches.jsonl"
    if jsonl.is_file():
        if jsonl.stat().st_size > MAX_FILE_BYTES:
            raise ValueError(f"{jsonl.name} is larger than {MAX_FILE_BYTES // 2**20} MB")
        records = []
        for number, line in enumerate(jsonl.read_text(encoding="utf-8").splitlines(), 1):
            if line.strip():
                try:
                    records.append(json.loads(line))
                except json.JSONDecodeError as error:
                    raise ValueError(f"{jsonl.name} line {number} is not valid JSON: {error}") from None
        return records
    with open(folder / "matches.csv", newline="", encoding="utf-8") as handle:
        try:
            records = []
            for row in csv.DictReader(handle):
                record = {"match": int(row["match"]), "seed": int(row["seed"]), "kinds": row["seats"].split(),
                          "length": int(row["length"]), "failed": row["failed"] == "True", "reason": row["reason"]}
                if row.get("actions") is not None:  # runs before the arena kept actions have no such column
                    record["history"] = [int(action) for action in row["actions"].split()]
                records.append(record)
            return records
        except (KeyError, TypeError, ValueError, csv.Error) as error:
            raise ValueError(f"matches.csv is not an arena match list: {error}") from None


def load_arena_match(folder: Path, match: int) -> Replay:
    results = _read_json(folder / "results.json")
    if not isinstance(results, dict) or results.get("game") not in GAMES:
        raise ValueError(f"{folder.name}/results.json is not an arena result (no known 'game' field)")
    try:
        game_name, num_players = results["game"], int(results["num_players"])
        options, run_seed = dict(results.get("options") or {}), int(results["seed"])
    except (KeyError, TypeError, ValueError) as error:
        raise ValueError(f"{folder.name}/results.json lacks {error}") from None
    records = {record.get("match"): record for record in arena_records(folder) if isinstance(record, dict)}
    if match not in records:
        raise ValueError(f"match {match} is not in this run (matches {min(records, default=0)}.."
                         f"{max(records, default=-1)})")
    try:
        return _arena_replay(folder, records[match], game_name, num_players, options, run_seed)
    except (KeyError, TypeError) as error:
        raise ValueError(f"match {match}'s record is incomplete: {type(error).__name__}: {error}") from None


def _arena_replay(folder: Path, record: dict, game_name: str, num_players: int, options: dict,
                  run_seed: int) -> Replay:
    match = record["match"]
    kinds = [str(kind) for kind in record["kinds"]]
    if len(kinds) != num_players:
        raise ValueError(f"match {match} lists {len(kinds)} seats for a {num_players}-player game")
    note = f"failed: {record.get('reason')}" if record.get("failed") else ""
    if "history" in record:
        history = [int(action) for action in record["history"]]
    else:
        history = rebuild_history(game_name, num_players, kinds, run_seed, match, int(record["seed"]),
                                  record.get("length"), options)
        note = (note + "; " if note else "") + "rebuilt by playing the agents again from the match's seeds"
    title = f"{folder.name}: {game_name}, match {match} ({', '.join(kinds)})"
    return Replay(title, game_name, num_players, options, int(record["seed"]), history,
                  [f"seat {seat} ({kind})" for seat, kind in enumerate(kinds)], note)


def rebuild_history(game_name: str, num_players: int, kinds: list[str], run_seed: int, match: int,
                    game_seed: int, length: int | None, options: dict) -> list[int]:
    """A match of a run that kept no action history, played again from the arena's seeds."""
    from city_envs.agents.registry import make_agent
    from city_envs.core.infoset import InfoSet
    from city_envs.evaluation.scheduling import match_seeds

    seed, agent_seeds = match_seeds(run_seed, match, num_players)
    if seed != game_seed:
        raise ValueError(f"match {match}'s recorded seed is not the one the run's seed gives; cannot rebuild it")
    game = game_class(game_name)(num_players, seed=seed, **options)
    agents = [make_agent(kind, game_name, s) for kind, s in zip(kinds, agent_seeds, strict=True)]
    handles = [InfoSet(game, seat) for seat in range(num_players)]
    try:
        while not game.is_over() and (length is None or len(game.history) < length):
            seat = game.current_player()
            game.apply(agents[seat].act(handles[seat]))
    except Exception as error:  # noqa: BLE001 - a failed match is shown up to where it failed
        if length is None or len(game.history) != length:
            raise ValueError(f"match {match} could not be rebuilt: {type(error).__name__}: {error}") from None
    if length is not None and len(game.history) != length:
        raise ValueError(f"match {match} played again took {len(game.history)} decisions, not the recorded "
                         f"{length}: its agents do not repeat their moves (a time limit?), so it cannot be shown")
    return list(game.history)


class Sources:
    """The folders given to `serve`; every replay path is resolved inside one of them."""

    def __init__(self, folders: list[str | Path]) -> None:
        self.roots = [Path(folder).resolve() for folder in folders]
        for root in self.roots:
            if not root.is_dir():
                raise ValueError(f"{root} is not a folder")
        self._cache: OrderedDict[tuple[str, int | None], Replay] = OrderedDict()
        self._lock = threading.Lock()

    def resolve(self, src: str) -> Path:
        """`<root index>/<relative path>` to a path that is inside that served folder."""
        head, _, rest = src.partition("/")
        if not head.isdigit() or int(head) >= len(self.roots):
            raise ValueError(f"unknown replay source {src!r}: no served folder {head!r}")
        root = self.roots[int(head)]
        path = (root / rest).resolve()
        if path != root and root not in path.parents:
            raise ValueError(f"{src!r} is outside the served folders")
        if not path.exists():
            raise ValueError(f"{src!r} does not exist")
        return path

    def name(self, path: Path) -> str:
        for index, root in enumerate(self.roots):
            if path == root or root in path.parents:
                rel = path.relative_to(root).as_posix()
                return f"{index}/{rel}" if rel != "." else str(index)
        raise ValueError(f"{path} is outside the served folders")

    def load(self, src: str, match: int | None) -> Replay:
        key = (src, match)
        with self._lock:
            if key in self._cache:
                self._cache.move_to_end(key)
                return self._cache[key]
        path = self.resolve(src)
        if path.is_dir():
            if not is_arena_run(path):
                raise ValueError(f"{src!r} is not an arena run folder (results.json and matches.jsonl or .csv)")
            if match is None:
                raise ValueError("an arena run needs a match number (match=N)")
            replay = load_arena_match(path, match)
        else:
            replay = load_saved_game(path)
        replay.describe_steps()
        with self._lock:
            self._cache[key] = replay
            while len(self._cache) > 16:
                self._cache.popitem(last=False)
        return replay

    def listing(self) -> tuple[list[tuple[str, dict]], list[str]]:
        """Arena runs (name, results summary) and JSON files that may be saved games, under the roots
        (the first `MAX_LISTED`, folders walked in name order; hidden folders are left out)."""
        runs, files = [], []
        for root in self.roots:
            for folder, subfolders, names in os.walk(root):
                subfolders[:] = sorted(name for name in subfolders if not name.startswith("."))
                path = Path(folder)
                if len(runs) + len(files) >= MAX_LISTED:
                    break
                if is_arena_run(path):
                    try:
                        summary = _read_json(path / "results.json")
                    except (OSError, ValueError):
                        summary = None
                    if isinstance(summary, dict) and summary.get("game") in GAMES and isinstance(
                            summary.get("games"), int) and isinstance(summary.get("lineup"), list):
                        runs.append((self.name(path), summary))
                files += [self.name(path / name) for name in sorted(names)
                          if name.endswith(".json") and name != "results.json"][:MAX_LISTED]
        return runs, files
