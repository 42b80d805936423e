"""Playing matches: one match in this process (`play_match`), or many (`run_matches`), each a `MatchJob`,
played by a `Runner` in supervised child processes or as Ray tasks, with every failure recorded
against the agent that caused it."""

from __future__ import annotations

import contextlib
import math
import multiprocessing as mp
import os
import signal
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from typing import Any

import numpy as np

from city_envs import make_game
from city_envs.agents.registry import make_agent
from city_envs.core.infoset import InfoSet
from city_envs.evaluation.child import die_with_parent, one_thread
from city_envs.evaluation.scheduling import match_seeds, schedule
from city_envs.evaluation.seat import IsolatedAgent, SeatProcess

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
    record.update(
        failed=True,
        culprit=culprit,
        reason=f"{who}: {reason}",
        decisions=list(decisions),
        scores=[0.0] * n,
        truncated=False,
        win_share=[0.0 if culprit is None or seat == culprit else 1.0 / len(others) for seat in range(n)],
        winners=[] if culprit is None else others,
    )
    return record


def _is_legal(game: Any, action: Any) -> bool:
    mask = game.legal_actions()
    return (
        isinstance(action, (int, np.integer))
        and not isinstance(action, bool)
        and 0 <= int(action) < len(mask)
        and bool(mask[action])
    )


def referee_rng(seed: int, match: int) -> np.random.Generator:
    """The referee's generator of match `match`, which samples what an isolated seat receives."""
    return np.random.default_rng(np.random.SeedSequence([seed, match], spawn_key=(REFEREE_KEY,)))


REFEREE_KEY = 1 << 20  # beyond every seat's spawn key (match_seeds spawns one per seat, and the game's)


def play_match(
    game_name: str,
    num_players: int,
    kinds: Sequence[str],
    seed: int,
    match: int,
    on_turn: Callable[[int], None] | None = None,
    isolated: Sequence[int] = (),
    seat_process: SeatProcess | None = None,
    **options: Any,
) -> dict:
    """One match. A failure is recorded, not raised, with its culprit: the seat whose agent raised
    (any exception, SystemExit and KeyboardInterrupt included), or whose action the rules refused.
    `on_turn(seat)` is told which seat's agent is about to run (-1: none), so that a supervisor that
    stops a hung match knows whom to blame. The agents of the `isolated` seats (at most one) play in
    `seat_process` (`city_envs.evaluation.seat`): they receive a match sampled from their seat's
    information, never this one."""
    if len(isolated) > 1:
        raise ValueError("at most one seat plays in its own process")
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
        agents: list[Any] = []
        for seat, (kind, agent_seed) in enumerate(zip(kinds, agent_seeds, strict=True)):
            turn(seat)
            if seat in isolated:
                assert seat_process is not None, "an isolated seat needs its process"
                seat_process.new_match(kind, game_name, agent_seed)
                agents.append(IsolatedAgent(seat_process, referee_rng(seed, match)))
            else:
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


def isolated_seat(agents: Sequence[str], num_players: int, match: int) -> int:
    """The seat of the line-up's first agent in match `match` (one agent per seat: the rotation)."""
    if len(agents) != num_players:
        raise ValueError("an isolated agent needs one agent per seat")
    return match % num_players


