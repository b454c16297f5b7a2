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
"""
from __future__ import annotations

import time

from engine.runtime.io.events import MAX_WATERMARK, WATERMARK_ACTIVE, WATERMARK_IDLE, TimestampedBatch, Watermark
from engine.runtime.operators.base import StreamOperator
from engine.spec.expressions import compile_batch_expression

_NO_WATERMARK = -(2**63)


class WatermarkAssignerOperator(StreamOperator):
    """Event time from an expression; periodic (per batch) bounded out-of-orderness watermarks."""

    def __init__(self, node, context):
        super().__init__(node, context)
        self.timestamps_of = compile_batch_expression(self.params["timestamp"])
        self.out_of_orderness = int(self.params.get("max_out_of_orderness_ms", 0))
        self.idle_timeout_s = int(self.params.get("idle_timeout_ms", 0)) / 1000
        self.max_timestamp = _NO_WATERMARK
        self.current_watermark = _NO_WATERMARK
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
            highest = max(stamps)
            if highest > self.max_timestamp:
                self.max_timestamp = highest
            watermark = self.max_timestamp - self.out_of_orderness - 1
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
