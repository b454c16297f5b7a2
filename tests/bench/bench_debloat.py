"""Buffer debloating: checkpoint alignment under backpressure, with and without it (seed 002).

The pipeline: a fast unbounded source and a slow one (a record every 5 s) feed one
subtask through a union; that subtask runs an expensive map (about 0.6 ms per record) and
is the bottleneck, so the fast source's channel is always full while the slow one's is
almost always empty. A checkpoint barrier arrives at once on the slow channel and only after the whole
backlog on the fast one: the *alignment duration* of the union subtask (first barrier to
last barrier) is the time it takes to work through that backlog.

Without debloating the backlog is ``capacity`` (8) buffers of ``batch_size`` (1024)
records plus one source step, about 9,000 records, whatever the subtask's speed. With
debloating (the pipeline's ``"debloat": {"enabled": true}``, default target 1000 ms) the
subtask measures its throughput and has the producers cut buffers so that the backlog
takes about the target time to drain.

Each variant runs ``SECONDS`` seconds with checkpoints every 500 ms (one at a time); the
first ``WARM_UP_S`` seconds are not measured (debloating converges from full-size
buffers). Prints the per-checkpoint figures at the union subtask; the last line is one
JSON object with ``alignment_ms_without`` and ``alignment_ms_with`` (mean alignment
duration) and their ratio, plus the start delays and end-to-end durations.

Run: ``make bench-debloat`` or ``.venv/bin/python tests/bench/bench_debloat.py [seconds]``.
"""
from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from engine.cluster.local import LocalCluster  # noqa: E402
from tests.bench.smoke import SMOKE, sized  # noqa: E402

SECONDS = sized(30.0, 2.0)
WARM_UP_S = sized(5.0, 0.5)
COST = sized("(sum([x] * 40000) + sum([x] * 40000)) // 80000",  # about 0.6 ms of work per record, x unchanged
             "(sum([x] * 40) + sum([x] * 40)) // 80")  # smoke: checkpoints complete within its seconds


def definition(debloat: bool) -> dict:
    return {
        "format": 1, "name": "bench-debloat", "mode": "streaming", "parallelism": 1, "max_parallelism": 128,
        "checkpointing": {"interval_ms": 500, "mode": "exactly_once", "timeout_ms": 600000},
        "restart": {"strategy": "none"},
        "debloat": {"enabled": debloat},
        "nodes": [
            {"id": "fast", "type": "source.datagen", "params": {"count": None}},
            {"id": "slow", "type": "source.datagen", "params": {"count": None, "rate": 0.2}},
            {"id": "both", "type": "transform.union", "params": {}},
            {"id": "work", "type": "transform.map", "params": {"expression": COST}},
            {"id": "out", "type": "sink.collect", "params": {"max_records": 1}},
        ],
        "edges": [
            {"id": "e1", "from": "fast", "to": "both", "partitioning": "rebalance"},
            {"id": "e2", "from": "slow", "to": "both", "partitioning": "rebalance"},
            {"id": "e3", "from": "both", "to": "work"},
            {"id": "e4", "from": "work", "to": "out"},
        ],
    }


def run(debloat: bool, seconds: float) -> dict:
    with tempfile.TemporaryDirectory() as directory:
        handle = LocalCluster(config={"batch_size": 1024}).submit(definition(debloat), checkpoint_dir=directory)
        started = time.monotonic()
        time.sleep(seconds)
        buffer_size = handle.metrics().get("both#0", {}).get("buffer_size")
        handle.cancel()
        result = handle.wait(60)
    measured = []
    for event in result.events:
        if event.get("type") != "checkpoint" or event.get("event") != "completed":
            continue
        if event["trigger_timestamp"] / 1000.0 < time.time() - (time.monotonic() - started) + WARM_UP_S:
            continue
        union = next(s for s in event["subtasks"] if s["vertex"] == "both")
        measured.append({"id": event["id"], "alignment_ms": union["alignment_duration"],
                         "start_delay_ms": union["start_delay"], "end_to_end_ms": event["end_to_end_duration"]})
    if not measured:
        raise SystemExit(f"no checkpoint completed after the warm-up (debloat={debloat}): run longer")
    return {"checkpoints": measured, "buffer_size": buffer_size,
            "alignment_ms": statistics.mean(c["alignment_ms"] for c in measured),
            "start_delay_ms": statistics.mean(c["start_delay_ms"] for c in measured),
            "end_to_end_ms": statistics.mean(c["end_to_end_ms"] for c in measured)}


def main() -> None:
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else SECONDS
    results = {}
    for debloat in (False, True):
        figures = run(debloat, seconds)
        results[debloat] = figures
        label = "with debloating   " if debloat else "without debloating"
        for checkpoint in figures["checkpoints"]:
            print(f"{label} checkpoint {checkpoint['id']:>3}: alignment {checkpoint['alignment_ms']:8.0f} ms, "
                  f"start delay {checkpoint['start_delay_ms']:6.0f} ms, end to end {checkpoint['end_to_end_ms']:8.0f} ms")
        print(f"{label}: mean alignment {figures['alignment_ms']:.0f} ms over {len(figures['checkpoints'])} "
              f"checkpoints; announced buffer size {figures['buffer_size']} records")
    without, with_ = results[False], results[True]
    ratio = without["alignment_ms"] / max(with_["alignment_ms"], 1e-3)
    print(f"alignment {ratio:.1f}x shorter with buffer debloating (target 1000 ms)")
    print(json.dumps({
        "alignment_ms_without": round(without["alignment_ms"], 1), "alignment_ms_with": round(with_["alignment_ms"], 1),
        "alignment_ratio": round(ratio, 1),
        "start_delay_ms_without": round(without["start_delay_ms"], 1),
        "start_delay_ms_with": round(with_["start_delay_ms"], 1),
        "end_to_end_ms_without": round(without["end_to_end_ms"], 1),
        "end_to_end_ms_with": round(with_["end_to_end_ms"], 1),
        "checkpoints_without": len(without["checkpoints"]), "checkpoints_with": len(with_["checkpoints"]),
        "buffer_size_with": with_["buffer_size"], "target_ms": 1000, "seconds": seconds,
    }))


if __name__ == "__main__":
    main()
