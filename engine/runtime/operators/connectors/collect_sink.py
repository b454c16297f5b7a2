"""``sink.collect``: keeps the last ``max_records`` records of each subtask, for previews.

The records go to the JobMaster with the periodic metrics (the studio's live preview) and
with the task's final result. Not fault tolerant by design: a preview shows what flowed
through, and after a restart it shows what flows through again.
"""
from __future__ import annotations

from collections import deque

from engine.runtime.operators.base import StreamOperator


class CollectSink(StreamOperator):
    """Counts every record and remembers the last ``max_records``."""

    def __init__(self, node, context):
        super().__init__(node, context)
        self.max_records = int(self.params.get("max_records", 100))
        self.records: deque = deque(maxlen=self.max_records)
        self.count = 0

    def process_batch(self, batch):
        self.count += len(batch)
        self.records.extend(batch)

    def process_watermark(self, watermark):
        pass

    def result(self) -> dict:
        return {"collected": {self.node_id: list(self.records)}, "counts": {self.node_id: self.count}}

    def metrics(self) -> dict:
        return {"collected": {self.node_id: list(self.records)}, "counts": {self.node_id: self.count}}
