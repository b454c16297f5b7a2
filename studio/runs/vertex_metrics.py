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
               "records_out_per_second", "watermark", "watermark_lag_ms", "busy_ratio", "idle_ratio",
               "backpressured_ratio",
               "subtasks": [{"subtask", "records_in", "records_out", "records_in_per_second",
                             "records_out_per_second", "watermark", "busy_ratio", "idle_ratio",
                             "backpressured_ratio", "checkpoint"}]}}

A node whose operator counts records dropped as late (windows, joins, dedup) has
``late_records``; a window fed partial aggregates counts in ``records_in`` the records they
stand for, so its input is its upstream's output, and has ``partials_in``, what arrived
(both per subtask too, and summed).

Once the job's sources send latency markers (``latency_tracking``; the studio's runs do, every
``LATENCY_MARKER_INTERVAL_MS``), a node they reached has ``latency_p50_ms``, ``latency_p99_ms``
and ``latency_markers`` (source to this node), with ``latency_sources`` per source subtask, and
the head of a job vertex ``hop_latency_p50_ms``/``hop_latency_p99_ms`` (the channel into it: a
slow operator makes the hop into it the largest); each subtask has its own ``latency`` and
``hop_latency`` as the engine measured them (``engine.runtime.latency_stats``). Percentiles do
not add up: a node's p50 is the median of its subtasks' medians, its p99 the highest of their
p99s, its markers their sum.

An exactly-once (two-phase-commit) sink has its *visible latency*, what a reader of its output
sees: ``visible_latency_p50_ms``/``visible_latency_p99_ms`` (a record's arrival at the sink to
the commit of its transaction, over ``visible_latency_records`` records) and, once latency
markers reach it, ``source_visible_latency_p50_ms``/``source_visible_latency_p99_ms`` (a marker's
source to that commit: the end-to-end latency of the output); each subtask has its own
``visible_latency`` and ``source_visible_latency``. They combine as the markers' figures do.

A source node has ``lag`` (what its splits have left to read, and what its split enumerator
has not handed out yet) and each of its subtasks the ``lag`` of its own splits; a window or
window join has ``emit_delay_ms``/``emit_delay_max_ms`` (how long after their ends its results
left), per subtask too: ``studio.runs.source_lag`` says how they add up.

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

import statistics
import time
from typing import Any

from studio.runs.source_lag import EMIT_DELAY_FIGURES, node_emit_delay, node_lag

RATIOS = {"busy_ratio": "busy_ms_per_second", "idle_ratio": "idle_ms_per_second",
          "backpressured_ratio": "backpressured_ms_per_second"}


OPERATOR_FIGURES = ("late_records", "partials_in")
"""Counts some operators keep of their own (``StreamOperator.node_figures``), passed on per node."""
LATENCY_FIGURES = ("latency", "hop_latency", "visible_latency", "source_visible_latency")
"""What latency markers measured at a subtask's operator (``engine.runtime.latency_stats``), and at an
exactly-once sink how long until its commit made the output visible (``engine.api``), passed on."""

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

    def enrich_nodes(self, tasks: dict[str, dict], now_s: float | None = None,
                     wall_ms: float | None = None, enumerators: dict[str, dict] | None = None
                     ) -> dict[str, dict[str, Any]]:
        """Per node: sums over its subtasks and the subtasks' own figures (see the module doc);
        ``enumerators`` is the metrics event's, what split enumerators have not handed out."""
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
        wall_ms = time.time() * 1000.0 if wall_ms is None else wall_ms
        for node in nodes.values():
            node.update(_node_totals(node["subtasks"], node["parallelism"]))
            node["watermark_lag_ms"] = watermark_lag_ms(node["watermark"], wall_ms)
            node.update(node_latency(node["subtasks"]))
            node.update(node_emit_delay(node["subtasks"]))
        for node_id, node in nodes.items():
            lag = node_lag(node["subtasks"], (enumerators or {}).get(node_id))
            if lag is not None:
                node["lag"] = lag
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
        entry.update({name: counts[name] for name in OPERATOR_FIGURES + LATENCY_FIGURES + EMIT_DELAY_FIGURES
                      if name in counts})
        if "lag" in counts:
            entry["lag"] = counts["lag"]
        return entry


