"""What latency markers cost: the same job with markers off, at the studio's interval, and 100 times as often.

The job (the shape of ``make bench-latency`` and ``make bench-events``): ``source.datagen``
(``RECORDS`` integers) -> ``transform.map`` -> hash by ``x % 1000`` -> ``aggregate.reduce`` (a
running sum) -> ``sink.collect``, parallelism 2 in process (so markers cross real channels: a
hash edge between two subtasks on each side), checkpoints every second. Integers through a map
that compiles to numpy are the cheapest records this engine has, so a fixed cost per marker is
the largest share of the work here that it can be in any job.

Three settings: markers off, every ``INTERVAL_MS`` (what the studio's runs use,
``studio.settings.LATENCY_MARKER_INTERVAL_MS``) and every ``OFTEN_MS``. On 2 CPUs that other
sessions share, identical runs one after the other differ by 10-25 % in CPU time per record: the
CPU's speed, its caches and its neighbours change from second to second, by far more than 2 %. So
the runs to compare run **at the same time, in two processes pinned to the same CPU** (``Pair``):
the kernel interleaves them on it millisecond by millisecond, so they share all of that; when one
ends first its process keeps the CPU busy (an unbounded job, not measured) until the other ended,
so neither runs alone. Each process runs one job not counted first (imports, compiling). A round
is a pair off / every ``INTERVAL_MS``, then a pair off / every ``OFTEN_MS``; which process runs
which setting alternates from round to round. Each round gives ratios; the figures are the
**medians of the per-round ratios** over ``ROUNDS`` rounds, with their quartiles (an outlier round
moves a median by one place, not by its size):

- ``marker_overhead_percent``: how much more **process CPU time per record** (every subtask,
  the JobMaster and the timers run in this process; over the job's whole life) the run with
  markers every ``INTERVAL_MS`` took than the run without it, in percent, median over the
  rounds: the throughput a CPU loses to markers. The goal (issue 38) is <= 2 %.
- ``wall_clock_overhead_percent``: how much lower the wall-clock rate (records over the job's
  whole life) was, median over the rounds; the rates themselves are what half a CPU gave at
  that load, printed beside each run.
- ``marker_overhead_percent_<OFTEN_MS>ms`` and ``cpu_us_per_marker``: the same with 100 times
  as many markers, and what one marker cost (the extra CPU time of that run over the ``off``
  run of its round, for as many records, over the markers its sources emitted); so
  ``projected_marker_overhead_percent``: that cost times the markers a run at ``INTERVAL_MS``
  emitted, over the CPU time of the run without markers -- where the direct figure is below
  the noise, this says what is under it.

Every run prints its rate, CPU time per record, the markers its sources emitted and its sink
recorded, the checkpoints that completed and the load average; the last line is one JSON object.
Markers cost per marker, never per record (``engine/runtime/operator_chain.py``,
``tests/engine/runtime/test_marker_overhead.py`` checks it structurally).

Run: ``make bench-markers`` or ``.venv/bin/python tests/bench/bench_markers.py [--smoke]``.
``measure_overhead()`` runs it and returns the summary (``make bench-latency`` runs it as its
last phase and reports ``marker_overhead_percent`` from it).
"""
from __future__ import annotations

import gc
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from engine.api import InProcess, job_master_for, run  # noqa: E402
from tests.bench.smoke import SMOKE, sized  # noqa: E402

RECORDS = sized(4_000_000, 20_000)
"""Records per run: 6-12 s on half a CPU at the load of this machine, so every run at the studio's
interval emits 10-25 markers from its two source subtasks and several checkpoints complete."""
ROUNDS = sized(11, 1)
INTERVAL_MS = 1000
"""The studio's default interval (``studio.settings.LATENCY_MARKER_INTERVAL_MS``)."""
OFTEN_MS = 10
SETTINGS = {"off": 0, "on": INTERVAL_MS, "often": OFTEN_MS}
SOURCE, SINK = "double", "out"
"""Markers are counted where they enter the job (the map chained behind each source subtask records
each marker that subtask emits) and where they leave it."""


