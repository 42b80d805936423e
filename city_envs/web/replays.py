"""Replays from the folders the user served: saved games (`Game.to_dict()` JSON) and arena runs.

A replay is a game's seed, options and action history; position N is rebuilt by replaying the
first N actions. An arena run folder (`city-envs evaluate --out`) holds `results.json` (game, player
count, options, run seed) and its match records with each match's actions: `matches.jsonl` where
the arena wrote one, else `matches.csv` (column `actions`). A record without its actions is refused:
a replay never creates an agent (an agent spec in a file could name any module or pickle).

Only regular files inside a served folder are read (`Sources.resolve`; no FIFO, device or symlink
leading out), each within the cap of its kind, checked on the open file before a byte is read (a
saved game and a results.json at most `MAX_SMALL_FILE_BYTES`, a match list at most `MAX_FILE_BYTES`
and `MAX_MATCH_LINES` lines; a file over its cap raises `FileTooLarge`), and JSON at most
`MAX_JSON_DEPTH` deep; files are parsed as JSON or CSV data, never executed. What a request costs is
bounded once more by caches keyed by each file's version (path, size, modification time, inode): a
run's summary and its match list are parsed once per version (`read_summary`, which keeps only the
few fields the app reads, and `read_match_list`, which keeps each record as text), and a replay is
rebuilt once per version of its files (`Sources.load`).
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import stat
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache, partial, wraps
from pathlib import Path
from typing import TypeVar, cast

from city_envs.core.game import Game
from city_envs.core.registry import GAMES, game_class
from city_envs.web.panels import payout_lines

MAX_FILE_BYTES = 16 * 1024 * 1024  # a match list (matches.jsonl or matches.csv: a few KB a match)
MAX_SMALL_FILE_BYTES = 1024 * 1024  # a saved game (about 10 KB) or a run's results.json (a few KB)
MAX_MATCH_LINES = 100_000  # lines of a match list, counted before any is parsed
SUMMARY_FIELDS = ("game", "num_players", "options", "games", "lineup")  # what the app reads of a results.json
MAX_SUMMARY_CHARS = 4096  # those fields of a results.json, as JSON (a line-up of agents and a few options)
MAX_JSON_DEPTH = 32  # a saved game is about 5 deep; json itself gives up near 1,000 with a RecursionError
MAX_LISTED = 400  # files shown on the home page; deeper trees are still reachable by link
SEATS_KEY = "seats"  # what a game saved by the web app adds to `Game.to_dict()`: each seat's agent
MAX_FOLDERS_WALKED = 2000  # the home page's walk stops there, however deep the served tree


@dataclass(frozen=True)
class Step:
    """Decision `index` of a match: who chose, how it reads publicly and to its own seat, and what it
    did that the table saw. Everything but `private` is shown to every seat, so it is public only."""

    index: int
    seat: int
    public: str
    private: str
    points: tuple[float, ...] = ()  # each seat's change of public score (`Game.public_scores`)
    outcome: tuple[str, ...] = ()  # what the table learnt from it (`Game.describe_outcome`), public
    payouts: tuple[str, ...] = ()  # each change of a public score part or resource (`payout_lines`)


def play_step(game: Game, action: int) -> Step:
    """Apply `action` to `game` and describe it for the log; an illegal action raises
    `IllegalActionError` before anything is described or changed."""
    if not 0 <= action < game.num_actions or not game.legal_actions()[action]:
        game.apply(action)  # raises, naming what is wrong
    seat = game.current_player()
    public, private = game.describe_public_action(action), game.describe_action(action)
    before = game.clone()
    game.apply(action)
    points = tuple(float(a - b) for a, b in zip(game.public_scores(), before.public_scores(), strict=True))
    outcome = tuple(game.describe_outcome(before))
    return Step(len(game.history) - 1, seat, public, private, points, outcome, tuple(payout_lines(before, game)))


CHOICE_PLACE = re.compile(r'<g class="choice" data-action="\d+"[^>]*>.*?<polygon points="([-0-9., ]+)"', re.S)


def board_mark(game: Game, action: int) -> str:
    """The points of the place on `game`'s SVG board that legal `action` is chosen on ("" for none), for
    marking the last move: only of a move every seat sees as its seat does (its public text its own)."""
    text = game.describe_action(action)
    if text != game.describe_public_action(action):
        return ""
    found = CHOICE_PLACE.search(game.render_svg({action: text}) or "")
    return found.group(1) if found else ""


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
            self.steps = [play_step(game, action) for action in self.history]
        return self.steps


T = TypeVar("T")
Version = tuple[int, int, int, int]


class FileTooLarge(ValueError):
    """A served file over the cap of its kind, refused before it is read (the app answers 413)."""


def version(path: Path) -> Version:
    """What tells one version of a file from another: device, inode, size and modification time."""
    try:
        info = os.stat(path)
    except OSError as error:
        raise ValueError(f"{path.name} cannot be read: {error.strerror}") from None
    return info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns


def cached(files: int) -> Callable[[Callable[[Path], T]], Callable[[Path], T]]:
    """A reader remembered for each version of the last `files` files read (`version`): a file asked for
    again unchanged is neither read nor parsed again, and neither is its refusal (a ValueError)."""

    def decorate(reader: Callable[[Path], T]) -> Callable[[Path], T]:
        @lru_cache(maxsize=files)
        def by_version(path: Path, _: Version) -> T | ValueError:
            try:
                return reader(path)
            except ValueError as error:
                return error

        @wraps(reader)
        def read(path: Path) -> T:
            result = by_version(path, version(path))
            if isinstance(result, ValueError):
                raise result.with_traceback(None)
            return result

        return read

    return decorate


def read_regular_file(path: Path, limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of `path` if it is a regular file of at most `limit` bytes, else ValueError
    (`FileTooLarge` when larger, found from its size before reading). Opened without blocking, so a
    FIFO or a device named like a data file never holds the request."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as error:
        raise ValueError(f"{path.name} cannot be opened: {error.strerror}") from None
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise ValueError(f"{path.name} is not a regular file")
        if info.st_size > limit:
            raise too_large(path, limit)
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise too_large(path, limit)
    return data


def too_large(path: Path, limit: int) -> FileTooLarge:
    return FileTooLarge(f"{path.name} is larger than {limit // 2**20} MB, the most this server reads for such a file")


def json_depth_ok(value: object, limit: int = MAX_JSON_DEPTH) -> bool:
    """Whether `value` nests at most `limit` lists and dicts deep (walked without recursion)."""
    stack: list[tuple[list | dict, int]] = [(value, 1)] if isinstance(value, (list, dict)) else []
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return False
        children = item.values() if isinstance(item, dict) else item
        stack.extend((child, depth + 1) for child in children if isinstance(child, (list, dict)))  # no scalars
    return True


def parse_json(text: str | bytes, name: str) -> object:
    """JSON data, or ValueError naming `name`: not UTF-8, not JSON, or nested too deep."""
    try:
        data = json.loads(text)
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ValueError(f"{name} is not valid JSON: {error}") from None
    except RecursionError:
        data = None
    if data is None or not json_depth_ok(data):
        raise ValueError(f"{name} is nested more than {MAX_JSON_DEPTH} deep")
    return data


MAX_SEAT_CHARS = 200  # a seat's agent as a saved game names it (an agent spec, like the command line's)


def saved_seats(data: dict, name: str) -> list[str] | None:
    """Who sat where, as a game saved by the web app names it (`SEATS_KEY`: each seat's agent, "person"
    for a person); None when the file does not say. Taken out of `data`, which is `to_dict()` then."""
    if SEATS_KEY not in data:
        return None
    seats = data.pop(SEATS_KEY)
    players = data.get("num_players")
    if (
        not isinstance(seats, list)
        or len(seats) != players
        or not all(isinstance(seat, str) and 0 < len(seat) <= MAX_SEAT_CHARS and seat.isprintable() for seat in seats)
    ):
        raise ValueError(
            f"{name}: '{SEATS_KEY}' must list one agent name (1..{MAX_SEAT_CHARS} printable characters) per seat"
        )
    return seats


def load_saved_game(path: Path) -> Replay:
    """A `to_dict()` file (with who sat where, `SEATS_KEY`, when the web app saved it): checked by
    `from_dict`, and its history must lead to its saved state."""
    data = parse_json(read_regular_file(path, MAX_SMALL_FILE_BYTES), path.name)
    if not isinstance(data, dict) or data.get("game") not in GAMES:
        raise ValueError(f"{path.name} is not a saved city-envs game (no known 'game' field)")
    seats = saved_seats(data, path.name)
    try:
        game = game_class(data["game"]).from_dict(data)
    except (KeyError, TypeError, ValueError, IndexError, AttributeError, OverflowError) as error:
        raise ValueError(f"{path.name} is not a valid saved game: {type(error).__name__}: {error}") from None
    if game.seed is None:
        raise ValueError(f"{path.name} was saved from a match without a seed, so its decisions cannot be replayed")
    replay = Replay(
        path.name,
        game.name,
        game.num_players,
        dict(game.options),
        game.seed,
        list(game.history),
        [f"seat {seat}" + (f" ({seats[seat]})" if seats else "") for seat in range(game.num_players)],
    )
    try:
        final = replay.game_at(len(replay.history))
    except ValueError as error:
        raise ValueError(f"{path.name}: its history cannot be replayed: {error}") from None
    if final.to_dict()["state"] != game.to_dict()["state"]:
        raise ValueError(f"{path.name}: replaying its history from its seed does not give its saved state")
    return replay


def is_arena_run(folder: Path) -> bool:
    return (folder / "results.json").is_file() and any(
        (folder / name).is_file() for name in ("matches.jsonl", "matches.csv")
    )


def match_list_of(folder: Path) -> Path:
    """The run's match list: matches.jsonl (with histories) when present, else matches.csv."""
    jsonl = folder / "matches.jsonl"
    return jsonl if jsonl.is_file() else folder / "matches.csv"


