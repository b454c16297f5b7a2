"""``transform.deduplicate``: per key, one record within a time-to-live, the first or the last.

Event time, so that the result does not depend on when records arrive, only on their order
per key (which batch mode keeps) and their event times. A record of a key with no open TTL
opens one, ``[t, t + ttl_ms)``; the key's later records (in arrival order) with event time
before the TTL's end are duplicates of it; a record at or after the end opens the next TTL.

- ``keep: "first"``: the record that opens a TTL is emitted at once; duplicates are dropped.
- ``keep: "last"``: each duplicate replaces the kept record; the TTL's last record is emitted
  when the TTL ends (the watermark passes ``end - 1``, or a record opens the next TTL), with
  event time ``end - 1``.

State: keyed value state per key, ``end`` (first) or ``(end, record, event time)`` (last),
replaced and never mutated. A timer at ``end - 1`` ends the TTL and removes the key; a TTL
replaced by the next one needs no new timer (the old one fires first and, finding a later
end, is set again -- one timer per key). Timers are rebuilt from the restored state.

Late records: once the watermark passed a TTL's end its state is gone, so a record of that
key with event time at or before the watermark cannot be told from a duplicate any more;
such a record arriving while its key has no open TTL is late: counted, and sent to the
``late`` port when an edge leaves it. Batch mode has no watermark before the end, so no
record is late there; ``finish_keys`` ends every TTL of the keys just seen.
"""
from __future__ import annotations

from engine.runtime.io.events import MAX_WATERMARK, TimestampedBatch
from engine.runtime.operators.base import StreamOperator
from engine.runtime.timer_service import EventTimeTimers

_NO_WATERMARK = -(2**63)


class DeduplicateOperator(StreamOperator):
    """Keeps the first (or the last) record of each key per event-time TTL."""

    def __init__(self, node, context):
        super().__init__(node, context)
        if context.batch_key_function is None:
            raise ValueError(f"'{self.node_id}' is keyed and needs a hash edge with a key in front of it")
        self.ttl = int(self.params["ttl_ms"])
        if self.ttl <= 0:
            raise ValueError("the deduplication TTL must be positive")
        self.keep = self.params.get("keep", "first")
        if self.keep not in ("first", "last"):
            raise ValueError(f"keep must be 'first' or 'last', not '{self.keep}'")
        self.keys_of = context.batch_key_function
        self.timers = EventTimeTimers()
        self.watermark = _NO_WATERMARK
        self.state = None
        self.duplicates = 0
        self.late_records = 0

    def initialize_state(self):
        self.state = self.context.keyed_state().value_state(self.keep)
        for key, value in self.state.entries.items():
            end = value if self.keep == "first" else value[0]
            self.timers.register(end - 1, key, 0)

    def process_batch(self, batch):
        if type(batch) is not TimestampedBatch:
            raise ValueError(f"'{self.node_id}' needs event time: put a watermark operator upstream")
        process = self._keep_first if self.keep == "first" else self._keep_last
        output, stamps, late, late_stamps = process(self.keys_of(batch), batch.timestamps, batch)
        if output:
            self.emit(TimestampedBatch(output, stamps))
        if late:
            self.late_records += len(late)
            late_output = self.side_outputs.get("late")
            if late_output is not None:
                late_output(TimestampedBatch(late, late_stamps))

    def _keep_first(self, keys, timestamps, batch):
        ttl, watermark, register = self.ttl, self.watermark, self.timers.register
        entries = self.state.entries
        get = entries.get
        output, stamps, late, late_stamps = [], [], [], []
        duplicates = 0
        for k, t, record in zip(keys, timestamps, batch):
            end = get(k)
            if end is None:
                if t <= watermark:
                    late.append(record)
                    late_stamps.append(t)
                    continue
                register(t + ttl - 1, k, 0)
            elif t < end:
                duplicates += 1
                continue
            entries[k] = t + ttl
            output.append(record)
            stamps.append(t)
        self.duplicates += duplicates
        return output, stamps, late, late_stamps

    def _keep_last(self, keys, timestamps, batch):
        ttl, watermark, register = self.ttl, self.watermark, self.timers.register
        entries = self.state.entries
        get = entries.get
        output, stamps, late, late_stamps = [], [], [], []
        duplicates = 0
        for k, t, record in zip(keys, timestamps, batch):
            kept = get(k)
            if kept is None:
                if t <= watermark:
                    late.append(record)
                    late_stamps.append(t)
                    continue
                register(t + ttl - 1, k, 0)
            elif t < kept[0]:
                duplicates += 1
                entries[k] = (kept[0], record, t)
                continue
            else:  # the next TTL starts: the last one ended in event time, its record leaves now
                output.append(kept[1])
                stamps.append(kept[0] - 1)
            entries[k] = (t + ttl, record, t)
        self.duplicates += duplicates
        return output, stamps, late, late_stamps

    def process_watermark(self, watermark):
        if watermark.timestamp <= self.watermark:
            return
        self.watermark = watermark.timestamp
        self._expire(watermark.timestamp)
        self.emit_watermark(watermark)

    def finish_keys(self):
        """Batch mode: every TTL of the keys seen so far is over (keep last: emit their records)."""
        self._expire(MAX_WATERMARK.timestamp)

    def _expire(self, up_to: int) -> None:
        entries = self.state.entries
        first = self.keep == "first"
        output, stamps = [], []
        for _, k, _ in self.timers.fire_up_to(up_to):
            value = entries.get(k)
            if value is None:
                continue
            end = value if first else value[0]
            if end - 1 > up_to:  # a later TTL replaced the one the timer was set for
                self.timers.register(end - 1, k, 0)
                continue
            del entries[k]
            if not first:
                output.append(value[1])
                stamps.append(end - 1)
        if output:
            self.emit(TimestampedBatch(output, stamps))

    def metrics(self):
        return {"duplicates": self.duplicates, "late_records": self.late_records}
