"""``window.session``: keyed event-time session windows that merge, closed by a gap.

A record with event time t opens the window ``[t, t + gap)``. Windows of one key that
touch or overlap (``start <= other_end and end >= other_start``, Flink's
``TimeWindow.intersects``) merge into one session whose accumulator folds both. So a
session holds records that follow each other by at most ``gap`` ms, and ends ``gap`` ms
after its last record. When the watermark reaches ``end - 1`` the session emits
``[key, start, end, aggregate]`` (event time ``end - 1``) and its state is cleared.

State: keyed map state ``key -> {start: (end, accumulator)}``; the sessions of one key
never intersect each other, so a new record merges with those it intersects and with
no other (the merged range cannot reach a session the record did not touch: that one
would have intersected the one it merged with). Values are tuples, replaced and never
mutated, so the snapshot's one-level copy is a consistent copy.

Lookup: besides the map state, the operator keeps each key's session starts in a sorted list
(``_starts``, not checkpointed: rebuilt from the sessions on restore, so the state format is
unchanged). Sessions of a key neither intersect nor touch, so ordered by start their ends are
ordered too: the sessions a record ``[t, t + gap]`` touches are the run just left of
``bisect_right(starts, t + gap)`` whose ends reach ``t``. Finding them costs O(log n) plus the
sessions merged, not a scan of every open session of the key (issue #39: event-time skew between
source tasks leaves tens to thousands open per key). A record bridging several sessions folds them
in the map's order, as the scan did, so float sums round as before. The path with allowed
lateness still scans (two maps to keep in step; it is rarely used).

Timers: every open session has a timer keyed by (key, start) at or before ``end - 1``.
A record that extends a session's end registers nothing -- each record of a busy
session would otherwise push a timer, and the queue would grow with the records, not the
sessions; when the timer fires and finds the session extended, it is set again at the
new end. Only a session with a new start gets a new timer; the old one then finds no
session and is skipped. Timers are rebuilt from the restored sessions, so only the
sessions are checkpointed, by key group like every keyed state.

Lateness: a record whose own window ``[t, t + gap)`` fired already (``t + gap - 1 <=
watermark``) and that touches no open session is late and dropped (counted). One that
touches an open session extends it (the merged session ends after the watermark), as in
Flink, where lateness is decided on the merged window. Late records leave through the
``late`` output port when an edge leaves it, unchanged, with their event times.

Allowed lateness (``allowed_lateness_ms``): a session that fired stays, in map state
``fired``, until the watermark passes ``end - 1 + allowed_lateness_ms``. A record touching
it merges with it (and with the open sessions it touches); when the merged session ends
at or before the watermark it fires again at once with the new aggregate, otherwise it is
open again and fires when the watermark passes its new end. Only a record that touches no
session and whose own window's end plus the lateness passed is late.

Partial sessions (``session_partials``): where the edge into the window may carry them, the
sending subtask merges each batch's records per key first and the window merges the
``[key, start, end, partial, records]`` intervals in as it merges a record's ``[t, t + gap)``:
both go through one loop (``_merge``), so the two paths cannot drift apart.

Batch mode: the input comes key by key and event time does not advance while it does, so
no record is late; ``finish_keys`` fires every session of the keys just seen.
"""
from __future__ import annotations

import itertools
import operator
from bisect import bisect_left, bisect_right

from engine.runtime.io.events import MAX_WATERMARK, TimestampedBatch
from engine.runtime.operators.windows.window import KeyedEventTimeWindow

_RECORDS = operator.itemgetter(4)
"""The number of records a partial session ``[key, start, end, partial, records]`` stands for."""


def _late(what, t: int, late_records: list | None) -> int:
    """Count a late interval (``_merge``): a record, kept with its time for the ``late`` port, or
    a partial session of ``what`` records."""
    if late_records is None:
        return what
    late_records.append((what, t))
    return 1


