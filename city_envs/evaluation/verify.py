"""Recompute a benchmark result from its replayed matches: `city-envs benchmark verify DIR`.

Every match of every line-up is replayed from its seed and its recorded moves on the Python engine;
the replay decides the winners, scores and margins, and from them every figure of `results.json` is
computed again (line-up win rates and intervals, failures, task scores, the IQM and its bootstrap
intervals) and compared with what the file says. The match logs' SHA-256 is checked too. `compare`,
`tables` and `--resume` use a result only once it verifies.

What replaying cannot confirm is refused: a failure blamed on a line-up's agent or on nobody (it
would turn a candidate's loss into a win or into no match at all). A candidate's own failure is a loss
for it and is accepted once its moves replay.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from city_envs.core.game import Game
from city_envs.core.progress import Stage, stage
from city_envs.core.registry import make_game
from city_envs.core.settings import loads_json
from city_envs.evaluation.arena import _policy_identity, _same_run, policy_digests, run_settings
from city_envs.evaluation.provenance import engine_provenance
from city_envs.evaluation.results import (
    RESULTS,
    RUNS,
    SALT_FILE,
    BenchmarkError,
    load_results,
    log_bytes,
    log_files,
    logs_digest,
)
from city_envs.evaluation.salt import lineup_seed, read_salt, salt_digest
from city_envs.evaluation.scheduling import match_seeds, schedule
from city_envs.evaluation.scoring import add_aggregate, candidate_matches, lineup_summary
from city_envs.evaluation.suite import Suite, SuiteError, load_suite, parse_task

SHOWN = 20  # differences printed in full; the rest are counted


def _replay(game_name: str, num_players: int, record: dict, candidate: int) -> list[str]:
    """What differs between `record` and the replay of its moves from its seed (nothing: [])."""
    history = record.get("history")
    if history is None and record.get("failed") and record.get("culprit") == candidate:
        history = []  # stopped by the supervisor (time limit, process died): the candidate's loss in any case
    if not isinstance(history, list) or not all(isinstance(a, int) and not isinstance(a, bool) for a in history):
        return ["its moves are missing"]
    game: Game = make_game(game_name, num_players, seed=record["seed"], engine="python")
    decisions = [0] * num_players
    for index, action in enumerate(history):
        if game.is_over():
            return [f"move {index} comes after the end of the match"]
        seat = game.current_player()
        try:
            game.apply(action)
        except ValueError as error:
            return [f"move {index} ({action}) is illegal: {error}"]
        decisions[seat] += 1
    if record["failed"]:
        if game.is_over() and record.get("history") is not None:
            return ["it is recorded as failed, but its moves end the match"]
        if record.get("culprit") != candidate:
            who = "nobody" if record.get("culprit") is None else f"seat {record.get('culprit')} (a line-up's agent)"
            return [f"it is recorded as a failure of {who}, which replaying cannot confirm"]
        others = [s for s in range(num_players) if s != candidate]
        expected = {
            "scores": [0.0] * num_players,
            "win_share": [0.0 if s == candidate else 1.0 / len(others) for s in range(num_players)],
            "winners": others,
        }
    else:
        if not game.is_over():
            return [f"its {len(history)} moves do not end the match"]
        won = game.winners()
        expected = {
            "scores": [float(x) for x in game.scores()],
            "win_share": [1.0 / len(won) if s in won else 0.0 for s in range(num_players)],
            "winners": list(won),
            "decisions": decisions,
            "truncated": bool(game.is_truncated()),
        }
    return [
        f"{key} {record.get(key)!r} (replayed: {value!r})"
        for key, value in expected.items()
        if record.get(key) != value
    ]


def read_log(path: Path, complete: bool = True) -> tuple[Any, list[dict]]:
    """A match log's header and records; `complete=False` drops a last line cut short (as `--resume`
    does). A line that is not a record raises `BenchmarkError`."""
    try:
        text = log_bytes(path).decode()
    except UnicodeDecodeError:
        raise BenchmarkError(f"{path} is not a text file") from None
    lines = text.split("\n")
    if lines[-1] and not complete:
        lines = lines[:-1]
    rows = []
    for number, line in enumerate(filter(None, lines), start=1):
        try:
            rows.append(loads_json(line, f"{path} line {number}"))  # finite numbers, bounded integers
        except ValueError as error:
            raise BenchmarkError(str(error)) from None
    if not rows or not isinstance(rows[0], dict) or "run" not in rows[0]:
        raise BenchmarkError(f"{path} has no run settings on its first line")
    records = rows[1:]
    for number, record in enumerate(records, start=2):
        if not isinstance(record, dict) or not isinstance(record.get("match"), int):
            raise BenchmarkError(f"{path} line {number} is not a match record")
    return rows[0]["run"], records


def _seats(kinds: object, digests: dict, game_name: str, num_players: int) -> list | None:
    """Seat specs with each policy named by its content (`AgentSpec.identity`), its SHA-256 from
    `digests` (by kind: a log header's `policies`) or read from its file: the suite's frozen policies
    lie in another folder on every machine, and a log names them as its run found them."""
    if not isinstance(kinds, list) or not all(isinstance(k, str) for k in kinds):
        return None
    return [_policy_identity(k, digests, game_name, num_players) for k in kinds]


def check_records(
    game_name: str,
    num_players: int,
    lineup: Sequence[str],
    seed: int,
    records: Sequence[dict],
    digests: object = None,
) -> list[str]:
    """The differences between `records` (of a benchmark line-up: the candidate first) and their replays;
    `digests`: the policies' SHA-256 by kind as the log's header recorded them."""
    recorded = digests if isinstance(digests, dict) else {}
    expected = policy_digests(list(lineup), game_name, num_players)
    differences = []
    for record in records:
        match = record["match"]
        where = f"match {match}"
        if record.get("seed") != match_seeds(seed, match, num_players)[0]:
            differences.append(f"{where}: seed {record.get('seed')!r} is not the suite's")
            continue
        theirs = _seats(record.get("kinds"), recorded, game_name, num_players)
        if theirs != _seats(schedule(lineup, num_players, match), expected, game_name, num_players):
            differences.append(f"{where}: seats {record.get('kinds')!r} are not the schedule's")
            continue
        try:
            found = _replay(game_name, num_players, record, match % num_players)
        except (KeyError, TypeError, ValueError) as error:
            found = [f"cannot be replayed ({type(error).__name__}: {error})"]
        differences += [f"{where}: {text}" for text in found]
    return differences


def _differ(a: Any, b: Any) -> bool:
    """Whether two figures of a result differ (floats to 1e-9, for another platform's last bits)."""
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        return not math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) != len(b) or any(_differ(x, y) for x, y in zip(a, b, strict=True))
    return a != b


def result_salt(folder: Path, results: dict, salt: bytes | None = None) -> tuple[bytes | None, list[str]]:
    """The salt a result's seeds come from (`salt`, else its folder's revealed `salt.txt`; None for a
    result on the suite's public seeds), or what is wrong with it."""
    recorded = (results.get("salt") or {}).get("sha256")
    if recorded is None:
        if salt is not None:
            return None, ["salt: one was given, but this result was played on the suite's public seeds"]
        return None, []
    if salt is None:
        if not (folder / SALT_FILE).exists():
            return None, [
                f"salt: played on secret seeds, and the salt is not revealed ({SALT_FILE} in its folder or --salt-file)"
            ]
        salt = read_salt(folder / SALT_FILE)
    if salt_digest(salt) != recorded:
        return None, [f"salt: its SHA-256 is {salt_digest(salt)}, not the {recorded} recorded before the run"]
    return salt, []


def verify_result(path: str | Path, salt: bytes | None = None) -> tuple[list[str], int]:
    """(every difference between the result in `path` and its replayed matches, matches replayed).
    A salted result's seeds are derived from `salt`, or from the salt revealed in its folder.
    Raises `BenchmarkError` for a result that is unreadable or has no match logs to replay."""
    path = Path(path)
    folder = path.parent if path.name == RESULTS else path
    results = load_results(folder)
    if results.get("logs") is None:
        raise BenchmarkError(f"{folder}: a result without match logs: nothing to replay, so it cannot be verified")
    salt, differences = result_salt(folder, results, salt)
    if differences:
        return differences, 0
    try:
        suite = load_suite(results["suite"]["suite"])
    except SuiteError as error:
        return [f"suite: {error}"], 0
    if suite.describe() != results["suite"]:
        differences.append(f"suite: the result's description of {suite.name} is not the suite's")
    digest = logs_digest(folder)
    if digest != results["logs"].get("sha256") or len(log_files(folder)) != results["logs"].get("files"):
        differences.append(f"match logs: SHA-256 {digest} of {len(log_files(folder))} files, not the recorded one")
    if list(results["tasks"]) != [t.name for t in suite.tasks]:
        return [*differences, f"tasks {list(results['tasks'])} are not the suite's"], 0
    replayed = copy.deepcopy(results)
    total = sum(len(suite.lineups_for(task)) for task in suite.tasks) * suite.matches
    with stage(f"replaying {folder.name}", total, "matches") as bar:
        played = _replay_tasks(folder, suite, results, replayed, salt, differences, bar)
    if differences:
        return differences, played
    add_aggregate(replayed, results["aggregate"].get("bootstrap", {}).get("reps", 2000))
    for key, recorded, again in _figures(results, replayed):
        if _differ(recorded, again):
            differences.append(f"{key}: {recorded!r} in {RESULTS}, {again!r} replayed")
    return differences, played


def _replay_tasks(
    folder: Path, suite: Suite, results: dict, replayed: dict, salt: bytes | None, differences: list[str], bar: Stage
) -> int:
    """Replay every line-up's log of `results` into `replayed` (its figures recomputed), adding what
    differs to `differences`; returns the matches replayed."""
    spec = results["agent"]["spec"]
    played = 0
    for task in suite.tasks:
        lineups = suite.lineups_for(task)
        if list(results["tasks"][task.name]["lineups"]) != lineups:
            differences.append(
                f"{task.name}: line-ups {list(results['tasks'][task.name]['lineups'])} are not {lineups}"
            )
            continue
        for lineup in lineups:
            where = f"{task.name} against {lineup}"
            kinds = [spec] + [suite.opponent_spec(task, lineup)] * (task.players - 1)
            seed = lineup_seed(suite, lineup, salt)
            log = folder / RUNS / task.slug / lineup / "matches.jsonl"
            try:
                header, records = read_log(log)
            except BenchmarkError as error:
                differences.append(f"{where}: {error}")
                continue
            settings = run_settings(task.game, task.players, kinds, suite.matches, seed, {}, True)
            if not _same_run(header, settings):
                differences.append(f"{where}: the log's settings are not this line-up's")
                continue
            numbers = sorted(r["match"] for r in records)
            if numbers != list(range(suite.matches)):
                differences.append(
                    f"{where}: the log holds matches {_ranges(numbers)}, not 0-{suite.matches - 1} once each"
                )
                continue
            records = sorted(records, key=lambda r: r["match"])
            found = check_records(task.game, task.players, kinds, seed, records, header.get("policies"))
            differences += [f"{where}, {text}" for text in found]
            played += len(records)
            figures = candidate_matches(records, task.players)
            replayed["tasks"][task.name]["lineups"][lineup].update(
                lineup_summary(figures, task.players), **figures, seed=seed
            )
            bar.advance(len(records))
    return played


def engine_notes(results: dict) -> list[str]:
    """Notes, not differences: the engines that played a result, when another engine replays it (the
    Python engine; both play the same matches), and engine code that differs from this installation's."""
    recorded = results.get("engine")
    if not isinstance(recorded, dict):
        return []
    notes = []
    played = sorted({engine for engine in recorded.get("tasks", {}).values() if engine != "python"})
    if played:
        notes.append(f"played on the {', '.join(played)} engine, replayed on the python engine (the same matches)")
    try:
        here = engine_provenance([parse_task(name) for name in results["tasks"]])
    except SuiteError:
        return notes
    if recorded.get("version") != here["version"]:
        notes.append(f"played with city-envs {recorded.get('version')}, replayed with {here['version']}")
    for name in ("native", "python"):
        theirs, ours = (recorded.get(name) or {}).get("sha256"), (here[name] or {}).get("sha256")
        if theirs != ours:
            notes.append(f"the {name} engine's code here (SHA-256 {ours}) is not the run's ({theirs})")
    return notes


def _figures(results: dict, replayed: dict):
    """(name, recorded, recomputed) for every figure of a result."""
    names = ("seed", "win_share", "margin", "failures", "win_rate", "ci95", "mean_margin", "score")
    for task, data in results["tasks"].items():
        for lineup, figures in data["lineups"].items():
            for name in names:
                yield (
                    f"{task} against {lineup}: {name}",
                    figures.get(name),
                    replayed["tasks"][task]["lineups"][lineup][name],
                )
        for name in ("score", "ci95"):
            yield f"{task}: task {name}", data[name], replayed["tasks"][task][name]
    for name in ("iqm", "ci95"):
        yield f"aggregate {name}", results["aggregate"][name], replayed["aggregate"][name]


def _ranges(numbers: Sequence[int]) -> str:
    shown = ", ".join(map(str, numbers[:8]))
    return f"{shown}{', ...' if len(numbers) > 8 else ''} ({len(numbers)} records)" if numbers else "none"


def require_verified(path: str | Path) -> dict:
    """The result in `path` once it verifies; otherwise a `BenchmarkError` in one line."""
    path = Path(path)
    folder = path.parent if path.name == RESULTS else path
    differences, _ = verify_result(folder)
    if differences:
        raise BenchmarkError(
            f"{folder}: does not verify ({len(differences)} differences; first: {differences[0]}); "
            f"see city-envs benchmark verify {folder}"
        )
    return load_results(folder)


def format_verdict(folder: str, differences: Sequence[str], played: int) -> str:
    """What `verify` prints of one result."""
    if not differences:
        return f"{folder}: verified ({played} matches replayed, every figure recomputed)"
    lines = [f"{folder}: {len(differences)} differences"] + [f"  {d}" for d in differences[:SHOWN]]
    if len(differences) > SHOWN:
        lines.append(f"  ... and {len(differences) - SHOWN} more")
    return "\n".join(lines)
