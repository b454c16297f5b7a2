"""Visible latency of an exactly-once sink: how long until what arrived is committed, readable outside.

A two-phase-commit sink writes into a transaction that nobody outside can read until the
checkpoint covering it completes and the sink commits it. A reader of the output therefore
sees every record at least that late, whatever the latency markers say about the way *to*
the sink. :class:`VisibleLatency` measures it per sink subtask, two ways:

- ``visible_latency``: every record, from its arrival at the sink to the commit of its
  transaction, ``{"p50_ms", "p99_ms", "max_ms", "records", "commits"}``. Percentiles are
  weighed by records over the last ``RECENT_COMMITS`` commits; ``records`` and ``commits``
  count everything committed since the subtask started.
- ``source_visible_latency``: every latency marker that reached the sink, from its source's
  emission to the commit of the transaction a record arriving with it would have been in --
  the end-to-end latency a reader of the output sees, the same shape as the markers'
  ``latency`` (``engine.runtime.latency_stats``: ``{"p50_ms", "p99_ms", "max_ms", "markers",
  "sources"}``). Only when the run sends latency markers.

Cost: one clock read per batch (not per record), and arrivals in the same millisecond share
one entry; an epoch keeps at most ``MAX_ENTRIES`` entries (when full, the slots double in width
and neighbours merge: the resolution halves, the memory does not grow with the checkpoint
interval). Percentiles are taken when the task reports its metrics, about once a second.

What arrived goes to the current *epoch*; the snapshot of checkpoint n closes it (the sink's
pre-commit), and the commit of n -- or of a later checkpoint, when n was aborted -- makes the
epochs up to n visible, exactly as the sink's pending transactions. A marker counts although
no record arrived with it: a record arriving then would have waited for that commit.

>>> clock = iter([1000.0, 1300.0]).__next__
>>> visible = VisibleLatency(clock_ms=clock)
>>> visible.arrived(3)                      # at 1000 ms
>>> visible.marker_reached("gen#0", 990.0)  # a marker its source emitted at 990 ms
>>> visible.pre_committed(1)
>>> visible.committed(1)                    # at 1300 ms
>>> visible.figures()["visible_latency"]
{'p50_ms': 300.0, 'p99_ms': 300.0, 'max_ms': 300.0, 'records': 3, 'commits': 1}
>>> visible.figures()["source_visible_latency"]["p50_ms"]
310.0

Threading model: the sink subtask's mailbox thread.
"""
from __future__ import annotations

import time
from collections import deque
from typing import Callable

from engine.runtime.latency_stats import LatencyStats

RECENT_COMMITS = 8
"""Commits the records' percentiles cover: recent enough to follow a change, more than one transaction."""
MAX_ENTRIES = 256
"""Arrival entries one epoch keeps before neighbours are merged."""


def _wall_clock_ms() -> float:
    return time.time() * 1000.0