@dataclass(frozen=True)
class MatchJob:
    """One match to play: match `match` of the run of `agents` (seated by `schedule`) at `game_name`
    with `num_players` and the game's `options`, seeded from (`seed`, `match`); with `isolate`, the
    line-up's first agent plays in a process of its own."""

    game_name: str
    num_players: int
    agents: tuple[str, ...]
    seed: int
    match: int
    isolate: bool = False
    options: dict[str, Any] = field(default_factory=dict, hash=False)

    def lineup(self) -> list[str]:
        return schedule(list(self.agents), self.num_players, self.match)

    def fresh_record(self) -> dict:
        """The record of the match before it is played (for the failures the supervisor records itself)."""
        return _new_record(self.lineup(), match_seeds(self.seed, self.match, self.num_players)[0], self.match)

    def play(self, on_turn: Callable[[int], None] | None = None, seats: SeatProcess | None = None) -> dict:
        """Play the match here (an isolated seat in `seats`, or in a process of its own when none is given)."""
        if self.isolate and seats is None:  # a Ray task: its own process for this match
            seats = SeatProcess()
            try:
                return self.play(on_turn, seats)
            finally:
                seats.close()
        isolated = [isolated_seat(self.agents, self.num_players, self.match)] if self.isolate else []
        return play_match(
            self.game_name,
            self.num_players,
            self.lineup(),
            self.seed,
            self.match,
            on_turn=on_turn,
            isolated=isolated,
            seat_process=seats,
            **self.options,
        )


def _play_job(job: MatchJob) -> dict:
    """`job.play()` as a plain function, for Ray's remote tasks."""
    return job.play()


BACKENDS = ("process", "ray")


@dataclass(frozen=True)
class Runner:
    """How matches run, whatever they are: `jobs` supervised worker processes (`backend="process"`,
    always child processes, so that no agent can stop the run), or Ray tasks (`backend="ray"`, on the
    cluster at `address`, or on a local Ray instance of `jobs` CPUs when no address is given). A match
    that runs longer than `match_timeout` seconds (None or 0: no limit; process backend only) is
    stopped and recorded as a failure of the seat whose agent was thinking. Checked when made: a bad
    setting is a ValueError."""

    jobs: int = 1
    backend: str = "process"
    address: str | None = None
    match_timeout: float | None = DEFAULT_MATCH_TIMEOUT

    def __post_init__(self) -> None:
        if self.backend not in BACKENDS:
            raise ValueError(f"unknown backend {self.backend!r}; allowed: {', '.join(BACKENDS)}")
        if self.address is not None and self.backend != "ray":
            raise ValueError("an address is for the ray backend (--backend ray)")
        check_timeout(self.match_timeout)

    def run(self, work: list[MatchJob], emit: Callable[[dict], None]) -> None:
        """Play every job, giving `emit` each record as its match ends (in the order they end)."""
        if self.backend == "ray":
            _run_on_ray(work, self.jobs, self.address, emit)
        else:
            _run_in_workers(work, max(1, self.jobs), self.match_timeout or None, emit)


def run_matches(
    game_name: str,
    num_players: int,
    agents: Sequence[str],
    games: int,
    seed: int,
    runner: Runner | None = None,
    progress: Any = None,
    skip: Iterable[int] = (),
    on_record: Callable[[dict], None] | None = None,
    isolate: bool = False,
    **options: Any,
) -> list[dict]:
    """The records of every match but those in `skip`, in match order, played by `runner` (one worker
    process by default). The records are the same whatever runs them. `on_record` gets each record as
    its match ends (in the order they end). With `isolate`, the line-up's first agent plays in a process
    of its own that receives only a sample of the match drawn from its seat's information
    (`city_envs.evaluation.seat`)."""
    runner = runner or Runner()
    done = set(skip)
    work = [
        MatchJob(game_name, num_players, tuple(agents), seed, match, isolate, options)
        for match in range(games)
        if match not in done
    ]
    records: list[dict] = []

    def emit(record: dict) -> None:
        records.append(record)
        if on_record is not None:
            on_record(record)
        if progress is not None:
            progress()

    runner.run(work, emit)
    return sorted(records, key=lambda r: r["match"])


def check_timeout(match_timeout: float | None) -> None:
    if match_timeout is not None and not match_timeout >= 0:
        raise ValueError(f"match_timeout must be a number of seconds >= 0 (0: no limit), not {match_timeout!r}")


