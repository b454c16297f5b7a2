"""What a benchmark starts (the whole studio, a driver) dies with the benchmark, however the benchmark ends.

A benchmark starts the studio in a session of its own (``start_new_session``), so that the studio's
dozen processes are one process group it stops in order (SIGINT, what Ctrl-C does, then SIGKILL), and
its ``finally`` does so. Two endings skipped that ``finally`` and left the studio running, its Spark JVMs
and ports held, for every later benchmark to measure beside:

- ``timeout 300 make bench-runs`` sends SIGTERM (a closed terminal, SIGHUP), which ends Python at once:
  :func:`stop_on_signals` turns both into ``SystemExit``, so the ``finally`` runs as on Ctrl-C;
- SIGKILL (``timeout -s KILL``, the OOM killer) runs nothing in the benchmark: :func:`start_dying_with_us`
  asks the kernel to send the child SIGINT when the benchmark dies (Linux's ``PR_SET_PDEATHSIG``), and
  the studio's supervisor stops everything it started, as on Ctrl-C.
"""
from __future__ import annotations

import ctypes
import os
import signal
import subprocess

PR_SET_PDEATHSIG = 1
"""``prctl`` option: the signal this process gets when the thread that started it ends (``<linux/prctl.h>``)."""


def stop_on_signals(*signums: int) -> None:
    """Make SIGTERM and SIGHUP (or ``signums``) end this process as an exception does: ``finally`` blocks run and
    stop what it started. Call it in the main thread, before starting anything."""

    def leave(signum, _frame):
        raise SystemExit(128 + signum)

    for signum in signums or (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, leave)


def _dies_with(parent: int, signum: int):
    libc = ctypes.CDLL(None, use_errno=True)

    def arrange() -> None:  # in the child, between fork and exec
        # a benchmark started in the background (``cmd &``, nohup, CI) hands its children SIGINT and SIGHUP
        # ignored, and a program keeps an ignored signal ignored: the studio would never hear the SIGINT
        for inherited in (signal.SIGINT, signal.SIGHUP, signal.SIGTERM):
            signal.signal(inherited, signal.SIG_DFL)
        if libc.prctl(PR_SET_PDEATHSIG, signum, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG) failed")
        if os.getppid() != parent:  # the benchmark died before the line above: no signal would come
            os.kill(os.getpid(), signum)

    return arrange


def start_dying_with_us(command: list[str], signum: int = signal.SIGINT, **popen) -> subprocess.Popen:
    """``command`` in a session of its own that gets ``signum`` when this process dies, even by SIGKILL. Start it
    from the thread that lives as long as the benchmark (the main thread): the kernel watches the thread."""
    # preexec_fn is safe before the benchmark starts its own threads: only prctl and getppid run there
    return subprocess.Popen(command, start_new_session=True,
                            preexec_fn=_dies_with(os.getpid(), signum), **popen)  # noqa: PLW1509


def stop_group(process: subprocess.Popen, grace_s: float = 90) -> None:
    """Stop the process group ``process`` leads: SIGINT (what Ctrl-C does: the studio stops its drivers too), SIGKILL
    to the group after ``grace_s``."""
    if process.poll() is not None:
        return
    try:
        os.killpg(process.pid, signal.SIGINT)
        process.wait(grace_s)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    except ProcessLookupError:
        pass