@cached(files=256)
def read_summary(path: Path) -> dict | None:
    """The fields of a run's results.json the app reads (`SUMMARY_FIELDS`, so little is kept), or None
    when it is JSON but not an object."""
    results = parse_json(read_regular_file(path, MAX_SMALL_FILE_BYTES), path.name)
    if not isinstance(results, dict):
        return None
    kept = {key: results[key] for key in SUMMARY_FIELDS if key in results}
    if len(json.dumps(kept)) > MAX_SUMMARY_CHARS:  # what is cached stays small, however many files
        raise ValueError(f"{path.name}: its game, options and line-up take over {MAX_SUMMARY_CHARS:,} characters")
    return kept


@dataclass(frozen=True)
class MatchList:
    """A run's match records by number, each kept as text (its JSON line, or its CSV row written back as
    one) and parsed when asked for, so a cached list costs about its file's size."""

    name: str
    columns: tuple[str, ...]  # a CSV list's header; none for JSON lines
    records: dict[int, str]

    def record(self, match: int) -> dict:
        """Match `match`'s record; ValueError when the run has none or it is malformed."""
        if match not in self.records:
            first, last = min(self.records, default=0), max(self.records, default=-1)
            raise ValueError(f"match {match} is not in this run (matches {first}..{last})")
        kept = self.records[match]
        if not self.columns:
            return cast(dict, parse_json(kept, f"{self.name}, match {match}"))  # an object when the list was read
        row = dict(zip(self.columns, next(csv.reader(io.StringIO(kept, newline=""))), strict=False))
        try:
            record = {
                "match": match,
                "seed": int(row["seed"]),
                "kinds": row["seats"].split(),
                "length": int(row["length"]),
                "failed": row["failed"] == "True",
                "reason": row["reason"],
            }
            if row.get("actions") is not None:  # runs before the arena kept actions have no such column
                record["history"] = [int(action) for action in row["actions"].split()]
        except (KeyError, ValueError) as error:
            raise ValueError(f"{self.name}'s match {match} is not an arena match record: {error!r}") from None
        return record


