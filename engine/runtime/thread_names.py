"""The OS-level name of an engine thread: what ``/proc/<pid>/task/<tid>/comm``, ``top -H`` and ``ps -L`` show.

Why: Python 3.11 names a thread only inside Python, so the kernel shows every thread of a slot
process as "python". Finding where a slot's CPU goes at parallelism 2 reads each thread's CPU from
``/proc`` (``tests/bench/slot_threads.py``; ``docs/performance.md``, "Frames into the join per quarter
batch") and has to tell the source's task from the join's, a TCP reader from a control reader; without
kernel names each profile took a ``py-spy dump`` of every slot process per run. The engine's own
long-lived threads name themselves when they start (a task thread ``task <vertex>#<index>``, the TCP
readers, the control reader, the timer and snapshot threads). The kernel keeps 15 bytes of a name.

Best effort: where ``prctl`` is not to be had (not Linux), nothing happens.
"""
from __future__ import annotations

import ctypes
import sys
import threading

_PR_SET_NAME = 15
OS_NAME_BYTES = 15
"""What the kernel keeps of a thread's name (16 with the terminating NUL)."""


def _prctl():
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(None, use_errno=True).prctl  # libc's, already loaded in the process
    except (OSError, AttributeError):
        return None


_prctl_call = _prctl()


def name_os_thread(name: str | None = None) -> None:
    """Give the calling thread ``name`` (default: its Python name) at the OS level, cut to 15 bytes."""
    if _prctl_call is None:
        return
    text = threading.current_thread().name if name is None else name
    _prctl_call(_PR_SET_NAME, ctypes.c_char_p(text.encode("utf-8", errors="replace")[:OS_NAME_BYTES]), 0, 0, 0)
