"""Run a command as a person at a terminal sees it: stdout and stderr on one pseudo-terminal."""

from __future__ import annotations

import os
import re
import select
import subprocess
import sys
import time

ESCAPE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
# what could make rich draw on a non-terminal or stay silent on a terminal, whatever the runner set
TERMINAL_OVERRIDES = ("FORCE_COLOR", "NO_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE", "COLUMNS", "LINES")


def command(*argv: str) -> list[str]:
    return [sys.executable, "-m", "city_envs.cli", *argv]


def environment() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in TERMINAL_OVERRIDES}
    return {**env, "TERM": "xterm-256color"}


def run_on_terminal(argv: list[str], timeout: float = 300) -> tuple[int, str]:
    """The exit code and everything the command wrote to the terminal, escape codes and all."""
    leader, follower = os.openpty()
    process = subprocess.Popen(argv, stdin=follower, stdout=follower, stderr=follower, env=environment())
    os.close(follower)
    written = b""
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            if select.select([leader], [], [], 0.5)[0]:
                try:
                    chunk = os.read(leader, 65536)
                except OSError:  # the command ended and closed the terminal (EIO on Linux)
                    break
                if not chunk:
                    break
                written += chunk
            elif process.poll() is not None:
                break
        return process.wait(timeout=max(1.0, deadline - time.monotonic())), written.decode(errors="replace")
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        os.close(leader)


def screen_lines(written: str) -> list[str]:
    """Each distinct line or bar redraw, without escape codes, in the order first seen."""
    parts = re.split(r"[\r\n]+", ESCAPE.sub("", written))
    return list(dict.fromkeys(part.strip() for part in parts if part.strip()))