@cached(files=4)
def read_match_list(path: Path) -> MatchList:
    """A matches.jsonl or matches.csv by match number, its lines counted before any is parsed. A JSON
    line that is not an object with a whole match number is no record (like the header line)."""
    data = read_regular_file(path)
    if data.count(b"\n") > MAX_MATCH_LINES:
        raise FileTooLarge(f"{path.name} has more than {MAX_MATCH_LINES:,} lines, the most this server reads")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"{path.name} is not UTF-8 text") from None
    records: dict[int, str] = {}
    if path.suffix == ".jsonl":
        for number, line in enumerate(text.splitlines(), 1):
            if line.strip():
                record = parse_json(line, f"{path.name} line {number}")
                if isinstance(record, dict) and (match := _match_number(record)) is not None:
                    records[match] = line
        return MatchList(path.name, (), records)
    rows = csv.reader(io.StringIO(text, newline=""))
    try:
        columns = tuple(next(rows, ()))
        if "match" not in columns:
            raise ValueError("it has no match column")
        where = columns.index("match")
        for row in rows:
            written = io.StringIO()
            csv.writer(written).writerow(row)
            records[int(row[where])] = written.getvalue()
    except (IndexError, ValueError, csv.Error) as error:
        raise ValueError(f"{path.name} is not an arena match list: {error}") from None
    return MatchList(path.name, columns, records)


