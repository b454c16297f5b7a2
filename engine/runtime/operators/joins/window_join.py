"""``join.window``: records of two inputs with equal keys that fall into the same event-time
window (the base, its lateness and batch mode: ``two_input``; the state's layout below)."""
from __future__ import annotations

from heapq import heappop, heappush

from engine.runtime.operators.emit_delay import EmitDelays
from engine.runtime.operators.joins.two_input import LEFT, RIGHT, TwoInputOperator
from engine.runtime.state.keyed_state import KeyedState

FIRE, CLEAN = 0, 1
"""The window join's timer kinds: emit a window's pairs; forget a fired window kept for late records."""


class WindowJoinOperator(TwoInputOperator):
    """Joins the left and right records of one key that fall into the same event-time window.

    A record belongs to the windows ``[end - size, end)`` containing its time: one for
    tumbling windows, ``size / slide`` for sliding ones. When the watermark passes
    ``end - 1`` the window emits every (left, right) pair of the key, stamped ``end - 1``.
    With allowed lateness (as the windows have it) the fired window keeps both sides until
    the watermark passes ``end - 1 + allowed_lateness_ms`` (so a restored job knows it
    fired, the snapshot's keyed map state ``fired`` says so per key); a record for it
    meanwhile joins the other side's records at once -- only the new pairs leave, as pairs
    are never retracted. A record whose windows are all past that is late.

    Left outer: when a window fires without right records, each of its left records leaves
    with ``right = None`` (stamped ``end - 1``), once per window it belongs to; so does a left
    record that arrives for a fired window (allowed lateness) without right records. The
    decision needs only the window's members, which stay until it is cleaned, so no state of
    its own. A right record arriving later for that window still joins those lefts: a
    ``None`` row is not retracted either.

    State per window end, not per key: every key's windows are aligned, so the records wait
    in ``pending[end] = ({key: [lefts]}, {key: [rights]})`` and, with lateness, a fired
    window's in ``kept[end]``, alike. The timers are a heap of ``(time, kind, end)``, one
    ``(end - 1, FIRE, end)`` per pending window end and one ``(end - 1 + lateness, CLEAN,
    end)`` per kept one, whatever the keys: a record's assignment is two dict lookups and an
    append, and the state held while the watermark lags (the slower input's) costs no heap
    entry per key. A checkpoint writes the per-key layout the state browser reads
    (``left``/``right``: ``key -> {end: [records]}``; ``fired``: ``key -> {end: True}``), and
    a restore reads it back; a key's window is kept or pending as its ``fired`` says, so key
    groups of subtasks that had fired different windows merge on rescaling. A key is in at
    most one of ``pending[end]`` and ``kept[end]``.
    """

    def __init__(self, node, context):
        super().__init__(node, context)
        self.emit_delays = EmitDelays()
        """How long after their windows' ends (on the clock) the joined pairs left (``emit_delay``)."""
        self.size = int(self.params["size_ms"])
        self.slide = int(self.params.get("slide_ms") or self.size)
        if self.size <= 0 or self.slide <= 0:
            raise ValueError(f"'{self.node_id}': window size and slide must be positive")
        self.pending: dict[int, tuple[dict, dict]] = {}
        """end -> ({key: [left records]}, {key: [right records]}) of the windows not fired yet."""
        self.kept: dict[int, tuple[dict, dict]] = {}
        """The same for fired windows kept for late records (allowed lateness only)."""
        self.left = self.right = self.fired = None

    def initialize_state(self):
        state = self.context.keyed_state()
        self.left = state.register(_WindowJoinSide("left", lambda: self._per_key(LEFT)))
        self.right = state.register(_WindowJoinSide("right", lambda: self._per_key(RIGHT)))
        self.fired = state.register(_WindowJoinSide("fired", self._fired_per_key))
        fired = self.fired.entries
        for side, restored in ((LEFT, self.left.entries), (RIGHT, self.right.entries)):
            for k, buckets in restored.items():
                ends_fired = fired.get(k, ())
                for end, records in buckets.items():
                    windows = self.kept if end in ends_fired else self.pending
                    window = windows.get(end)
                    if window is None:
                        window = windows[end] = ({}, {})
                        if windows is self.pending:
                            heappush(self.timers, (end - 1, FIRE, end))
                        else:
                            heappush(self.timers, (end - 1 + self.lateness, CLEAN, end))
                    window[side].setdefault(k, []).extend(records)
        for restored in (self.left, self.right, self.fired):
            restored.entries = {}

    def _per_key(self, side: int) -> dict:
        """``side``'s records as the snapshot keeps them: ``key -> {end: [records]}`` (copied lists)."""
        result: dict = {}
        for windows in (self.pending, self.kept):
            for end, window in windows.items():
                for k, records in window[side].items():
                    buckets = result.get(k)
                    if buckets is None:
                        result[k] = {end: list(records)}
                    else:
                        buckets[end] = list(records)
        return result

    def _fired_per_key(self) -> dict:
        """``key -> {end: True}`` for every key of a kept (fired) window."""
        result: dict = {}
        for end, (lefts, rights) in self.kept.items():
            for k in (*lefts, *rights):
                flags = result.get(k)
                if flags is None:
                    result[k] = {end: True}
                else:
                    flags[end] = True
        return result

    def process_left(self, batch):
        self._assign(self._timed(batch), LEFT)

    def process_right(self, batch):
        self._assign(self._timed(batch), RIGHT)

    def _assign(self, batch, side: int) -> None:
        """Buffer each record in its windows; a window end new to every key gets its timer; a
        record of a key whose window fired (allowed lateness) joins the other side at once."""
        keys = self.left_keys_of(batch) if side == LEFT else self.right_keys_of(batch)
        size, slide, lateness = self.size, self.slide, self.lateness
        watermark, timers, pending, kept = self.watermark, self.timers, self.pending, self.kept
        accepted_above = watermark + 1 - lateness  # a window ending at or below this is past its lateness
        other = 1 - side
        records, stamps = [], []
        late_records, late_stamps = [], []
        for k, x, t in zip(keys, batch, batch.timestamps):
            end = t - t % slide + size
            if end <= accepted_above:
                late_records.append(x)  # its newest window is past its lateness, so all are
                late_stamps.append(t)
                continue
            while end > t:  # t's window ends, newest first
                if end > accepted_above:
                    window = kept.get(end) if kept else None
                    if window is not None and (k in window[0] or k in window[1]):
                        own = window[side]  # this key's window fired: join the other side now
                        if k in own:
                            own[k].append(x)
                        else:
                            own[k] = [x]
                        partners = window[other].get(k, ())
                        for y in partners:
                            records.append(self.output(x, y) if side == LEFT else self.output(y, x))
                        stamps.extend([end - 1] * len(partners))
                        if not partners and self.outer and side == LEFT:
                            records.append(self.output(x, None))
                            stamps.append(end - 1)
                    else:
                        window = pending.get(end)
                        if window is None:
                            window = pending[end] = ({}, {})
                            heappush(timers, (end - 1, FIRE, end))
                            if end - 1 <= watermark:  # within the lateness, but nothing came before: fire now
                                self._due = True
                        own = window[side]
                        bucket = own.get(k)
                        if bucket is None:
                            own[k] = [x]
                        else:
                            bucket.append(x)
                end -= slide
        self._emit(records, stamps)
        if late_records:
            self._late(side, late_records, late_stamps)
        self._fire_due()

    def _fire(self, up_to: int) -> None:
        """Fire the pending windows ending at or below ``up_to + 1`` and clean the kept ones due, in
        time order."""
        timers, pending, kept = self.timers, self.pending, self.kept
        output, lateness, outer = self.output, self.lateness, self.outer
        records, stamps = [], []
        while timers and timers[0][0] <= up_to:
            _, what, end = heappop(timers)
            if what == CLEAN:
                kept.pop(end, None)
                continue
            window = pending.pop(end)
            lefts, rights = window
            stamp = end - 1
            before = len(records)
            if rights:
                for k, left_records in lefts.items():
                    right_records = rights.get(k)
                    if right_records is not None:
                        records.extend([output(x, y) for x in left_records for y in right_records])
                    elif outer:
                        records.extend([output(x, None) for x in left_records])
            elif outer:
                for left_records in lefts.values():
                    records.extend([output(x, None) for x in left_records])
            stamps.extend([stamp] * (len(records) - before))
            if lateness:
                fired = kept.get(end)
                if fired is None:
                    kept[end] = window
                    heappush(timers, (end - 1 + lateness, CLEAN, end))
                else:  # restored from subtasks that had fired different keys of this end
                    fired[0].update(lefts)
                    fired[1].update(rights)
        if records:
            self.emit_delays.observe(stamps)
            self._emit(records, stamps)

    def windows_held(self) -> int:
        """How many (key, window) pairs the join holds (pending and kept), for measurements."""
        return sum(len(set(lefts) | set(rights)) for windows in (self.pending, self.kept)
                   for lefts, rights in windows.values())


class _WindowJoinSide(KeyedState):
    """A keyed map state of the window join as a checkpoint writes and a restore reads it.

    The join keeps its records per window end (``WindowJoinOperator.pending``/``kept``); this
    state's ``copy_entries`` builds the per-key layout (``key -> {end: ...}``) from them at the
    checkpoint, and its ``entries`` hold what a restore brought until the join takes it over."""

    kind = "map"

    def __init__(self, name: str, per_key):
        super().__init__(name)
        self._per_key = per_key

    def copy_entries(self) -> dict:
        return self._per_key()
