"""Timers: processing-time callbacks delivered as mails, and event-time timer queues.

Processing time (:class:`ProcessingTimeService`)
    A subtask never sleeps and no timer thread touches its state. ``schedule(delay, action)``
    hands the deadline to one scheduler thread shared by the process; when it is due, the
    scheduler puts ``action`` into the subtask's mailbox as a mail, so it runs in the
    mailbox thread between two batches (seed 004: "timers are mails"). Used for rate
    limited sources, idle sources polling again, and periodic metrics.

Event time (:class:`EventTimeTimers`)
    Window operators register a timer per (key, window end); a watermark fires every timer
    at or below it, in timestamp order. Timers are derived data: window operators rebuild
    them from their restored window state, so they need no snapshot of their own.
"""
from __future__ import annotations

import contextlib
import heapq
import itertools
import os
import threading
import time
from typing import Callable


def _process_cpus() -> set[int] | None:
    try:
        return set(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # no CPU affinity on this platform
        return None


_PROCESS_CPUS = _process_cpus()
"""The CPUs the process had when the engine was loaded (before any slot pinned itself)."""


class _Scheduler:
    """One daemon thread running due callbacks in deadline order. Thread-safe ``schedule``.

    The thread serves every subtask of the process, so it runs on all the process's CPUs:
    started by a subtask pinned to one CPU (``engine.cluster.cpu_pinning``) it would inherit
    that pin and keep it, and a Spark Python worker reused for a later slot on another CPU
    would run its timers on the other slot's CPU.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._wakeup = threading.Condition(self._lock)
        self._heap: list = []  # guarded by: self._lock; (deadline, sequence, callback)
        self._sequence = itertools.count()
        self._thread: threading.Thread | None = None  # guarded by: self._lock

    def schedule(self, deadline: float, callback: Callable[[], None]) -> list:
        entry = [deadline, next(self._sequence), callback]
        with self._lock:
            heapq.heappush(self._heap, entry)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="timer-scheduler", daemon=True)
                self._thread.start()
            self._wakeup.notify()
        return entry

    @staticmethod
    def cancel(entry: list) -> None:
        entry[2] = None

    def _run(self) -> None:
        if _PROCESS_CPUS:
            with contextlib.suppress(OSError):
                os.sched_setaffinity(0, _PROCESS_CPUS)
        while True:
            with self._lock:
                while True:
                    now = time.monotonic()
                    if self._heap and self._heap[0][0] <= now:
                        _, _, callback = heapq.heappop(self._heap)
                        break
                    timeout = self._heap[0][0] - now if self._heap else 60.0
                    self._wakeup.wait(timeout)
            if callback is not None:
                try:
                    callback()
                except Exception:  # a closed mailbox: the subtask is gone
                    pass


_SCHEDULER = _Scheduler()


class ProcessingTimeService:
    """Schedules actions into one subtask's mailbox. ``schedule`` may be called from any thread."""

    def __init__(self, mailbox_executor):
        self._executor = mailbox_executor
        self._entries: list[list] = []
        self._closed = False

    def schedule(self, delay_seconds: float, action: Callable[[], None], description: str = "timer"):
        """Run ``action`` in the mailbox thread after ``delay_seconds``; returns a cancel handle."""
        def deliver() -> None:
            if not self._closed:
                self._executor.execute(action, description)

        entry = _SCHEDULER.schedule(time.monotonic() + max(0.0, delay_seconds), deliver)
        self._entries = [e for e in self._entries if e[2] is not None][-64:]
        self._entries.append(entry)
        return entry

    @staticmethod
    def cancel(handle) -> None:
        _Scheduler.cancel(handle)

    def close(self) -> None:
        """Drop every pending timer (the subtask ended)."""
        self._closed = True
        for entry in self._entries:
            _Scheduler.cancel(entry)
        self._entries.clear()


class EventTimeTimers:
    """A queue of event-time timers ``(timestamp, key, namespace)``, each registered at most once."""

    def __init__(self) -> None:
        self._heap: list = []
        self._registered: set = set()

    def register(self, timestamp: int, key, namespace) -> None:
        timer = (timestamp, key, namespace)
        if timer not in self._registered:
            self._registered.add(timer)
            heapq.heappush(self._heap, (timestamp, _Ordered(key), _Ordered(namespace)))

    def fire_up_to(self, watermark: int) -> list[tuple]:
        """Remove and return the timers with timestamp <= ``watermark``, oldest first."""
        fired = []
        heap = self._heap
        while heap and heap[0][0] <= watermark:
            timestamp, key, namespace = heapq.heappop(heap)
            timer = (timestamp, key.value, namespace.value)
            self._registered.discard(timer)
            fired.append(timer)
        return fired

    def __len__(self) -> int:
        return len(self._heap)


class _Ordered:
    """Wraps keys so heap ties never compare unorderable values (dicts, mixed types)."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def __lt__(self, other: "_Ordered") -> bool:
        try:
            return self.value < other.value
        except TypeError:
            return repr(self.value) < repr(other.value)
