"""Seat-rotated matches between agents: win rates with confidence intervals, OpenSkill ratings, reports.

Generic over every game (`city_envs.make_game`) and every agent kind (`city_envs.agents.registry.make_agent`).
Match i is seeded from (seed, i) alone and its line-up is fixed by i, so any match can be replayed
on its own and a run's results do not depend on how many worker processes played it.

Scheduling: with one agent per seat, the line-up rotates one seat per match, so each entry sits in
every seat equally often (exactly when the number of games is a multiple of the number of seats).
With more agents than seats, every combination of seats' worth of agents is played in turn, each
rotated through the seats the same way.

    >>> from city_envs.training.arena import evaluate
    >>> evaluate("citadels", 4, ["heuristic", "random", "random", "random"], games=8, seed=0)
"""

from __future__ import annotations

import contextlib
import csv
import json
import math
import multiprocessing as mp
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from itertools import combinations
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any

import numpy as np

from city_envs import make_game
from city_envs.agents.registry import make_agent
from city_envs.core.infoset import InfoSet

Z_95 = 1.959963984540054


def wilson_interval(wins: float, n: float, z: float = Z_95) -> tuple[float, float]:
    """Wilson score interval of a success rate (95% by default); (0, 1) when n is 0.

    `wins` may be fractional (shared wins of tied matches).
    """
    if n <= 0:
        return 0.0, 1.0
    p = wins / n
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    low = 0.0 if wins <= 0 else max(0.0, centre - half)
    high = 1.0 if wins >= n else min(1.0, centre + half)
    return low, high


def seat_lineup(agent_kinds: Sequence[str], match: int) -> list[str]:
    """Agent kind per seat in match `match`: the line-up rotated one seat further each match."""
    n = len(agent_kinds)
    shift = match % n
    return [agent_kinds[(seat - shift) % n] for seat in range(n)]


