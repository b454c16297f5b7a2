"""Deployment settings against each other on one ``bench-events`` job, run by run in one Spark session.

Why: whole ``make bench-events`` runs of two trees, interleaved, moved the join's p=2 slot CPU
per event 1.8-2.5 µs for the same code on this shared machine -- more than most changes move it.
Runs seconds apart in one Spark session see the same neighbours, so each round here runs every
variant at p=1 and p=2 back to back (the variants' order alternating between rounds) and prints
each run's slot CPU (``tests.bench.slot_cpu``), then per variant the best events/s ratio, the least
and median p=2 slot CPU per event, and the CPU-normalised p=2 / p=1 (p=1's least slot CPU over the
least busiest p=2 slot's). Figures are printed, never asserted.

Run: ``.venv/bin/python tests/bench/events_config_ab.py [events] [rounds] [job] '{"name": {setting: value}, ...}'``,
for example ``... 1000000 8 join '{"on": {}, "off": {"join_buffers_per_watermark": false}}'``.
"""
from __future__ import annotations

import json
import os
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from engine.api import Spark  # noqa: E402
from tests.bench import bench_events  # noqa: E402
from tests.bench.slot_cpu import SlotCpuMeter, cpu_normalised_scaling, jvm_pid  # noqa: E402


def main() -> None:
    events, rounds, job, variants = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], json.loads(sys.argv[4])
    with bench_events.one_job_on_spark("bench-events-config-ab", events, job) as (session, input_dir, expected):
        meter = SlotCpuMeter(jvm_pid(session))
        bench_events.timed_run(Spark(session=session), input_dir, 2, expected, events, job)  # warm the workers
        runs: dict = {}
        for round_number in range(rounds):
            order = list(variants.items())
            for name, config in order if round_number % 2 == 0 else reversed(order):
                for parallelism in (1, 2):
                    figures: dict = {}
                    rps, _ = bench_events.timed_run(Spark(session=session, config=config), input_dir, parallelism,
                                                    expected, events, job, figures, meter)
                    runs.setdefault((name, parallelism), []).append((rps, figures["slot_cpu"]))
                    print(f"round {round_number} {name} p={parallelism}: {rps:,.0f} events/s, slot CPU "
                          f"{bench_events.slot_cpu_text(figures['slot_cpu'], events)}, load "
                          f"{os.getloadavg()[0]:.1f}", file=sys.stderr)
    summary = {}
    for name in variants:
        p1, p2 = runs[(name, 1)], runs[(name, 2)]
        least_p1 = min((cpu for _, cpu in p1), key=lambda cpu: cpu.total_s)
        least_p2 = min((cpu for _, cpu in p2), key=lambda cpu: cpu.busiest_s)
        both = [cpu.total_s / events * 1e6 for _, cpu in p2]
        summary[name] = {"p2_over_p1": round(max(rps for rps, _ in p2) / max(rps for rps, _ in p1), 2),
                         "cpu_us_per_event_p1": round(least_p1.total_s / events * 1e6, 2),
                         "cpu_us_per_event_p2_least": round(min(both), 2),
                         "cpu_us_per_event_p2_median": round(statistics.median(both), 2),
                         "cpu_us_per_event_p2_rounds": [round(value, 2) for value in both],
                         "cpu_normalised": round(cpu_normalised_scaling(least_p1, least_p2), 2)}
        print(f"{name}: {summary[name]}")
    print(json.dumps({"job": job, "events": events, "rounds": rounds, "variants": summary,
                      "load_average_1m": round(os.getloadavg()[0], 2)}))


if __name__ == "__main__":
    main()
