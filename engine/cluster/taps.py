"""The JobMaster's open taps: which edge, which operator, what limits, and where the samples go.

A tap names an edge of the definition; what flows on an edge is what its ``from`` node
emits, so the slots sample that operator's output (``engine.runtime.tap``). The limits a
client asks for hold for the whole tap: each subtask of the operator gets its share.
Slots that start later (a failover, a region scheduled later) are told about the taps
still open (``open_on``).

Threading model: any thread; the registry's own lock guards the taps. Samples arrive on
task or control-reader threads, which must never wait for a client: ``deliver`` only
queues (bounded; a full queue drops the sample and counts its records in the tap's next
``dropped``), and one delivery thread hands samples to the sinks, in order, merging what
piled up while it was busy into one call per tap and subtask. A slow or stuck sink
therefore delays other taps' samples, never the job.
"""
from __future__ import annotations

import logging
import math
import queue
import secrets
import threading
from dataclasses import dataclass
from typing import Any, Callable

from engine.runtime.tap import TapLimits

TapSink = Callable[[dict[str, Any]], None]
DELIVERY_QUEUE_SAMPLES = 256
logger = logging.getLogger(__name__)


class TapError(ValueError):
    """The tap cannot be opened; the message names the edge."""


@dataclass(frozen=True)
class OpenTap:
    tap_id: str
    edge_id: str
    node_id: str
    subtask_limits: dict
    sink: TapSink


class TapRegistry:
    def __init__(self, definition: dict, job_graph):
        self._edges = {edge["id"]: edge for edge in definition.get("edges", [])}
        self._parallelism = {node["id"]: vertex.parallelism for vertex in job_graph.vertices
                             for node in vertex.operators}
        self._lock = threading.Lock()
        self._taps: dict[str, OpenTap] = {}  # guarded by: self._lock
        self._dropped: dict[str, int] = {}  # guarded by: self._lock; records dropped here, per tap
        self._queue: queue.Queue = queue.Queue(maxsize=DELIVERY_QUEUE_SAMPLES)
        self._thread: threading.Thread | None = None  # guarded by: self._lock

    def open(self, edge_id: str, sink: TapSink, limits: dict | None = None, tap_id: str | None = None) -> OpenTap:
        edge = self._edges.get(edge_id)
        if edge is None:
            raise TapError(f"edge '{edge_id}' is not an edge of this pipeline")
        whole = TapLimits.from_dict(limits)
        share = self._parallelism.get(edge["from"], 1)
        subtask_limits = TapLimits(records_per_second=max(1, math.ceil(whole.records_per_second / share)),
                                   bytes_per_second=max(1, math.ceil(whole.bytes_per_second / share)),
                                   max_record_bytes=whole.max_record_bytes).as_dict()
        tap = OpenTap(tap_id or secrets.token_hex(8), edge_id, edge["from"], subtask_limits, sink)
        with self._lock:
            self._taps[tap.tap_id] = tap
            if self._thread is None:
                self._thread = threading.Thread(target=self._deliver_queued, name="tap-delivery", daemon=True)
                self._thread.start()
        return tap

    def close(self, tap_id: str) -> OpenTap | None:
        with self._lock:
            return self._taps.pop(tap_id, None)

    def open_on(self, slot) -> None:
        """Tell a slot that just started about every open tap."""
        with self._lock:
            taps = list(self._taps.values())
        for tap in taps:
            slot.open_tap(tap.tap_id, tap.node_id, tap.subtask_limits)

    def deliver(self, tap_id: str, task: str, sample: dict) -> None:
        """Queue a sample for its tap's sink; never waits."""
        try:
            self._queue.put_nowait((tap_id, task, sample))
        except queue.Full:
            with self._lock:
                self._dropped[tap_id] = self._dropped.get(tap_id, 0) + len(sample.get("records", ()))

    def _deliver_queued(self) -> None:
        while True:
            for (tap_id, task), sample in _coalesced(self._queue).items():
                with self._lock:
                    tap = self._taps.get(tap_id)
                    dropped = self._dropped.pop(tap_id, 0)
                if tap is None:
                    continue  # samples still on their way when the tap closed
                try:
                    tap.sink({"tap": tap_id, "edge": tap.edge_id, "task": task, **sample,
                              "dropped": sample.get("dropped", 0) + dropped})
                except Exception:
                    logger.exception("the sink of tap %s failed", tap_id)


def _coalesced(samples: queue.Queue) -> dict[tuple[str, str], dict]:
    """Wait for one sample, then take every other one already queued, merged per tap and subtask: one
    sink call (one message to the client) for what piled up while the last one was sent, stamped with
    its oldest records' time. A slow sink then means bigger messages, not a growing backlog."""
    merged: dict[tuple[str, str], dict] = {}
    item = samples.get()
    while item is not None:
        tap_id, task, sample = item
        current = merged.get((tap_id, task))
        if current is None:
            merged[(tap_id, task)] = {**sample, "records": list(sample.get("records", ()))}
        else:
            current["records"].extend(sample.get("records", ()))
            current["dropped"] = current.get("dropped", 0) + sample.get("dropped", 0)
            current["ts"] = min(current.get("ts", sample.get("ts", 0)), sample.get("ts", 0))
        try:
            item = samples.get_nowait()
        except queue.Empty:
            item = None
    return merged
