"""The candidate's own process: an agent that sees only its seat.

The referee (the match's worker) keeps the live match, its generator, the opponents and the record.
At each of the candidate's decisions it sends, as JSON over a pipe, a match sampled from that seat's
information (`Game.determinize(seat, referee_rng)`: hidden items and future chance resampled, no seed
and no history), and this process answers an action id. The candidate's `InfoSet` is built here around
that sample, so nothing it can reach (its arguments, the call stack, `gc`, the globals of this process)
holds the true match. Search agents keep working on the sample: its determinizations are the seat's.

`main` is the child's side (a fresh interpreter, so it inherits no object of the referee's); `SeatProcess`
the referee's.
Nothing is unpickled on either side: the messages are JSON.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
from multiprocessing.connection import Connection
from typing import Any

import numpy as np

from city_envs.core.game import SERIAL_FORMAT, Game
from city_envs.core.infoset import InfoSet
from city_envs.evaluation.child import die_with_parent, one_thread


class SeatProcessError(RuntimeError):
    """The candidate's process failed (it raised, died or answered nonsense): its seat's failure."""


def _module_files() -> dict[str, str]:
    """The files of the modules loaded here, by name (for the provenance of the candidate's package)."""
    files = {}
    for name, module in list(sys.modules.items()):
        path = getattr(module, "__file__", None)
        if isinstance(path, str):
            files[name] = path
    return files


CHILD = "import sys; from city_envs.evaluation.seat import main; main(sys.argv[1:])"


def wire_form(game: Game) -> dict:
    """`game.to_dict()` without its defensive deep copy (a third of the cost of a decision here): the
    form is serialized at once and never kept. A game with its own form (the native engine's) gives it."""
    if type(game).to_dict is not Game.to_dict:
        return game.to_dict()
    return {
        "game": game.name,
        "format": SERIAL_FORMAT,
        "state_version": game.state_version,
        "num_players": game.num_players,
        "options": dict(game.options),
        "seed": game.seed,
        "rng": game._rng_snapshot(),
        "history": list(game.history),
        "state": game._state_to_dict(),
    }


class SeatProcess:
    """The referee's handle on one candidate process, started when first needed and kept across
    matches (each match builds a fresh agent in it); a process that died is started again."""

    def __init__(self) -> None:
        self.process: subprocess.Popen | None = None
        self.conn: Connection | None = None

    def _start(self) -> Connection:
        if self.process is not None and self.process.poll() is None and self.conn is not None:
            return self.conn
        self.close()
        mine, theirs = socket.socketpair()
        self.process = subprocess.Popen(
            [sys.executable, "-c", CHILD, str(theirs.fileno()), str(os.getpid())],
            pass_fds=(theirs.fileno(),),
            stdin=subprocess.DEVNULL,
        )
        theirs.close()
        self.conn = Connection(mine.detach())
        self._ask({"path": list(sys.path), "cwd": os.getcwd()})
        return self.conn

    def _ask(self, message: dict) -> dict:
        conn = self.conn
        assert conn is not None  # started by _start
        try:
            conn.send_bytes(json.dumps(message).encode())
            reply = json.loads(conn.recv_bytes(1 << 26))
        except (EOFError, OSError, ValueError) as error:
            code = self.process.poll() if self.process is not None else None
            self.close()
            raise SeatProcessError(f"the agent's process ended (exit code {code}): {type(error).__name__}") from None
        if not isinstance(reply, dict):
            raise SeatProcessError("the agent's process answered no message")
        if "error" in reply:
            raise SeatProcessError(str(reply["error"]))
        return reply

    def new_match(self, kind: str, game_name: str, seed: int) -> None:
        """Build a fresh agent of `kind` for the next match (seeded as the arena seeds its seat)."""
        self._start()
        self._ask({"new": {"kind": kind, "game": game_name, "seed": seed}})

    def check(self, kind: str, game_name: str, num_players: int) -> dict[str, str]:
        """Build `kind` and let it check its seat of a fresh match (`prepare`); the module files loaded
        in the process after it, by name."""
        self._start()
        return self._ask({"check": {"kind": kind, "game": game_name, "players": num_players}})["modules"]

    def act(self, sample: Game, seat: int) -> int:
        """The agent's action for `seat` of the sampled match."""
        self._start()
        action = self._ask({"act": {"seat": seat, "state": wire_form(sample)}}).get("action")
        if not isinstance(action, int) or isinstance(action, bool):
            raise SeatProcessError(f"the agent's process answered {action!r}, not an action id")
        return action

    def close(self) -> None:
        if self.conn is not None:
            with contextlib.suppress(OSError):
                self.conn.close()
            self.conn = None
        if self.process is not None:
            if self.process.poll() is None:
                self.process.kill()
            self.process.wait()
            self.process = None


class IsolatedAgent:
    """Stands in the referee for a candidate that plays in its `SeatProcess`: at each decision it sends
    a sample of the match drawn from the seat's information with the referee's generator."""

    def __init__(self, process: SeatProcess, referee_rng: np.random.Generator) -> None:
        self.process = process
        self.rng = referee_rng

    def act(self, info_set: InfoSet) -> int:
        return self.process.act(info_set.determinize(self.rng), info_set.player)


# ----- the child's side ---------------------------------------------------------------------------
def _answer(message: dict, state: dict) -> dict:
    from city_envs.agents.registry import make_agent, prepare_agents
    from city_envs.core.registry import game_class, make_game

    if "path" in message:
        sys.path[:] = [str(p) for p in message["path"]]
        os.chdir(str(message["cwd"]))
        return {}
    if "new" in message:
        new = message["new"]
        state["agent"] = make_agent(str(new["kind"]), str(new["game"]), int(new["seed"]))
        return {}
    if "check" in message:
        check = message["check"]
        agent = make_agent(str(check["kind"]), str(check["game"]), 0)
        prepare_agents([agent], make_game(str(check["game"]), int(check["players"]), seed=0))
        return {"modules": _module_files()}
    act = message["act"]
    # the referee's own to_dict (a sample of the match), read on the default engine: the candidate's copy
    game = game_class(act["state"]["game"]).from_trusted_dict(act["state"])
    action = state["agent"].act(InfoSet(game, int(act["seat"])))
    if isinstance(action, np.ndarray) and action.ndim == 0 and action.dtype.kind in "iu":
        action = action.item()
    if not isinstance(action, (int, np.integer)) or isinstance(action, (bool, np.bool_)):
        return {"error": f"the agent returned {type(action).__name__} {action!r}, not an action id"}
    return {"action": int(action)}


def main(argv: list[str]) -> None:
    """Serve the referee's messages on the inherited socket until it closes."""
    fd, parent = int(argv[0]), int(argv[1])
    die_with_parent(parent)
    one_thread()
    conn = Connection(fd)
    state: dict[str, Any] = {}
    while True:
        try:
            message = json.loads(conn.recv_bytes())
        except (EOFError, OSError):
            return
        try:
            reply = _answer(message, state)
        except BaseException as error:  # noqa: BLE001 - whatever the agent raises is its seat's failure
            reply = {"error": f"{type(error).__name__}: {error}"}
        conn.send_bytes(json.dumps(reply).encode())
