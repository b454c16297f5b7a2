"""What latency markers cost: throughput with markers off, at the studio's interval, and 100 times as often.

The job: ``source.datagen`` (``RECORDS`` integers) -> ``transform.map`` -> hash by ``x % 1000`` ->
``aggregate.reduce`` (a running sum) -> ``sink.collect``, parallelism 2 in process (so markers
cross real channels: a hash edge between two subtasks on each side), checkpoints every second.
Three settings, run interleaved ``ROUNDS`` times (off, on, often; then often, on, off; ...) so a
change of the machine's load hits each alike: markers off, markers every ``INTERVAL_MS`` (what
the studio's runs use, ``LATENCY_MARKER_INTERVAL_MS``) and every ``OFTEN_MS``. A run's rate is its
records over the time from RUNNING to its end, and its CPU time per record (the process's CPU
time over the whole run: every subtask runs in this process). On a machine other jobs share, wall
time swings with their load by far more than markers could cost, CPU time less (about 2x at a
load of 15-27, so even it cannot resolve 2 % there: ``docs/performance.md``); so
``marker_overhead_percent`` is how much more CPU time per record the median run with markers at
``INTERVAL_MS`` took than the median run without (negative: within the noise, less), and the
wall-clock rates (best and median of the rounds) are printed beside it. The goal (issue 38) is
≤ 2 % of throughput. Beside each
figure: the markers the sinks recorded and the checkpoints that completed, and the load.

Run: ``make bench-markers`` or ``.venv/bin/python tests/bench/bench_markers.py [--smoke]``; the last
line is one JSON object. ``marker_overhead_percent()`` runs it and returns the overhead alone
(``tests/bench/bench_latency.py`` prints it).
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

from engine.api import InProcess, run  # noqa: E402
from tests.bench.smoke import SMOKE, sized  # noqa: E402

RECORDS = sized(6_000_000, 20_000)
"""Records per run: several seconds each, so several markers and checkpoints fall into every run."""
ROUNDS = sized(5, 1)
INTERVAL_MS = 1000
"""The studio's default interval (``studio.settings.LATENCY_MARKER_INTERVAL_MS``)."""
OFTEN_MS = 10
SETTINGS = {"off": 0, "on": INTERVAL_MS, "often": OFTEN_MS}


def definition(records: int, interval_ms: int) -> dict:
    return {
        "format": 1, "name": "bench-markers", "mode": "streaming", "parallelism": 2, "max_parallelism": 128,
        "checkpointing": {"enabled": True, "interval_ms": 1000, "mode": "exactly_once"},
        "restart": {"strategy": "none"}, "latency_tracking": {"interval_ms": interval_ms},
        "nodes": [
            {"id": "numbers", "type": "source.datagen", "params": {"count": records}},
            {"id": "double", "type": "transform.map", "params": {"expression": "x * 2"}},
            {"id": "sum", "type": "aggregate.reduce", "params": {"function": "sum", "value": "x"}},
            {"id": "out", "type": "sink.collect", "params": {"max_records": 1}},
        ],
        "edges": [
            {"id": "e1", "from": "numbers", "to": "double"},
            {"id": "e2", "from": "double", "to": "sum", "partitioning": "hash", "key": "x % 1000"},
            {"id": "e3", "from": "sum", "to": "out"},
        ],
    }


def measure(interval_ms: int) -> dict:
    """One run: records per second from RUNNING to the end, CPU ns per record, markers the sink recorded,
    checkpoints."""
    state = {"running_at": None, "markers": 0, "checkpoints": 0}

    def on_event(event: dict) -> None:
        if event["type"] == "status" and event["status"] == "RUNNING" and state["running_at"] is None:
            state["running_at"] = time.perf_counter()
        elif event["type"] == "checkpoint" and event.get("event") == "completed":
            state["checkpoints"] += 1
        elif event["type"] == "metrics":
            state["markers"] = sum((report.get("operators") or {}).get("out", {}).get("latency", {}).get("markers", 0)
                                   for report in event["tasks"].values())

    with tempfile.TemporaryDirectory(prefix="bench-markers-") as work:
        started, cpu_started = time.perf_counter(), time.process_time()
        result = run(definition(RECORDS, interval_ms), InProcess(), checkpoint_dir=str(Path(work) / "c"),
                     on_event=on_event, timeout=600)
        ended, cpu = time.perf_counter(), time.process_time() - cpu_started
    if result.status != "FINISHED":
        raise SystemExit(f"the job with markers every {interval_ms} ms ended {result.status}: {result.failure_cause}")
    seconds = ended - (state["running_at"] or started)
    return {"rps": RECORDS / seconds, "cpu_ns_per_record": cpu / RECORDS * 1e9, "markers": state["markers"],
            "checkpoints": state["checkpoints"]}


