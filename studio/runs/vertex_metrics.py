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

The engine also reports every subtask's own figures (``tasks``: ``"vertex#i"`` -> its report,
with ``operators``: node id -> ``{"records_in", "records_out", "watermark"}``, counted by each
operator of the chain). :meth:`VertexMetricsTracker.enrich_nodes` turns them into what the run
graph shows per node and the drill-down per subtask::

    {node id: {"vertex", "parallelism", "records_in", "records_out", "records_in_per_second",
               "records_out_per_second", "watermark", "busy_ratio", "idle_ratio",
               "backpressured_ratio",
               "subtasks": [{"subtask", "records_in", "records_out", "records_in_per_second",
                             "records_out_per_second", "watermark", "busy_ratio", "idle_ratio",
                             "backpressured_ratio", "checkpoint"}]}}

A node's counts and rates are sums over its subtasks; its watermark is the lowest of its
subtasks' (None while one has none), as Flink's low watermark. The time ratios belong to the
subtask (one thread runs the whole chain), so every node of a chain shows its vertex's.
``checkpoint`` is the subtask's part of the latest completed checkpoint
(:meth:`checkpoint_completed`): ``{"id", "state_size", "processed_data", "persisted_data",
"sync_duration", "async_duration", "alignment_duration"}``, or None before the first.

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


CHECKPOINT_FIGURES = ("state_size", "processed_data", "persisted_data", "sync_duration", "async_duration",
                      "alignment_duration")


class VertexMetricsTracker:
    """Turns the engine's per-vertex sums and per-subtask reports into rates and ratios.

    One thread at a time (the driver's event thread)."""

    def __init__(self, vertices: dict[str, dict]):
        self._vertices = vertices  # {vertex id: {"parallelism", "operators"}}
        self._previous: dict[str, tuple[float, float, float]] = {}  # vertex: (time, records_in, records_out)
        self._previous_subtasks: dict[tuple[str, int], tuple[float, float, float]] = {}  # (node, i): same
        self._checkpoints: dict[str, dict] = {}  # "vertex#i": its part of the latest completed checkpoint

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

    def checkpoint_completed(self, event: dict) -> None:
        """Keep each subtask's part of a completed checkpoint (a ``checkpoint`` event's payload)."""
        for subtask in event.get("subtasks") or ():
            if subtask.get("status") == "completed":
                self._checkpoints[subtask["task"]] = {
                    "id": event.get("id"), **{name: subtask.get(name) for name in CHECKPOINT_FIGURES}}

    def enrich_nodes(self, tasks: dict[str, dict], now_s: float | None = None) -> dict[str, dict[str, Any]]:
        """Per node: sums over its subtasks and the subtasks' own figures (see the module doc)."""
        now_s = time.monotonic() if now_s is None else now_s
        nodes: dict[str, dict[str, Any]] = {}
        for task, report in sorted(tasks.items(), key=lambda item: _task_order(item[0])):
            vertex, index = _task_order(task)
            for node_id, counts in (report.get("operators") or {}).items():
                subtask = self._subtask_entry(node_id, index, counts, now_s)
                subtask.update({ratio: _share(report.get(source)) for ratio, source in RATIOS.items()})
                subtask["checkpoint"] = self._checkpoints.get(task)
                node = nodes.setdefault(node_id, {"vertex": vertex,
                                                  "parallelism": self._vertices.get(vertex, {}).get("parallelism"),
                                                  "subtasks": []})
                node["subtasks"].append(subtask)
        for node in nodes.values():
            node.update(_node_totals(node["subtasks"], node["parallelism"]))
        return nodes

    def _subtask_entry(self, node_id: str, index: int, counts: dict, now_s: float) -> dict[str, Any]:
        records_in = float(counts.get("records_in") or 0)
        records_out = float(counts.get("records_out") or 0)
        entry: dict[str, Any] = {"subtask": index, "records_in": records_in, "records_out": records_out,
                                 "records_in_per_second": None, "records_out_per_second": None,
                                 "watermark": counts.get("watermark")}
        previous = self._previous_subtasks.get((node_id, index))
        if previous is not None and now_s > previous[0]:
            elapsed = now_s - previous[0]
            entry["records_in_per_second"] = round(max(0.0, records_in - previous[1]) / elapsed, 3)
            entry["records_out_per_second"] = round(max(0.0, records_out - previous[2]) / elapsed, 3)
        self._previous_subtasks[(node_id, index)] = (now_s, records_in, records_out)
        return entry


def _task_order(task: str) -> tuple[str, int]:
    vertex, _, index = task.rpartition("#")
    return vertex, int(index) if index.isdigit() else 0


def _share(milliseconds_per_second) -> float | None:
    if milliseconds_per_second is None:
        return None
    return round(min(1.0, max(0.0, milliseconds_per_second / 1000.0)), 4)


def _node_totals(subtasks: list[dict], parallelism: int | None) -> dict[str, Any]:
    """Sums of the counts and rates, the lowest watermark, the mean of the time shares."""
    totals: dict[str, Any] = {}
    for name in ("records_in", "records_out"):
        totals[name] = sum(subtask[name] for subtask in subtasks)
    for name in ("records_in_per_second", "records_out_per_second"):
        rates = [subtask[name] for subtask in subtasks]
        totals[name] = None if any(rate is None for rate in rates) else round(sum(rates), 3)
    watermarks = [subtask["watermark"] for subtask in subtasks]
    complete = parallelism is None or len(subtasks) >= parallelism
    totals["watermark"] = (min(watermarks) if complete and watermarks and None not in watermarks else None)
    for ratio in RATIOS:
        shares = [subtask[ratio] for subtask in subtasks if subtask[ratio] is not None]
        totals[ratio] = round(sum(shares) / (parallelism or len(shares)), 4) if shares else None
    return totals
