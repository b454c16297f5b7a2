"""Per-vertex metrics as the studio shows them: counts, rates and time ratios.

The engine reports, about every second, per job vertex the sums over its subtasks of
``records_in``, ``records_out`` (counters since the task started) and
``busy/idle/backpressured_ms_per_second``. :class:`VertexMetricsTracker` (one per run, in
the driver) turns each report into what ``GET /api/runs/<id>/metrics`` and the WebSocket
``metrics`` event carry per vertex::

    {"records_in", "records_out", "records_in_per_second", "records_out_per_second",
     "busy_ratio", "idle_ratio", "backpressured_ratio", "operators", "parallelism"}

Rates are the counters' change since the previous report divided by the time between the
two (None for the first report); ratios are the summed milliseconds per second divided by
1000 × parallelism, so 1.0 means every subtask was busy all the time.

>>> tracker = VertexMetricsTracker({"v": {"parallelism": 2, "operators": ["gen"]}})
>>> tracker.enrich({"v": {"records_out": 100, "busy_ms_per_second": 500}}, now_s=10.0)["v"]["busy_ratio"]
0.25
>>> tracker.enrich({"v": {"records_out": 300, "busy_ms_per_second": 500}}, now_s=12.0)["v"]["records_out_per_second"]
100.0
"""
from __future__ import annotations

import time
from typing import Any

RATIOS = {"busy_ratio": "busy_ms_per_second", "idle_ratio": "idle_ms_per_second",
          "backpressured_ratio": "backpressured_ms_per_second"}


class VertexMetricsTracker:
    """Turns the engine's per-vertex sums into rates and ratios. One thread at a time."""

    def __init__(self, vertices: dict[str, dict]):
        self._vertices = vertices  # {vertex id: {"parallelism", "operators"}}
        self._previous: dict[str, tuple[float, float, float]] = {}  # vertex: (time, records_in, records_out)

    def enrich(self, reported: dict[str, dict], now_s: float | None = None) -> dict[str, dict[str, Any]]:
        now_s = time.monotonic() if now_s is None else now_s
        result = {}
        for vertex_id, sums in reported.items():
            known = self._vertices.get(vertex_id, {})
            parallelism = known.get("parallelism")
            records_in = float(sums.get("records_in", 0) or 0)
            records_out = float(sums.get("records_out", 0) or 0)
            entry: dict[str, Any] = {"records_in": records_in, "records_out": records_out,
                                     "records_in_per_second": None, "records_out_per_second": None}
            previous = self._previous.get(vertex_id)
            if previous is not None and now_s > previous[0]:
                elapsed = now_s - previous[0]
                entry["records_in_per_second"] = round(max(0.0, records_in - previous[1]) / elapsed, 3)
                entry["records_out_per_second"] = round(max(0.0, records_out - previous[2]) / elapsed, 3)
            self._previous[vertex_id] = (now_s, records_in, records_out)
            for ratio, source in RATIOS.items():
                value = sums.get(source)
                entry[ratio] = (None if value is None or not parallelism
                                else round(min(1.0, max(0.0, value / (1000.0 * parallelism))), 4))
            entry["operators"] = list(known.get("operators", []))
            entry["parallelism"] = parallelism
            result[vertex_id] = entry
        return result
