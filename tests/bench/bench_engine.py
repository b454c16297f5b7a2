"""Engine throughput: datagen -> map -> filter -> key_by -> running sum -> counting sink.

2,000,000 integers, parallelism 1, in the in-process cluster, once with exactly-once
checkpoints every second and once with checkpointing off; then the same computation as a
plain Python loop in one process (the floor a Python engine is measured against). Prints
records per second; the last line is one JSON object with at least ``rps_checkpointing``,
``rps_no_checkpointing`` and ``rps_plain_loop``. Figures are printed, never asserted.

Run: ``make bench-engine`` or ``.venv/bin/python tests/bench/bench_engine.py [records]``.
"""
from __future__ import annotations

import gc
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from engine.cluster.local import LocalCluster  # noqa: E402

RECORDS = 2_000_000
BATCH_SIZE = 1024  # the runtime default; measured best among 256..16384 on this machine


REPEATS = 5


def definition(records: int, checkpointing: bool, interval_ms: int = 1000) -> dict:
    return {
        "format": 1, "name": "bench-engine", "mode": "streaming", "parallelism": 1, "max_parallelism": 128,
        "checkpointing": {"enabled": checkpointing, "interval_ms": interval_ms, "mode": "exactly_once"},
        "restart": {"strategy": "none"},
        "nodes": [
            {"id": "numbers", "type": "source.datagen", "params": {"count": records}},
            {"id": "double", "type": "transform.map", "params": {"expression": "x * 2"}},
            {"id": "not3", "type": "transform.filter", "params": {"predicate": "x % 3 != 0"}},
            {"id": "sum", "type": "aggregate.reduce", "params": {"function": "sum", "value": "x"}},
            {"id": "count", "type": "sink.collect", "params": {"max_records": 1}},
        ],
        "edges": [
            {"id": "e1", "from": "numbers", "to": "double"},
            {"id": "e2", "from": "double", "to": "not3"},
            {"id": "e3", "from": "not3", "to": "sum", "partitioning": "hash", "key": "x % 1000"},
            {"id": "e4", "from": "sum", "to": "count"},
        ],
    }


def rss_mb() -> float:
    try:
        import psutil

        return psutil.Process(os.getpid()).memory_info().rss / 2**20
    except ImportError:  # pragma: no cover
        return 0.0


def run_engine(records: int, checkpointing: bool, interval_ms: int = 1000) -> dict:
    gc.collect()
    before = rss_mb()
    cluster = LocalCluster(config={"batch_size": BATCH_SIZE})
    with tempfile.TemporaryDirectory() as directory:
        started = time.perf_counter()
        result = cluster.run(definition(records, checkpointing, interval_ms), timeout=600, checkpoint_dir=directory)
        elapsed = time.perf_counter() - started
    if result.status != "FINISHED":
        raise SystemExit(f"benchmark job {result.status}: {result.failure}")
    expected = sum(1 for x in range(records) if (x * 2) % 3 != 0)
    if result.counts.get("count") != expected:
        raise SystemExit(f"counting sink saw {result.counts.get('count')} records, expected {expected}")
    return {"seconds": elapsed, "rps": records / elapsed, "checkpoints": result.checkpoints["counts"]["completed"],
            "rss_growth_mb": max(0.0, rss_mb() - before)}


def plain_loop(records: int) -> dict:
    """The same computation, one record at a time, with a function call per operator."""
    def double(x):
        return x * 2

    def keep(x):
        return x % 3 != 0

    def key(x):
        return x % 1000

    started = time.perf_counter()
    sums: dict = {}
    count = 0
    for x in range(records):
        y = double(x)
        if keep(y):
            k = key(y)
            total = sums.get(k, 0) + y
            sums[k] = total
            _record = [k, total]
            count += 1
    elapsed = time.perf_counter() - started
    return {"seconds": elapsed, "rps": records / elapsed, "count": count}


def main() -> None:
    records = int(sys.argv[1]) if len(sys.argv) > 1 else RECORDS
    run_engine(records // 20, True)  # warm up: imports, expression compilation paths
    runs: dict[str, list[dict]] = {"off": [], "on": [], "frequent": [], "loop": []}
    for _ in range(REPEATS):  # interleaved, so a busy neighbour slows every variant alike
        runs["off"].append(run_engine(records, False))
        runs["on"].append(run_engine(records, True))
        runs["frequent"].append(run_engine(records, True, 100))
        runs["loop"].append(plain_loop(records))
    off, on, frequent, loop = (max(runs[name], key=lambda figures: figures["rps"])
                               for name in ("off", "on", "frequent", "loop"))
    print(f"engine, checkpointing off:                    {off['rps']:>12,.0f} records/s ({off['seconds']:.2f} s)")
    print(f"engine, exactly-once checkpoints every 1 s:   {on['rps']:>12,.0f} records/s ({on['seconds']:.2f} s, "
          f"{on['checkpoints']} checkpoints completed)")
    print(f"engine, exactly-once checkpoints every 0.1 s: {frequent['rps']:>12,.0f} records/s "
          f"({frequent['seconds']:.2f} s, {frequent['checkpoints']} checkpoints completed)")
    print(f"plain Python loop (floor):                    {loop['rps']:>12,.0f} records/s ({loop['seconds']:.2f} s)")
    overhead = (off["rps"] - on["rps"]) / off["rps"] * 100
    frequent_overhead = (off["rps"] - frequent["rps"]) / off["rps"] * 100
    growth = max(run["rss_growth_mb"] for run in (on, off, frequent))
    print(f"checkpoint overhead: {overhead:.1f} % (every 1 s), {frequent_overhead:.1f} % (every 0.1 s); "
          f"memory growth during a run: {growth:.1f} MB")
    print(json.dumps({
        "records": records, "rps_checkpointing": round(on["rps"]), "rps_no_checkpointing": round(off["rps"]),
        "rps_plain_loop": round(loop["rps"]), "checkpoints": on["checkpoints"],
        "checkpoint_overhead_percent": round(overhead, 1),
        "rps_checkpointing_100ms": round(frequent["rps"]), "checkpoints_100ms": frequent["checkpoints"],
        "checkpoint_overhead_100ms_percent": round(frequent_overhead, 1),
        "rss_growth_mb": round(growth, 1),
    }))


if __name__ == "__main__":
    main()