def schedule(agents: Sequence[str], num_players: int, match: int) -> list[str]:
    """The line-up of match `match`: rotations of each combination of `num_players` agents in turn."""
    if len(agents) < num_players:
        raise ValueError(f"{len(agents)} agents for a {num_players}-player game: list one per seat, or more")
    groups = list(combinations(agents, num_players))
    group = groups[(match // num_players) % len(groups)]
    return seat_lineup(group, match)


def match_seeds(seed: int, match: int, num_players: int) -> tuple[int, list[int]]:
    """(game seed, one seed per seat) derived from (seed, match index) only."""
    ss = np.random.SeedSequence([seed, match])
    game_ss, *seat_ss = ss.spawn(num_players + 1)
    as_int = lambda s: int(s.generate_state(1, dtype=np.uint64)[0] >> np.uint64(1))  # noqa: E731
    return as_int(game_ss), [as_int(s) for s in seat_ss]


DEFAULT_MATCH_TIMEOUT = 600.0  # seconds of wall clock for a whole match; ISMCTS at 50 iterations needs ~60


def _new_record(kinds: Sequence[str], game_seed: int, match: int) -> dict:
    return {"match": match, "seed": game_seed, "kinds": list(kinds), "failed": False, "culprit": None, "reason": ""}


def _fail(record: dict, culprit: int | None, reason: str, decisions: list[int]) -> dict:
    """Mark `record` failed. A failure with a culprit seat is a loss for that seat and a shared win for
    the others (as `illegal_action="lose"` scores it in the env); one without (the game itself, or the
    harness) counts for nobody."""
    n = len(record["kinds"])
    others = [seat for seat in range(n) if seat != culprit]
    who = "match" if culprit is None else f"seat {culprit} ({record['kinds'][culprit]})"
    record.update(failed=True, culprit=culprit, reason=f"{who}: {reason}", decisions=list(decisions),
                  scores=[0.0] * n, truncated=False,
                  win_share=[0.0 if culprit is None or seat == culprit else 1.0 / len(others) for seat in range(n)],
                  winners=[] if culprit is None else others)
    return record


def _is_legal(game: Any, action: Any) -> bool:
    mask = game.legal_actions()
    return isinstance(action, (int, np.integer)) and not isinstance(action, bool) and 0 <= action < len(mask) \
        and bool(mask[action])


def play_match(
    game_name: str, num_players: int, kinds: Sequence[str], seed: int, match: int,
    on_turn: Callable[[int], None] | None = None, **options: Any,
) -> dict:
    """One match. A failure is recorded, not raised, with its culprit: the seat whose agent raised
    (any exception, SystemExit and KeyboardInterrupt included), or whose action the rules refused.
    `on_turn(seat)` is told which seat's agent is about to run (-1: none), so that a supervisor that
    stops a hung match knows whom to blame."""
    game_seed, agent_seeds = match_seeds(seed, match, num_players)
    record = _new_record(kinds, game_seed, match)
    decisions = [0] * num_players
    history: list[int] = []  # the match's actions, so that a viewer can replay it
    culprit: int | None = None

    def turn(seat: int | None) -> None:
        nonlocal culprit
        culprit = seat
        if on_turn is not None:
            on_turn(-1 if seat is None else seat)

    try:
        game = make_game(game_name, num_players, seed=game_seed, **options)
        agents = []
        for seat, (kind, agent_seed) in enumerate(zip(kinds, agent_seeds, strict=True)):
            turn(seat)
            agents.append(make_agent(kind, game_name, agent_seed))
        turn(None)
        handles = [InfoSet(game, seat) for seat in range(num_players)]
        while not game.is_over():
            seat = game.current_player()
            turn(seat)
            action = agents[seat].act(handles[seat])
            turn(None if _is_legal(game, action) else seat)  # a refused action is the agent's fault
            game.apply(action)
            history.append(int(action))
            decisions[seat] += 1
        turn(None)
        won = game.winners()
        record.update(
            scores=[float(x) for x in game.scores()],
            win_share=[1.0 / len(won) if seat in won else 0.0 for seat in range(num_players)],
            winners=list(won),
            decisions=decisions,
            truncated=bool(game.is_truncated()),
            history=history,
        )
    except BaseException as error:  # noqa: BLE001 - whatever an agent raises ends its match, not the run
        record["history"] = history
        return _fail(record, culprit, f"{type(error).__name__}: {error}", decisions)
    finally:
        if on_turn is not None:
            on_turn(-1)
    return record


def _job_record(job: tuple) -> dict:
    """The fresh record of a job's match (for failures the supervisor records itself)."""
    game_name, num_players, agents, seed, match, options = job
    return _new_record(schedule(agents, num_players, match), match_seeds(seed, match, num_players)[0], match)


def _play_indexed(job: tuple, on_turn: Callable[[int], None] | None = None) -> dict:
    game_name, num_players, agents, seed, match, options = job
    return play_match(game_name, num_players, schedule(agents, num_players, match), seed, match, on_turn=on_turn,
                      **options)


BACKENDS = ("process", "ray")


def run_matches(
    game_name: str, num_players: int, agents: Sequence[str], games: int, seed: int, jobs: int = 1,
    progress: Any = None, backend: str = "process", address: str | None = None,
    match_timeout: float | None = DEFAULT_MATCH_TIMEOUT, skip: Iterable[int] = (),
    on_record: Callable[[dict], None] | None = None, **options: Any,
) -> list[dict]:
    """The records of every match but those in `skip`, in match order. The records are the same
    whatever runs them: `jobs` worker processes (the process backend always plays in child processes,
    so that no agent can stop the run), or Ray tasks (`backend="ray"`, on the cluster at `address`, or
    on a local Ray instance of `jobs` CPUs when no address is given). `on_record` gets each record as
    its match ends (in the order they end). A match that runs longer than `match_timeout` seconds
    (None or 0: no limit; process backend only) is stopped and recorded as a failure of the seat whose
    agent was thinking."""
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}; allowed: {', '.join(BACKENDS)}")
    if address is not None and backend != "ray":
        raise ValueError("an address is for the ray backend (--backend ray)")
    _check_timeout(match_timeout)
    done = set(skip)
    work = [(game_name, num_players, list(agents), seed, match, options) for match in range(games)
            if match not in done]
    records: list[dict] = []

    def emit(record: dict) -> None:
        records.append(record)
        if on_record is not None:
            on_record(record)
        if progress is not None:
            progress()

    if backend == "ray":
        _run_on_ray(work, jobs, address, emit)
    else:
        _run_in_workers(work, max(1, jobs), match_timeout or None, emit)
    return sorted(records, key=lambda r: r["match"])


def _check_timeout(match_timeout: float | None) -> None:
    if match_timeout is not None and not match_timeout >= 0:
        raise ValueError(f"match_timeout must be a number of seconds >= 0 (0: no limit), not {match_timeout!r}")


# ----- worker processes ---------------------------------------------------------------------------
def _die_with_parent(parent: int) -> None:
    """Make this worker end when the process that started it ends, even by SIGKILL: the kernel's
    parent-death signal on Linux, and a watchdog thread that polls the parent's id elsewhere."""
    with contextlib.suppress(OSError, AttributeError):
        import ctypes

        ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG (a fork server's child: when it ends)

    def alive() -> bool:  # a forked worker's parent is the caller; a fork server's child asks after it by id
        if os.getppid() == parent:
            return True
        try:
            os.kill(parent, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True

    if not alive():  # the caller died before the signal was armed
        os._exit(1)

    def watch() -> None:
        while alive():
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, daemon=True).start()


def _worker_main(conn: Connection, seat: Any, parent: int) -> None:
    """Play the jobs that come down `conn` until told to stop (None), sending back each record."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C; a KeyboardInterrupt here is an agent's
    _die_with_parent(parent)

    def on_turn(who: int) -> None:
        seat.value = who

    while True:
        try:
            job = conn.recv()
        except (EOFError, OSError):
            return
        if job is None:
            return
        conn.send(_play_indexed(job, on_turn))


class _Worker:
    """One worker process, its pipe, and the seat whose agent it is running (shared memory)."""

    def __init__(self, ctx: Any) -> None:
        self.conn, child_end = ctx.Pipe()
        self.seat = ctx.RawValue("b", -1)
        self.process = ctx.Process(target=_worker_main, args=(child_end, self.seat, os.getpid()), daemon=True)
        self.process.start()
        child_end.close()
        self.job: tuple | None = None
        self.deadline = math.inf

    def stop(self, now: bool = False) -> None:
        if not now and self.process.is_alive():
            with contextlib.suppress(OSError):
                self.conn.send(None)
            self.process.join(timeout=2)
        if self.process.is_alive():
            self.process.kill()
        self.process.join()
        self.conn.close()


def worker_start_method() -> str | None:
    """"fork" (workers inherit the caller's modules), or a fork server once torch is loaded."""
    methods = mp.get_all_start_methods()
    if "torch" in sys.modules and "forkserver" in methods:
        return "forkserver"
    return "fork" if "fork" in methods else None


def _run_in_workers(work: list[tuple], jobs: int, timeout: float | None, emit: Callable[[dict], None]) -> None:
    """Play `work` in `jobs` supervised child processes: a match that outlives `timeout`, or whose
    process dies (an agent calling os._exit, a crash in native code), is recorded as failed and its
    process replaced. Workers are forked where the platform allows it, so they inherit the caller's
    modules, except once torch is loaded: its thread pools do not survive a fork (a forked child can
    hang on their locks), so such a caller's workers come from a fork server. They end with the
    caller, however it ends."""
    ctx = mp.get_context(worker_start_method())
    pending = list(reversed(work))
    workers = [_Worker(ctx) for _ in range(min(jobs, len(work)))]
    clean = False
    try:
        while pending or any(w.job is not None for w in workers):
            for i, w in enumerate(workers):
                if w.job is None and pending:
                    if not w.process.is_alive():  # ended while idle (killed from outside): replace it
                        w.stop(now=True)
                        workers[i] = w = _Worker(ctx)
                    w.job = pending.pop()
                    w.deadline = time.monotonic() + timeout if timeout else math.inf
                    w.conn.send(w.job)
            busy = [w for w in workers if w.job is not None]
            wait_for = max(0.0, min(w.deadline for w in busy) - time.monotonic())
            wait([w.conn for w in busy] + [w.process.sentinel for w in busy],
                 timeout=None if wait_for == math.inf else wait_for)
            for i, w in enumerate(workers):
                if w.job is None:
                    continue
                record = None
                try:
                    if w.conn.poll():
                        record = w.conn.recv()
                except (EOFError, OSError):
                    pass
                if record is not None:
                    w.job = None
                    emit(record)
                    continue
                if w.process.is_alive() and time.monotonic() < w.deadline:
                    continue
                culprit = w.seat.value if w.seat.value >= 0 else None
                if w.process.is_alive():
                    reason = f"MatchTimeout: no result within {timeout:g} s"
                else:
                    reason = f"WorkerDied: the match's process ended with exit code {w.process.exitcode}"
                failed = _fail(_job_record(w.job), culprit, reason, [0] * len(_job_record(w.job)["kinds"]))
                w.stop(now=True)
                workers[i] = _Worker(ctx)
                emit(failed)
        clean = True
    finally:
        for w in workers:
            w.stop(now=not clean)


def _run_on_ray(work: list[tuple], jobs: int, address: str | None, emit: Callable[[dict], None]) -> None:
    """Each match a Ray task, emitted as it ends. Every node needs city-envs installed."""
    if not work:
        return
    try:
        import ray
    except ImportError:
        raise ValueError("the ray backend needs Ray: pip install 'city-envs[cluster]'") from None
    if not ray.is_initialized():
        if address is None:
            ray.init(num_cpus=max(1, jobs), include_dashboard=False, log_to_driver=False)
        else:
            ray.init(address=address, log_to_driver=False)
    play = ray.remote(_play_indexed)
    pending = [play.remote(job) for job in work]
    while pending:
        done, pending = ray.wait(pending, num_returns=1)
        for ref in done:
            emit(ray.get(ref))


def counts(record: dict) -> bool:
    """Whether a match counts in win rates, ratings and pairwise results: played to the end, or
    failed by a culprit (a loss for it)."""
    return not record["failed"] or record.get("culprit") is not None


def rate(records: list[dict], agents: Sequence[str]) -> dict[str, dict]:
    """OpenSkill Plackett-Luce ratings from the matches in order (a failed match ranks its culprit last
    and the other seats tied first; one without a culprit is skipped).

    Each seat is a one-player team ranked by win share then score. An agent holding several seats
    of one match is rated in each and takes the mean of the posteriors.
    """
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings = {name: model.rating(name=name) for name in dict.fromkeys(agents)}
    for record in records:
        if not counts(record):
            continue
        kinds = record["kinds"]
        keys = [(-share, -score) for share, score in zip(record["win_share"], record["scores"], strict=True)]
        order = sorted(set(keys))
        ranks = [order.index(key) for key in keys]
        teams = [[model.rating(mu=ratings[k].mu, sigma=ratings[k].sigma, name=k)] for k in kinds]
        updated = model.rate(teams, ranks=ranks)
        for name in set(kinds):
            seats = [team[0] for team, k in zip(updated, kinds, strict=True) if k == name]
            ratings[name] = model.rating(mu=sum(r.mu for r in seats) / len(seats),
                                         sigma=sum(r.sigma for r in seats) / len(seats), name=name)
    return {name: {"mu": r.mu, "sigma": r.sigma, "ordinal": r.ordinal()} for name, r in ratings.items()}


def pairwise(records: list[dict], agents: Sequence[str]) -> dict[str, dict[str, float | None]]:
    """Share of the shared matches in which the row agent finished ahead of the column agent."""
    names = list(dict.fromkeys(agents))
    ahead = {a: dict.fromkeys(names, 0.0) for a in names}
    met = {a: dict.fromkeys(names, 0) for a in names}
    for record in records:
        if not counts(record):
            continue
        keys = list(zip(record["win_share"], record["scores"], strict=True))
        for i, a in enumerate(record["kinds"]):
            for j, b in enumerate(record["kinds"]):
                if i != j and a != b:
                    met[a][b] += 1
                    ahead[a][b] += 1.0 if keys[i] > keys[j] else 0.5 if keys[i] == keys[j] else 0.0
    return {a: {b: (ahead[a][b] / met[a][b] if met[a][b] else None) for b in names} for a in names}


class MatchLog:
    """The run's match records on disk as they end: an append-only JSON-lines file whose first line
    is the run's settings, then one record per line, each flushed and fsynced before the run goes on,
    so that a run stopped at any moment (even by SIGKILL) loses at most the matches being played."""

    def __init__(self, path: str | Path, settings: dict, resume: bool = False) -> None:
        self.path = Path(path)
        self.settings = json.loads(json.dumps(settings))
        self.records: dict[int, dict] = {}
        if resume and self.path.exists():
            self._load()
        else:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with open(self.path, "w") as handle:
                handle.write(json.dumps({"run": self.settings}) + "\n")
                handle.flush()
                os.fsync(handle.fileno())

    def _load(self) -> None:
        """Read the finished records; an unfinished last line (a write cut short) is dropped."""
        data = self.path.read_bytes()
        lines = data.split(b"\n")
        complete = lines[:-1]  # what follows the last newline was cut short, or is empty
        try:
            header = json.loads(complete[0])["run"] if complete else None
        except (ValueError, KeyError, TypeError):
            header = None
        if header != self.settings:
            raise ValueError(f"--resume: {self.path} is not a log of this run (it holds {header!r}, "
                             f"this run is {self.settings!r})")
        for number, line in enumerate(complete[1:], start=2):
            try:
                record = json.loads(line)
                match = record["match"]
            except (ValueError, KeyError, TypeError):
                raise ValueError(f"--resume: {self.path} line {number} is not a match record") from None
            self.records.setdefault(match, record)
        if lines[-1]:
            with open(self.path, "r+b") as handle:
                handle.truncate(len(data) - len(lines[-1]))

    def append(self, record: dict) -> None:
        with open(self.path, "a") as handle:
            handle.write(json.dumps(record) + "\n")
            handle.flush()
            os.fsync(handle.fileno())
        self.records.setdefault(record["match"], record)


def check_lineup(game_name: str, num_players: int, agent_kinds: Sequence[str], **options: Any) -> None:
    """Fail now, with the reason, on a game, option or agent that could never play: such a mistake is
    the caller's, not a match's."""
    make_game(game_name, num_players, seed=0, **options)
    for kind in dict.fromkeys(agent_kinds):
        make_agent(kind, game_name, 0)


def evaluate(
    game_name: str, num_players: int, agent_kinds: list[str], games: int, seed: int, jobs: int = 1,
    progress: Any = None, backend: str = "process", address: str | None = None,
    match_timeout: float | None = DEFAULT_MATCH_TIMEOUT, log: str | Path | None = None, resume: bool = False,
    **options: Any,
) -> dict:
    """Play `games` scheduled matches of the agents and aggregate them by agent.

    With k seats of one agent in a match, the match counts k appearances of it, so `win_rate` is per
    seat and comparable with 1/num_players. A match won jointly by several seats gives each 1/k of a
    win. A failed match (an agent raising, refusing the rules or running out of time) is a loss for the
    agent that failed and a shared win for the other seats; it counts in that agent's `failures` and
    in the run's `failures` list, and nowhere in scores or lengths. A failure that is no agent's (the
    game raising on a legal move) counts only in the list.

    `log`: a JSON-lines file that receives every record as its match ends (`MatchLog`); with `resume`,
    the records already in it are kept and only the other matches are played, which gives the
    results of an uninterrupted run.
    """
    if games < 1:
        raise ValueError("games must be >= 1")
    if len(agent_kinds) < num_players:
        raise ValueError(f"{len(agent_kinds)} agent kinds for a {num_players}-player game")
    if resume and log is None:
        raise ValueError("resume needs the log of the run to finish (--out)")
    _check_timeout(match_timeout)
    check_lineup(game_name, num_players, agent_kinds, **options)
    settings = {"game": game_name, "num_players": num_players, "lineup": list(agent_kinds), "games": games,
                "seed": seed, "options": dict(options)}
    match_log = MatchLog(log, settings, resume) if log is not None else None
    finished = {m: r for m, r in match_log.records.items() if m < games} if match_log else {}
    for _ in finished:
        if progress is not None:
            progress()
    played_now = run_matches(game_name, num_players, agent_kinds, games, seed, jobs=jobs, progress=progress,
                             backend=backend, address=address, match_timeout=match_timeout, skip=finished,
                             on_record=match_log.append if match_log else None, **options)
    records = sorted([*finished.values(), *played_now], key=lambda r: r["match"])
    return summarize(records, game_name, num_players, agent_kinds, games, seed, options)


def summarize(records: list[dict], game_name: str, num_players: int, agent_kinds: Sequence[str], games: int,
              seed: int, options: dict) -> dict:
    """The results of a run from its match records (see `evaluate`)."""
    names = list(dict.fromkeys(agent_kinds))
    acc = {k: {"appearances": 0, "played": 0, "wins": 0.0, "score": 0.0, "decisions": 0, "truncations": 0,
               "failures": 0} for k in names}
    seat_counts = {k: [0] * num_players for k in names}
    played = [r for r in records if not r["failed"]]
    for record in filter(counts, records):
        if record["failed"]:
            acc[record["kinds"][record["culprit"]]]["failures"] += 1
        for seat, kind in enumerate(record["kinds"]):
            a = acc[kind]
            a["appearances"] += 1
            a["wins"] += record["win_share"][seat]
            seat_counts[kind][seat] += 1
            if not record["failed"]:
                a["played"] += 1
                a["score"] += record["scores"][seat]
                a["decisions"] += record["decisions"][seat]
                a["truncations"] += record["truncated"]
    per_kind = {}
    for kind, a in acc.items():
        n, m = a["appearances"], a["played"]
        low, high = wilson_interval(a["wins"], n)
        per_kind[kind] = {
            "appearances": n,
            "wins": a["wins"],
            "win_rate": a["wins"] / n if n else 0.0,
            "ci_low": low,
            "ci_high": high,
            "failures": a["failures"],
            "mean_score": a["score"] / m if m else 0.0,
            "mean_decisions": a["decisions"] / m if m else 0.0,
            "truncations": a["truncations"],
        }
    return {
        "game": game_name,
        "num_players": num_players,
        "lineup": list(agent_kinds),
        "games": games,
        "seed": seed,
        "options": dict(options),
        "agents": per_kind,
        "ratings": rate(records, agent_kinds),
        "win_rate": {k: v["win_rate"] for k, v in per_kind.items()},
        "win_rate_ci95": {k: [v["ci_low"], v["ci_high"]] for k, v in per_kind.items()},
        "mean_score": {k: v["mean_score"] for k, v in per_kind.items()},
        "mean_length": float(np.mean([sum(r["decisions"]) for r in played])) if played else 0.0,
        "truncated": sum(r["truncated"] for r in played),
        "failures": [{"match": r["match"], "seed": r["seed"], "kinds": r["kinds"], "culprit": r["culprit"],
                      "reason": r["reason"]} for r in records if r["failed"]],
        "pairwise": pairwise(records, agent_kinds),
        "seat_counts": seat_counts,
        "matches": records,
    }


def format_results(results: dict) -> str:
    """A small Markdown table of `evaluate`'s results."""
    lines = [
        f"{results['game']} {results['num_players']}p, {results['games']} games, seed {results['seed']}",
        "",
        "| agent | rating (mu ± sigma) | win rate | failures | 95% CI | mean score | mean decisions |",
        "|---|---|---|---|---|---|---|",
    ]
    for kind, a in results["agents"].items():
        rating = results["ratings"][kind]
        lines.append(
            f"| {kind} | {rating['mu']:.1f} ± {rating['sigma']:.1f} | {a['win_rate']:.3f} | {a['failures']} "
            f"| {a['ci_low']:.3f}-{a['ci_high']:.3f} | {a['mean_score']:.1f} | {a['mean_decisions']:.1f} |"
        )
    lines.append(f"\ntruncated matches: {results['truncated']}; failed matches: {len(results['failures'])} "
                 "(each a loss for the agent that failed)")
    return "\n".join(lines)


def write_reports(results: dict, out_dir: str | Path) -> list[Path]:
    """results.json, matches.csv (one row per match, with its actions, so that `city-envs serve` can
    replay it), report.md and two PNG plots (ratings, pairwise win rates)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    summary = {k: v for k, v in results.items() if k != "matches"}
    (out / "results.json").write_text(json.dumps(summary, indent=2))
    with open(out / "matches.csv", "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["match", "seed", "seats", "scores", "winners", "length", "truncated", "failed", "reason",
                         "actions"])
        for r in results["matches"]:
            writer.writerow([r["match"], r["seed"], " ".join(r["kinds"]), " ".join(f"{x:g}" for x in r["scores"]),
                             " ".join(map(str, r["winners"])), sum(r["decisions"]), r["truncated"], r["failed"],
                             r["reason"], " ".join(map(str, r.get("history", ())))])
    report = [f"# {results['game']}, {results['num_players']} players", "", format_results(results), ""]
    if results["failures"]:
        report += ["## Failed matches", "", "| match | seed | seats | reason |", "|---|---|---|---|"]
        report += [f"| {f['match']} | {f['seed']} | {', '.join(f['kinds'])} | {f['reason']} |"
                   for f in results["failures"]]
    report += _match_links(results)
    (out / "report.md").write_text("\n".join(report) + "\n")
    paths = [out / "results.json", out / "matches.csv", out / "report.md"]
    paths += _plots(results, out)
    return paths


VIEWER = "http://127.0.0.1:8000"  # where `city-envs serve` listens by default


def _match_links(results: dict) -> list[str]:
    """Every match with a link that opens it in the web viewer started on this folder."""
    lines = ["## Matches", "",
             f"Watch any match: `city-envs serve <this folder>` (the `web` extra), then follow its link ({VIEWER}).",
             "", "| match | seats | winners | decisions | replay |", "|---|---|---|---|---|"]
    for r in results["matches"]:
        winners = ", ".join(f"seat {w}" for w in r["winners"]) if not r["failed"] else "failed"
        lines.append(f"| {r['match']} | {', '.join(r['kinds'])} | {winners} | {sum(r['decisions'])} "
                     f"| [watch]({VIEWER}/replay?src=0&match={r['match']}) |")
    return lines + [""]


def _plots(results: dict, out: Path) -> list[Path]:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    names = list(results["ratings"])
    fig = Figure(figsize=(6, 3.5), dpi=100)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    mus = [results["ratings"][k]["mu"] for k in names]
    sigmas = [results["ratings"][k]["sigma"] for k in names]
    ax.errorbar(range(len(names)), mus, yerr=sigmas, fmt="o", capsize=6)
    ax.set_xticks(range(len(names)), names)
    ax.set_ylabel("OpenSkill mu ± sigma")
    ax.set_title(f"{results['game']} {results['num_players']}p, {results['games']} games")
    fig.tight_layout()
    fig.savefig(out / "ratings.png")

    fig = Figure(figsize=(5, 4), dpi=100)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    grid = np.array([[np.nan if results["pairwise"][a][b] is None else results["pairwise"][a][b] for b in names]
                     for a in names], dtype=float)
    image = ax.imshow(grid, vmin=0, vmax=1, cmap="RdYlGn")
    ax.set_xticks(range(len(names)), names)
    ax.set_yticks(range(len(names)), names)
    for i in range(len(names)):
        for j in range(len(names)):
            if not np.isnan(grid[i, j]):
                ax.text(j, i, f"{grid[i, j]:.2f}", ha="center", va="center", fontsize=9)
    ax.set_title("row finishes ahead of column")
    fig.colorbar(image, ax=ax)
    fig.tight_layout()
    fig.savefig(out / "pairwise.png")
    return [out / "ratings.png", out / "pairwise.png"]
