"""Engine throughput: datagen -> map -> filter -> key_by -> running sum -> counting sink.

Parallelism 1, in the in-process cluster, once with exactly-once checkpoints every second,
once every 0.1 s and once with checkpointing off; then the same computation as a plain
Python loop in one process (the floor a Python engine is measured against). The job runs
long enough that at least ``MIN_CHECKPOINTS`` checkpoints complete in each measured run
with checkpoints every second: as many integers as the warm-up's rate gets through in
``SECONDS``, doubled until a trial run completes one more (or ``[records]``); a measured run
with fewer fails the benchmark, and the count is
printed beside each figure. Prints records per second (best of ``REPEATS`` interleaved
runs) and the load; the last line is one JSON object with at least ``rps_checkpointing``,
``rps_no_checkpointing``, ``rps_plain_loop``, ``checkpoints`` and
``checkpoint_overhead_percent``.

Run: ``make bench-engine`` or ``.venv/bin/python tests/bench/bench_engine.py [records] [--smoke]``.
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
from tests.bench.smoke import SMOKE, sized  # noqa: E402

SECONDS = 7.0
"""How long a measured run with checkpoints every second should take: ``MIN_CHECKPOINTS`` complete in it."""
MIN_CHECKPOINTS = 5
LOOP_RECORDS = sized(2_000_000, 20_000)
BATCH_SIZE = 1024  # the runtime default; measured best among 256..16384 on this machine
REPEATS = sized(5, 1)


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
    expected = records - (records + 2) // 3  # the x whose double is not a multiple of 3: x % 3 != 0
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
    warm_up = run_engine(sized(1_000_000, 10_000), True)  # imports, expression compilation paths; the rate
    if len(sys.argv) > 1:
        records = int(sys.argv[1])
    elif SMOKE:
        records = 20_000
    else:  # enough for MIN_CHECKPOINTS + 1 at the rate seen, doubled until a trial run has them
        records = max(1_000_000, int(warm_up["rps"] * SECONDS) // 1_000_000 * 1_000_000)
        while (trial := run_engine(records, True))["checkpoints"] < MIN_CHECKPOINTS + 1:
            print(f"{records:,} records: {trial['checkpoints']} checkpoints in {trial['seconds']:.1f} s; doubling",
                  flush=True)
            records *= 2
    print(f"{records:,} records per run; load average {os.getloadavg()[0]:.2f} (1 min, 2 CPUs shared)", flush=True)
    runs: dict[str, list[dict]] = {"off": [], "on": [], "frequent": [], "loop": []}
    for _ in range(REPEATS):  # interleaved, so a busy neighbour slows every variant alike
        runs["off"].append(run_engine(records, False))
        runs["on"].append(run_engine(records, True))
        runs["frequent"].append(run_engine(records, True, 100))
        runs["loop"].append(plain_loop(LOOP_RECORDS))
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
    fewest = min(run["checkpoints"] for run in runs["on"])
    print(f"checkpoint overhead: {overhead:.1f} % (every 1 s), {frequent_overhead:.1f} % (every 0.1 s); "
          f"memory growth during a run: {growth:.1f} MB")
    print(json.dumps({
        "records": records, "rps_checkpointing": round(on["rps"]), "rps_no_checkpointing": round(off["rps"]),
        "rps_plain_loop": round(loop["rps"]), "checkpoints": on["checkpoints"],
        "checkpoint_overhead_percent": round(overhead, 1),
        "rps_checkpointing_100ms": round(frequent["rps"]), "checkpoints_100ms": frequent["checkpoints"],
        "checkpoint_overhead_100ms_percent": round(frequent_overhead, 1),
        "rss_growth_mb": round(growth, 1), "fewest_checkpoints_per_run": fewest,
        "load_average_1m": round(os.getloadavg()[0], 2),
    }))
    if not SMOKE and fewest < MIN_CHECKPOINTS:
        raise SystemExit(f"a measured run with checkpoints every second completed {fewest} checkpoints, fewer than "
                         f"{MIN_CHECKPOINTS}: it measured no checkpointing; run more records")


if __name__ == "__main__":
    main()
