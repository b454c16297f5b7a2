"""``join.interval`` and ``join.window``: keyed event-time joins of two inputs.

Two inputs
    Each side arrives over its own hash edge (``"side": "left" | "right"``) with its own key
    expression; the task hands a side's batches to ``process_left`` / ``process_right``
    (``engine.runtime.io.stream_input.NetworkInput`` dispatches by channel), and computes a
    batch's keys with that side's key expression in one comprehension. Records of both
    sides with equal keys land in the same key group, so in the same subtask and, after a
    restore at another parallelism, in the same subtask again.

State and timers
    Each side buffers its records in keyed :class:`~engine.runtime.state.keyed_state.BucketState`,
    ``key -> {bucket: [records]}``: the bucket is the record's event time (interval join)
    or its window's end (window join). An event-time timer per (key, side, bucket) removes
    the bucket when no record that could still join it can arrive. Timers are derived from
    the buckets, so they are rebuilt on restore and need no snapshot of their own; the
    interval join's left outer mode also keeps which left buckets matched (the window join's
    decides from its window's members, which are all there when it fires).

Event time and lateness
    The watermark is the minimum over both inputs (the input gate's valve). A record is
    late when its time is at or below ``watermark - allowed_lateness_ms``; late records
    join nothing and are counted (``late_records``). ``allowed_lateness_ms`` keeps state
    that much longer, so a record up to that far behind still finds its partners.

Batch mode
    Both inputs arrive sorted together by key (tagged with their side), event time does not
    advance while they do, so nothing is late and every bucket lives until ``finish_keys``,
    which fires every timer: the result is the one streaming mode gives without late data.
"""
from __future__ import annotations

from heapq import heappop, heappush

from engine.runtime.io.events import MAX_WATERMARK, TimestampedBatch
from engine.runtime.operators.base import StreamOperator
from engine.spec.expressions import compile_expression
from engine.spec.join_catalog import INPUT_SIDES, JOIN_NAMES

_NO_WATERMARK = -(2**63)
LEFT, RIGHT = 0, 1
"""Side tags: in timer namespaces ``(side, bucket)`` and in batch mode's sorted records ``(side, record)``."""
FIRE, CLEAN = 0, 1
"""The window join's timer kinds: emit a window's pairs; forget a fired window kept for late records."""
LATE_PORTS = ("late_left", "late_right")
"""The output ports late records of each side leave through (``engine.spec.join_catalog``)."""


