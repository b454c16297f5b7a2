"""Local aggregation in front of a session window: partial sessions cross the exchange, not records.

Why (issue #39): at parallelism 2 the session job of ``make bench-events`` sent every record
through the keyed exchange -- partitioned, encoded, sent, received and decoded, ~0.5 µs per
event against ~2.2 µs of slot CPU per event at parallelism 1 -- while the tumbling job sends
one partial aggregate per key and window and batch (``window_partials``). Sessions merge the
same way records do: a record at ``t`` is the window ``[t, t + gap)``, and windows of one key
that touch merge. So the subtask that feeds the window merges each batch's records per key
into the sessions they form among themselves, and sends one ``[key, start, end, partial,
records]`` list per such session; the window merges that interval as it merged a record's.
On bench-events' batches (~730 records of 200 users, 500 ms gap) that is 2.7 records a
partial.

Exactness. The window's result does not depend on how the records were grouped on the way:

- Sessions are the connected parts of the union of the records' windows, whatever order
  the windows arrive in, and a partial is a connected part of some of them.
- Aggregates: a partial folds its records in time order, not arrival order, so only values
  whose fold is order-free are merged: a count, or a sum, min or max of values that are all
  exactly ``int`` (a float sum rounds by order; ``min`` of ``1`` and ``True`` keeps the
  first). A batch with any other value goes one partial per record, in order.
- Lateness is decided per record, on the record path, against the window's watermark when
  the record arrives: a record touching no open session whose own window ended is dropped,
  so merging it with a later record of its batch would keep it. The window's watermark is
  the least of its open, active input channels' watermarks, so never above the last
  watermark this subtask sent over the edge before the batch (``note_event``): a batch whose
  records all end after that watermark (``t + gap - 1 >`` it) holds no late record, and
  merges. A batch with one that might be late goes one partial per record, in order, which
  the window handles exactly as the records. This subtask's output having gone idle breaks
  the bound (the window then leaves the channel out of its watermark, which may pass ours),
  so from the first idle status on every batch goes one partial per record.

What crosses is a :class:`TimestampedBatch` of lists (``msgpack`` packs lists, not tuples:
``engine.runtime.io.wire``), each stamped with its start, routed by ``x[0]`` like the
tumbling partials (``window_partials.PARTIAL_KEY``): over a hash edge of several channels
``fold`` routes them itself, a lookup per key of the batch (``route_by``), to the channels
the writer's partitioner would have sent them to, in the same order. Nothing is buffered between batches, so
barriers and watermarks follow exactly the data emitted before them.

Threading model: the producing subtask's mailbox thread (its record writer's).
"""
from __future__ import annotations

import itertools
import operator

from engine.runtime.io.events import TimestampedBatch
from engine.runtime.operators.windows.partials import BatchPartials

_ADD = {"sum": operator.add, "count": operator.add, "min": min, "max": max}
_time = operator.itemgetter(0)


class SessionPartials(BatchPartials):
    """Merges the batches a subtask emits into a session window's partial sessions (``combine``)."""

    def __init__(self, window_node: dict, key_source: str):
        super().__init__(window_node, key_source)
        self.gap = int(self.params["gap_ms"])
        self.merged_batches = 0
        """Batches sent as merged sessions (the rest went one partial per record)."""
        self._channels = 1
        self._channels_of = None
        """The hash edge's channels and its key -> channel lookup when routing (``route_by``)."""

    def route_by(self, partitioner) -> bool:
        """Route the partials to the channels of a hash edge of several (``partitioner``) while they are
        made: ``fold`` then returns ``[(channel, partials), ...]``, which the writer buffers as they are
        (``RecordWriter.pre_aggregate_with``). True when it will; False for one channel or another
        partitioner. Why: a batch's records were grouped per key here anyway, so each group's channel is
        one lookup, where the writer's partitioner evaluated the key of every partial and split the batch
        and its event times in two more passes -- the largest cost parallelism 2 added to the session
        job's source subtasks (``docs/performance.md``, "Where the session job's second core went")."""
        channels_of = getattr(partitioner, "channels_of", None)
        if channels_of is None or partitioner.number_of_channels < 2:
            return False
        self._channels_of = channels_of
        self._channels = partitioner.number_of_channels
        return True

    def fold(self, keys: list, values: list | None, stamps: list, values_are_ints: bool = False):
        """The partial sessions of records given as columns: keys, values (None for a count) and
        event times; ``values_are_ints`` when the caller knows every value is an int. A
        :class:`TimestampedBatch`, or routed (``route_by``) a list of ``(channel, TimestampedBatch)``."""
        gap = self.gap
        if (not self.merging or min(stamps) + gap - 1 <= self.watermark
                or (values is not None and not values_are_ints and not set(map(type, values)) <= {int})):
            return self._one_per_record(keys, values, stamps)
        groups: dict = {}
        get = groups.get
        for k, v, t in zip(keys, values if values is not None else itertools.repeat(1), stamps):
            items = get(k)
            if items is None:
                groups[k] = [(t, v)]
            else:
                items.append((t, v))
        add = _ADD[self.function]
        n = self._channels
        outputs = [TimestampedBatch() for _ in range(n)]
        appends = [output.append for output in outputs]
        marks = [output.timestamps.append for output in outputs]
        channels = self._channels_of(list(groups)) if n > 1 else itertools.repeat(0)
        for (k, items), channel in zip(groups.items(), channels):
            append, mark = appends[channel], marks[channel]
            if len(items) == 1:
                ((t, v),) = items
                append([k, t, t + gap, v, 1])
                mark(t)
                continue
            items.sort(key=_time)
            start, acc = items[0]
            end, records = start + gap, 1
            for t, v in itertools.islice(items, 1, None):
                if t <= end:  # [t, t + gap) touches [start, end): t >= start, sorted
                    acc = add(acc, v)
                    records += 1
                    if t + gap > end:
                        end = t + gap
                else:
                    append([k, start, end, acc, records])
                    mark(start)
                    start, end, acc, records = t, t + gap, v, 1
            append([k, start, end, acc, records])
            mark(start)
        self.merged_batches += 1
        if n == 1:
            return outputs[0]
        return [(channel, output) for channel, output in enumerate(outputs) if output]

    def _one_per_record(self, keys, values, stamps) -> TimestampedBatch:
        gap = self.gap
        values = values if values is not None else itertools.repeat(1)
        return TimestampedBatch([[k, t, t + gap, v, 1] for k, v, t in zip(keys, values, stamps)], list(stamps))