def definition(records: int, interval_ms: int) -> dict:
    return {
        "format": 1, "name": "bench-markers", "mode": "streaming", "parallelism": 2, "max_parallelism": 128,
        "checkpointing": {"enabled": True, "interval_ms": 1000, "mode": "exactly_once"},
        "restart": {"strategy": "none"}, "latency_tracking": {"interval_ms": interval_ms},
        "nodes": [
            {"id": "numbers", "type": "source.datagen", "params": {"count": records}},
            {"id": SOURCE, "type": "transform.map", "params": {"expression": "x * 2"}},
            {"id": "sum", "type": "aggregate.reduce", "params": {"function": "sum", "value": "x"}},
            {"id": SINK, "type": "sink.collect", "params": {"max_records": 1}},
        ],
        "edges": [
            {"id": "e1", "from": "numbers", "to": SOURCE},
            {"id": "e2", "from": SOURCE, "to": "sum", "partitioning": "hash", "key": "x % 1000"},
            {"id": "e3", "from": "sum", "to": SINK},
        ],
    }


def markers_at(event: dict, node_id: str) -> int:
    """The latency markers ``node_id``'s subtasks recorded, by a metrics event."""
    return sum((report.get("operators") or {}).get(node_id, {}).get("latency", {}).get("markers", 0)
               for report in event["tasks"].values())


def measure(interval_ms: int) -> dict:
    """One run: records per second and CPU ns per record over the job's whole life (its start costs about
    10 ms of CPU, under 1 % of a measured run's), the markers emitted and recorded at the sink, the
    checkpoints completed, the load average at its end."""
    state = {"emitted": 0, "at_sink": 0, "checkpoints": 0}

    def on_event(event: dict) -> None:
        if event["type"] == "checkpoint" and event.get("event") == "completed":
            state["checkpoints"] += 1
        elif event["type"] == "metrics":  # the last one is the final report, after every subtask finished
            state["emitted"], state["at_sink"] = markers_at(event, SOURCE), markers_at(event, SINK)

    gc.collect()  # the previous run's garbage is not collected during this one
    with tempfile.TemporaryDirectory(prefix="bench-markers-") as work:
        started, cpu_started = time.perf_counter(), time.process_time()
        result = run(definition(RECORDS, interval_ms), InProcess(), checkpoint_dir=str(Path(work) / "c"),
                     on_event=on_event, timeout=600)
        ended, cpu_ended = time.perf_counter(), time.process_time()
    if result.status != "FINISHED":
        raise SystemExit(f"the job with markers every {interval_ms} ms ended {result.status}: {result.failure_cause}")
    seconds, cpu = ended - started, cpu_ended - cpu_started
    return {"rps": RECORDS / seconds, "cpu_s": cpu, "cpu_ns_per_record": cpu / RECORDS * 1e9,
            "emitted": state["emitted"], "markers": state["at_sink"], "checkpoints": state["checkpoints"],
            "load": os.getloadavg()[0]}


def worker(cpu: int) -> None:
    """A measuring process (``--worker CPU``): pinned to ``cpu``, one run not counted, then per line ``run
    <interval_ms>`` on stdin one measured run, its figures as one JSON line, and load until ``stop``: an
    unbounded job without markers, so the other process of the pair never runs alone while it finishes."""
    os.sched_setaffinity(0, {cpu})  # before the job's threads exist: they inherit it
    measure(0)
    print("ready", flush=True)
    for line in sys.stdin:
        command, _, argument = line.strip().partition(" ")
        if command != "run":
            break
        print(json.dumps(measure(int(argument))), flush=True)
        with tempfile.TemporaryDirectory(prefix="bench-markers-load-") as work:
            load = job_master_for(definition(None, 0), InProcess(), checkpoint_dir=str(Path(work) / "c")).start(600)
            if sys.stdin.readline().strip() != "stop":
                raise SystemExit("bench-markers worker: expected stop")
            load.cancel()
            load.wait(120)
        print("stopped", flush=True)


class Pair:
    """Two measuring processes pinned to the same CPU: a pair of runs started together shares that CPU,
    its speed, its caches and the rest of the machine's load, moment by moment."""

    def __init__(self, cpu: int):
        self.cpu = cpu
        self.processes = [subprocess.Popen([sys.executable, __file__, "--worker", str(cpu)], stdin=subprocess.PIPE,
                                           stdout=subprocess.PIPE, text=True) for _ in range(2)]
        for process in self.processes:
            self._expect(process, "ready")

    @staticmethod
    def _expect(process, answer: str) -> str:
        """The process's next line: ``answer``, or a JSON object where ``answer`` is ``{``."""
        line = process.stdout.readline()
        text = line.strip()
        if not (text.startswith("{") if answer == "{" else text == answer):
            raise SystemExit(f"bench-markers worker {process.pid} answered {line!r} (exit {process.poll()})")
        return line

    def run(self, first: int, second: int) -> tuple[dict, dict]:
        """Markers every ``first`` ms in one process and every ``second`` ms in the other, at the same time."""
        for process, interval_ms in zip(self.processes, (first, second)):
            process.stdin.write(f"run {interval_ms}\n")
            process.stdin.flush()
        figures = [json.loads(self._expect(process, "{")) for process in self.processes]
        for process in self.processes:
            process.stdin.write("stop\n")
            process.stdin.flush()
        for process in self.processes:
            self._expect(process, "stopped")
        return figures[0], figures[1]

    def close(self) -> None:
        for process in self.processes:
            process.stdin.close()
        for process in self.processes:
            process.wait(120)