class SessionWindowOperator(KeyedEventTimeWindow):
    """Aggregates keyed sessions of records no more than ``gap_ms`` apart."""

    def __init__(self, node, context):
        super().__init__(node, context)
        self.gap = int(self.params["gap_ms"])
        if self.gap <= 0:
            raise ValueError("the session gap must be positive")
        self.sessions = None
        self._starts: dict = {}
        """key -> its open sessions' starts, sorted (``_merge``'s index; unused with allowed lateness)."""
        self.partials_in = 0
        self.records_represented = 0
        """Partial sessions merged in, and the records they stand for (``node_figures``)."""
        if context.pre_aggregated_input:  # partial sessions arrive, not records (session_partials)
            self.process_batch = self._merge_partials

    def initialize_state(self):
        self.sessions = self.context.keyed_state().map_state("sessions")
        self._starts = {key: sorted(per_key) for key, per_key in self.sessions.entries.items()}
        for key, per_key in self.sessions.entries.items():
            for start, (end, _) in per_key.items():
                self.timers.register(end - 1, key, start)
        if self.lateness:
            self.fired = self.context.keyed_state().map_state("fired")
            for key, per_key in self.fired.entries.items():
                for start, (end, _) in per_key.items():
                    self.cleanup_timers.register(end - 1 + self.lateness, key, start)

    def process_batch(self, batch):
        if type(batch) is not TimestampedBatch:
            raise ValueError(f"'{self.node_id}' needs event time: put a watermark operator upstream")
        keys = self.keys_of(batch)
        if self.function == "count":
            values = itertools.repeat(1)
        else:
            values = batch if self.values_of is None else self.values_of(batch)
        stamps = batch.timestamps
        late: list = []
        if self.lateness:
            self.late_records += self._assign_with_lateness(zip(keys, values, stamps, batch), late)
        else:
            gap = self.gap
            self.late_records += self._merge(zip(keys, stamps, [t + gap for t in stamps], values, batch), late)
        late_output = self.side_outputs.get("late")
        if late and late_output is not None:
            late_output(TimestampedBatch([record for record, _ in late], [t for _, t in late]))

    def _merge_partials(self, batch) -> None:
        """Merge ``[key, start, end, partial, records]`` lists in (``session_partials``), each as a
        record's window ``[t, t + gap)`` merges (``_merge``): a partial of one record is that record.
        A partial of several ended after the watermark (its sender made sure), so it is never late."""
        self.late_records += self._merge(batch, None)
        self.partials_in += len(batch)
        self.records_represented += sum(map(_RECORDS, batch))

    def _merge(self, intervals, late_records: list | None) -> int:
        """Merge ``(key, start, end, value, what)`` intervals into their keys' sessions -- a record's
        window (``what`` the record itself: ``late_records`` is then a list, which gets each late
        one as (record, time)) or a partial session (``what`` the number of its records;
        ``late_records`` None) --; return how many records were late.

        One path for records and partial sessions (``session_partials``): the window's results must
        not depend on which of them crossed the edge. Usually an interval lands in its key's one open
        session and only moves that session's end: then no timer is registered (see the class
        docstring), one tuple is replaced."""
        add, register, watermark = self.add, self.timers.register, self.watermark
        entries, starts_of = self.sessions.entries, self._starts
        late = 0
        for k, t, end, v, what in intervals:
            per_key = entries.get(k)
            if per_key is None:
                if end - 1 <= watermark:
                    late += _late(what, t, late_records)
                    continue
                entries[k] = {t: (end, v)}
                starts_of[k] = [t]
                register(end - 1, k, t)
                continue
            first = others = None
            if len(per_key) == 1:  # the usual case, as cheap as the scan was: touched, or t's place beside it
                (s, session), = per_key.items()
                hi = lo = 1 if s <= end else 0
                if hi and session[0] >= t:
                    lo, first = 0, s
            else:
                starts = starts_of[k]
                hi = lo = bisect_right(starts, end)  # starts[:hi] <= end; their ends grow with them
                while lo and per_key[starts[lo - 1]][0] >= t:
                    lo -= 1
                if hi - lo == 1:
                    first = starts[lo]
                elif lo < hi:  # bridges sessions: fold them in the map's order, as the scan did
                    low, high = starts[lo], starts[hi - 1]
                    first, *others = [s for s in per_key if low <= s <= high]
            if first is None:
                if end - 1 <= watermark:
                    late += _late(what, t, late_records)
                    continue
                per_key[t] = (end, v)
                starts_of[k].insert(hi, t)  # every start left of hi ends before t, so starts before it
                register(end - 1, k, t)
                continue
            e, acc = per_key[first]
            acc = add(acc, v)
            if e > end:
                end = e
            start = first if first < t else t
            if others:
                for s in others:
                    e, a = per_key.pop(s)
                    acc = add(acc, a)
                    if e > end:
                        end = e
                    if s < start:
                        start = s
            if others or start != first:
                starts_of[k][lo:hi] = [start]
            if start == first:
                per_key[first] = (end, acc)
            else:
                del per_key[first]
                per_key[start] = (end, acc)
                register(end - 1, k, start)
        return late

    def _assign_with_lateness(self, records, late_records: list | None) -> int:
        """``_merge`` of records with allowed lateness: sessions that fired stay (map state ``fired``) until the
        watermark passes ``end - 1 + allowed_lateness_ms``. A record merges with the open and fired
        sessions it touches; if the merged session ends at or before the watermark it fires again at
        once (and stays fired), otherwise it is open and fires when the watermark passes its end."""
        gap, add, register, watermark, lateness = self.gap, self.add, self.timers.register, self.watermark, self.lateness
        entries, fired = self.sessions.entries, self.fired.entries
        late = 0
        updates, stamps = [], []
        for k, v, t, record in records:
            start, end, acc = t, t + gap, v
            touched = False
            for sessions in (entries.get(k), fired.get(k)):
                if not sessions:
                    continue
                for s in [s for s, (e, _) in sessions.items() if s <= t + gap and e >= t]:
                    e, a = sessions.pop(s)
                    touched = True
                    acc = add(a, acc)
                    if s < start:
                        start = s
                    if e > end:
                        end = e
            for state in (entries, fired):
                if k in state and not state[k]:
                    del state[k]
            if not touched and end - 1 + lateness <= watermark:
                late += 1
                if late_records is not None:
                    late_records.append((record, t))
                continue
            if end - 1 <= watermark:
                self.fired.put(k, start, (end, acc))
                self.cleanup_timers.register(end - 1 + lateness, k, start)
                updates.append([k, start, end, acc])
                stamps.append(end - 1)
            else:
                self.sessions.put(k, start, (end, acc))
                register(end - 1, k, start)
        if updates:
            self.emit_delays.observe(stamps)
            self.emit(TimestampedBatch(updates, stamps))
        return late

    def process_watermark(self, watermark):
        if watermark.timestamp <= self.watermark:
            return
        self.watermark = watermark.timestamp
        self._fire(watermark.timestamp)
        self.emit_watermark(watermark)

    def finish_keys(self):
        """Batch mode: every session of the keys seen so far is complete; fire them all."""
        self._fire(MAX_WATERMARK.timestamp)

    def _fire(self, up_to: int) -> None:
        self._fire_sessions(up_to)
        if self.lateness:
            fired = self.fired.entries
            for _, k, start in self.cleanup_timers.fire_up_to(up_to):
                session = fired.get(k, {}).get(start)
                if session is None:
                    continue  # merged into a session that starts earlier, or open again
                if session[0] - 1 + self.lateness > up_to:  # extended since: wait for its new end
                    self.cleanup_timers.register(session[0] - 1 + self.lateness, k, start)
                    continue
                self.fired.remove(k, start)

    def _fire_sessions(self, up_to: int) -> None:
        fired = self.timers.fire_up_to(up_to)
        if not fired:
            return
        entries = self.sessions.entries
        starts_of = None if self.lateness else self._starts
        records, stamps = [], []
        for _, k, start in fired:
            per_key = entries.get(k)
            session = per_key.get(start) if per_key is not None else None
            if session is None:
                continue  # stale: the session merged into one that starts earlier
            if session[0] - 1 > up_to:  # extended since the timer was set: wait for its new end
                self.timers.register(session[0] - 1, k, start)
                continue
            del per_key[start]
            if not per_key:
                del entries[k]
                if starts_of is not None:
                    starts_of.pop(k, None)
            elif starts_of is not None:
                starts = starts_of.get(k)
                if starts is not None:
                    i = bisect_left(starts, start)
                    if i < len(starts) and starts[i] == start:
                        del starts[i]
            records.append([k, start, session[0], session[1]])
            stamps.append(session[0] - 1)  # the window's time, not the timer's: it may have been set at an older end
            if self.lateness:  # kept for late records until the watermark passes end - 1 + lateness
                self.fired.put(k, start, session)
                self.cleanup_timers.register(session[0] - 1 + self.lateness, k, start)
        if records:
            self.emit_delays.observe(stamps)
            self.emit(TimestampedBatch(records, stamps))

    def metrics(self):
        return {"late_records": self.late_records}

    def node_figures(self) -> dict:
        figures = super().node_figures()
        if self.context.pre_aggregated_input:
            figures.update(records_in=self.records_represented, partials_in=self.partials_in)
        return figures