def _match_number(record: dict) -> int | None:
    """A record's match number: an int (never a bool, a string or a float); None for a header line."""
    number = record.get("match")
    return number if isinstance(number, int) and not isinstance(number, bool) else None


def load_arena_match(folder: Path, match: int, summary: Path, match_list: Path) -> Replay:
    """Match `match` of the run in `folder`, from its `summary` (results.json) and its `match_list`."""
    results = read_summary(summary)
    if not isinstance(results, dict) or results.get("game") not in GAMES:
        raise ValueError(f"{folder.name}/results.json is not an arena result (no known 'game' field)")
    game_name, num_players, options = results["game"], results.get("num_players"), results.get("options") or {}
    if not isinstance(num_players, int) or isinstance(num_players, bool) or not isinstance(options, dict):
        raise ValueError(f"{folder.name}/results.json needs num_players (a whole number) and options (a table)")
    record = read_match_list(match_list).record(match)
    try:
        return _arena_replay(folder, record, game_name, num_players, options)
    except (KeyError, TypeError, AttributeError) as error:
        raise ValueError(f"match {match}'s record is incomplete: {type(error).__name__}: {error}") from None


def _arena_replay(folder: Path, record: dict, game_name: str, num_players: int, options: dict) -> Replay:
    match = record["match"]
    kinds = [str(kind) for kind in record["kinds"]]
    if len(kinds) != num_players:
        raise ValueError(f"match {match} lists {len(kinds)} seats for a {num_players}-player game")
    note = f"failed: {record.get('reason')}" if record.get("failed") else ""
    if "history" not in record:
        raise ValueError(
            f"match {match}'s record has no actions (the arena wrote it before it kept them); "
            "a replay never plays the agents again, so it cannot be shown"
        )
    history = record["history"]
    if not isinstance(history, list) or not all(isinstance(a, int) and not isinstance(a, bool) for a in history):
        raise ValueError(f"match {match}'s actions are not a list of whole numbers")
    seed = record["seed"]
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise ValueError(f"match {match}'s seed is not a whole number >= 0")
    title = f"{folder.name}: {game_name}, match {match} ({', '.join(kinds)})"
    return Replay(
        title,
        game_name,
        num_players,
        options,
        seed,
        list(history),
        [f"seat {seat} ({kind})" for seat, kind in enumerate(kinds)],
        note,
    )