def measure_interleaved() -> list[dict[str, dict]]:
    """``ROUNDS`` rounds; each one pair of runs off and on, then one off and often, each pair at the same time
    on one CPU; which process runs which setting alternates from round to round."""
    cpu = max(os.sched_getaffinity(0))
    pair = Pair(cpu)
    rounds = []
    try:
        for round_number in range(ROUNDS):
            runs: dict[str, dict] = {}
            for name in ("on", "often"):
                settings = ["off", name] if round_number % 2 == 0 else [name, "off"]
                for setting, figures in zip(settings, pair.run(*(SETTINGS[setting] for setting in settings))):
                    figures["process"] = settings.index(setting)
                    runs[setting if setting != "off" else f"off_{name}"] = figures
            rounds.append(runs)
            for setting in ("off_on", "on", "off_often", "often"):
                figures = runs[setting]
                name = setting.partition("_")[0]
                print(f"round {round_number + 1:>2}/{ROUNDS} process {figures['process']} markers {name:<5} "
                      f"({SETTINGS[name]:>4} ms): {figures['rps']:>10,.0f} records/s, "
                      f"{figures['cpu_ns_per_record']:>6,.0f} CPU ns/record, {figures['emitted']:>5} markers emitted, "
                      f"{figures['markers']:>5} at the sink, {figures['checkpoints']} checkpoints; "
                      f"load {figures['load']:.2f}", flush=True)
            print(f"round {round_number + 1:>2}/{ROUNDS}: markers every {INTERVAL_MS} ms "
                  f"{cpu_overhead_percent(runs['off_on']['cpu_ns_per_record'], runs['on']['cpu_ns_per_record']):+6.2f} "
                  f"% CPU per record, {overhead_percent(runs['off_on']['rps'], runs['on']['rps']):+6.2f} % wall-clock "
                  f"rate; every {OFTEN_MS} ms "
                  f"{cpu_overhead_percent(runs['off_often']['cpu_ns_per_record'], runs['often']['cpu_ns_per_record']):+6.2f}"
                  f" % CPU per record, "
                  f"{overhead_percent(runs['off_often']['rps'], runs['often']['rps']):+6.2f} % wall-clock rate", flush=True)
    finally:
        pair.close()
    return rounds


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


def quartiles(values: list[float]) -> list[float]:
    """The lower and upper quartile (the values themselves when there are fewer than two).

    >>> quartiles([1.0, 2.0, 3.0, 4.0, 5.0])
    [1.5, 4.5]
    """
    if len(values) < 2:
        return [round(values[0], 2)] * 2 if values else []
    lower, _, upper = statistics.quantiles(values, n=4)
    return [round(lower, 2), round(upper, 2)]


def us_per_marker(off: dict, often: dict) -> float | None:
    """What one marker cost in CPU time (µs): the ``often`` run's CPU time over the ``off`` run's (for as
    many records: the same job), over the markers its sources emitted; None without markers.

    >>> us_per_marker({"cpu_s": 2.0}, {"cpu_s": 2.1, "emitted": 1000})
    100.0
    """
    if not often["emitted"]:
        return None
    return round((often["cpu_s"] - off["cpu_s"]) / often["emitted"] * 1e6, 2)


