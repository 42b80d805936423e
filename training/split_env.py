"""The trainer's matches split over worker processes, as one SB3 `VecEnv` (the `env_workers` key).

A `SelfPlayVecEnv` steps every match in one process, so while PPO collects a rollout one core plays
every opponent move and the others idle. `SplitVecEnv` gives each of `workers` processes a
`SelfPlayVecEnv` of a contiguous range of the slots (`first_index`), steps them in parallel and
concatenates what they return (observations, rewards, dones, infos, and the masks, which come back
with each step so `action_masks()` costs no round trip).

It is the same env as one process of all slots, transition for transition: a slot is a pure function
of (seed, its index), and the one thing that mixes slots, the batched forward pass of a snapshot
opponent, is done here in the main process over the same rows in the same order. A worker's reset or
step yields its snapshot requests tagged by (opponent-play call, round) (`vec_env.Moves`); the main
process answers, at each point, the smallest tag asked, merged over every worker that asked it, which
is the batch one process would have evaluated (torch's kernels give a row different last bits in a
batch of another size, so the batches must match, not only the rows). The opponent then samples from
its row with its own generator in its worker.

The pool's snapshots are sent to the workers with the next command after they change (the trainer
adds snapshots to its pool at rollout starts); the state (`get_state`/`set_state`) has the JSON form
of one env of all slots, so a checkpoint resumes with any worker count. Workers start with `spawn`
(safe with torch), use one torch thread, ignore Ctrl-C (the main process ends them), and a worker's
exception or death is raised in the main process as one `EnvWorkerError`.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import signal
import traceback
from multiprocessing.connection import Connection, wait
from typing import Any

import numpy as np

from city_envs.training.pool import OpponentPool
from city_envs.training.vec_env import (
    Moves,
    Request,
    SelfPlayVecEnv,
    SlotsVecEnv,
    check_env_state,
    snapshot_logits,
)

JOIN_SECONDS = 10.0  # a worker asked to close that has not ended by then is terminated


class EnvWorkerError(RuntimeError):
    """A worker process failed (its traceback is in the message) or died."""


def slot_ranges(n_envs: int, workers: int) -> list[range]:
    """`n_envs` slots in `workers` contiguous ranges whose sizes differ by at most one."""
    if isinstance(workers, bool) or not isinstance(workers, int) or not 1 <= workers <= n_envs:
        raise ValueError(f"env workers must be an integer from 1 to n_envs ({n_envs}), not {workers!r}")
    size, extra = divmod(n_envs, workers)
    starts = [w * size + min(w, extra) for w in range(workers + 1)]
    return [range(starts[w], starts[w + 1]) for w in range(workers)]


def _context() -> Any:
    """`forkserver` where there is one (a clean server process that has imported this module once, so a
    worker starts in a fraction of a second), else `spawn`: both are safe with torch, unlike `fork`."""
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload([__name__])
    return context


def _drive(conn: Connection, moves: Moves) -> Any:
    """Run a worker's reset or step, asking the main process for the logits of each request."""
    try:
        tag, request = next(moves)
        while True:
            conn.send(("ask", (tag, request)))
            tag, request = moves.send(conn.recv())
    except StopIteration as stop:
        return stop.value


def _serve(conn: Connection, settings: dict, pool: OpponentPool) -> None:
    """A worker's loop: build its env, then answer commands until `close` or the main process is gone."""
    import torch

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    torch.set_num_threads(1)
    try:
        env = SelfPlayVecEnv(pool=pool, **settings)
        conn.send(("done", None))
        while True:
            command, argument, snapshots = conn.recv()
            if snapshots is not None:
                pool.snapshots = list(snapshots)
            if command == "close":
                conn.send(("done", None))
                return
            if command == "reset":
                result = _drive(conn, env.reset_moves())
            elif command == "step":
                result = _drive(conn, env.step_moves(argument))
            elif command == "set_state":
                result = env.set_state(argument)
            elif command == "get_state":
                conn.send(("done", env.get_state()))
                continue
            else:
                raise ValueError(f"unknown env worker command {command!r}")
            conn.send(("done", (result, env.action_masks())))
    except EOFError:  # the main process closed the pipe: nothing to report to
        return
    except Exception:
        conn.send(("error", traceback.format_exc()))


