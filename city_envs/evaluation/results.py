"""A benchmark result on disk: its folder's files, `results.json` written and read through one set of
pydantic models (`ResultFile`), and the match logs with their digest.

A result's folder holds `benchmark.json` (the run's settings, written first: what `--resume` must
match), `results.json`, the match logs `runs/<task>/<line-up>/matches.jsonl` (every match's seed and
moves) and, for a salted result once its run is over, `salt.txt`.
"""

from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from city_envs.core.settings import MAX_JSON_BYTES, read_json

FORMAT = "city-envs-benchmark/1"
SETTINGS = "benchmark.json"  # the run's settings, written first: what --resume must match
RESULTS = "results.json"
RUNS = "runs"  # the match logs, runs/<task>/<line-up>/matches.jsonl: every match's seed and moves
SALT_FILE = "salt.txt"  # a salted result's salt, added to its folder once the run is over (revealed)


class BenchmarkError(ValueError):
    """A benchmark that cannot start or cannot be read: its message is the command's one line."""


class _Checked(BaseModel):
    # finite numbers only; fields a model does not name are kept, so that writing loses nothing
    model_config = ConfigDict(allow_inf_nan=False, extra="allow")


Interval = tuple[float, float]


class _Lineup(_Checked):
    opponent: str | None = None
    seed: int | None = None
    win_rate: float = Field(ge=0, le=1)
    ci95: Interval
    mean_margin: float
    failures: int = Field(ge=0)
    score: float | None = None
    win_share: list[float | None]
    margin: list[float | None]


class _Task(_Checked):
    game: str | None = None
    players: int = Field(ge=2)
    lineups: dict[str, _Lineup] = Field(min_length=1)
    score: float
    ci95: Interval


class _Suite(_Checked):
    suite: str
    version: str
    variant: str
    matches: int = Field(ge=1)
    env_version: int
    tasks: list[str]
    lineups: dict
    references: dict


class _Bootstrap(_Checked):
    reps: int = Field(ge=1)
    seed: int
    method: str


class _Aggregate(_Checked):
    iqm: float
    ci95: Interval
    bootstrap: _Bootstrap | None = None


class _Agent(_Checked):
    spec: str
    files: dict[str, dict[str, str]] = {}


class _Logs(_Checked):
    sha256: str
    files: int = Field(ge=1)


class _Salt(_Checked):
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    seeds: str | None = None


class ResultFile(_Checked):
    """`results.json`: every figure its readers (`compare`, `tables`, `verify`) use, of its type and
    range. A result is written through this model and checked by it again when read."""

    format: str = FORMAT
    agent: _Agent
    suite: _Suite
    salt: _Salt | None = None  # None: played on the suite's public seeds
    versions: dict[str, str] = {}
    engine: dict | None = None  # None: a result written before the engines were recorded
    tasks: dict[str, _Task] = Field(min_length=1)
    seconds: float = Field(ge=0)
    jobs: int | None = Field(default=None, ge=1)  # None: a result written before runs recorded how they ran
    backend: str | None = None
    resumed: bool | None = None
    logs: _Logs | None = None  # None: a result without match logs, which `verify` refuses
    aggregate: _Aggregate


def _checked(results: dict, file: Path, verb: str) -> ResultFile:
    try:
        return ResultFile.model_validate(results)
    except ValidationError as error:
        first = error.errors()[0]
        raise BenchmarkError(
            f"{file}: not a complete benchmark result{verb}: {'.'.join(map(str, first['loc']))}: {first['msg']}"
        ) from None


def load_results(path: str | Path) -> dict:
    """A benchmark's `results.json` (a folder or the file), checked to be one: a regular file of finite
    numbers (`read_json`), each figure the readers use of its type and range (`ResultFile`)."""
    path = Path(path)
    file = path / RESULTS if path.is_dir() else path
    try:
        results = read_json(file)
    except ValueError as error:
        raise BenchmarkError(f"{file}: not a readable benchmark result ({error})") from None
    if not isinstance(results, dict) or results.get("format") != FORMAT:
        raise BenchmarkError(f"{file}: not a city-envs benchmark result (format {FORMAT})")
    _checked(results, file, "")
    return results


def write_results(results: dict, out: Path) -> dict:
    """Write `results` to `out/results.json` through `ResultFile` (a result it would refuse to read is
    never written: one `BenchmarkError`); the results as written."""
    file = out / RESULTS
    written = _checked(results, file, " (nothing written)").model_dump(mode="json", exclude_unset=True)
    file.write_text(json.dumps(written, indent=1) + "\n")
    return written


def log_files(out: Path) -> list[Path]:
    """The match logs of the result in `out`, in a fixed order."""
    return sorted((out / RUNS).glob("*/*/matches.jsonl"))


def log_bytes(path: Path) -> bytes:
    """A match log's bytes: a regular file (a FIFO named like a log would hang the command) of at most
    `MAX_JSON_BYTES`; anything else is one `BenchmarkError` naming it."""
    if not path.is_file():
        raise BenchmarkError(f"{path} is not a regular file" + ("" if path.exists() else " (it does not exist)"))
    if path.stat().st_size > MAX_JSON_BYTES:
        raise BenchmarkError(f"{path} is larger than {MAX_JSON_BYTES // 2**20} MB: not a log this reads")
    try:
        return path.read_bytes()
    except OSError as error:
        raise BenchmarkError(f"{path}: unreadable ({error.strerror})") from None


def _log_digest(path: Path) -> str:
    """SHA-256 of a match log with its records in match order (they are written as matches end, so the
    order depends on the workers): the same matches give the same digest, whatever `--jobs` was."""
    header, *records = log_bytes(path).split(b"\n")

    def match_number(line: bytes) -> tuple[float, bytes]:
        try:
            return float(json.loads(line)["match"]), line
        except (ValueError, KeyError, TypeError, OverflowError):  # not a record: verify says which line
            return math.inf, line

    return hashlib.sha256(b"\n".join([header, *sorted(records, key=match_number)])).hexdigest()


def logs_digest(out: Path) -> str:
    """SHA-256 over the match logs under `out`: each log's path (relative to `out`) and content digest."""
    lines = [f"{path.relative_to(out).as_posix()} {_log_digest(path)}\n" for path in log_files(out)]
    return hashlib.sha256("".join(lines).encode()).hexdigest()
