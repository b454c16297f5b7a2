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

from engine.runtime.thread_names import name_os_thread


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
        name_os_thread()
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


_PLAIN = frozenset({int, str})
"""Key and namespace types a timer queue keeps as plain tuples while every timer's are one of them."""
_WRAPPED = object()
"""``EventTimeTimers._key_type`` once its heap holds ``_Ordered`` wrappers."""


class EventTimeTimers:
    """A queue of event-time timers ``(timestamp, key, namespace)``, each registered at most once.

    While every timer's key is of one type and its namespace of one type, both ``int`` or ``str``
    (exactly: a ``bool`` is not an ``int`` here), the heap holds the timers' own tuples, which compare
    natively; the first other timer wraps the heap's keys and namespaces in :class:`_Ordered` (so
    ties never compare unorderable values) from then on. Why (issue #39): a session window at
    parallelism 2 holds ten to twenty times the timers it holds at parallelism 1 (its watermark lags
    the source subtask ahead by 15-60 s of event time), and two wrappers and a second tuple per timer
    made each heap and set operation miss the CPU caches: merging and firing cost 0.37 µs per event
    with the watermark not lagging and 0.62-0.68 with a 30 s lag; 0.30 and 0.38 with plain tuples
    (``docs/performance.md``, "The session window's timers at p=2"). Equal timestamps fire in
    key order, then (plain tuples) namespace order, as before for keys that compare."""

    def __init__(self) -> None:
        self._heap: list = []
        self._registered: set = set()
        self._key_type = None
        self._namespace_type = None
        """The one type of every key and namespace so far (None: no timer yet; ``_WRAPPED``: mixed)."""

    def register(self, timestamp: int, key, namespace) -> None:
        timer = (timestamp, key, namespace)
        if timer in self._registered:
            return
        self._registered.add(timer)
        if type(key) is self._key_type and type(namespace) is self._namespace_type:
            heapq.heappush(self._heap, timer)
            return
        if self._key_type is None and type(key) in _PLAIN and type(namespace) in _PLAIN:
            self._key_type, self._namespace_type = type(key), type(namespace)
            heapq.heappush(self._heap, timer)
            return
        if self._key_type is not _WRAPPED:
            self._wrap()
        heapq.heappush(self._heap, (timestamp, _Ordered(key), _Ordered(namespace)))

    def _wrap(self) -> None:
        """From now on the heap holds ``_Ordered`` keys and namespaces (a timer of another type came)."""
        self._heap = [(timestamp, _Ordered(key), _Ordered(namespace)) for timestamp, key, namespace in self._heap]
        heapq.heapify(self._heap)
        self._key_type = self._namespace_type = _WRAPPED

    def fire_up_to(self, watermark: int) -> list[tuple]:
        """Remove and return the timers with timestamp <= ``watermark``, oldest first."""
        fired = []
        heap = self._heap
        discard = self._registered.discard
        if self._key_type is not _WRAPPED:
            while heap and heap[0][0] <= watermark:
                timer = heapq.heappop(heap)
                discard(timer)
                fired.append(timer)
            return fired
        while heap and heap[0][0] <= watermark:
            timestamp, key, namespace = heapq.heappop(heap)
            timer = (timestamp, key.value, namespace.value)
            discard(timer)
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
