"""``window.count``: per key, an aggregate of every ``size`` records, or of the last ``size`` every ``slide``.

Flink's ``countWindow(size)`` and ``countWindow(size, slide)``: a key's records are counted
in arrival order; a tumbling count window emits ``[key, aggregate]`` at its key's
``size``-th, ``2 * size``-th, ... record, over those ``size`` records. A sliding one emits
at every ``slide``-th record, over the last ``size`` records of the key (fewer while the
key has not seen ``size`` yet). Output leaves at once, in the batch that completed it, with
the event time of the record that completed it when the input has event time. Count
windows ignore event time otherwise: no watermark is needed and no record is late.

A window still short of records at the end of the input is dropped, as Flink's count
trigger never fires it; so batch mode (where ``finish_keys`` has nothing to emit) and
streaming mode give the same result.

State (keyed, so checkpointed by key group and rescaled): tumbling, one value per key,
the tuple ``(records so far, accumulator)``, replaced per record; sliding, the list of the
key's last ``size`` values and, per key, the records since the last emission.

With ``state_ttl_ms`` (``engine.runtime.operators.state_ttl``) a key's records expire that
long (in event time) after its latest one: a record after that starts the key's count
afresh (the unfinished window is dropped), and the watermark removes keys that stopped
appearing. It needs event time (a watermark upstream).
"""
from __future__ import annotations

import itertools

from engine.runtime.io.events import TimestampedBatch
from engine.runtime.operators.aggregate import AGGREGATE_FUNCTIONS, batch_value_function
from engine.runtime.operators.base import StreamOperator
from engine.runtime.operators.state_ttl import KeyStateTtl
from engine.runtime.operators.windows.window import _ADD

_MISSING = object()
_COMBINE = {"sum": sum, "count": len, "min": min, "max": max}
"""The aggregate of a list of values (sliding windows keep the values, not an accumulator)."""


class CountWindowOperator(StreamOperator):
    """Aggregates every ``size`` records per key (every ``slide`` the last ``size``, when sliding)."""

    def __init__(self, node, context):
        super().__init__(node, context)
        if context.batch_key_function is None:
            raise ValueError(f"'{self.node_id}' is keyed and needs a hash edge with a key in front of it")
        self.size = int(self.params["size"])
        slide = self.params.get("slide")
        self.slide = self.size if slide is None else int(slide)
        if self.size <= 0 or self.slide <= 0:
            raise ValueError("count window size and slide must be positive")
        self.function = self.params.get("function", "sum")
        if self.function not in AGGREGATE_FUNCTIONS:
            raise ValueError(f"unknown aggregate function '{self.function}'")
        self.keys_of = context.batch_key_function
        self.values_of = batch_value_function(self.params.get("value", "x"))
        self.add = _ADD[self.function]
        self.tumbling = self.slide == self.size
        self.windows = None
        self.recent = None
        self.since = None
        self.state_ttl_ms = int(self.params.get("state_ttl_ms") or 0)
        self.ttl: KeyStateTtl | None = None

    def initialize_state(self):
        backend = self.context.keyed_state()
        if self.tumbling:
            self.windows = backend.value_state("windows")
        else:
            self.recent = backend.list_state("recent")
            self.since = backend.value_state("since")
        if self.state_ttl_ms:
            states = [self.windows] if self.tumbling else [self.recent, self.since]
            self.ttl = KeyStateTtl(self.state_ttl_ms, backend, states)

    def process_watermark(self, watermark):
        if self.ttl is not None:
            self.ttl.expire(watermark.timestamp)
        self.emit_watermark(watermark)

    def metrics(self):
        return {"expired_keys": self.ttl.expired_keys} if self.ttl is not None else {}

    def process_batch(self, batch):
        keys = self.keys_of(batch)
        if self.function == "count":
            values = itertools.repeat(1)
        else:
            values = batch if self.values_of is None else self.values_of(batch)
        stamps = batch.timestamps if type(batch) is TimestampedBatch else None
        if self.ttl is not None:
            if stamps is None:
                raise ValueError(f"'{self.node_id}' has a state TTL, which needs event time: "
                                 "put a watermark operator upstream")
            keys = self._expiring(keys, stamps)
        fold = self._tumbling if self.tumbling else self._sliding
        records, positions = fold(keys, values)
        if records:
            if stamps is None:
                self.emit(records)
            else:
                self.emit(TimestampedBatch(records, [stamps[i] for i in positions]))

    def _expiring(self, keys, stamps):
        """The keys, each checked for expiry just before the fold takes its record (a generator)."""
        expired = self.ttl.expired
        for k, t in zip(keys, stamps):
            expired(k, t)
            yield k

    def _tumbling(self, keys, values):
        size, add = self.size, self.add
        entries = self.windows.entries
        get = entries.get
        records, positions = [], []
        for i, (k, v) in enumerate(zip(keys, values)):
            current = get(k)
            if current is None:
                n, acc = 1, v
            else:
                n, acc = current[0] + 1, add(current[1], v)
            if n == size:
                del_key = current is not None
                records.append([k, acc])
                positions.append(i)
                if del_key:
                    del entries[k]
            else:
                entries[k] = (n, acc)
        return records, positions

    def _sliding(self, keys, values):
        size, slide, combine = self.size, self.slide, _COMBINE[self.function]
        recent, since = self.recent.entries, self.since.entries
        records, positions = [], []
        for i, (k, v) in enumerate(zip(keys, values)):
            kept = recent.get(k)
            if kept is None:
                kept = recent[k] = [v]
            else:
                kept.append(v)
                if len(kept) > size:
                    del kept[0]
            n = since.get(k, 0) + 1
            if n == slide:
                since.pop(k, None)
                records.append([k, combine(kept)])
                positions.append(i)
            else:
                since[k] = n
        return records, positions
