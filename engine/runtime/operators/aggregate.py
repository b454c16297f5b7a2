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
from engine.runtime.operators.base import StreamOperator, compile_expression_function
from engine.spec.expressions import compile_batch_expression

AGGREGATE_FUNCTIONS = ("sum", "count", "min", "max")


def _is_identity(source: str | None) -> bool:
    return source is None or source.strip() == "x"


def value_function(source: str | None):
    """The compiled value expression per record, or None for the identity ``x`` (saves a call)."""
    return None if _is_identity(source) else compile_expression_function(source)


def batch_value_function(source: str | None):
    """The value expression compiled over a batch, or None for the identity ``x``."""
    return None if _is_identity(source) else compile_batch_expression(source)


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
