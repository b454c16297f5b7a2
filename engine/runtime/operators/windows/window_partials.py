"""Local aggregation in front of a keyed window: partial aggregates cross the exchange, not records.

Flink SQL's local-global aggregation, for ``window.tumbling`` and ``window.sliding``: the
subtask that feeds a window over a hash edge folds each batch it emits per (key, window
end) first, and sends one partial aggregate per group instead of the records; the window
folds partials into its state as it folded records. A batch of a thousand events of a
few hundred keys crosses the exchange as a few hundred small lists instead of a
thousand records: at parallelism 2 a record that moves to the other process no longer
costs a pickle and an unpickle of the whole record (about as much as decoding it), and
the window makes one state update per key and window per batch instead of one per record.

What crosses the edge is a :class:`TimestampedBatch` of ``[key, window end, partial,
records]`` lists (msgpack packs lists, not tuples: ``engine.runtime.io.wire``), each stamped
``end - 1``; it is routed by ``key`` (the expression ``x[0]``: the same key, so the same key
group and subtask as the record's). The window decides lateness per partial as it did per
record -- all records of a partial share its window -- and counts a late partial's
``records``.

Partials are held across batches until their window can fire (issue #39): each batch had
its own partial of nearly every key and window in it (bench-events: ~195 partials of 200
users a batch of ~770 records, for 10 s windows that span ~13 batches), so a key's window
crossed as a dozen partials where one would do -- each one built, partitioned, buffered,
at parallelism 2 encoded, sent and decoded, and folded into the window. Now a batch whose
records may be held (below) is folded into the partials held per window and key
(``fold``), and the held partials of a window leave in front of the first watermark that
lets it fire (``note_event``: the window only reads them at that watermark, so holding
them delays no result); all of them before any other event (a barrier: a checkpoint's
partials are exactly the records before it, none are ever in a snapshot; the end of
input, an idle status) and when more than ``HELD_LIMIT`` groups are held.

Exactness: a partial is the left fold of its records' values in their order, and count,
min and max (ties keep the first, as ``min``/``max`` do) fold associatively, so the
window's result is the one folding record by record gives. A sum is combined only over
integers (exact); a batch with another value type (floats, whose sums round by order)
sends one partial per record, in order.

Held partials arrive later than their records would have, behind the watermarks the
subtask sent meanwhile; that is exact only for records no such watermark makes late. A
batch is held when every window of its records ends after the last watermark this subtask
sent over the edge (``end - 1 >`` it; the window's own watermark is never above that one),
while this subtask never went idle (``BatchPartials.merging``), and when its fold is
order-free (a count, or a sum, min or max of values that are all exact ``int``). Any
other batch first sends every held partial, then its own, in order: nothing overtakes a
partial that did not wait.

Session windows (``window.session``) get partial sessions the same way
(``session_partials``: what may merge there is narrower). Used when the edge is a hash edge
with a key into a window at the head of a vertex that
has no other input, no allowed lateness and no edge leaving the window's ``late`` port, in streaming mode (batch mode sorts records by the edge key), unless
the job's configuration says ``"local_aggregation": false``.
"""
from __future__ import annotations

import itertools
import operator
from collections import Counter

from engine.runtime.io.events import TimestampedBatch, Watermark
from engine.runtime.operators.windows.partials import BatchPartials
from engine.runtime.operators.windows.session_partials import SessionPartials

PARTIAL_KEY = "x[0]"
"""The key of a partial: the edge's key expression, evaluated before the exchange."""
WINDOW_TYPES = ("window.tumbling", "window.sliding", "window.session")
FUNCTIONS = ("sum", "count", "min", "max")
_MISSING = object()
HELD_LIMIT = 4096
"""Held partials (keys times open windows) past which a subtask sends them all (``fold``)."""
_ADD = {"sum": operator.add, "count": operator.add, "min": min, "max": max}


def pre_aggregated_window(edge, target_vertex, job_graph, config: dict) -> dict | None:
    """The window node that ``edge`` feeds partial aggregates to, or None when it carries records."""
    if config.get("mode") == "batch" or config.get("local_aggregation", True) is False:
        return None
    if edge.partitioning != "hash" or not edge.key or job_graph.mode == "batch":
        return None
    head = target_vertex.operators[0]
    params = head.get("params") or {}
    if head["id"] != edge.target_node or head.get("type") not in WINDOW_TYPES \
            or params.get("function", "sum") not in FUNCTIONS:
        return None
    if len(job_graph.inputs_of(target_vertex.id)) != 1:
        return None
    if params.get("allowed_lateness_ms"):
        return None  # late records update fired windows one by one (window.py)
    if any(out.source_node == head["id"] and out.source_port is not None
           for out in job_graph.outputs_of(target_vertex.id)):
        return None  # its late records leave through a port: they must arrive as records
    return head


