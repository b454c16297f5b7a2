"""The events a JobMaster emitted, kept in order and bounded however long the job runs.

A job checkpointing every 100 ms emits about ten checkpoint events a second, and a
metrics event every second, for as long as it runs: kept in a list, they were the
driver's memory growing without end. :class:`EventLog` keeps every event except those two
frequent kinds for good (status changes, regions, failures, a savepoint's checkpoint
events, ``finished``: a few per restart), and of the frequent ones the newest
``recent``. Iterating gives them in the order they were appended.

>>> log = EventLog(recent=2)
>>> for number in range(5):
...     log.append({"type": "metrics", "n": number})
>>> log.append({"type": "status", "status": "FINISHED"})
>>> [event.get("n", event.get("status")) for event in log], log.dropped
([3, 4, 'FINISHED'], 3)

Threading model: ``append`` and iteration may come from different threads; each takes the
log's lock for a moment (iteration copies first).
"""
from __future__ import annotations

import heapq
import threading
from collections import deque
from typing import Iterator

RECENT_EVENTS = 4096
"""Checkpoint and metrics events kept (the newest)."""


def is_frequent(event: dict) -> bool:
    """Metrics events, and a plain checkpoint's lifecycle events (a savepoint's are kept)."""
    kind = event.get("type")
    return kind == "metrics" or (kind == "checkpoint" and (event.get("kind") or "checkpoint") == "checkpoint")


class EventLog:
    """Every event but the frequent kinds, and the newest ``recent`` of those, in order (see the module doc)."""

    def __init__(self, recent: int = RECENT_EVENTS):
        self._lock = threading.Lock()
        self._seq = 0  # guarded by: self._lock
        self._kept: list[tuple[int, dict]] = []  # guarded by: self._lock
        self._recent: deque[tuple[int, dict]] = deque(maxlen=recent)  # guarded by: self._lock
        self.dropped = 0
        """Frequent events no longer kept."""

    def append(self, event: dict) -> None:
        with self._lock:
            self._seq += 1
            if not is_frequent(event):
                self._kept.append((self._seq, event))
                return
            if len(self._recent) == self._recent.maxlen:
                self.dropped += 1
            self._recent.append((self._seq, event))

    def __iter__(self) -> Iterator[dict]:
        with self._lock:
            kept, recent = list(self._kept), list(self._recent)
        return (event for _, event in heapq.merge(kept, recent, key=lambda entry: entry[0]))

    def __len__(self) -> int:
        with self._lock:
            return len(self._kept) + len(self._recent)