def summarise(rounds: list[dict[str, dict]]) -> dict:
    def per_round(function, setting: str) -> list[float]:
        return [function(runs[f"off_{setting}"], runs[setting]) for runs in rounds]

    cpu_on = per_round(lambda off, on: cpu_overhead_percent(off["cpu_ns_per_record"], on["cpu_ns_per_record"]), "on")
    cpu_often = per_round(lambda off, on: cpu_overhead_percent(off["cpu_ns_per_record"], on["cpu_ns_per_record"]),
                          "often")
    wall_on = per_round(lambda off, on: overhead_percent(off["rps"], on["rps"]), "on")
    wall_often = per_round(lambda off, on: overhead_percent(off["rps"], on["rps"]), "often")
    per_marker = [cost for cost in per_round(us_per_marker, "often") if cost is not None]
    cost = statistics.median(per_marker) if per_marker else None
    projected = None if cost is None else [
        round(cost * runs["on"]["emitted"] / 1e6 / runs["off_on"]["cpu_s"] * 100.0, 3) for runs in rounds]

    def runs_of(setting: str, key: str) -> list:
        return [runs[setting][key] for runs in rounds]

    loads = [runs[setting]["load"] for runs in rounds for setting in runs]
    return {"marker_overhead_percent": round(statistics.median(cpu_on), 2),
            "marker_overhead_percent_quartiles": quartiles(cpu_on),
            "wall_clock_overhead_percent": round(statistics.median(wall_on), 2),
            "wall_clock_overhead_percent_quartiles": quartiles(wall_on),
            f"marker_overhead_percent_{OFTEN_MS}ms": round(statistics.median(cpu_often), 2),
            f"wall_clock_overhead_percent_{OFTEN_MS}ms": round(statistics.median(wall_often), 2),
            "cpu_us_per_marker": cost,
            "projected_marker_overhead_percent": None if projected is None else statistics.median(projected),
            "cpu_overhead_percent_per_round": cpu_on, "wall_clock_overhead_percent_per_round": wall_on,
            "cpu_ns_per_record_off": runs_of("off_on", "cpu_ns_per_record"),
            "cpu_ns_per_record_on": runs_of("on", "cpu_ns_per_record"),
            "rps_markers_off": round(statistics.median(runs_of("off_on", "rps"))),
            "rps_markers_on": round(statistics.median(runs_of("on", "rps"))),
            f"rps_markers_{OFTEN_MS}ms": round(statistics.median(runs_of("often", "rps"))),
            "markers_emitted_on": runs_of("on", "emitted"), "markers_at_sink_on": runs_of("on", "markers"),
            f"markers_emitted_{OFTEN_MS}ms": runs_of("often", "emitted"),
            f"markers_at_sink_{OFTEN_MS}ms": runs_of("often", "markers"),
            "markers_at_sink_off": runs_of("off_on", "markers") + runs_of("off_often", "markers"), "checkpoints_on": runs_of("on", "checkpoints"),
            "load_average_range": [round(min(loads), 2), round(max(loads), 2)],
            "interval_ms": INTERVAL_MS, "records_per_run": RECORDS, "rounds": len(rounds), "parallelism": 2}


def describe(summary: dict) -> str:
    """The summary's figures in one line."""
    low, high = summary["marker_overhead_percent_quartiles"]
    cost = summary["cpu_us_per_marker"]
    return (f"markers every {INTERVAL_MS} ms: {summary['marker_overhead_percent']:+.2f} % CPU per record (median of "
            f"{summary['rounds']} rounds' ratios, quartiles {low:+.2f} / {high:+.2f}; goal <= 2 %), wall-clock rate "
            f"{summary['wall_clock_overhead_percent']:+.2f} %; every {OFTEN_MS} ms: "
            f"{summary[f'marker_overhead_percent_{OFTEN_MS}ms']:+.2f} % CPU per record"
            + ("" if cost is None else f", {cost:.1f} µs CPU per marker, so at {INTERVAL_MS} ms "
               f"{summary['projected_marker_overhead_percent']:+.3f} %")
            + f"; load average {summary['load_average_range'][0]:.2f}-{summary['load_average_range'][1]:.2f}")


def measure_overhead() -> dict:
    """The whole measurement, printed as it goes; the summary (``make bench-latency``'s last phase)."""
    print(f"latency markers' overhead: load average {os.getloadavg()[0]:.2f} (1 min, 2 CPUs shared); "
          f"{RECORDS:,} records per run, {ROUNDS} interleaved rounds of off / every {INTERVAL_MS} ms / every "
          f"{OFTEN_MS} ms, in process at parallelism 2", flush=True)
    summary = summarise(measure_interleaved())
    print(describe(summary), flush=True)
    return summary


def main() -> None:
    if sys.argv[1:2] == ["--worker"]:
        worker(int(sys.argv[2]))
        return
    summary = measure_overhead()
    print(json.dumps({**summary, "smoke": SMOKE, "load_average_1m": round(os.getloadavg()[0], 2)}))


if __name__ == "__main__":
    main()
