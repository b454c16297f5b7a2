"""The base of ``join.interval`` and ``join.window``: keyed event-time joins of two inputs.

Two inputs
    Each side arrives over its own hash edge (``"side": "left" | "right"``) with its own key
    expression; the task hands a side's batches to ``process_left`` / ``process_right``
    (``engine.runtime.io.stream_input.NetworkInput`` dispatches by channel), and computes a
    batch's keys with that side's key expression in one comprehension. Records of both
    sides with equal keys land in the same key group, so in the same subtask and, after a
    restore at another parallelism, in the same subtask again.

State and timers
    The interval join buffers each side's records in keyed
    :class:`~engine.runtime.state.keyed_state.BucketState`, ``key -> {time: [records]}``, with
    an event-time timer per (key, side, time) that removes the bucket when no record that
    could still join it can arrive. The window join's windows are aligned for every key, so
    it keeps its records per window end (``{end: ({key: lefts}, {key: rights})}``) with one
    timer per end, and writes the same per-key layout as the interval join to a checkpoint,
    ``key -> {end: [records]}`` a side (``window_join``). Timers are derived from the
    buckets, so they are rebuilt on restore and need no snapshot of their own; the
    interval join's left outer mode also keeps which left buckets matched (the window join's
    decides from its window's members, which are all there when it fires).

Event time and lateness
    The watermark is the minimum over both inputs (the input gate's valve). A record is
    late when its time is at or below ``watermark - allowed_lateness_ms``; late records
    join nothing and are counted (``late_records``). ``allowed_lateness_ms`` keeps state
    that much longer, so a record up to that far behind still finds its partners.

Batch mode
    Both inputs arrive sorted together by key (tagged with their side), event time does not
    advance while they do, so nothing is late and every bucket lives until ``finish_keys``,
    which fires every timer: the result is the one streaming mode gives without late data.
"""
from __future__ import annotations

from heapq import heappop, heappush

from engine.runtime.io.events import MAX_WATERMARK, TimestampedBatch
from engine.runtime.operators.base import StreamOperator
from engine.spec.expressions import compile_expression
from engine.spec.join_catalog import INPUT_SIDES, JOIN_NAMES, JOIN_TYPES

_NO_WATERMARK = -(2**63)
LEFT, RIGHT = 0, 1
"""Side tags: in timer namespaces ``(side, bucket)`` and in batch mode's sorted records ``(side, record)``."""
LATE_PORTS = ("late_left", "late_right")
"""The output ports late records of each side leave through (``engine.spec.join_catalog``)."""


def keeps_records_until_watermark(edge, target_vertex) -> bool:
    """Whether ``edge`` feeds a join (the head of ``target_vertex``), which keeps each record until a
    watermark lets it go: the writer of such an edge sends its buffers with every watermark
    (``engine.runtime.io.record_writer``, ``watermarks_send_buffers``)."""
    head = target_vertex.operators[0]
    return head["id"] == edge.target_node and head.get("type") in JOIN_TYPES


class TwoInputOperator(StreamOperator):
    """Base of the joins: per-side keys, the output expression, watermark and timer bookkeeping."""

    input_sides = INPUT_SIDES
    """The task dispatches a channel's batches by its edge's side to ``process_<side>``."""

    def __init__(self, node, context):
        super().__init__(node, context)
        keys = context.side_key_functions or {}
        missing = [side for side in INPUT_SIDES if side not in keys]
        if missing:
            raise ValueError(f"'{self.node_id}' needs a hash edge with a key on its {' and '.join(missing)} input")
        self.left_keys_of = keys["left"]
        self.right_keys_of = keys["right"]
        self.output = compile_expression(self.params.get("output") or "[left, right]", JOIN_NAMES).function
        self.outer = self.params.get("join_type", "inner") == "left_outer"
        """Left outer: a left record that joins nothing leaves once, with ``right = None``."""
        self.lateness = int(self.params.get("allowed_lateness_ms") or 0)
        self.watermark = _NO_WATERMARK
        self.late_records = 0
        self.timers: list = []
        """A heap of event-time timers ``(time, sequence, key, namespace)``, one per bucket (the
        window join's: ``(time, kind, end)``, one per window end).

        Not :class:`~engine.runtime.timer_service.EventTimeTimers`: a join registers a timer
        for nearly every record (every new event time is a new bucket), and a plain tuple
        pushed inline costs a fifth of a registration with de-duplication and key wrappers.
        A bucket is new exactly once, so no timer is registered twice; the unique sequence
        number keeps keys (which may not be comparable) out of the heap's comparisons."""
        self.sequence = 0
        self._due = False
        """A timer at or below the watermark was registered: fire after this batch, not at the next watermark."""

    def _timed(self, batch) -> TimestampedBatch:
        if type(batch) is not TimestampedBatch:
            raise ValueError(f"'{self.node_id}' needs event time on both inputs: put a watermark operator upstream")
        return batch

    def process_batch(self, batch):
        """Batch mode: ``(side, record)`` pairs of both inputs, sorted by key (``SortingInput``)."""
        batch = self._timed(batch)
        sides = {LEFT: ([], []), RIGHT: ([], [])}
        for (side, record), stamp in zip(batch, batch.timestamps):
            records, stamps = sides[side]
            records.append(record)
            stamps.append(stamp)
        if sides[LEFT][0]:
            self.process_left(TimestampedBatch(*sides[LEFT]))
        if sides[RIGHT][0]:
            self.process_right(TimestampedBatch(*sides[RIGHT]))

    def process_left(self, batch):
        raise NotImplementedError(f"{type(self).__name__}.process_left() must be overridden")

    def process_right(self, batch):
        raise NotImplementedError(f"{type(self).__name__}.process_right() must be overridden")

    def _rebuild_timers(self, state, timer_of, namespace_of=lambda bucket: bucket) -> None:
        """After a restore: one timer per bucket of ``state``, at ``timer_of(bucket)``."""
        for key, buckets in state.entries.items():
            for bucket in buckets:
                self.sequence += 1
                heappush(self.timers, (timer_of(bucket), self.sequence, key, namespace_of(bucket)))

    def _fire_due(self) -> None:
        if self._due:
            self._due = False
            self._fire(self.watermark)

    def process_watermark(self, watermark):
        if watermark.timestamp <= self.watermark:
            return
        self.watermark = watermark.timestamp
        self._due = False
        self._fire(watermark.timestamp)
        self.emit_watermark(watermark)

    def finish_keys(self):
        """Batch mode: every record of the keys seen so far is here; fire all their timers."""
        self._fire(MAX_WATERMARK.timestamp)

    def _fire(self, up_to: int) -> None:
        timers = self.timers
        fired = []
        while timers and timers[0][0] <= up_to:
            fired.append(heappop(timers))
        if fired:
            self._on_timers(fired)

    def _on_timers(self, fired: list) -> None:
        """``fired``: the due ``(time, sequence, key, namespace)`` timers, oldest first."""
        raise NotImplementedError(f"{type(self).__name__}._on_timers() must be overridden")

    def _late(self, side: int, records: list, stamps: list) -> None:
        """Count late records of ``side``; send them (unchanged, with their event times) to its late
        port when an edge leaves it."""
        self.late_records += len(records)
        port = self.side_outputs.get(LATE_PORTS[side])
        if port is not None:
            port(TimestampedBatch(records, stamps))

    def _emit(self, records: list, stamps: list) -> None:
        if records:
            self.emit(TimestampedBatch(records, stamps))

    def metrics(self):
        return {"late_records": self.late_records}