def measure_interleaved() -> dict[str, list[dict]]:
    """Every setting ``ROUNDS`` times, the order reversed every other round, after one run not counted."""
    runs: dict[str, list[dict]] = {name: [] for name in SETTINGS}
    measure(0)  # warm-up, not counted: the first job of a process pays for imports and compiling
    order = list(SETTINGS)
    for round_number in range(ROUNDS):
        for name in order if round_number % 2 == 0 else reversed(order):
            figures = measure(SETTINGS[name])
            runs[name].append(figures)
            print(f"round {round_number + 1}/{ROUNDS} markers {name:<5} ({SETTINGS[name]:>4} ms): "
                  f"{figures['rps']:>10,.0f} records/s, {figures['cpu_ns_per_record']:>6,.0f} CPU ns/record, "
                  f"{figures['markers']:>5} markers at the sink, "
                  f"{figures['checkpoints']} checkpoints; load {os.getloadavg()[0]:.2f}", flush=True)
    return runs


def overhead_percent(off_rps: float, on_rps: float) -> float:
    """How much lower ``on_rps`` is than ``off_rps``, in percent of ``off_rps``.

    >>> overhead_percent(100.0, 98.0)
    2.0
    """
    return round((off_rps - on_rps) / off_rps * 100.0, 2)


def cpu_overhead_percent(off_ns: float, on_ns: float) -> float:
    """How much more CPU time per record ``on_ns`` is than ``off_ns``, in percent of ``off_ns``.

    >>> cpu_overhead_percent(1000.0, 1020.0)
    2.0
    """
    return round((on_ns - off_ns) / off_ns * 100.0, 2)


def summarise(runs: dict[str, list[dict]]) -> dict:
    best = {name: max(figures["rps"] for figures in measured) for name, measured in runs.items()}
    medians = {name: statistics.median(figures["rps"] for figures in measured) for name, measured in runs.items()}
    cpu = {name: statistics.median(figures["cpu_ns_per_record"] for figures in measured)
           for name, measured in runs.items()}
    return {"marker_overhead_percent": cpu_overhead_percent(cpu["off"], cpu["on"]),
            f"marker_overhead_percent_{OFTEN_MS}ms": cpu_overhead_percent(cpu["off"], cpu["often"]),
            "wall_clock_overhead_percent_best": overhead_percent(best["off"], best["on"]),
            "wall_clock_overhead_percent_median": overhead_percent(medians["off"], medians["on"]),
            "cpu_ns_per_record_off": round(cpu["off"], 1), "cpu_ns_per_record_on": round(cpu["on"], 1),
            f"cpu_ns_per_record_{OFTEN_MS}ms": round(cpu["often"], 1),
            "rps_markers_off": round(best["off"]), "rps_markers_on": round(best["on"]),
            f"rps_markers_{OFTEN_MS}ms": round(best["often"]),
            "median_rps_markers_off": round(medians["off"]), "median_rps_markers_on": round(medians["on"]),
            f"median_rps_markers_{OFTEN_MS}ms": round(medians["often"]),
            "markers_at_sink_on": [figures["markers"] for figures in runs["on"]],
            f"markers_at_sink_{OFTEN_MS}ms": [figures["markers"] for figures in runs["often"]],
            "markers_at_sink_off": [figures["markers"] for figures in runs["off"]],
            "checkpoints_on": [figures["checkpoints"] for figures in runs["on"]],
            "interval_ms": INTERVAL_MS, "records_per_run": RECORDS, "rounds": ROUNDS, "parallelism": 2}


def marker_overhead_percent() -> float:
    """The overhead of markers at the studio's interval, measured now (``tests/bench/bench_latency.py``)."""
    return summarise(measure_interleaved())["marker_overhead_percent"]


def main() -> None:
    print(f"load average {os.getloadavg()[0]:.2f} (1 min, 2 CPUs shared); {RECORDS:,} records per run, "
          f"{ROUNDS} interleaved rounds, in process at parallelism 2", flush=True)
    summary = summarise(measure_interleaved())
    print(f"markers every {INTERVAL_MS} ms: {summary['marker_overhead_percent']:+.2f} % CPU per record (goal ≤ 2 %); "
          f"every {OFTEN_MS} ms: {summary[f'marker_overhead_percent_{OFTEN_MS}ms']:+.2f} %; wall-clock rate, best runs "
          f"{summary['wall_clock_overhead_percent_best']:+.2f} %, medians {summary['wall_clock_overhead_percent_median']:+.2f} %; "
          f"load average {os.getloadavg()[0]:.2f}")
    print(json.dumps({**summary, "smoke": SMOKE, "load_average_1m": round(os.getloadavg()[0], 2)}))


if __name__ == "__main__":
    main()
