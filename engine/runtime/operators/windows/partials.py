"""What every local aggregation in front of a window shares (``window_partials``, ``session_partials``):
the window's key and value expressions, turning a batch into the columns its ``fold`` takes, and the
last watermark the subtask sent over the edge (what may merge without moving a late record)."""
from __future__ import annotations

from engine.runtime.io.events import TimestampedBatch, Watermark, WatermarkStatus
from engine.runtime.operators.base import StreamOperator
from engine.spec.expressions import compile_batch_expression

NO_WATERMARK = -(2**63)


class BatchPartials(StreamOperator):
    """Folds the batches a subtask emits into a window's partials (``fold``, the subclass's).

    It stands for the window node (``node`` is the window's), so an expression that fails
    here is reported as that window's failure, as when the window evaluated it.
    """

    def __init__(self, window_node: dict, key_source: str):
        super().__init__(window_node, None)
        params = self.params
        self.function = params.get("function", "sum")
        self.key_source = key_source
        self.keys_of = compile_batch_expression(key_source)
        value = params.get("value", "x")
        self.value_source = None if value is None or value.strip() == "x" else value
        """The value expression, None for the record itself (``engine.runtime.json_fields`` reads both)."""
        self.values_of = None if self.value_source is None else compile_batch_expression(value)
        self.watermark = NO_WATERMARK
        """The last watermark this subtask sent over the edge (the window's is never above it)."""
        self.merging = True
        """False from this subtask's first idle status on: the window may then leave the channel out of
        its watermark, which may pass ours, so nothing is known not to be late any more."""

    def note_event(self, event) -> TimestampedBatch | None:
        """An event the writer sends over the edge (``RecordWriter.broadcast_event``); returns the
        partials to send before it (held ones: ``window_partials``), None for none."""
        kind = type(event)
        if kind is Watermark:
            if event.timestamp > self.watermark:
                self.watermark = event.timestamp
        elif kind is WatermarkStatus and event.idle:
            self.merging = False
        return None

    def release(self, watermark: int | None = None) -> TimestampedBatch | None:
        """The partials held back so far (None: none; only ``window_partials`` holds any)."""
        return None

    def combine(self, batch) -> TimestampedBatch:
        """The partials of ``batch``."""
        if not batch:
            return batch  # the writer sends nothing
        if type(batch) is not TimestampedBatch:
            raise ValueError(f"'{self.node_id}' needs event time: put a watermark operator upstream")
        keys = self.keys_of(batch)
        values = None if self.function == "count" else batch if self.values_of is None else self.values_of(batch)
        return self.fold(keys, values, batch.timestamps)

    def fold(self, keys: list, values: list | None, stamps: list, values_are_ints: bool = False) -> TimestampedBatch:
        raise NotImplementedError