class Sources:
    """The folders given to `serve`; every replay path is resolved inside one of them."""

    def __init__(self, folders: list[str | Path]) -> None:
        self.roots = [Path(folder).resolve() for folder in folders]
        for root in self.roots:
            if not root.is_dir():
                raise ValueError(f"{root} is not a folder")
        self._cache: OrderedDict[tuple[str, int | None, tuple[Version, ...]], Replay] = OrderedDict()
        self._lock = threading.Lock()

    def resolve(self, src: str) -> Path:
        """`<root index>/<relative path>` to a path that is inside that served folder."""
        head, _, rest = src.partition("/")
        if not (head.isascii() and head.isdigit()) or int(head) >= len(self.roots):
            raise ValueError(f"unknown replay source {src!r}: no served folder {head!r}")
        if "\0" in rest or len(src) > 4096:
            raise ValueError(f"{src[:100]!r} is not a path")
        root = self.roots[int(head)]
        try:
            path = (root / rest).resolve()
            exists = path.exists()
        except (OSError, RuntimeError) as error:  # a symlink loop (RuntimeError before Python 3.13), a name too long
            raise ValueError(f"{src!r} cannot be followed: {error}") from None
        if path != root and root not in path.parents:
            raise ValueError(f"{src!r} is outside the served folders")
        if not exists:
            raise FileNotFoundError(f"{src!r} does not exist")
        return path

    def name(self, path: Path) -> str:
        for index, root in enumerate(self.roots):
            if path == root or root in path.parents:
                rel = path.relative_to(root).as_posix()
                return f"{index}/{rel}" if rel != "." else str(index)
        raise ValueError(f"{path} is outside the served folders")

    def load(self, src: str, match: int | None) -> Replay:
        """The replay of a saved game or of an arena run's match, rebuilt once for each version of its files."""
        path = self.resolve(src)
        key: tuple[str, int | None, tuple[Version, ...]]
        build: Callable[[], Replay]
        if path.is_dir():
            if not is_arena_run(path):
                raise ValueError(f"{src!r} is not an arena run folder (results.json and matches.jsonl or .csv)")
            if match is None:
                raise ValueError("an arena run needs a match number (match=N)")
            # resolved as the folder was: a results.json or match list linked out of the served folders is refused
            files = (path / "results.json", match_list_of(path))
            summary, match_list = (self.resolve(self.name(file)) for file in files)
            key = (src, match, (version(summary), version(match_list)))
            build = partial(load_arena_match, path, match, summary, match_list)
        else:
            key = (src, match, (version(path),))
            build = partial(load_saved_game, path)
        with self._lock:
            if key in self._cache:
                self._cache.move_to_end(key)
                return self._cache[key]
        replay = build()
        try:
            replay.describe_steps()
        except (KeyError, TypeError, ValueError, IndexError, OverflowError) as error:
            raise ValueError(f"{src!r} cannot be replayed: {type(error).__name__}: {error}") from None
        with self._lock:
            self._cache[key] = replay
            while len(self._cache) > 16:
                self._cache.popitem(last=False)
        return replay

    def listing(self) -> tuple[list[tuple[str, dict]], list[str], list[str]]:
        """Arena runs (name, results summary), JSON files that may be saved games, and policy files
        (`*.safetensors`, which a seat may play) under the roots (the first `MAX_LISTED`, folders
        walked in name order; hidden folders are left out)."""
        runs: list[tuple[str, dict]] = []
        files: list[str] = []
        policies: list[str] = []
        for root in self.roots:
            for visited, (folder, subfolders, names) in enumerate(os.walk(root)):
                subfolders[:] = sorted(name for name in subfolders if not name.startswith("."))
                path = Path(folder)
                if len(runs) + len(files) >= MAX_LISTED or visited >= MAX_FOLDERS_WALKED:
                    break
                if is_arena_run(path):
                    try:  # resolved as a request is: a link out of the served folder is not followed
                        summary = read_summary(self.resolve(self.name(path / "results.json")))
                    except (OSError, ValueError):
                        summary = None
                    if (
                        isinstance(summary, dict)
                        and summary.get("game") in GAMES
                        and isinstance(summary.get("games"), int)
                        and isinstance(summary.get("lineup"), list)
                    ):
                        runs.append((self.name(path), summary))
                files += [
                    self.name(path / name)
                    for name in sorted(names)
                    if name.endswith(".json") and name != "results.json"
                ][:MAX_LISTED]
                policies += [self.name(path / name) for name in sorted(names) if name.endswith(".safetensors")][
                    :MAX_LISTED
                ]
        return runs, files, policies