# ----- worker processes ---------------------------------------------------------------------------
def _worker_main(conn: Connection, seat: Any, parent: int) -> None:
    """Play the jobs that come down `conn` until told to stop (None), sending back each record."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C; a KeyboardInterrupt here is an agent's
    die_with_parent(parent)
    one_thread()

    def on_turn(who: int) -> None:
        seat.value = who

    seats = SeatProcess()  # an isolated candidate's process, kept across this worker's matches
    try:
        while True:
            try:
                job = conn.recv()
            except (EOFError, OSError):
                return
            if job is None:
                return
            conn.send(job.play(on_turn, seats))
    finally:
        seats.close()


class _Worker:
    """One worker process, its pipe, and the seat whose agent it is running (shared memory)."""

    def __init__(self, ctx: Any) -> None:
        self.conn, child_end = ctx.Pipe()
        self.seat = ctx.RawValue("b", -1)
        self.process = ctx.Process(target=_worker_main, args=(child_end, self.seat, os.getpid()), daemon=True)
        self.process.start()
        child_end.close()
        self.job: MatchJob | None = None
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


# What a fork server imports once, before it forks any worker, so that each worker inherits it: a
# policy agent's first model costs seconds of imports otherwise (torch builds its optimizer through
# torch._dynamo, which imports sympy), in every worker of every run. Only imports: the server runs
# no torch operation, so forking it is safe. A module that is not installed is skipped.
FORK_SERVER_PRELOAD = ["torch", "torch._dynamo", "stable_baselines3", "sb3_contrib", "city_envs.agents.policy_agent"]


def worker_start_method() -> str | None:
    """ "fork" (workers inherit the caller's modules), or a fork server once torch is loaded."""
    methods = mp.get_all_start_methods()
    if "torch" in sys.modules and "forkserver" in methods:
        return "forkserver"
    return "fork" if "fork" in methods else None


def _run_in_workers(work: list[MatchJob], jobs: int, timeout: float | None, emit: Callable[[dict], None]) -> None:
    """Play `work` in `jobs` supervised child processes: a match that outlives `timeout`, or whose
    process dies (an agent calling os._exit, a crash in native code), is recorded as failed and its
    process replaced. Workers are forked where the platform allows it, so they inherit the caller's
    modules, except once torch is loaded: its thread pools do not survive a fork (a forked child can
    hang on their locks), so such a caller's workers come from a fork server. They end with the
    caller, however it ends."""
    ctx = mp.get_context(worker_start_method())
    if ctx.get_start_method() == "forkserver":
        ctx.set_forkserver_preload(FORK_SERVER_PRELOAD)  # read when the server starts (once per process)
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
            wait(
                [w.conn for w in busy] + [w.process.sentinel for w in busy],
                timeout=None if wait_for == math.inf else wait_for,
            )
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
                failed = _fail(w.job.fresh_record(), culprit, reason, [0] * w.job.num_players)
                w.stop(now=True)
                workers[i] = _Worker(ctx)
                emit(failed)
        clean = True
    finally:
        for w in workers:
            w.stop(now=not clean)


def _run_on_ray(work: list[MatchJob], jobs: int, address: str | None, emit: Callable[[dict], None]) -> None:
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
    play = ray.remote(_play_job)
    pending = [play.remote(job) for job in work]
    while pending:
        done, pending = ray.wait(pending, num_returns=1)
        for ref in done:
            emit(ray.get(ref))


def check_lineup(
    game_name: str, num_players: int, agent_kinds: Sequence[str], isolate: bool = False, **options: Any
) -> None:
    """Fail now, with the reason, on a game, option or agent that could never play: such a mistake is
    the caller's, not a match's. An isolated first agent is not built here (its own process checks it)."""
    make_game(game_name, num_players, seed=0, **options)
    if isolate:
        isolated_seat(agent_kinds, num_players, 0)
    for kind in dict.fromkeys(k for k in agent_kinds if not (isolate and k == agent_kinds[0])):
        make_agent(kind, game_name, 0)
