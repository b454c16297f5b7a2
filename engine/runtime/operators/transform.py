"""Stateless record-by-record operators: map, filter, flat_map, union.

Map and filter process a whole batch with one list comprehension that has the
expression inline (``compile_batch_expression``, ``compile_batch_filter``): no Python
call per record, as close to a plain Python loop as the work allows. A failing
expression raises out of the comprehension; the task names this operator from the
traceback. Batches with event times keep them: a map keeps the timestamps list as it is
(one output per input), a filter and a flat map build the matching list.
"""
from __future__ import annotations

from engine.runtime.io.events import TimestampedBatch
from engine.runtime.operators.base import StreamOperator, compile_expression_function
from engine.spec.expressions import compile_batch_expression, compile_batch_filter


class MapOperator(StreamOperator):
    """``transform.map``: each record x becomes ``expression(x)``."""

    def __init__(self, node, context):
        super().__init__(node, context)
        self.mapped = compile_batch_expression(self.params["expression"])

    def record_wise_step(self):
        return ("map", self.params["expression"])

    def process_batch(self, batch):
        result = self.mapped(batch)
        if type(batch) is TimestampedBatch:
            result = TimestampedBatch(result, batch.timestamps)
        self.emit(result)


class FilterOperator(StreamOperator):
    """``transform.filter``: keeps the records for which ``predicate(x)`` is true."""

    def __init__(self, node, context):
        super().__init__(node, context)
        self.predicate = compile_expression_function(self.params["predicate"])
        self.kept = compile_batch_filter(self.params["predicate"])

    def record_wise_step(self):
        return ("filter", self.params["predicate"])

    def process_batch(self, batch):
        if type(batch) is TimestampedBatch:
            predicate = self.predicate
            kept = [(x, t) for x, t in zip(batch, batch.timestamps) if predicate(x)]
            self.emit(TimestampedBatch([x for x, _ in kept], [t for _, t in kept]))
            return
        self.emit(self.kept(batch))


class FlatMapOperator(StreamOperator):
    """``transform.flat_map``: each record x becomes the elements of ``expression(x)``."""

    def __init__(self, node, context):
        super().__init__(node, context)
        self.function = compile_expression_function(self.params["expression"])

    def process_batch(self, batch):
        function = self.function
        if type(batch) is TimestampedBatch:
            records, stamps = [], []
            for x, t in zip(batch, batch.timestamps):
                produced = list(function(x))
                records.extend(produced)
                stamps.extend([t] * len(produced))
            self.emit(TimestampedBatch(records, stamps))
            return
        self.emit([y for x in batch for y in function(x)])


class UnionOperator(StreamOperator):
    """``transform.union``: its input gate already merges all inputs; records pass through."""

    def process_batch(self, batch):
        self.emit(batch)