class SplitVecEnv(SlotsVecEnv):
    """`SelfPlayVecEnv(game, players, n_envs, seed, pool, ...)` stepped by `workers` processes."""

    render_mode = None

    def __init__(
        self,
        game: str,
        players: int,
        n_envs: int,
        seed: int,
        pool: OpponentPool,
        options: dict | None = None,
        reward: str = "win",
        score_scale: float = 0.0,
        privileged: bool = False,
        workers: int = 2,
    ) -> None:
        settings: dict[str, Any] = {
            "game": game,
            "players": players,
            "seed": seed,
            "options": options or {},
            "reward": reward,
            "score_scale": score_scale,
            "privileged": privileged,
        }
        self.ranges = slot_ranges(n_envs, workers)
        probe = SelfPlayVecEnv(n_envs=1, pool=pool, **settings)  # the arguments' errors, here and at once
        super().__init__(n_envs, probe.observation_space, probe.action_space)
        self.game_name, self.players, self.privileged, self.pool = probe.game_name, probe.players, privileged, pool
        self._sent = list(pool.snapshots)
        self._masks = np.zeros((n_envs, probe.games[0].num_actions), dtype=np.bool_)
        self._actions: np.ndarray | None = None
        self._broken = False
        self._closed = False
        context = _context()
        self.connections: list[Connection] = []
        self.processes: list[Any] = []
        for w, slots in enumerate(self.ranges):
            parent, child = context.Pipe()
            process = context.Process(
                target=_serve,
                args=(child, {**settings, "n_envs": len(slots), "first_index": slots.start}, pool),
                name=f"city-envs env worker {w}",
                daemon=True,
            )
            process.start()
            child.close()
            self.connections.append(parent)
            self.processes.append(process)
        try:
            for w in range(workers):
                self._receive(w)
        except BaseException:
            self.close()
            raise

    # ----- talking to the workers ---------------------------------------------------------------
    def _where(self, w: int) -> str:
        slots = self.ranges[w]
        return f"env worker {w} (slots {slots.start}-{slots.stop - 1}, pid {self.processes[w].pid})"

    def _died(self, w: int) -> EnvWorkerError:
        self._broken = True
        self.processes[w].join(JOIN_SECONDS)
        return EnvWorkerError(f"{self._where(w)} died (exit code {self.processes[w].exitcode})")

    def _send(self, w: int, message: Any) -> None:
        try:
            self.connections[w].send(message)
        except OSError:  # a broken pipe: the worker is gone
            raise self._died(w) from None

    def _receive(self, w: int) -> tuple[str, Any]:
        """Worker `w`'s next message; its error or death as an `EnvWorkerError`."""
        conn = self.connections[w]
        wait([conn, self.processes[w].sentinel])
        try:
            kind, payload = conn.recv()
        except (EOFError, OSError):
            raise self._died(w) from None
        if kind == "error":
            self._broken = True
            last = payload.strip().splitlines()[-1]
            raise EnvWorkerError(f"{self._where(w)} failed: {last}\n\nthe worker's traceback:\n{payload}")
        return kind, payload

    def _command(self, command: str, arguments: list[Any]) -> list[Any]:
        """Send `command` to every worker and answer their snapshot requests (smallest tag first,
        merged over the workers that asked it) until each is done; returns their results."""
        if self._closed or self._broken:
            raise EnvWorkerError("the env's workers are closed" if self._closed else "an env worker failed before")
        snapshots = list(self.pool.snapshots)
        update, self._sent = (snapshots if snapshots != self._sent else None), snapshots
        results: list[Any] = [None] * len(self.connections)
        asks: dict[int, tuple[tuple[int, int], Request]] = {}
        listening = list(range(len(self.connections)))
        try:
            for w, argument in enumerate(arguments):
                self._send(w, (command, argument, update))
            while True:
                unheard = set(listening)
                while unheard:  # read whichever worker is ready, so none blocks writing a large message
                    handles = {h: w for w in unheard for h in (self.connections[w], self.processes[w].sentinel)}
                    for w in sorted({handles[h] for h in wait(list(handles))}):
                        kind, payload = self._receive(w)
                        unheard.discard(w)
                        if kind == "ask":
                            asks[w] = payload
                        else:
                            results[w] = payload
                if not asks:
                    return results
                tag = min(t for t, _ in asks.values())
                listening = [w for w in sorted(asks) if asks[w][0] == tag]
                parts = [asks.pop(w)[1] for w in listening]
                merged: Request = {}
                for snapshot in dict.fromkeys(s for part in parts for s in part):
                    rows = [part[snapshot] for part in parts if snapshot in part]
                    merged[snapshot] = (np.concatenate([r[0] for r in rows]), np.concatenate([r[1] for r in rows]))
                logits = snapshot_logits(merged)
                offsets = dict.fromkeys(logits, 0)
                for w, part in zip(listening, parts, strict=True):
                    answer = {}
                    for snapshot, (observations, _) in part.items():
                        start = offsets[snapshot]
                        answer[snapshot], offsets[snapshot] = (
                            logits[snapshot][start : start + len(observations)],
                            start + len(observations),
                        )
                    self._send(w, answer)
        except BaseException:  # a worker may wait on an answer that never comes: the env is done for
            self._broken = True
            raise

    def _observations_and_masks(self, results: list[Any]) -> np.ndarray:
        self._masks = np.concatenate([masks for _, masks in results])
        return np.concatenate([observations for observations, _ in results])

    # ----- the VecEnv API ---------------------------------------------------------------------
    def reset(self) -> np.ndarray:
        return self._observations_and_masks(self._command("reset", [None] * len(self.ranges)))

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions)

    def step_wait(self):
        actions, self._actions = self._actions, None
        if actions is None or len(actions) != self.num_envs:
            raise ValueError(f"step needs one action per env ({self.num_envs})")
        results = self._command("step", [actions[slots.start : slots.stop] for slots in self.ranges])
        self._masks = np.concatenate([masks for _, masks in results])
        steps = [step for step, _ in results]
        return (
            np.concatenate([s[0] for s in steps]),
            np.concatenate([s[1] for s in steps]),
            np.concatenate([s[2] for s in steps]),
            [info for s in steps for info in s[3]],
        )

    def action_masks(self) -> np.ndarray:
        return self._masks.copy()

    def close(self) -> None:
        """End the workers: asked to close, terminated if they do not (or cannot) within `JOIN_SECONDS`."""
        if self._closed:
            return
        self._closed = True
        for conn, process in zip(self.connections, self.processes, strict=True):
            if not self._broken and process.is_alive():
                with contextlib.suppress(OSError):  # it died meanwhile: terminated below
                    conn.send(("close", None, None))
        for conn, process in zip(self.connections, self.processes, strict=True):
            process.join(0 if self._broken else JOIN_SECONDS)
            if process.is_alive():
                process.terminate()
                process.join(JOIN_SECONDS)
            conn.close()

    # ----- checkpoints ------------------------------------------------------------------------
    def get_state(self) -> dict:
        """The workers' states as one env of all slots would give it."""
        states = self._command("get_state", [None] * len(self.ranges))
        return {**states[0], "indices": list(range(self.num_envs)), "slots": [s for st in states for s in st["slots"]]}

    def set_state(self, state: dict) -> np.ndarray:
        """Restore a `get_state` of this env or of a `SelfPlayVecEnv` of the same slots (any split)."""
        check_env_state(state, self.game_name, self.players, list(range(self.num_envs)), self.privileged)
        parts = [
            {**state, "indices": state["indices"][r.start : r.stop], "slots": state["slots"][r.start : r.stop]}
            for r in self.ranges
        ]
        return self._observations_and_masks(self._command("set_state", parts))
