"""``join.interval``: records of two inputs with equal keys whose event times lie within an
interval of each other (the base and its state, timers and lateness: ``two_input``)."""
from __future__ import annotations

from heapq import heappush

from engine.runtime.operators.joins.two_input import LEFT, RIGHT, TwoInputOperator


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