class TwoInputOperator(StreamOperator):
    """Base of the joins: per-side keys, the output expression, watermark and timer bookkeeping."""

    input_sides = INPUT_SIDES
    """The task dispatches a channel's batches by its edge's side to ``process_<side>``."""

    def __init__(self, node, context):
        super().__init__(node, context)
        keys = context.side_key_functions or {}
        missing = [side for side in INPUT_SIDES if side not in keys]
        if missing:
            raise ValueError(f"'{self.node_id}' needs a hash edge with a key on its {' and '.join(missing)} input")
        self.left_keys_of = keys["left"]
        self.right_keys_of = keys["right"]
        self.output = compile_expression(self.params.get("output") or "[left, right]", JOIN_NAMES).function
        self.outer = self.params.get("join_type", "inner") == "left_outer"
        """Left outer: a left record that joins nothing leaves once, with ``right = None``."""
        self.lateness = int(self.params.get("allowed_lateness_ms") or 0)
        self.watermark = _NO_WATERMARK
        self.late_records = 0
        self.timers: list = []
        """A heap of event-time timers ``(time, sequence, key, namespace)``, one per bucket.

        Not :class:`~engine.runtime.timer_service.EventTimeTimers`: a join registers a timer
        for nearly every record (every new event time is a new bucket), and a plain tuple
        pushed inline costs a fifth of a registration with de-duplication and key wrappers.
        A bucket is new exactly once, so no timer is registered twice; the unique sequence
        number keeps keys (which may not be comparable) out of the heap's comparisons."""
        self.sequence = 0
        self._due = False
        """A timer at or below the watermark was registered: fire after this batch, not at the next watermark."""

    def _timed(self, batch) -> TimestampedBatch:
        if type(batch) is not TimestampedBatch:
            raise ValueError(f"'{self.node_id}' needs event time on both inputs: put a watermark operator upstream")
        return batch

    def process_batch(self, batch):
        """Batch mode: ``(side, record)`` pairs of both inputs, sorted by key (``SortingInput``)."""
        batch = self._timed(batch)
        sides = {LEFT: ([], []), RIGHT: ([], [])}
        for (side, record), stamp in zip(batch, batch.timestamps):
            records, stamps = sides[side]
            records.append(record)
            stamps.append(stamp)
        if sides[LEFT][0]:
            self.process_left(TimestampedBatch(*sides[LEFT]))
        if sides[RIGHT][0]:
            self.process_right(TimestampedBatch(*sides[RIGHT]))

    def process_left(self, batch):
        raise NotImplementedError(f"{type(self).__name__}.process_left() must be overridden")

    def process_right(self, batch):
        raise NotImplementedError(f"{type(self).__name__}.process_right() must be overridden")

    def _rebuild_timers(self, state, timer_of, namespace_of=lambda bucket: bucket) -> None:
        """After a restore: one timer per bucket of ``state``, at ``timer_of(bucket)``."""
        for key, buckets in state.entries.items():
            for bucket in buckets:
                self.sequence += 1
                heappush(self.timers, (timer_of(bucket), self.sequence, key, namespace_of(bucket)))

    def _fire_due(self) -> None:
        if self._due:
            self._due = False
            self._fire(self.watermark)

    def process_watermark(self, watermark):
        if watermark.timestamp <= self.watermark:
            return
        self.watermark = watermark.timestamp
        self._due = False
        self._fire(watermark.timestamp)
        self.emit_watermark(watermark)

    def finish_keys(self):
        """Batch mode: every record of the keys seen so far is here; fire all their timers."""
        self._fire(MAX_WATERMARK.timestamp)

    def _fire(self, up_to: int) -> None:
        timers = self.timers
        fired = []
        while timers and timers[0][0] <= up_to:
            fired.append(heappop(timers))
        if fired:
            self._on_timers(fired)

    def _on_timers(self, fired: list) -> None:
        """``fired``: the due ``(time, sequence, key, namespace)`` timers, oldest first."""
        raise NotImplementedError(f"{type(self).__name__}._on_timers() must be overridden")

    def _late(self, side: int, records: list, stamps: list) -> None:
        """Count late records of ``side``; send them (unchanged, with their event times) to its late
        port when an edge leaves it."""
        self.late_records += len(records)
        port = self.side_outputs.get(LATE_PORTS[side])
        if port is not None:
            port(TimestampedBatch(records, stamps))

    def _emit(self, records: list, stamps: list) -> None:
        if records:
            self.emit(TimestampedBatch(records, stamps))

    def metrics(self):
        return {"late_records": self.late_records}


