"""What latency markers measured at one operator: source-to-here latency and the last hop's.

Every operator a :class:`~engine.runtime.io.events.LatencyMarker` reaches records the
marker's age (``now - marked_ms``) under the source subtask that emitted it, and the head
operator of a task that read it from a channel also records the hop (``now -
forwarded_ms``: the time it spent in that one channel's queue, the network included). A
slow operator makes the markers wait in front of it, so the hop *into* it is the one that
grows: that is how the figures name the slow place.

Each source subtask keeps a window of its latest ``HISTORY`` samples (Flink's
``metrics.latency.history-size``, 128 by default); the percentiles are taken over the
windows when the task reports its metrics (about once a second), never per marker::

    {"p50_ms", "p99_ms", "max_ms", "markers", "sources": {"gen#0": {"p50_ms", "p99_ms", "markers"}}}

``markers`` counts every marker recorded since the task started, not only the window's.

>>> stats = LatencyStats()
>>> for age in (10.0, 20.0, 30.0):
...     stats.record("gen#0", age, hop_ms=None)
>>> figures = stats.figures()
>>> figures["p50_ms"], figures["max_ms"], figures["markers"], figures["sources"]["gen#0"]["markers"]
(20.0, 30.0, 3, 3)
>>> stats.hop_figures() is None
True

Threading model: the subtask's mailbox thread records and reports.
"""
from __future__ import annotations

import math
from collections import deque

HISTORY = 128
"""Samples kept per source subtask (and for the hop)."""


def percentile(ordered: list[float], percent: float) -> float:
    """The ``percent``-th percentile of a sorted, non-empty list (nearest rank).

    >>> percentile([1.0, 2.0, 3.0, 4.0], 50), percentile([1.0, 2.0, 3.0, 4.0], 99)
    (2.0, 4.0)
    """
    rank = max(0, min(len(ordered) - 1, math.ceil(percent / 100.0 * len(ordered)) - 1))
    return ordered[rank]


class LatencyStats:
    """One operator's latency samples by source subtask, and its hop samples."""

    __slots__ = ("_by_source", "_counts", "_hops", "_hop_count")

    def __init__(self):
        self._by_source: dict[str, deque] = {}
        self._counts: dict[str, int] = {}
        self._hops: deque = deque(maxlen=HISTORY)
        self._hop_count = 0

    def record(self, source: str, age_ms: float, hop_ms: float | None) -> None:
        """One marker of ``source`` reached the operator ``age_ms`` after it was emitted."""
        window = self._by_source.get(source)
        if window is None:
            window = self._by_source[source] = deque(maxlen=HISTORY)
            self._counts[source] = 0
        window.append(max(0.0, age_ms))
        self._counts[source] += 1
        if hop_ms is not None:
            self._hops.append(max(0.0, hop_ms))
            self._hop_count += 1

    def figures(self) -> dict | None:
        """Percentiles over every source's window (see the module doc); None before the first marker."""
        if not self._by_source:
            return None
        pooled: list[float] = []
        sources = {}
        for source, window in sorted(self._by_source.items()):
            ordered = sorted(window)
            pooled.extend(ordered)
            sources[source] = {"p50_ms": round(percentile(ordered, 50), 2), "p99_ms": round(percentile(ordered, 99), 2),
                               "markers": self._counts[source]}
        pooled.sort()
        return {"p50_ms": round(percentile(pooled, 50), 2), "p99_ms": round(percentile(pooled, 99), 2),
                "max_ms": round(pooled[-1], 2), "markers": sum(self._counts.values()), "sources": sources}

    def hop_figures(self) -> dict | None:
        """``{"p50_ms", "p99_ms", "markers"}`` of the hop into this operator; None when no marker
        reached it over a channel (a chained operator, a source's)."""
        if not self._hops:
            return None
        ordered = sorted(self._hops)
        return {"p50_ms": round(percentile(ordered, 50), 2), "p99_ms": round(percentile(ordered, 99), 2),
                "markers": self._hop_count}