def partials_for(window_node: dict, key_source: str):
    """What folds the batches sent over an edge into ``window_node``'s partials (``pre_aggregated_window``)."""
    if window_node["type"] == "window.session":
        return SessionPartials(window_node, key_source)
    return WindowPartials(window_node, key_source)


class WindowPartials(BatchPartials):
    """Folds the batches a subtask emits into a window's partial aggregates (``combine``: in the order
    their groups first occur)."""

    def __init__(self, window_node: dict, key_source: str):
        super().__init__(window_node, key_source)
        self.size = int(self.params["size_ms"])
        self.slide = (int(self.params.get("slide_ms", self.size)) if window_node["type"] == "window.sliding"
                      else self.size)
        self._held: dict = {}
        """window end -> {key: [key, end, partial, records]}: the partials not sent yet."""
        self._held_groups = 0
        self.released = 0
        """Partials sent that had been held (``fold``)."""

    def note_event(self, event):
        """An event the writer sends over the edge; returns the held partials to send before it
        (a watermark: those of the windows it lets fire; any other event: all), None for none."""
        super().note_event(event)
        if not self._held:
            return None
        return self.release(event.timestamp if type(event) is Watermark else None)

    def release(self, watermark: int | None = None) -> TimestampedBatch | None:
        """The held partials of the windows that ``watermark`` lets fire (all with None), oldest
        window first, each window's in the order its keys first came; None when there are none."""
        held = self._held
        ends = sorted(held) if watermark is None else sorted(end for end in held if end - 1 <= watermark)
        if not ends:
            return None
        partials: list = []
        marks: list = []
        for end in ends:
            group = held.pop(end)
            partials += group.values()
            marks += [end - 1] * len(group)
        self._held_groups -= len(partials)
        self.released += len(partials)
        return TimestampedBatch(partials, marks)

    def fold(self, keys: list, values: list | None, stamps: list, values_are_ints: bool = False) -> TimestampedBatch:
        """The partial aggregates of records given as columns: their keys, values (None for a count)
        and event times; ``values_are_ints`` when the caller knows every value is an int
        (``engine.runtime.json_fields``, whose decoder refuses anything else)."""
        ints = values is None or values_are_ints or set(map(type, values)) <= {int}
        first, last = min(stamps), max(stamps)
        if ints and self.merging and first - first % self.slide + self.slide - 1 > self.watermark:
            self._hold(keys, values, stamps, first, last)
            return self.release() if self._held_groups > HELD_LIMIT else TimestampedBatch()
        partials = self._fold_batch(keys, values, stamps, first, last, ints)
        held = self.release()
        if held is None:
            return partials
        return TimestampedBatch(held + partials, held.timestamps + partials.timestamps)

    def _fold_batch(self, keys, values, stamps, first: int, last: int, ints: bool) -> TimestampedBatch:
        """The partials of one batch, sent at once."""
        if self.function == "sum" and not ints:
            return self._one_per_record(keys, values, stamps)
        end = first - first % self.size + self.size
        if self.size == self.slide and last < end:  # the common case: the whole batch in one window
            return self._one_window(keys, values, end)
        groups = self._fold_tumbling(keys, values, stamps) if self.size == self.slide \
            else self._fold(keys, values, stamps)
        partials = [[k, end, acc[0], acc[1]] for (k, end), acc in groups.items()]
        return TimestampedBatch(partials, [partial[1] - 1 for partial in partials])

    def _hold(self, keys, values, stamps, first: int, last: int) -> None:
        """Fold a batch into the held partials (values all ints, or None for a count)."""
        held = self._held
        end = first - first % self.size + self.size
        if self.size == self.slide and last < end:  # the common case: the whole batch in one window
            group = held.get(end)
            if group is None:
                group = held[end] = {}
            before = len(group)
            get = group.get
            if values is None:
                for k in keys:
                    partial = get(k)
                    if partial is None:
                        group[k] = [k, end, 1, 1]
                    else:
                        partial[2] += 1
                        partial[3] += 1
            elif self.function == "sum":
                for k, v in zip(keys, values):
                    partial = get(k)
                    if partial is None:
                        group[k] = [k, end, v, 1]
                    else:
                        partial[2] += v
                        partial[3] += 1
            else:
                self._hold_into(group, keys, values, end)
            self._held_groups += len(group) - before
            return
        add = _ADD[self.function]
        for k, v, timestamp in zip(keys, values if values is not None else itertools.repeat(1), stamps):
            for end in self._ends(timestamp):
                group = held.get(end)
                if group is None:
                    group = held[end] = {}
                partial = group.get(k)
                if partial is None:
                    group[k] = [k, end, v, 1]
                    self._held_groups += 1
                else:
                    partial[2] = add(partial[2], v)
                    partial[3] += 1

    def _hold_into(self, group: dict, keys, values, end: int) -> None:
        """``_hold`` of a min or max into one window's ``group``."""
        choose = _ADD[self.function]
        get = group.get
        for k, v in zip(keys, values):
            partial = get(k)
            if partial is None:
                group[k] = [k, end, v, 1]
            else:
                partial[2] = choose(partial[2], v)
                partial[3] += 1

    def _one_window(self, keys, values, end: int) -> TimestampedBatch:
        if self.function == "sum":
            return self._one_window_sum(keys, values, end)
        counts = Counter(keys)
        if values is None:
            partials = [[k, end, n, n] for k, n in counts.items()]
        else:
            folded: dict = {}
            get = folded.get
            choose = min if self.function == "min" else max
            missing = _MISSING
            for k, v in zip(keys, values):
                current = get(k, missing)
                folded[k] = v if current is missing else choose(current, v)
            partials = [[k, end, a, counts[k]] for k, a in folded.items()]
        return TimestampedBatch(partials, [end - 1] * len(partials))

    @staticmethod
    def _one_window_sum(keys, values, end: int) -> TimestampedBatch:
        """``_one_window`` of a sum (integers only: combine checked) in one pass, sum and count
        together: counting the keys apart (``Counter``) was a second pass over the batch, a fifth
        of this step's time on bench-events' batches (1,024 events of 200 users)."""
        folded: dict = {}
        get = folded.get
        for k, v in zip(keys, values):
            acc = get(k)
            if acc is None:
                folded[k] = [v, 1]
            else:
                acc[0] += v
                acc[1] += 1
        partials = [[k, end, total, records] for k, (total, records) in folded.items()]
        return TimestampedBatch(partials, [end - 1] * len(partials))

    def _ends(self, timestamp: int):
        """The ends of the windows holding ``timestamp``, newest first (as the window takes them)."""
        return range(timestamp - timestamp % self.slide + self.size, timestamp, -self.slide)

    def _fold(self, keys, values, stamps) -> dict:
        """``{(key, end): [partial, records]}`` in first-occurrence order (count: values None)."""
        groups: dict = {}
        get = groups.get
        add = _ADD[self.function]
        for k, v, timestamp in zip(keys, values if values is not None else itertools.repeat(1), stamps):
            for end in self._ends(timestamp):
                acc = get((k, end))
                if acc is None:
                    groups[(k, end)] = [v, 1]
                else:
                    acc[0] = add(acc[0], v)
                    acc[1] += 1
        return groups

    def _fold_tumbling(self, keys, values, stamps) -> dict:
        """``_fold`` for tumbling windows: one window per record, its end computed inline rather
        than a range of ends built per record (about a fifth of bench-events' batches straddle
        a window's end)."""
        size = self.size
        groups: dict = {}
        get = groups.get
        add = _ADD[self.function]
        for k, v, timestamp in zip(keys, values if values is not None else itertools.repeat(1), stamps):
            group = (k, timestamp - timestamp % size + size)
            acc = get(group)
            if acc is None:
                groups[group] = [v, 1]
            else:
                acc[0] = add(acc[0], v)
                acc[1] += 1
        return groups

    def _one_per_record(self, keys, values, stamps) -> TimestampedBatch:
        partials, marks = [], []
        for k, v, timestamp in zip(keys, values, stamps):
            for end in self._ends(timestamp):
                partials.append([k, end, v, 1])
                marks.append(end - 1)
        return TimestampedBatch(partials, marks)
