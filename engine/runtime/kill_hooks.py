"""Test hooks that kill a subtask at a named point, as a crash would.

The in-process cluster passes a ``kill_hook(point, task, info) -> bool`` down to every
subtask. The runtime calls it at the points below; when it returns True the subtask raises
:class:`SimulatedFailure` right there, in the thread that reached the point, and the job
goes through the same failure and restart path as with a real error. With no hook the
cost is one ``is None`` check per point (points are per batch or per checkpoint, never per
record).

Points
    ``process``            before a subtask processes an input batch (``info["records_in"]``)
    ``source_poll``        before a source subtask polls its next batch
    ``barrier``            a barrier arrived; ``info["aligning"]`` tells whether the subtask
                           is in the middle of aligning (other channels still outstanding)
    ``snapshot``           after the barrier went downstream, before the synchronous snapshot
    ``async_upload``       in the snapshot thread, before the state file is written
    ``before_ack``         in the snapshot thread, after the upload, before the acknowledgement
    ``before_commit``      a checkpoint completed, before the operators commit (2PC sinks
                           have pre-committed but not committed)
    ``after_commit``       after the operators committed
"""
from __future__ import annotations

from typing import Any, Callable

KillHook = Callable[[str, tuple, dict], bool]

KILL_POINTS = ("process", "source_poll", "barrier", "snapshot", "async_upload", "before_ack",
               "before_commit", "after_commit")


class SimulatedFailure(RuntimeError):
    """The failure a kill hook injects."""


def maybe_kill(hook: KillHook | None, point: str, task: tuple, info: dict[str, Any] | None = None) -> None:
    """Raise :class:`SimulatedFailure` if ``hook`` says so for this point."""
    if hook is not None and hook(point, task, info or {}):
        raise SimulatedFailure(f"subtask {task[0]}#{task[1]} killed by test hook at '{point}'")
