"""``aggregate.reduce``: a running aggregate per key, emitted after every record.

The key comes from the hash edge feeding the operator (``context.key_function``), the
value from the ``value`` expression; the aggregate lives in keyed value state, so it is
checkpointed by key group and rescales. The batch loop touches the state's dict directly:
one key call, one value call (skipped for the identity ``x``), one dict get and one set
per record.
"""
from __future__ import annotations

from engine.runtime.io.events import TimestampedBatch
from engine.runtime.operators.base import StreamOperator, compile_expression_function

AGGREGATE_FUNCTIONS = ("sum", "count", "min", "max")


def value_function(source: str | None):
    """The compiled value expression, or None for the identity ``x`` (saves a call per record)."""
    if source is None or source.strip() == "x":
        return None
    return compile_expression_function(source)


class KeyedAggregateOperator(StreamOperator):
    """Emits ``[key, aggregate]`` for every record, the aggregate over all records of its key so far."""

    def __init__(self, node, context):
        super().__init__(node, context)
        if context.key_function is None:
            raise ValueError(f"'{self.node_id}' is keyed and needs a hash edge with a key in front of it")
        self.function = self.params.get("function", "sum")
        if self.function not in AGGREGATE_FUNCTIONS:
            raise ValueError(f"unknown aggregate function '{self.function}'")
        self.key = context.key_function
        self.value = value_function(self.params.get("value", "x"))
        self.aggregates = None

    def initialize_state(self):
        self.aggregates = self.context.keyed_state().value_state("aggregate")

    def process_batch(self, batch):
        entries = self.aggregates.entries
        output = getattr(self, f"_{self.function}")(batch, entries, self.key, self.value)
        if type(batch) is TimestampedBatch:
            output = TimestampedBatch(output, batch.timestamps)
        self.emit(output)

    @staticmethod
    def _sum(batch, entries, key, value):
        get = entries.get
        output = []
        append = output.append
        if value is None:
            for x in batch:
                k = key(x)
                a = get(k, 0) + x
                entries[k] = a
                append([k, a])
        else:
            for x in batch:
                k = key(x)
                a = get(k, 0) + value(x)
                entries[k] = a
                append([k, a])
        return output

    @staticmethod
    def _count(batch, entries, key, value):
        get = entries.get
        output = []
        append = output.append
        for x in batch:
            k = key(x)
            a = get(k, 0) + 1
            entries[k] = a
            append([k, a])
        return output

    @staticmethod
    def _min(batch, entries, key, value):
        return _extremum(batch, entries, key, value, min)

    @staticmethod
    def _max(batch, entries, key, value):
        return _extremum(batch, entries, key, value, max)


def _extremum(batch, entries, key, value, choose):
    output = []
    append = output.append
    missing = object()
    for x in batch:
        k = key(x)
        v = x if value is None else value(x)
        current = entries.get(k, missing)
        a = v if current is missing else choose(current, v)
        entries[k] = a
        append([k, a])
    return output


def combine(function: str, accumulator, value):
    """Fold ``value`` into ``accumulator`` (None = empty) for windows: sum, count, min, max."""
    if function == "count":
        return (accumulator or 0) + 1
    if accumulator is None:
        return value
    if function == "sum":
        return accumulator + value
    if function == "min":
        return value if value < accumulator else accumulator
    return value if value > accumulator else accumulator