def weighted_percentile(ordered: list[tuple[float, int]], percent: float) -> float:
    """The ``percent``-th percentile of ``(value, weight)`` pairs sorted by value (nearest rank).

    >>> weighted_percentile([(1.0, 1), (5.0, 98), (9.0, 1)], 50), weighted_percentile([(1.0, 1), (9.0, 1)], 99)
    (5.0, 9.0)
    """
    total = sum(weight for _, weight in ordered)
    rank = max(1, -(-total * percent // 100))  # ceil, at least the first
    seen = 0
    for value, weight in ordered:
        seen += weight
        if seen >= rank:
            return value
    return ordered[-1][0]


class _Epoch:
    """What arrived between two pre-commits: records per time slot, and ``(source, emitted ms)`` of markers.

    ``arrivals`` holds ``[slot, sum of arrival ms × records, records]`` per slot of ``width`` ms
    since the first arrival; when there are more than ``MAX_ENTRIES``, the width doubles and
    neighbouring slots merge, so every slot spans the same time and the figures are off by at
    most one slot's width."""

    __slots__ = ("arrivals", "markers", "_start_ms", "_width_ms")

    def __init__(self):
        self.arrivals: list[list] = []
        self.markers: list[tuple[str, float]] = []
        self._start_ms = 0.0
        self._width_ms = 1.0

    def arrived(self, now_ms: float, records: int) -> None:
        arrivals = self.arrivals
        if not arrivals:
            self._start_ms = now_ms
        slot = int((now_ms - self._start_ms) // self._width_ms)
        if arrivals and slot <= arrivals[-1][0]:  # the same slot (or a clock stepped back)
            last = arrivals[-1]
            last[1] += now_ms * records
            last[2] += records
            return
        arrivals.append([slot, now_ms * records, records])
        if len(arrivals) > MAX_ENTRIES:
            self._width_ms *= 2
            merged: list[list] = []
            for slot, weighed, count in arrivals:
                if merged and merged[-1][0] == slot // 2:
                    merged[-1][1] += weighed
                    merged[-1][2] += count
                else:
                    merged.append([slot // 2, weighed, count])
            self.arrivals = merged

    def moments(self):
        """``(arrival ms, records)`` per slot: the slot's records at their mean arrival."""
        return ((weighed / count, count) for _, weighed, count in self.arrivals)

    def __bool__(self) -> bool:
        return bool(self.arrivals or self.markers)


class VisibleLatency:
    """One sink subtask's visible latency (see the module)."""

    __slots__ = ("_clock_ms", "_open", "_closed", "_recent", "_records", "_commits", "_markers")

    def __init__(self, clock_ms: Callable[[], float] = _wall_clock_ms):
        self._clock_ms = clock_ms
        self._open = _Epoch()
        self._closed: list[tuple[int, _Epoch]] = []  # (checkpoint id, epoch), pre-committed, not committed yet
        self._recent: deque = deque(maxlen=RECENT_COMMITS)  # per commit: [(waited ms, records)]
        self._records = 0
        self._commits = 0
        self._markers = LatencyStats()

    def arrived(self, records: int) -> None:
        """A batch of ``records`` arrived at the sink now."""
        self._open.arrived(self._clock_ms(), records)

    def marker_reached(self, source: str, marked_ms: float) -> None:
        """A latency marker ``source`` emitted at ``marked_ms`` reached the sink now."""
        self._open.markers.append((source, marked_ms))

    def pre_committed(self, checkpoint_id: int) -> None:
        """The snapshot of ``checkpoint_id`` closed the open transaction: what arrived waits for its commit."""
        if self._open:
            self._closed.append((checkpoint_id, self._open))
            self._open = _Epoch()

    def committed(self, checkpoint_id: int) -> None:
        """The transactions up to ``checkpoint_id`` were committed now: what they hold is visible."""
        ready = [epoch for epoch_id, epoch in self._closed if epoch_id <= checkpoint_id]
        if not ready:
            return
        self._closed = [(epoch_id, epoch) for epoch_id, epoch in self._closed if epoch_id > checkpoint_id]
        now = self._clock_ms()
        waited = [(max(0.0, now - arrival), records) for epoch in ready for arrival, records in epoch.moments()]
        if waited:
            self._recent.append(waited)
            self._records += sum(records for _, records in waited)
            self._commits += 1
        for epoch in ready:
            for source, marked_ms in epoch.markers:
                self._markers.record(source, now - marked_ms, hop_ms=None)

    def figures(self) -> dict:
        """``visible_latency`` once records were committed, ``source_visible_latency`` once markers were."""
        figures: dict = {}
        if self._recent:
            ordered = sorted(pair for commit in self._recent for pair in commit)
            figures["visible_latency"] = {
                "p50_ms": round(weighted_percentile(ordered, 50), 2), "p99_ms": round(weighted_percentile(ordered, 99), 2),
                "max_ms": round(ordered[-1][0], 2), "records": self._records, "commits": self._commits}
        markers = self._markers.figures()
        if markers is not None:
            figures["source_visible_latency"] = markers
        return figures
