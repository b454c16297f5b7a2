"""``aggregate.reduce``: a running aggregate per key, emitted after every record.

The key comes from the hash edge feeding the operator (``context.batch_key_function``),
the value from the ``value`` expression; the aggregate lives in keyed value state, so it
is checkpointed by key group and rescales. A batch's keys and values are computed first,
each in one comprehension with the expression inline (no call per record; the identity
``x`` is the batch itself), then one loop touches the state's dict directly: one get and
one set per record.
"""
from __future__ import annotations

from engine.runtime.io.events import TimestampedBatch
from engine.runtime.operators.base import StreamOperator
from engine.spec.expressions import compile_batch_expression

AGGREGATE_FUNCTIONS = ("sum", "count", "min", "max")


def batch_value_function(source: str | None):
    """The value expression compiled over a batch, or None for the identity ``x`` (the batch itself)."""
    return None if source is None or source.strip() == "x" else compile_batch_expression(source)


class KeyedAggregateOperator(StreamOperator):
    """Emits ``[key, aggregate]`` for every record, the aggregate over all records of its key so far."""

    def __init__(self, node, context):
        super().__init__(node, context)
        if context.batch_key_function is None:
            raise ValueError(f"'{self.node_id}' is keyed and needs a hash edge with a key in front of it")
        self.function = self.params.get("function", "sum")
        if self.function not in AGGREGATE_FUNCTIONS:
            raise ValueError(f"unknown aggregate function '{self.function}'")
        self.keys_of = context.batch_key_function
        self.values_of = batch_value_function(self.params.get("value", "x"))
        self.fold = _FOLDS[self.function]
        self.aggregates = None

    def initialize_state(self):
        self.aggregates = self.context.keyed_state().value_state("aggregate")

    def process_batch(self, batch):
        values = batch if self.values_of is None else self.values_of(batch)
        output = self.fold(self.keys_of(batch), values, self.aggregates.entries)
        if type(batch) is TimestampedBatch:
            output = TimestampedBatch(output, batch.timestamps)
        self.emit(output)


def _sum(keys, values, entries):
    get = entries.get
    output = []
    append = output.append
    for k, v in zip(keys, values):
        a = get(k, 0) + v
        entries[k] = a
        append([k, a])
    return output


def _count(keys, values, entries):
    get = entries.get
    output = []
    append = output.append
    for k in keys:
        a = get(k, 0) + 1
        entries[k] = a
        append([k, a])
    return output


def _extremum(keys, values, entries, choose):
    output = []
    append = output.append
    missing = object()
    get = entries.get
    for k, v in zip(keys, values):
        current = get(k, missing)
        a = v if current is missing else choose(current, v)
        entries[k] = a
        append([k, a])
    return output


def _min(keys, values, entries):
    return _extremum(keys, values, entries, min)


def _max(keys, values, entries):
    return _extremum(keys, values, entries, max)


_FOLDS = {"sum": _sum, "count": _count, "min": _min, "max": _max}
