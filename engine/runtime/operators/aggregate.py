"""``aggregate.reduce``: a running aggregate per key, emitted after every record (streaming).

In batch mode the aggregate is not rolling (Flink's documented batch semantics for
``reduce``/``sum``): the operator folds its whole input into the table and emits each key's
final ``[key, aggregate]`` once, when the task says the key's input ended
(``finish_keys``: at the end of a hash aggregate's input, or after each sorted piece of keys).
That record is streaming's last record of the key; a windowed result still comes per window.
When the input carries event time, the final record carries the time of the key's latest
record, as streaming's last one does. Integer records that cross the blocking exchange as
int64 frames (``engine.runtime.columnar``) are folded a whole array at a time there
(``fold_int_array``): a sum, count, min or max does not depend on the order of a key's records.

The key comes from the hash edge feeding the operator (``context.key_expression``), the
value from the ``value`` expression; the aggregate lives in keyed value state, so it is
checkpointed by key group and rescales. A batch is folded by one compiled loop
(``compile_keyed_fold``) with both expressions inline and the state's dict touched
directly: per record no Python call, one get and one set.

With ``state_ttl_ms`` (``engine.runtime.operators.state_ttl``) a key's aggregate expires
that long (in event time) after its latest record: a record after that starts the
aggregate afresh, and the watermark removes keys that stopped appearing. That path folds
record by record with the expiry check inline (it needs event time: a watermark upstream).
"""
from __future__ import annotations

import itertools

import numpy as np

from engine.runtime.columnar import LIMIT, compile_int_key, grouped_aggregates
from engine.runtime.io.events import TimestampedBatch
from engine.runtime.operators.base import StreamOperator
from engine.runtime.operators.state_ttl import KeyStateTtl
from engine.spec.expressions import compile_batch_expression, compile_keyed_fold

AGGREGATE_FUNCTIONS = ("sum", "count", "min", "max")


def batch_value_function(source: str | None):
    """The value expression compiled over a batch, or None for the identity ``x`` (the batch itself)."""
    return None if source is None or source.strip() == "x" else compile_batch_expression(source)


