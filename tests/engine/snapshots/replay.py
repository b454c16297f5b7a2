"""Plain-Python replays of test inputs up to a snapshot's source positions: what the state browser must show.

The jobs of these tests hold their watermark far behind (``max_out_of_orderness_ms`` of a
billion), so no window fires and no buffer is dropped before the snapshot: the state is
everything read up to the snapshot's positions, which the replay recomputes.
"""
from __future__ import annotations

from collections import defaultdict

from tests.builders import edge, node, pipeline

HELD_BACK_MS = 10 ** 9
SIZE_MS, SLIDE_MS = 1000, 500


def record(x: int) -> dict:
    """The window job's record ``x``: keys that come and go (``x // 40 + 1``) and one that every fifth
    record extends (0, from both source subtasks), an amount, an event time.

    Why key 0: a paced source emits in even steps, so two savepoints can both fall where every key of
    40 records is complete; the diff of two savepoints must still have keys that changed."""
    return {"user": x // 40 + 1 if x % 5 else 0, "amount": x % 13, "ts": x * 7}


RECORD = '{"user": x // 40 + 1 if x % 5 else 0, "amount": x % 13, "ts": x * 7}'


def window_job(rate: int = 3000) -> dict:
    return pipeline([node("gen", "source.datagen", count=None, rate=rate, expression=RECORD),
                     node("wm", "transform.watermark", timestamp='x["ts"]', max_out_of_orderness_ms=HELD_BACK_MS),
                     node("win", "window.sliding", size_ms=SIZE_MS, slide_ms=SLIDE_MS, function="sum",
                          value='x["amount"]'),
                     node("out", "sink.collect", max_records=10)],
                    [edge("gen", "wm"), edge("wm", "win", "hash", 'x["user"]'), edge("win", "out")],
                    parallelism=2, interval_ms=100_000, name="window-state")


def join_job(rate: int = 2000) -> dict:
    left = '{"user": x % 9, "click": x, "ts": x * 5}'
    right = '{"user": x % 6, "buy": x, "ts": x * 11}'
    return pipeline([node("clicks", "source.datagen", count=None, rate=rate, expression=left),
                     node("buys", "source.datagen", count=None, rate=rate, expression=right),
                     node("wl", "transform.watermark", timestamp='x["ts"]', max_out_of_orderness_ms=HELD_BACK_MS),
                     node("wr", "transform.watermark", timestamp='x["ts"]', max_out_of_orderness_ms=HELD_BACK_MS),
                     node("join", "join.window", size_ms=SIZE_MS),
                     node("out", "sink.collect", max_records=10)],
                    [edge("clicks", "wl"), edge("buys", "wr"),
                     edge("wl", "join", "hash", 'x["user"]', side="left"),
                     edge("wr", "join", "hash", 'x["user"]', side="right"), edge("join", "out")],
                    parallelism=2, interval_ms=100_000, name="join-state")


def emitted(splits: list[dict]) -> list[int]:
    """The numbers a datagen source emitted before the snapshot its ``splits`` rows come from."""
    numbers = []
    for row in splits:
        split = row["state"]
        first = row["key"][1]  # subtask i of p starts at i (start 0) and steps by p
        numbers.extend(range(first, split["next"], split["step"]))
    return sorted(numbers)


def sliding_panes(numbers: list[int]) -> dict:
    """``{user: {"panes": [...]}}`` as the state browser renders a sliding window's state."""
    sums: dict = defaultdict(lambda: defaultdict(int))
    for x in numbers:
        r = record(x)
        t = r["ts"]
        start = t - t % SLIDE_MS
        while start > t - SIZE_MS:
            sums[r["user"]][start + SIZE_MS] += r["amount"]
            start -= SLIDE_MS
    return {user: {"panes": [{"accumulator": total, "timer": end - 1, "window": [end - SIZE_MS, end]}
                             for end, total in sorted(ends.items())]}
            for user, ends in sums.items()}


def window_join_buffers(left_numbers: list[int], right_numbers: list[int]) -> dict:
    """``{user: {"left": [...], "right": [...]}}`` as the state browser renders a window join's buffers, records
    of a window in sorted order (the arrival order of two subtasks' records is not the test's business)."""
    buckets: dict = defaultdict(lambda: {"left": defaultdict(list), "right": defaultdict(list)})
    for x in left_numbers:
        t = x * 5
        buckets[x % 9]["left"][t - t % SIZE_MS + SIZE_MS].append({"click": x, "ts": t, "user": x % 9})
    for x in right_numbers:
        t = x * 11
        buckets[x % 6]["right"][t - t % SIZE_MS + SIZE_MS].append({"buy": x, "ts": t, "user": x % 6})
    return {user: {side: [{"dropped_at": end - 1, "fired": False, "records": sorted(records, key=_order),
                           "timer": end - 1, "window": [end - SIZE_MS, end]}
                          for end, records in sorted(sides[side].items())]
                   for side in ("left", "right")}
            for user, sides in buckets.items()}


def sorted_records(state: dict) -> dict:
    """A browsed window join state with each window's records sorted as ``window_join_buffers`` sorts them."""
    return {side: [{**bucket, "records": sorted(bucket["records"], key=_order)} for bucket in buckets]
            for side, buckets in state.items()}


def _order(record: dict):
    return sorted(record.items())
