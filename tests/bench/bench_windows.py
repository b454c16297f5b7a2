"""Keyed windows: datagen -> watermark -> key_by -> tumbling / sliding / session / count window sum -> sink.

1,000,000 integers at parallelism 1 in the in-process cluster, the record's value as its
event time (ms), 100 keys, windows of one second (sliding: every 250 ms, so each record
lands in four windows), exactly-once checkpoints every second. Session windows (gap 200 ms)
get a pause of a second after every 5,000 numbers, so each key's session closes after 50
records; count windows aggregate every 50 records of a key; deduplication (TTL 5 s) keeps
one record in 50 per key. The joins take the same number of records from two sources (half
each, the same numbers, keyed by ``x % 100``): the interval join (inner, [-5, +5] ms) pairs
each left record with its one right partner, the window join (100 ms tumbling windows) pairs
every left with every right record of a key's window (one each). Prints records per second
in (best of three interleaved runs); the last line is one JSON object with ``rps_tumbling``,
``rps_sliding``, ``rps_session``, ``rps_count``, ``rps_deduplicate``, ``rps_interval_join``
and ``rps_window_join``. Figures are printed, never asserted.

Run: ``make bench-windows`` or ``.venv/bin/python tests/bench/bench_windows.py [records]``.
"""
from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from engine.cluster.local import LocalCluster  # noqa: E402
from tests.bench.smoke import SMOKE, sized  # noqa: E402

RECORDS = sized(1_000_000, 20_000)
REPEATS = sized(3, 1)
WINDOWS = {
    "tumbling": {"type": "window.tumbling", "params": {"size_ms": 1000, "function": "sum"}},
    "sliding": {"type": "window.sliding", "params": {"size_ms": 1000, "slide_ms": 250, "function": "sum"}},
    "session": {"type": "window.session", "params": {"gap_ms": 200, "function": "sum"}},
    "count": {"type": "window.count", "params": {"size": 50, "function": "sum"}},
    "deduplicate": {"type": "transform.deduplicate", "params": {"ttl_ms": 5000, "keep": "first"}},
}
TIMESTAMPS = {"session": "x + x // 5000 * 1000"}
"""Event time per window kind (default: the number itself)."""
JOINS = {
    "interval_join": {"type": "join.interval", "params": {"lower_ms": -5, "upper_ms": 5}},
    "window_join": {"type": "join.window", "params": {"size_ms": 100}},
}


def definition(records: int, window: str) -> dict:
    if window in JOINS:
        return join_definition(records, window)
    return {
        "format": 1, "name": f"bench-{window}", "parallelism": 1,
        "checkpointing": {"interval_ms": 1000}, "restart": {"strategy": "none"},
        "nodes": [{"id": "numbers", "type": "source.datagen", "params": {"count": records}},
                  {"id": "time", "type": "transform.watermark",
                   "params": {"timestamp": TIMESTAMPS.get(window, "x")}},
                  {"id": "window", **WINDOWS[window]},
                  {"id": "out", "type": "sink.collect", "params": {"max_records": 1}}],
        "edges": [{"id": "e1", "from": "numbers", "to": "time"},
                  {"id": "e2", "from": "time", "to": "window", "partitioning": "hash", "key": "x % 100"},
                  {"id": "e3", "from": "window", "to": "out"}],
    }


def join_definition(records: int, join: str) -> dict:
    """Two sources of ``records / 2`` numbers each -> watermarks -> (left, right) join -> sink."""
    half = records // 2
    return {
        "format": 1, "name": f"bench-{join}", "parallelism": 1,
        "checkpointing": {"interval_ms": 1000}, "restart": {"strategy": "none"},
        "nodes": [{"id": "lefts", "type": "source.datagen", "params": {"count": half}},
                  {"id": "rights", "type": "source.datagen", "params": {"count": half}},
                  {"id": "left_time", "type": "transform.watermark", "params": {"timestamp": "x"}},
                  {"id": "right_time", "type": "transform.watermark", "params": {"timestamp": "x"}},
                  {"id": "join", **JOINS[join]},
                  {"id": "out", "type": "sink.collect", "params": {"max_records": 1}}],
        "edges": [{"id": "e1", "from": "lefts", "to": "left_time"},
                  {"id": "e2", "from": "rights", "to": "right_time"},
                  {"id": "e3", "from": "left_time", "to": "join", "partitioning": "hash", "key": "x % 100",
                   "side": "left"},
                  {"id": "e4", "from": "right_time", "to": "join", "partitioning": "hash", "key": "x % 100",
                   "side": "right"},
                  {"id": "e5", "from": "join", "to": "out"}],
    }


def records_per_second(records: int, window: str) -> float:
    with tempfile.TemporaryDirectory() as directory:
        started = time.perf_counter()
        result = LocalCluster(checkpoint_dir=directory).run(definition(records, window), timeout=600)
        elapsed = time.perf_counter() - started
    if result.status != "FINISHED":
        raise SystemExit(f"benchmark job {result.status}: {result.failure}")
    return records / elapsed


def main() -> None:
    records = int(sys.argv[1]) if len(sys.argv) > 1 else RECORDS
    records_per_second(records // 20, "sliding")  # warm up
    runs: dict[str, list[float]] = {name: [] for name in (*WINDOWS, *JOINS)}
    for _ in range(REPEATS):  # interleaved, so a busy neighbour slows all alike
        for name in runs:
            runs[name].append(records_per_second(records, name))
    best = {name: max(values) for name, values in runs.items()}
    print(f"tumbling window (1 s), sum per key:          {best['tumbling']:>12,.0f} records/s")
    print(f"sliding window (1 s every 250 ms), sum:      {best['sliding']:>12,.0f} records/s")
    print(f"session window (gap 200 ms), sum:            {best['session']:>12,.0f} records/s")
    print(f"count window (50 records), sum:              {best['count']:>12,.0f} records/s")
    print(f"deduplicate (TTL 5 s), keep first:           {best['deduplicate']:>12,.0f} records/s")
    print(f"interval join ([-5, +5] ms), inner:          {best['interval_join']:>12,.0f} records/s")
    print(f"window join (100 ms tumbling):               {best['window_join']:>12,.0f} records/s")
    print(json.dumps({"records": records, **{f"rps_{name}": round(value) for name, value in best.items()}}))


if __name__ == "__main__":
    main()