class KeyedAggregateOperator(StreamOperator):
    """Emits ``[key, aggregate]`` for every record, the aggregate over all records of its key so far."""

    def __init__(self, node, context):
        super().__init__(node, context)
        if context.key_expression is None:
            raise ValueError(f"'{self.node_id}' is keyed and needs a hash edge with a key in front of it")
        self.function = self.params.get("function", "sum")
        if self.function not in AGGREGATE_FUNCTIONS:
            raise ValueError(f"unknown aggregate function '{self.function}'")
        value = self.params.get("value", "x")
        self.keys_of = context.batch_key_function
        self.values_of = batch_value_function(value)
        self.rolling = context.config.get("mode") != "batch"
        """Streaming emits every key's aggregate after each record; batch mode only the final one."""
        self.fold = compile_keyed_fold(context.key_expression, None if self.values_of is None else value,
                                       self.function, rolling=self.rolling)
        """``fold(batch, get, entries, append, missing)``, the key and value inline (no append in batch mode)."""
        self.final_stamps: dict = {}
        """Batch mode over event time: key -> the time of its latest record, for its final record."""
        self.aggregates = None
        self.state_ttl_ms = int(self.params.get("state_ttl_ms") or 0)
        self.ttl: KeyStateTtl | None = None
        self._int_key = self._int_value = None
        """Batch mode: the key and value expressions over int64 arrays, when they compile so."""
        if not self.rolling and not self.state_ttl_ms:
            self._int_key = compile_int_key(context.key_expression)
            self._int_value = None if self.values_of is None else compile_int_key(value)

    @property
    def aggregates_by_hash(self) -> bool:
        """Batch mode may fold the input into a hash table as it comes instead of sorting it first
        (``engine.runtime.io.hash_aggregate_input``): the state is one value per key. Not with a state
        TTL, whose expiry follows each key's event times in sorted order."""
        return not self.state_ttl_ms

    @property
    def folds_int_arrays(self) -> bool:
        """Batch mode without a state TTL, the key (and the value) integer arithmetic of ``x``
        (``engine.runtime.columnar``): int64 records may be folded with ``fold_int_array``."""
        return self._int_key is not None and (self.values_of is None or self.function == "count"
                                              or self._int_value is not None)

    def fold_int_array(self, batch: np.ndarray) -> bool:
        """Fold int64 records into the table a whole array at a time (batch mode; ``folds_int_arrays``):
        per distinct key one ``get`` and one set instead of per record. False, with nothing folded,
        when a key, a value or a sum could leave int64: the caller folds ``batch.tolist()`` instead."""
        keyed = self._int_key.with_bounds(batch)
        if keyed is None:
            return False
        keys, values = keyed[0], None
        if self.function != "count":
            if self._int_value is None:
                values, low, high = batch, int(batch.min()), int(batch.max())
            else:
                valued = self._int_value.with_bounds(batch)
                if valued is None:
                    return False
                values, (low, high) = valued
            if self.function == "sum" and max(-low, high) * len(batch) >= LIMIT:
                return False
        distinct, partials = grouped_aggregates(keys, values, self.function)
        entries = self.aggregates.entries
        get = entries.get
        if self.function in ("sum", "count"):
            for k, partial in zip(distinct, partials):
                entries[k] = get(k, 0) + partial
        else:
            smaller = self.function == "min"
            for k, partial in zip(distinct, partials):
                current = get(k, _MISSING)
                if current is _MISSING or (partial < current if smaller else partial > current):
                    entries[k] = partial
        return True

    def hash_table(self) -> dict:
        """The live key -> aggregate table (the value state's entries) that batch mode's hash aggregate fills."""
        return self.aggregates.entries

    def initialize_state(self):
        backend = self.context.keyed_state()
        self.aggregates = backend.value_state("aggregate")
        if self.state_ttl_ms:
            self.ttl = KeyStateTtl(self.state_ttl_ms, backend, [self.aggregates])

    def process_batch(self, batch):
        keys = None
        if self.ttl is not None:
            if type(batch) is not TimestampedBatch:
                raise ValueError(f"'{self.node_id}' has a state TTL, which needs event time: "
                                 "put a watermark operator upstream")
            values = batch if self.values_of is None else self.values_of(batch)
            keys = self.keys_of(batch)
            output = self._fold_with_ttl(keys, values, batch.timestamps)
        else:
            entries = self.aggregates.entries
            output = []
            self.fold(batch, entries.get, entries, output.append, _MISSING)
        if not self.rolling:
            if type(batch) is TimestampedBatch:  # arrival order: the last stamp of a key is its latest record's
                self.final_stamps.update(zip(keys if keys is not None else self.keys_of(batch), batch.timestamps))
            return
        if type(batch) is TimestampedBatch:
            output = TimestampedBatch(output, batch.timestamps)
        self.emit(output)

    def finish_keys(self):
        """Batch mode: the keys in the table have seen all their records; emit each one's final aggregate.

        The task clears the table right after (keyed state). A key's time leaves with it."""
        if self.rolling:
            return
        entries = self.aggregates.entries
        if not entries:
            return
        stamps = self.final_stamps
        if not stamps:
            self.emit([[k, a] for k, a in entries.items()])
            return
        timed, times, untimed = [], [], []  # untimed: a key restored from a snapshot and not read again
        for k, a in entries.items():
            t = stamps.pop(k, _MISSING)
            if t is _MISSING:
                untimed.append([k, a])
            else:
                timed.append([k, a])
                times.append(t)
        if untimed:
            self.emit(untimed)
        if timed:
            self.emit(TimestampedBatch(timed, times))

    def _fold_with_ttl(self, keys, values, timestamps) -> list:
        """The fold of ``compile_keyed_fold`` with the expiry of ``KeyStateTtl.expired`` inline: a
        method call and two function calls per record cost this path most of its throughput (make
        bench-windows' ratio)."""
        ttl = self.ttl
        latest, limit, register = ttl.latest, ttl.ttl, ttl.register
        entries = self.aggregates.entries
        get, latest_of = entries.get, latest.get
        additive = self.function in ("sum", "count")
        choose = min if self.function == "min" else max
        if self.function == "count":
            values = itertools.repeat(1)
        output = []
        append = output.append
        missing = _MISSING
        for k, v, t in zip(keys, values, timestamps):
            last = latest_of(k)
            if last is None:
                latest[k] = t
                register(t + limit - 1, k)
            elif t >= last + limit:
                ttl.drop(k)
                latest[k] = t
            elif t > last:
                latest[k] = t
            current = get(k, missing)
            if current is missing:
                a = v
            elif additive:
                a = current + v
            else:
                a = choose(current, v)
            entries[k] = a
            append([k, a])
        return output

    def process_watermark(self, watermark):
        if self.ttl is not None:
            self.ttl.expire(watermark.timestamp)
        self.emit_watermark(watermark)

    def metrics(self):
        return {"expired_keys": self.ttl.expired_keys} if self.ttl is not None else {}


_MISSING = object()
