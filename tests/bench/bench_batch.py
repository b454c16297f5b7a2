"""Batch vs streaming mode on the same bounded job (seed 002, 流批一体).

The job of ``bench_engine``: datagen -> map -> filter -> hash(x % 1000) -> running sum ->
counting sink, ``RECORDS`` integers (30M: 2-4 seconds per run, so streaming takes several
checkpoints; 5M took half a second once the columnar path came), parallelism 2, in the
in-process cluster. Streaming mode chains map and filter into the source, runs everything
at once over in-memory channels and takes exactly-once checkpoints every second. Batch mode
chains the same operators but runs region after region: the hash exchange writes partition
files that the next region reads, no checkpoints. Its keyed sum is an aggregation, so it
folds its input into a hash table as it reads it (``engine/runtime/io/hash_aggregate_input.py``);
the third variant, ``batch-sort``, is batch mode with ``batch_aggregation: sort``: the sum
reads its whole input into the sorter first (the default 200,000-record sort buffer:
each sum subtask gets about 10M records, so it spills runs and merges them) and then
processes it key by key -- what batch mode did for every keyed operator before. The sum
is not rolling in batch mode (Flink's batch semantics): streaming's sink gets every update
of every key, both batch variants' sinks each key's final sum once; the counts are checked
and printed with each figure, with the records the hash aggregate folded as int64 arrays
(the partition files' int frames, ``fold_int_array``).

Prints records per second, wall and CPU seconds (best of ``REPEATS``, variants interleaved)
and the load, and each round's batch/streaming ratio; the last line is one JSON object with
at least ``rps_batch``, ``rps_streaming``, ``batch_to_streaming`` (best against best) and
``streaming_checkpoints``. Figures are printed, never asserted.

Run: ``make bench-batch`` or ``.venv/bin/python tests/bench/bench_batch.py [records]``.
"""
from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from engine.cluster.local import LocalCluster  # noqa: E402
from tests.bench.bench_engine import definition as engine_definition  # noqa: E402
from tests.bench.smoke import sized  # noqa: E402

RECORDS = sized(30_000_000, 20_000)
PARALLELISM = 2
REPEATS = sized(3, 1)


def definition(records: int, mode: str) -> dict:
    """The engine benchmark's job (bench_engine), at PARALLELISM, in ``mode``."""
    job = engine_definition(records, checkpointing=True)
    job.update(name=f"bench-{mode}", mode=mode, parallelism=PARALLELISM)
    return job


VARIANTS = {"streaming": ("streaming", {}), "batch": ("batch", {}),
            "batch-sort": ("batch", {"batch_aggregation": "sort"})}
"""Variant -> (mode, extra runtime configuration)."""


def expected_sink_count(records: int, mode: str) -> int:
    """Streaming: a running sum per record that passed the filter (x % 3 != 0); batch: one final sum per
    key (x * 2 % 1000 over those; the pattern repeats every 1,500 numbers)."""
    if mode == "streaming":
        return records - (records + 2) // 3
    return len({x * 2 % 1000 for x in range(min(records, 1500)) if x * 2 % 3 != 0})


def run(records: int, variant: str) -> dict:
    mode, extra = VARIANTS[variant]
    cluster = LocalCluster(config={"batch_size": 1024, **extra})
    with tempfile.TemporaryDirectory() as directory:
        cpu, started = time.process_time(), time.perf_counter()
        handle = cluster.submit(definition(records, mode), checkpoint_dir=directory)
        result = handle.wait(900)
        elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
        metrics = handle.metrics()
    if result.status != "FINISHED":
        raise SystemExit(f"{variant} job {result.status}: {result.failure}")
    expected = expected_sink_count(records, mode)
    if result.counts.get("count") != expected:
        raise SystemExit(f"{variant}: the sink saw {result.counts.get('count')} records, expected {expected}")
    regions = sum(1 for e in result.events if e["type"] == "region" and e["event"] == "scheduled")
    sums = [figures for task, figures in metrics.items() if task.startswith("sum#")]
    return {"seconds": elapsed, "cpu_seconds": cpu, "rps": records / elapsed,
            "checkpoints": result.checkpoints["counts"]["completed"], "regions": regions,
            "sink_count": result.counts["count"], "sum_records_in": sum(m.get("records_in", 0) for m in sums),
            "hash_aggregated": sum(m.get("hash_aggregated_records", 0) for m in sums),
            "columnar_folded": sum(m.get("columnar_folded_records", 0) for m in sums),
            "sorted": sum(m.get("sorted_records", 0) for m in sums),
            "spilled_runs": sum(m.get("spilled_runs", 0) for m in sums), "load": os.getloadavg()[0]}


def describe(variant: str, figures: dict) -> str:
    return (f"{variant:<11} {figures['rps']:>12,.0f} records/s ({figures['seconds']:.2f} s wall, "
            f"{figures['cpu_seconds']:.2f} s CPU; sink {figures['sink_count']:,}, sum read "
            f"{figures['sum_records_in']:,}: hashed {figures['hash_aggregated']:,} ({figures['columnar_folded']:,} as "
            f"arrays), sorted {figures['sorted']:,} "
            f"in {figures['spilled_runs']} spilled runs; {figures['checkpoints']} checkpoints, "
            f"{figures['regions']} regions; load {figures['load']:.1f})")


def main() -> None:
    records = int(sys.argv[1]) if len(sys.argv) > 1 else RECORDS
    print(f"{records:,} records per run, p={PARALLELISM}; load average {os.getloadavg()[0]:.2f} "
          "(1 min, 2 CPUs shared)", flush=True)
    for variant in VARIANTS:  # warm up: imports, expression compilation paths
        run(records // 20, variant)
    runs: dict[str, list[dict]] = {variant: [] for variant in VARIANTS}
    for _ in range(REPEATS):
        for variant in runs:
            figures = run(records, variant)
            runs[variant].append(figures)
            print(describe(variant, figures), flush=True)
    best = {variant: max(figures, key=lambda f: f["rps"]) for variant, figures in runs.items()}
    streaming, batch, batch_sort = best["streaming"], best["batch"], best["batch-sort"]
    rounds = sorted(b["rps"] / s["rps"] for b, s in zip(runs["batch"], runs["streaming"]))
    print("batch_to_streaming per round (the same round's runs): " + ", ".join(f"{ratio:.2f}" for ratio in rounds))
    print("best of each:")
    for variant, figures in best.items():
        print("  " + describe(variant, figures))
    print(json.dumps({"records": records, "parallelism": PARALLELISM, "rps_batch": round(batch["rps"]),
                      "rps_streaming": round(streaming["rps"]), "rps_batch_sort": round(batch_sort["rps"]),
                      "batch_seconds": round(batch["seconds"], 2), "streaming_seconds": round(streaming["seconds"], 2),
                      "batch_sort_seconds": round(batch_sort["seconds"], 2),
                      "batch_to_streaming": round(batch["rps"] / streaming["rps"], 2),
                      "batch_to_streaming_cpu": round(streaming["cpu_seconds"] / batch["cpu_seconds"], 2),
                      "batch_to_streaming_median_round": round(rounds[len(rounds) // 2], 2),
                      "hash_over_sort": round(batch["rps"] / batch_sort["rps"], 2),
                      "streaming_checkpoints": streaming["checkpoints"], "batch_regions": batch["regions"],
                      "sink_count": batch["sink_count"], "load_average_1m": round(os.getloadavg()[0], 2)}))


if __name__ == "__main__":
    main()
