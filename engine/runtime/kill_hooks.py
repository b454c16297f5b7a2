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
    ``mid_batch``          a two-phase-commit sink wrote the first half of a batch into its
                           open transaction, not the rest

Planned kills (:class:`KillPlan`) are the same crashes written down ahead, as data, so
that they travel to wherever the slots run (a Spark executor's Python worker) and replay
from a seed: "in the job's attempt 2, subtask ``sink#0`` dies the 3rd time it reaches
``before_commit``". A job's *attempt* counts its failovers: attempt 0 is the first
deployment, attempt n the deployment after the n-th restart. Each attempt's kills are armed
in the slots that attempt deploys; a kill that fires is recorded first (a JSON line in
``record_dir``, flushed to disk), then the subtask raises (``crash="raise"``) or its whole
process dies by SIGKILL (``crash="exit"``: nothing of it runs any more, no ``finally``, no
abort -- what the machine's crash does).
"""
from __future__ import annotations

import json
import os
import signal
import threading
from dataclasses import asdict, dataclass
from typing import Any, Callable, Iterable

KillHook = Callable[[str, tuple, dict], bool]

KILL_POINTS = ("process", "source_poll", "barrier", "snapshot", "async_upload", "before_ack",
               "before_commit", "after_commit", "mid_batch")
CRASHES = ("raise", "exit")
KILLS_RECORD = "kills.jsonl"
"""The file in a plan's ``record_dir`` where every planned kill that fired is written down."""


class SimulatedFailure(RuntimeError):
    """The failure a kill hook injects."""


def maybe_kill(hook: KillHook | None, point: str, task: tuple, info: dict[str, Any] | None = None) -> None:
    """Raise :class:`SimulatedFailure` if ``hook`` says so for this point."""
    if hook is not None and hook(point, task, info or {}):
        raise SimulatedFailure(f"subtask {task[0]}#{task[1]} killed by test hook at '{point}'")


def either(*hooks: KillHook | None) -> KillHook | None:
    """One hook asking each of ``hooks`` (None: none of them is set)."""
    present = [hook for hook in hooks if hook is not None]
    if not present:
        return None
    if len(present) == 1:
        return present[0]
    return lambda point, task, info: any(hook(point, task, info) for hook in present)


@dataclass(frozen=True)
class PlannedKill:
    """In the job's attempt ``attempt``, subtask ``task`` dies the ``occurrence``-th time it reaches ``point``.

    >>> PlannedKill(1, ("sink", 0), "before_commit", 2).describe()
    "attempt 1: sink#0 at its 2nd 'before_commit'"
    """

    attempt: int
    task: tuple[str, int]
    point: str
    occurrence: int = 1

    def __post_init__(self):
        if self.point not in KILL_POINTS:
            raise ValueError(f"unknown kill point {self.point!r}: one of {', '.join(KILL_POINTS)}")
        if self.attempt < 0 or self.occurrence < 1:
            raise ValueError(f"a planned kill needs attempt >= 0 and occurrence >= 1, not {self!r}")
        object.__setattr__(self, "task", (str(self.task[0]), int(self.task[1])))

    def describe(self) -> str:
        return f"attempt {self.attempt}: {self.task[0]}#{self.task[1]} at its {_ordinal(self.occurrence)} " \
               f"'{self.point}'"

    def to_dict(self) -> dict:
        return {**asdict(self), "task": list(self.task)}

    @classmethod
    def from_dict(cls, data: dict) -> "PlannedKill":
        return cls(int(data["attempt"]), tuple(data["task"]), str(data["point"]), int(data.get("occurrence", 1)))


@dataclass(frozen=True)
class KillPlan:
    """Kills planned ahead (see the module); plain data, so it travels in a slot's configuration."""

    kills: tuple[PlannedKill, ...] = ()
    crash: str = "raise"
    record_dir: str | None = None

    def __post_init__(self):
        if self.crash not in CRASHES:
            raise ValueError(f"crash must be one of {', '.join(CRASHES)}, not {self.crash!r}")
        object.__setattr__(self, "kills", tuple(self.kills))

    def for_attempt(self, attempt: int) -> list[dict]:
        """The kills of ``attempt``, as the data a slot arms (``planned_hook``)."""
        return [kill.to_dict() for kill in self.kills if kill.attempt == attempt]

    def recorded(self) -> list[dict]:
        """The kills that fired, in order: ``{"attempt", "task", "point", "occurrence", "info"}``."""
        return read_recorded_kills(self.record_dir) if self.record_dir else []


def read_recorded_kills(record_dir: str) -> list[dict]:
    path = os.path.join(record_dir, KILLS_RECORD)
    try:
        with open(path, encoding="utf-8") as file:
            return [json.loads(line) for line in file if line.strip()]
    except FileNotFoundError:
        return []


def planned_hook(kills: Iterable[dict], *, crash: str = "raise", record_dir: str | None = None) -> KillHook | None:
    """A kill hook firing each of ``kills`` (``PlannedKill.to_dict`` data) once, at its occurrence. Thread-safe:
    subtasks and snapshot threads of a slot reach their points concurrently."""
    armed = {}
    for data in kills:
        kill = PlannedKill.from_dict(data)
        armed[(kill.point, kill.task)] = kill
    if not armed:
        return None
    lock = threading.Lock()
    seen: dict[tuple, int] = {}

    def hook(point: str, task: tuple, info: dict) -> bool:
        key = (point, (task[0], int(task[1])))
        kill = armed.get(key)
        if kill is None:
            return False
        with lock:
            seen[key] = count = seen.get(key, 0) + 1
            if count != kill.occurrence:
                return False
        if record_dir:
            _record(record_dir, {**kill.to_dict(), "info": {k: v for k, v in info.items() if _plain(v)}})
        if crash == "exit":
            os.kill(os.getpid(), signal.SIGKILL)
        return True

    return hook


def _record(record_dir: str, entry: dict) -> None:
    os.makedirs(record_dir, exist_ok=True)
    descriptor = os.open(os.path.join(record_dir, KILLS_RECORD), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(descriptor, (json.dumps(entry) + "\n").encode())
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def _plain(value) -> bool:
    return isinstance(value, (str, int, float, bool)) or value is None


def _ordinal(number: int) -> str:
    suffix = "th" if 10 <= number % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")
    return f"{number}{suffix}"
