"""What every child process of a run does first: end with the process that started it, and use one
torch thread (the arena's match workers and the candidate's seat process alike)."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time


def die_with_parent(parent: int) -> None:
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


def one_thread() -> None:
    """One torch thread in this worker: the run's workers already fill the cores, and the policies are
    small networks whose operations gain nothing from a thread pool (more threads only contend)."""
    os.environ["OMP_NUM_THREADS"] = "1"  # read by torch when this worker first imports it
    if "torch" in sys.modules:  # imported already: by a fork server's preload, or by a forked caller
        sys.modules["torch"].set_num_threads(1)
