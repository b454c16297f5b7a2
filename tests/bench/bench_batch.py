"""Batch vs streaming mode on the same bounded job (seed 002, 流批一体).

The job of ``bench_engine``: datagen -> map -> filter -> hash(x % 1000) -> running sum ->
counting sink, 1,000,000 integers, parallelism 2, in the in-process cluster. Streaming
mode chains map and filter into the source, runs everything at once over in-memory
channels and takes exactly-once checkpoints every second. Batch mode runs region after
region: every exchange writes partition files that the next region reads, nothing is
chained, no checkpoints, and the keyed sum reads its whole input first and processes it
key by key (the default 200,000-record sort buffer: each sum subtask gets about 333,000
records, so it spills one sorted run and merges it with the rest). Both must give the
same counts.

Prints records per second (best of ``REPEATS``, variants interleaved); the last line is
one JSON object with at least ``rps_batch`` and ``rps_streaming``. Figures are printed,
never asserted.

Run: ``make bench-batch`` or ``.venv/bin/python tests/bench/bench_batch.py [records]``.
"""
from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from engine.cluster.local import LocalCluster  # noqa: E402
from tests.bench.bench_engine import definition as engine_definition  # noqa: E402
from tests.bench.smoke import SMOKE, sized  # noqa: E402

RECORDS = sized(1_000_000, 20_000)
PARALLELISM = 2
REPEATS = sized(3, 1)


def definition(records: int, mode: str) -> dict:
    """The engine benchmark's job (bench_engine), at PARALLELISM, in ``mode``."""
    job = engine_definition(records, checkpointing=True)
    job.update(name=f"bench-{mode}", mode=mode, parallelism=PARALLELISM)
    return job


def run(records: int, mode: str) -> dict:
    cluster = LocalCluster(config={"batch_size": 1024})
    with tempfile.TemporaryDirectory() as directory:
        started = time.perf_counter()
        result = cluster.run(definition(records, mode), timeout=900, checkpoint_dir=directory)
        elapsed = time.perf_counter() - started
    if result.status != "FINISHED":
        raise SystemExit(f"{mode} job {result.status}: {result.failure}")
    expected = records - (records + 2) // 3  # x % 3 != 0
    if result.counts.get("count") != expected:
        raise SystemExit(f"{mode}: the sink saw {result.counts.get('count')} records, expected {expected}")
    regions = sum(1 for e in result.events if e["type"] == "region" and e["event"] == "scheduled")
    return {"seconds": elapsed, "rps": records / elapsed, "checkpoints": result.checkpoints["counts"]["completed"],
            "regions": regions}


def main() -> None:
    records = int(sys.argv[1]) if len(sys.argv) > 1 else RECORDS
    run(records // 20, "streaming")  # warm up: imports, expression compilation paths
    run(records // 20, "batch")
    runs: dict[str, list[dict]] = {"streaming": [], "batch": []}
    for _ in range(REPEATS):
        for mode in runs:
            runs[mode].append(run(records, mode))
    streaming, batch = (max(runs[mode], key=lambda figures: figures["rps"]) for mode in ("streaming", "batch"))
    print(f"streaming mode: {streaming['rps']:>12,.0f} records/s ({streaming['seconds']:.2f} s, "
          f"{streaming['checkpoints']} checkpoints)")
    print(f"batch mode:     {batch['rps']:>12,.0f} records/s ({batch['seconds']:.2f} s, "
          f"{batch['regions']} regions run one after another)")
    print(json.dumps({"records": records, "parallelism": PARALLELISM, "rps_batch": round(batch["rps"]),
                      "rps_streaming": round(streaming["rps"]), "batch_seconds": round(batch["seconds"], 2),
                      "streaming_seconds": round(streaming["seconds"], 2),
                      "batch_to_streaming": round(batch["rps"] / streaming["rps"], 2),
                      "streaming_checkpoints": streaming["checkpoints"], "batch_regions": batch["regions"]}))


if __name__ == "__main__":
    main()
