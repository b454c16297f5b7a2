"""``transform.watermark``: assigns event time and emits bounded-out-of-orderness watermarks.

Each record gets the event time ``timestamp(x)`` (milliseconds); the batch leaves as a
:class:`TimestampedBatch`. After each batch the operator emits the watermark
``max event time seen - max_out_of_orderness_ms - 1`` if it advanced: records later than
that bound are late. Watermarks arriving from upstream are replaced by this operator's
own, except the final maximum watermark at end of input, which is passed on so windows
downstream fire. Watermarks are not checkpointed (as in Flink): after a restore the
watermark starts low again and rises with the replayed records.
"""
from __future__ import annotations

from engine.runtime.io.events import MAX_WATERMARK, TimestampedBatch, Watermark
from engine.runtime.operators.base import StreamOperator, compile_expression_function

_NO_WATERMARK = -(2**63)


class WatermarkAssignerOperator(StreamOperator):
    """Event time from an expression; periodic (per batch) bounded out-of-orderness watermarks."""

    def __init__(self, node, context):
        super().__init__(node, context)
        self.timestamp = compile_expression_function(self.params["timestamp"])
        self.out_of_orderness = int(self.params.get("max_out_of_orderness_ms", 0))
        self.max_timestamp = _NO_WATERMARK
        self.current_watermark = _NO_WATERMARK

    def process_batch(self, batch):
        timestamp = self.timestamp
        stamps = [int(timestamp(x)) for x in batch]
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

    def finish(self):
        self._emit_final_watermark()

    def _emit_final_watermark(self):
        if self.current_watermark < MAX_WATERMARK.timestamp:
            self.current_watermark = MAX_WATERMARK.timestamp
            self.emit_watermark(MAX_WATERMARK)