EPOCH_MS_FROM = 1e11
"""Below this a watermark is a plain event-time number (not epoch milliseconds): it has no lag."""
END_OF_INPUT = 2**62


def watermark_lag_ms(watermark, wall_ms: float) -> float | None:
    """How far event time trails the clock at a node (processing time minus its watermark), in ms; None
    before the first watermark, after the last, or for event times that are not epoch milliseconds.

    >>> watermark_lag_ms(1_700_000_000_000, 1_700_000_002_500.0)
    2500.0
    >>> watermark_lag_ms(42, 1_700_000_002_500.0) is None
    True
    """
    if not isinstance(watermark, (int, float)) or watermark < EPOCH_MS_FROM or watermark >= END_OF_INPUT:
        return None
    return round(max(0.0, wall_ms - watermark), 1)


def node_latency(subtasks: list[dict]) -> dict[str, Any]:
    """A node's latency figures from its subtasks' (see the module doc); empty before the first marker.

    >>> figures = node_latency([{"latency": {"p50_ms": 10.0, "p99_ms": 40.0, "markers": 5,
    ...                                      "sources": {"gen#0": {"p50_ms": 10.0, "p99_ms": 40.0, "markers": 5}}}},
    ...                         {"latency": {"p50_ms": 30.0, "p99_ms": 35.0, "markers": 4,
    ...                                      "sources": {"gen#0": {"p50_ms": 30.0, "p99_ms": 35.0, "markers": 4}}}}])
    >>> figures["latency_p50_ms"], figures["latency_p99_ms"], figures["latency_markers"]
    (20.0, 40.0, 9)
    >>> figures["latency_sources"]
    {'gen#0': {'p50_ms': 20.0, 'p99_ms': 40.0, 'markers': 9}}
    """
    result: dict[str, Any] = {}
    measured = [subtask["latency"] for subtask in subtasks if subtask.get("latency")]
    if measured:
        result.update({f"latency_{name}": value for name, value in _combined(measured).items()})
        sources: dict[str, list[dict]] = {}
        for figures in measured:
            for source, own in (figures.get("sources") or {}).items():
                sources.setdefault(source, []).append(own)
        result["latency_sources"] = {source: _combined(parts) for source, parts in sorted(sources.items())}
    hops = [subtask["hop_latency"] for subtask in subtasks if subtask.get("hop_latency")]
    if hops:
        combined = _combined(hops)
        result.update(hop_latency_p50_ms=combined["p50_ms"], hop_latency_p99_ms=combined["p99_ms"])
    visible = [subtask["visible_latency"] for subtask in subtasks if subtask.get("visible_latency")]
    if visible:
        combined = _combined(visible)
        result.update(visible_latency_p50_ms=combined["p50_ms"], visible_latency_p99_ms=combined["p99_ms"],
                      visible_latency_records=sum(part.get("records") or 0 for part in visible))
    from_sources = [subtask["source_visible_latency"] for subtask in subtasks if subtask.get("source_visible_latency")]
    if from_sources:
        combined = _combined(from_sources)
        result.update(source_visible_latency_p50_ms=combined["p50_ms"],
                      source_visible_latency_p99_ms=combined["p99_ms"],
                      source_visible_latency_markers=combined["markers"])
    return result


def _combined(parts: list[dict]) -> dict[str, Any]:
    """Several subtasks' ``{"p50_ms", "p99_ms", "markers"}`` as one: median of medians, highest p99, sum."""
    return {"p50_ms": round(statistics.median(part["p50_ms"] for part in parts), 2),
            "p99_ms": max(part["p99_ms"] for part in parts), "markers": sum(part.get("markers") or 0 for part in parts)}


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
    for name in OPERATOR_FIGURES:
        if any(name in subtask for subtask in subtasks):
            totals[name] = sum(subtask.get(name) or 0 for subtask in subtasks)
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
