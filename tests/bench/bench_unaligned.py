"""Unaligned checkpoints: checkpoint duration under backpressure, aligned vs unaligned (seed 003).

The pipeline: an unbounded datagen source (parallelism 4) feeds, over a hash edge, an
expensive map (about 0.1 ms per record, parallelism 2) chained with a sink; the map is
the bottleneck, so each of its 4 input channels holds its full ``capacity`` (8) buffers
of ``batch_size`` (256) records. Checkpoints every 1 s, one at a time. Records are
processed a buffer at a time, so an unaligned barrier waits for the buffer in hand (and
is served before any other buffer); an aligned one for the whole backlog.

- aligned: each barrier waits behind the backlog of its channel (8 x 512 records, over a
  second of work) and alignment stops reading the channels that delivered it;
- unaligned (``"unaligned": true``): the barrier overtakes the queued buffers, which are
  persisted with the checkpoint (``persisted_bytes``);
- aligned timeout (``"aligned_timeout_ms": 100``): starts aligned; a barrier still queued
  100 ms after the trigger overtakes the buffers ahead of it.

Each variant runs ``SECONDS`` seconds; checkpoints triggered in the first ``WARM_UP_S``
seconds (the queues filling) are not measured. The last line is one JSON object with the
mean end-to-end checkpoint duration per variant (``checkpoint_ms_aligned``,
``checkpoint_ms_unaligned``, ``checkpoint_ms_aligned_timeout``), the mean in-flight bytes
an unaligned checkpoint persisted (``persisted_bytes``) and the ratio aligned/unaligned
(target: at least 10).

Run: ``make bench-unaligned`` or ``.venv/bin/python tests/bench/bench_unaligned.py [seconds]``.
"""
from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from engine.cluster.local import LocalCluster  # noqa: E402
from tests.bench.smoke import SMOKE, sized  # noqa: E402

SECONDS = sized(30.0, 2.0)
WARM_UP_S = sized(3.0, 0.5)
COST = sized("(sum([x] * 6000) + sum([x] * 6000)) // 12000",  # about 0.1 ms of work per record, x unchanged
             "(sum([x] * 6) + sum([x] * 6)) // 12")  # smoke: checkpoints complete within its seconds
VARIANTS = {
    "aligned": {},
    "unaligned": {"unaligned": True},
    "aligned_timeout": {"unaligned": True, "aligned_timeout_ms": 100},
}


def definition(alignment: dict) -> dict:
    return {
        "format": 1, "name": "bench-unaligned", "mode": "streaming", "parallelism": 2, "max_parallelism": 128,
        "checkpointing": {"interval_ms": 1000, "mode": "exactly_once", "timeout_ms": 600000, **alignment},
        "restart": {"strategy": "none"},
        "nodes": [
            {"id": "gen", "type": "source.datagen", "params": {"count": None}, "parallelism": 4},
            {"id": "work", "type": "transform.map", "params": {"expression": COST}},
            {"id": "out", "type": "sink.collect", "params": {"max_records": 1}},
        ],
        "edges": [
            {"id": "e1", "from": "gen", "to": "work", "partitioning": "hash", "key": "x % 64"},
            {"id": "e2", "from": "work", "to": "out"},
        ],
    }


def run(alignment: dict, seconds: float) -> dict:
    with tempfile.TemporaryDirectory() as directory:
        handle = LocalCluster(config={"batch_size": 256}).submit(definition(alignment), checkpoint_dir=directory)
        started_wall = time.time()
        time.sleep(seconds)
        handle.cancel()
        result = handle.wait(120)
    measured = []
    for event in result.events:
        if event.get("type") != "checkpoint" or event.get("event") != "completed" or event.get("kind") != "checkpoint":
            continue
        if event["trigger_timestamp"] / 1000.0 < started_wall + WARM_UP_S:
            continue
        measured.append({"id": event["id"], "end_to_end_ms": event["end_to_end_duration"],
                         "alignment_ms": event["alignment_duration"], "persisted": event["persisted_data"],
                         "unaligned": event["unaligned"]})
    if not measured:
        raise SystemExit(f"no checkpoint completed after the warm-up ({alignment}): run longer")
    return {"checkpoints": measured,
            "end_to_end_ms": statistics.mean(c["end_to_end_ms"] for c in measured),
            "persisted": statistics.mean(c["persisted"] for c in measured)}


def main() -> None:
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else SECONDS
    results = {}
    for name, alignment in VARIANTS.items():
        figures = results[name] = run(alignment, seconds)
        for checkpoint in figures["checkpoints"]:
            print(f"{name:>16} checkpoint {checkpoint['id']:>3}: {checkpoint['end_to_end_ms']:7.0f} ms end to end, "
                  f"alignment {checkpoint['alignment_ms']:7.0f} ms, {checkpoint['persisted']:>8} bytes in flight, "
                  f"{'unaligned' if checkpoint['unaligned'] else 'aligned'}")
        print(f"{name:>16}: mean {figures['end_to_end_ms']:.0f} ms over {len(figures['checkpoints'])} checkpoints")
    ratio = results["aligned"]["end_to_end_ms"] / max(results["unaligned"]["end_to_end_ms"], 1e-3)
    print(f"unaligned checkpoints {ratio:.1f}x shorter than aligned (target 10x); load {os.getloadavg()[0]:.2f}")
    print(json.dumps({
        "checkpoint_ms_aligned": round(results["aligned"]["end_to_end_ms"], 1),
        "checkpoint_ms_unaligned": round(results["unaligned"]["end_to_end_ms"], 1),
        "checkpoint_ms_aligned_timeout": round(results["aligned_timeout"]["end_to_end_ms"], 1),
        "persisted_bytes": round(results["unaligned"]["persisted"]),
        "persisted_bytes_aligned_timeout": round(results["aligned_timeout"]["persisted"]),
        "ratio_aligned_to_unaligned": round(ratio, 1),
        "checkpoints": {name: len(figures["checkpoints"]) for name, figures in results.items()},
        "seconds": seconds, "load": round(os.getloadavg()[0], 2),
    }))


if __name__ == "__main__":
    main()
