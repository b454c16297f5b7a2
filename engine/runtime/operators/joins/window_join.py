"""``join.window``: records of two inputs with equal keys that fall into the same event-time
window (the base and its state, timers and lateness: ``two_input``)."""
from __future__ import annotations

from heapq import heappush

from engine.runtime.operators.emit_delay import EmitDelays
from engine.runtime.operators.joins.two_input import LEFT, RIGHT, TwoInputOperator

FIRE, CLEAN = 0, 1
"""The window join's timer kinds: emit a window's pairs; forget a fired window kept for late records."""


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
        self.emit_delays = EmitDelays()
        """How long after their windows' ends (on the clock) the joined pairs left (``emit_delay``)."""
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
        self.emit_delays.observe(stamps)
        self._emit(records, stamps)