class IntervalJoinOperator(TwoInputOperator):
    """Joins left record l and right record r of one key when ``l.t + lower <= r.t <= l.t + upper``.

    A pair leaves when the later of its two records arrives (stamped with the later time).
    Bucket lifetimes: a left bucket at time t can match rights up to ``t + upper``, so it
    goes when the watermark passes ``t + upper + lateness`` -- then, in left outer mode,
    its records leave with ``right = None`` unless one of them matched (all records of a
    bucket share their interval, so matching is per bucket). A right bucket at time t can
    match lefts from ``t - upper`` to ``t - lower`` and goes at ``t - lower + lateness``.
    """

    def __init__(self, node, context):
        super().__init__(node, context)
        self.lower = int(self.params["lower_ms"])
        self.upper = int(self.params["upper_ms"])
        if self.upper < self.lower:
            raise ValueError(f"'{self.node_id}': upper_ms {self.upper} is below lower_ms {self.lower}")
        self.width = self.upper - self.lower + 1
        self.left = self.right = self.matched = None

    def initialize_state(self):
        state = self.context.keyed_state()
        self.left = state.bucket_state("left")
        self.right = state.bucket_state("right")
        self.matched = state.map_state("matched")  # key -> {left time: True}, left outer only
        self._rebuild_timers(self.left, lambda t: t + self.upper + self.lateness, lambda t: (LEFT, t))
        self._rebuild_timers(self.right, lambda t: t - self.lower + self.lateness, lambda t: (RIGHT, t))

    def process_left(self, batch):
        self._join(self._timed(batch), LEFT)

    def process_right(self, batch):
        self._join(self._timed(batch), RIGHT)

    def _join(self, batch, side: int) -> None:
        """Match each record of ``side`` against the other side's buckets in its interval, then buffer it.

        For a left record at t the right partners lie in [t + lower, t + upper]; for a right
        record at t the left ones in [t - upper, t - lower]. Both loops are one: only the
        offsets, the argument order of the output and who marks matches differ."""
        if side == LEFT:
            keys, mine, others = self.left_keys_of(batch), self.left.entries, self.right.entries
            low_offset, high_offset, expires_after = self.lower, self.upper, self.upper
        else:
            keys, mine, others = self.right_keys_of(batch), self.right.entries, self.left.entries
            low_offset, high_offset, expires_after = -self.upper, -self.lower, -self.lower
        width, lateness, watermark = self.width, self.lateness, self.watermark
        late_bound = watermark - lateness
        expires_after += lateness
        output, timers, sequence = self.output, self.timers, self.sequence
        matched = self.matched.entries if self.outer else None
        records, stamps = [], []
        late_records, late_stamps = [], []
        for k, x, t in zip(keys, batch, batch.timestamps):
            if t <= late_bound:
                late_records.append(x)
                late_stamps.append(t)
                continue
            buckets = others.get(k)
            hit = False
            if buckets:
                low, high = t + low_offset, t + high_offset
                for other_t in (buckets if len(buckets) <= width else range(low, high + 1)):
                    if low <= other_t <= high:
                        partners = buckets.get(other_t)
                        if not partners:
                            continue
                        hit = True
                        stamp = t if t > other_t else other_t
                        if side == LEFT:
                            for y in partners:
                                records.append(output(x, y))
                                stamps.append(stamp)
                        else:
                            for y in partners:
                                records.append(output(y, x))
                                stamps.append(stamp)
                            if matched is not None:
                                flags = matched.get(k)
                                if flags is None:
                                    matched[k] = {other_t: True}
                                else:
                                    flags[other_t] = True
            own = mine.get(k)
            if own is None:
                mine[k] = {t: [x]}
            elif t in own:
                own[t].append(x)
                if hit and matched is not None and side == LEFT:
                    matched.setdefault(k, {})[t] = True
                continue
            else:
                own[t] = [x]
            sequence += 1
            expires = t + expires_after
            heappush(timers, (expires, sequence, k, (side, t)))
            if expires <= watermark:
                self._due = True
            if hit and matched is not None and side == LEFT:
                matched.setdefault(k, {})[t] = True
        self.sequence = sequence
        self._emit(records, stamps)
        if late_records:
            self._late(side, late_records, late_stamps)
        self._fire_due()

    def _on_timers(self, fired: list) -> None:
        records, stamps = [], []
        output, matched, outer = self.output, self.matched.entries, self.outer
        sides = (self.left.entries, self.right.entries)
        for _, _, k, (side, t) in fired:
            entries = sides[side]
            buckets = entries.get(k)
            if buckets is None:
                continue
            lefts = buckets.pop(t, None)
            if not buckets:
                del entries[k]
            if side == RIGHT or not outer or lefts is None:
                continue
            flags = matched.get(k)
            if flags is not None and flags.pop(t, None):
                if not flags:
                    del matched[k]
                continue
            records.extend([output(x, None) for x in lefts])
            stamps.extend([t] * len(lefts))
        self._emit(records, stamps)


