"""``transform.watermark``: assigns event time and emits bounded-out-of-orderness watermarks.

Each record gets the event time ``timestamp(x)`` (milliseconds); the batch leaves as a
:class:`TimestampedBatch`. After each batch the operator emits the watermark
``max event time seen - max_out_of_orderness_ms - 1`` if it advanced: records later than
that bound are late. Watermarks arriving from upstream are replaced by this operator's
own, except the final maximum watermark at end of input, which is passed on so windows
downstream fire. Watermarks are not checkpointed (as in Flink): after a restore the
watermark starts low again and rises with the replayed records.

Idleness (``idle_timeout_ms`` > 0, Flink's ``withIdleness``): a subtask that saw no record
for that long marks its output idle, so consumers leave it out of their watermark -- a
source split without data (a quiet partition, a filter that drops all of one subtask's
records) no longer holds every window downstream open. The next record makes it active
again, before that record is emitted. A processing-time timer checks; records that come
after an idle spell may be late for windows that fired meanwhile, as in Flink.

Splits (``split_source``): right after a source that reads splits one after the other (a file or
Parquet source; only filters between, ``RECORD_KEEPING``), the highest event time is kept per split
and the watermark also stays behind the source's ``event_time_floor`` (the first event time of every
split still to be read, by this subtask or another). Why: the bound is about records read in their
file's order. A subtask that read one device's file up to time T and then began another device's
split from time 0 had its watermark near T, and made that split's records late; and a split handed
out while another, earlier one was still unread could push it past the earlier one's records.
"""
from __future__ import annotations

import time

from engine.runtime.io.events import MAX_WATERMARK, WATERMARK_ACTIVE, WATERMARK_IDLE, TimestampedBatch, Watermark
from engine.runtime.operators.base import StreamOperator
from engine.spec.expressions import compile_batch_expression

_NO_WATERMARK = -(2**63)

RECORD_KEEPING = frozenset({"transform.filter"})
"""Operators that pass records on as they are: a watermark node after them times the source's records."""


def source_watermark_index(nodes: list[dict]) -> int | None:
    """The position of the watermark node in a chain's nodes (the source first) when only
    ``RECORD_KEEPING`` operators lie between: the node that times the source's own records. None otherwise."""
    for position, node in enumerate(nodes[1:], start=1):
        if node.get("type") == "transform.watermark":
            return position
        if node.get("type") not in RECORD_KEEPING:
            return None
    return None


def bind_split_source(operators: list) -> None:
    """Give the watermark node timing the head's records the head, when it reads splits (``split_source``)."""
    head = operators[0]
    position = source_watermark_index([getattr(operator, "node", None) or {} for operator in operators])
    if position is not None and callable(getattr(head, "event_time_floor", None)):
        operators[position].split_source = head


class WatermarkAssignerOperator(StreamOperator):
    """Event time from an expression; periodic (per batch) bounded out-of-orderness watermarks."""

    def __init__(self, node, context):
        super().__init__(node, context)
        self.timestamps_of = compile_batch_expression(self.params["timestamp"])
        self.out_of_orderness = int(self.params.get("max_out_of_orderness_ms", 0))
        self.idle_timeout_s = int(self.params.get("idle_timeout_ms", 0)) / 1000
        self.max_timestamp = _NO_WATERMARK
        """The highest event time seen (of the current split, with a ``split_source``)."""
        self.current_watermark = _NO_WATERMARK
        self.split_source = None
        """The source right before this node when it reads splits (``bind_split_source``)."""
        self._split_epoch = 0
        self.idle = False
        self._last_record_at = 0.0
        self._ended = False

    def open(self):
        if self.idle_timeout_s > 0:
            self._last_record_at = time.monotonic()
            self._check_idleness_in(self.idle_timeout_s)

    def process_batch(self, batch):
        if self.idle_timeout_s > 0 and batch:
            self._last_record_at = time.monotonic()
            if self.idle:
                self._become_active()
                self._check_idleness_in(self.idle_timeout_s)
        stamps = list(map(int, self.timestamps_of(batch)))
        self.emit(TimestampedBatch(batch, stamps))
        if stamps:
            self.advance(max(stamps))

    def advance(self, highest: int) -> None:
        """After a batch whose highest event time is ``highest``: emit the watermark if it advanced (the
        record path above and the fields path, ``engine.runtime.json_fields``, both come here)."""
        source = self.split_source
        if source is not None and source.split_epoch != self._split_epoch:
            self._split_epoch = source.split_epoch  # a new split: its records' times, not the last one's
            self.max_timestamp = _NO_WATERMARK
        if highest > self.max_timestamp:
            self.max_timestamp = highest
        watermark = self.max_timestamp - self.out_of_orderness - 1
        if source is not None:
            floor = source.event_time_floor()
            if floor is not None and floor - self.out_of_orderness - 1 < watermark:
                watermark = floor - self.out_of_orderness - 1
        if watermark > self.current_watermark:
            self.current_watermark = watermark
            self.emit_watermark(Watermark(watermark))

    def process_watermark(self, watermark):
        if watermark.timestamp >= MAX_WATERMARK.timestamp:
            self._emit_final_watermark()

    def process_watermark_status(self, status):
        """Upstream idleness is not passed on: this operator decides its own, from its records."""

    def finish(self):
        self._emit_final_watermark()

    def close(self):
        self._ended = True

    def _emit_final_watermark(self):
        self._ended = True
        if self.current_watermark < MAX_WATERMARK.timestamp:
            if self.idle:
                self._become_active()
            self.current_watermark = MAX_WATERMARK.timestamp
            self.emit_watermark(MAX_WATERMARK)

    def _check_idleness_in(self, delay_s: float) -> None:
        self.context.timer_service.schedule(delay_s, self._check_idleness, "watermark idleness")

    def _check_idleness(self) -> None:
        """Timer mail: idle after ``idle_timeout_ms`` without records; else look again when it would be."""
        if self._ended or self.idle:
            return
        quiet_s = time.monotonic() - self._last_record_at
        if quiet_s >= self.idle_timeout_s:
            self.idle = True
            self.emit_watermark_status(WATERMARK_IDLE)
        else:
            self._check_idleness_in(self.idle_timeout_s - quiet_s)

    def _become_active(self) -> None:
        self.idle = False
        self.emit_watermark_status(WATERMARK_ACTIVE)