class WindowJoinOperator(TwoInputOperator):
    """Joins the left and right records of one key that fall into the same event-time window.

    A record belongs to the windows ``[end - size, end)`` containing its time: one for
    tumbling windows, ``size / slide`` for sliding ones. When the watermark passes
    ``end - 1`` the window emits every (left, right) pair of the key, stamped ``end - 1``.
    With allowed lateness (as the windows have it) the fired window keeps both sides until
    the watermark passes ``end - 1 + allowed_lateness_ms`` (keyed map state ``fired``, so a
    restored job knows it fired); a record for it meanwhile joins the other side's records
    at once -- only the new pairs leave, as pairs are never retracted. A record whose
    windows are all past that is late.

    Left outer: when a window fires without right records, each of its left records leaves
    with ``right = None`` (stamped ``end - 1``), once per window it belongs to; so does a left
    record that arrives for a fired window (allowed lateness) without right records. The
    decision needs only the window's members, which stay until it is cleaned, so no state of
    its own. A right record arriving later for that window still joins those lefts: a
    ``None`` row is not retracted either.

    Timers: ``(end - 1, ..., (FIRE, end))`` per key and window, and with lateness a
    ``(end - 1 + lateness, ..., (CLEAN, end))`` one; without lateness firing also cleans.
    """

    def __init__(self, node, context):
        super().__init__(node, context)
        self.size = int(self.params["size_ms"])
        self.slide = int(self.params.get("slide_ms") or self.size)
        if self.size <= 0 or self.slide <= 0:
            raise ValueError(f"'{self.node_id}': window size and slide must be positive")
        self.left = self.right = self.fired = None

    def initialize_state(self):
        state = self.context.keyed_state()
        self.left = state.bucket_state("left")
        self.right = state.bucket_state("right")
        self.fired = state.map_state("fired")  # key -> {end: True} for fired windows kept for late records
        windows = {(k, end) for side in (self.left, self.right) for k, buckets in side.entries.items()
                   for end in buckets}
        fired = self.fired.entries
        for k, end in windows:
            if end not in fired.get(k, ()):
                self._push(end - 1, k, (FIRE, end))
            if self.lateness:
                self._push(end - 1 + self.lateness, k, (CLEAN, end))

    def _push(self, time: int, key, namespace) -> None:
        self.sequence += 1
        heappush(self.timers, (time, self.sequence, key, namespace))

    def process_left(self, batch):
        self._assign(self._timed(batch), LEFT)

    def process_right(self, batch):
        self._assign(self._timed(batch), RIGHT)

    def _assign(self, batch, side: int) -> None:
        """Buffer each record in its windows; a window new to both sides gets its timers; a record
        for a fired window (allowed lateness) joins the other side at once."""
        if side == LEFT:
            keys, mine, others = self.left_keys_of(batch), self.left.entries, self.right.entries
        else:
            keys, mine, others = self.right_keys_of(batch), self.right.entries, self.left.entries
        size, slide, lateness = self.size, self.slide, self.lateness
        watermark, timers, sequence = self.watermark, self.timers, self.sequence
        fired, output, outer = self.fired.entries, self.output, self.outer and side == LEFT
        records, stamps = [], []
        late_records, late_stamps = [], []
        for k, x, t in zip(keys, batch, batch.timestamps):
            accepted = False
            own = None
            for end in range(t - t % slide + size, t, -slide):  # the ends of t's windows, newest first
                if end - 1 + lateness <= watermark:
                    continue
                accepted = True
                if own is None:
                    own = mine.get(k)
                    if own is None:
                        own = mine[k] = {}
                window = own.get(end)
                if window is None:
                    window = own[end] = []
                    other = others.get(k)
                    if other is None or end not in other:  # a new window: its timers
                        sequence += 1
                        heappush(timers, (end - 1, sequence, k, (FIRE, end)))
                        if end - 1 <= watermark:  # within the lateness, but nothing came before: fire now
                            self._due = True
                        if lateness:
                            sequence += 1
                            heappush(timers, (end - 1 + lateness, sequence, k, (CLEAN, end)))
                window.append(x)
                if lateness and end in fired.get(k, ()):  # fired already: join the other side now
                    partners = others.get(k, {}).get(end, ())
                    for y in partners:
                        records.append(output(x, y) if side == LEFT else output(y, x))
                    stamps.extend([end - 1] * len(partners))
                    if outer and not partners:
                        records.append(output(x, None))
                        stamps.append(end - 1)
            if not accepted:
                late_records.append(x)
                late_stamps.append(t)
        self.sequence = sequence
        self._emit(records, stamps)
        if late_records:
            self._late(side, late_records, late_stamps)
        self._fire_due()

    def _on_timers(self, fired_timers: list) -> None:
        records, stamps = [], []
        output, lateness, fired, outer = self.output, self.lateness, self.fired.entries, self.outer
        lefts_of, rights_of = self.left.entries, self.right.entries
        for _, _, k, (what, end) in fired_timers:
            if what == FIRE:
                lefts = lefts_of.get(k, {}).get(end)
                rights = rights_of.get(k, {}).get(end)
                if lefts and rights:
                    records.extend([output(x, y) for x in lefts for y in rights])
                    stamps.extend([end - 1] * (len(lefts) * len(rights)))
                elif lefts and outer:
                    records.extend([output(x, None) for x in lefts])
                    stamps.extend([end - 1] * len(lefts))
                if lateness:
                    fired.setdefault(k, {})[end] = True
                    continue
            elif k in fired:
                fired[k].pop(end, None)
                if not fired[k]:
                    del fired[k]
            self.left.pop(k, end)
            self.right.pop(k, end)
        self._emit(records, stamps)
