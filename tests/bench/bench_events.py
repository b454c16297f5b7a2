"""Speed on JSON events: file source -> filter -> event time -> key by user -> 10 s tumbling sum -> file sink.

1,000,000 generated JSON events of eight fields each, in four JSON-lines files of
consecutive time ranges, read in 4 MiB splits that the source's enumerator hands to
whichever subtask asks next, earliest first (so at parallelism 2 a subtask on a slower
CPU simply reads fewer of them, and each subtask reads forward in event time). The job
keeps the events whose ``kind`` is not ``"scroll"``, takes event time from ``ts`` (1 s
out-of-orderness, which the generated jitter stays within: nothing is late), keys by the
string ``user``, sums ``amount`` over 10 s tumbling windows and writes ``[user, window
end, sum]`` lines through the exactly-once file sink, with checkpoints every second. The
committed output is checked against a plain-Python computation of the same result.

Two more jobs over the same events: ``session`` (the same filter and event time, then per
user a session window with a 500 ms gap summing ``amount``) and ``join`` (clicks and
purchases of the same user in the same 100 ms, a window join, both sides from the one
source through a filter each). Their output is checked against the in-process run's.

Throughput is events per second from RUNNING to FINISHED (the processing, not the
start-up), best of ``REPEATS`` interleaved runs of each variant (a busy neighbour slows
them alike): in process at parallelism 1, and on Spark ``local[2]`` at parallelism 1 and
2. The last line is one JSON object with ``rps_inprocess_p1``, ``rps_spark_p1``,
``rps_spark_p2`` and ``spark_p2_over_p1`` (the tumbling job), the same with ``_session`` and
``_join`` appended for the other two jobs, the checkpoints each job completed in its last
run (``checkpoints_<job>``), the in-process CPU per event and the load. Figures are printed,
never asserted.

Watermark alignment: the jobs run with the default (``engine.runtime.watermark_alignment``): the
session and join jobs align their source subtasks (120 s and 30 s drift: at p=2 a source subtask that
runs further ahead of the other in event time waits for it), the tumbling job does not (its window
partials keep a number per key and window, which the skew costs little); ``--no-alignment``: off
for all. Each aligned run prints how far apart the sources' watermarks got
(``most_ahead_ms_<variant>`` in the last line, from the JobMaster's metrics events) and how long the
sources paused for it.

CPU-normalised scaling: on a machine whose other work takes most of its 2 CPUs the wall-clock
ratio says what share of a CPU each run got, not how the job scales. So each Spark run also
reads the CPU time of its slot processes (``tests.bench.slot_cpu``) and the last line has, per
job, ``spark_cpu_us_per_event_p1``/``_p2`` (all slots together, least of the repeats) and
``spark_p2_over_p1_cpu_normalised``: p=1's slot CPU over the busiest p=2 slot's, the ratio two
slots with a CPU each would reach (2.0 is the limit; the p=2 run's extra CPU for the exchange
and an uneven split both lower it). A Flink SQL anchor needs PyFlink; without it that phase is skipped, and the
bench says so (``flink_sql_anchor``: null).

``--busy-neighbour`` adds ``rps_spark_p2_busy_neighbour``: the p=2 run again while a busy loop
pinned to CPU 1 takes half of that CPU from the slot pinned there -- the case the splits handed
out on request are for (a subtask on a slower CPU reads fewer of them).

Run: ``make bench-events`` or
``.venv/bin/python tests/bench/bench_events.py [events] [--no-spark] [--busy-neighbour] [--no-alignment]``.
"""
from __future__ import annotations

import contextlib
import glob
import json
from collections import Counter
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from engine.api import InProcess, Spark, job_master_for  # noqa: E402
from engine.spec import normalise_definition  # noqa: E402
from tests.bench.slot_cpu import SlotCpu, SlotCpuMeter, cpu_normalised_scaling, jvm_pid  # noqa: E402
from tests.bench.smoke import sized  # noqa: E402

EVENTS = sized(1_000_000, 4_000)
FILES = 4
USERS = 200
EVENT_SPACING_MS = 1
JITTER_MS = 1000
WINDOW_MS = 10_000
REPEATS = sized(5, 1)
KINDS = ("click", "view", "purchase", "scroll")
COUNTRIES = ("DE", "FR", "US", "JP", "BR", "IN")
DEVICES = ("ios", "android", "web")


def generate(directory: Path, events: int) -> list[Path]:
    """Write the events into FILES JSON-lines files, each a time range after the previous one."""
    rng = random.Random(21)
    per_file = -(-events // FILES)
    paths = []
    for number in range(FILES):
        path = directory / f"events-{number}.jsonl"
        with path.open("w") as out:
            first = number * per_file
            for i in range(first, min(events, first + per_file)):
                out.write(json.dumps({
                    "id": i, "ts": 1_700_000_000_000 + i * EVENT_SPACING_MS + rng.randrange(JITTER_MS),
                    "user": f"user-{rng.randrange(USERS):04d}", "kind": KINDS[rng.randrange(len(KINDS))],
                    "amount": rng.randrange(1, 100), "country": COUNTRIES[rng.randrange(len(COUNTRIES))],
                    "device": DEVICES[rng.randrange(len(DEVICES))], "session": f"s{rng.randrange(10**6):06x}",
                }, separators=(",", ":")) + "\n")
        paths.append(path)
    return paths


def expected_result(paths: list[Path]) -> dict:
    """The job's result computed in plain Python: ``{(user, window end): sum}``."""
    sums: dict = {}
    for path in paths:
        with path.open() as lines:
            for line in lines:
                event = json.loads(line)
                if event["kind"] == "scroll":
                    continue
                ts = event["ts"]
                key = (event["user"], ts - ts % WINDOW_MS + WINDOW_MS)
                sums[key] = sums.get(key, 0) + event["amount"]
    return sums


@contextlib.contextmanager
def one_job_on_spark(app_name: str, events: int, job: str):
    """``(session, input_dir, expected)`` for a bench that runs one job several ways in one Spark ``local[2]``
    session: ``events`` generated events in a temporary directory, the tumbling job's expected result (empty
    for the others, which check no result) and the session, stopped at the end."""
    from engine.cluster.spark_session import create_spark_session

    with tempfile.TemporaryDirectory() as work:
        input_dir = Path(work) / "events"
        input_dir.mkdir()
        paths = generate(input_dir, events)
        expected = expected_result(paths) if job == "tumbling" else Counter()
        session = create_spark_session(app_name, "local[2]")
        try:
            yield session, input_dir, expected
        finally:
            session.stop()


def alignment_drift() -> int | None:
    """The jobs' ``alignment_max_drift_ms``: unset (the default: behind a file source, the engine's
    ``AUTO_DRIFT_MS``), or 0 (off) with ``--no-alignment``."""
    return 0 if "--no-alignment" in sys.argv else None


def definition(input_dir: Path, output_dir: Path, parallelism: int) -> dict:
    return normalise_definition({
        "format": 1, "name": "bench-events", "mode": "streaming", "parallelism": parallelism,
        "max_parallelism": 128,
        "checkpointing": {"enabled": True, "interval_ms": 1000, "mode": "exactly_once"},
        "restart": {"strategy": "none"},
        "nodes": [
            {"id": "events", "type": "source.file", "params": {"path": str(input_dir), "format": "jsonl"}},
            {"id": "no_scrolls", "type": "transform.filter", "params": {"predicate": 'x["kind"] != "scroll"'}},
            {"id": "event_time", "type": "transform.watermark",
             "params": {"timestamp": 'x["ts"]', "max_out_of_orderness_ms": JITTER_MS,
                        "alignment_max_drift_ms": alignment_drift()}},
            {"id": "per_user", "type": "window.tumbling",
             "params": {"size_ms": WINDOW_MS, "function": "sum", "value": 'x["amount"]'}},
            {"id": "out", "type": "sink.file", "params": {"path": str(output_dir)}},
        ],
        "edges": [
            {"id": "e1", "from": "events", "to": "no_scrolls"},
            {"id": "e2", "from": "no_scrolls", "to": "event_time"},
            {"id": "e3", "from": "event_time", "to": "per_user", "partitioning": "hash", "key": 'x["user"]'},
            {"id": "e4", "from": "per_user", "to": "out"},
        ],
    })


def session_definition(input_dir: Path, output_dir: Path, parallelism: int) -> dict:
    """The tumbling job with a session window (gap 500 ms) in place of the tumbling one."""
    job = definition(input_dir, output_dir, parallelism)
    job["name"] = "bench-events-session"
    job["nodes"][3] = {"id": "per_user", "type": "window.session",
                       "params": {"gap_ms": 500, "function": "sum", "value": 'x["amount"]'}}
    return job


def join_definition(input_dir: Path, output_dir: Path, parallelism: int) -> dict:
    """Clicks and purchases of one user in the same 100 ms window (window join), from one source."""
    def side(kind: str) -> list[dict]:
        return [{"id": f"{kind}s", "type": "transform.filter", "params": {"predicate": f'x["kind"] == "{kind}"'}}]

    return normalise_definition({
        "format": 1, "name": "bench-events-join", "mode": "streaming", "parallelism": parallelism,
        "max_parallelism": 128,
        "checkpointing": {"enabled": True, "interval_ms": 1000, "mode": "exactly_once"},
        "restart": {"strategy": "none"},
        "nodes": [
            {"id": "events", "type": "source.file", "params": {"path": str(input_dir), "format": "jsonl"}},
            # event time right at the source, per source subtask (each reads its splits forward in time): a
            # watermark after a rebalance would see two subtasks' different time ranges and call records late
            {"id": "event_time", "type": "transform.watermark",
             "params": {"timestamp": 'x["ts"]', "max_out_of_orderness_ms": JITTER_MS,
                        "alignment_max_drift_ms": alignment_drift()}},
            *side("click"), *side("purchase"),
            {"id": "pairs", "type": "join.window",
             "params": {"size_ms": 100, "output": '[left["user"], left["id"], right["id"]]'}},
            {"id": "out", "type": "sink.file", "params": {"path": str(output_dir)}},
        ],
        "edges": [
            {"id": "t", "from": "events", "to": "event_time"},
            {"id": "c1", "from": "event_time", "to": "clicks"},
            {"id": "p1", "from": "event_time", "to": "purchases"},
            {"id": "cj", "from": "clicks", "to": "pairs", "partitioning": "hash", "key": 'x["user"]', "side": "left"},
            {"id": "pj", "from": "purchases", "to": "pairs", "partitioning": "hash", "key": 'x["user"]',
             "side": "right"},
            {"id": "out", "from": "pairs", "to": "out"},
        ],
    })


JOBS = {"tumbling": definition, "session": session_definition, "join": join_definition}
RECORD_PATH = "inprocess_p1_record_path"
"""The in-process tumbling job with ``"json_fields": false``: dicts through the chain, as before the fields path."""


def committed_lines(output_dir: Path) -> Counter:
    """The sink's committed lines, as a multiset."""
    found: Counter = Counter()
    for path in sorted(glob.glob(str(output_dir / "part-*"))):
        with open(path) as lines:
            found.update(lines)
    return found


def committed_output(output_dir: Path) -> dict:
    """The sink's committed lines as ``{(user, window end): sum}``; a doubled window fails."""
    found: dict = {}
    for path in sorted(glob.glob(str(output_dir / "part-*"))):
        with open(path) as lines:
            for line in lines:
                user, end, total = json.loads(line)
                if (user, end) in found:
                    raise SystemExit(f"window {(user, end)} written twice")
                found[(user, end)] = total
    return found


def timed_run(deployment, input_dir: Path, parallelism: int, expected, events: int,
              job: str = "tumbling", figures: dict | None = None, meter: SlotCpuMeter | None = None,
              ) -> tuple[float, float]:
    """Run the job once, check its output (the tumbling job's against ``expected``, a dict; the
    others' against ``expected``, a Counter of lines, when given, else kept in it); return
    (events/s from RUNNING to FINISHED, this process's CPU µs per event over the run: the
    in-process cost, steadier than the wall clock on a busy machine). ``figures`` gets the
    checkpoints the run completed, and with a ``meter`` (Spark) the slot processes' CPU from
    RUNNING to FINISHED (``slot_cpu``)."""
    marks: dict = {}
    completed = []

    def on_event(event):
        if event["type"] == "status":
            if event["status"] not in marks and meter is not None:
                if event["status"] == "RUNNING":
                    meter.start()
                elif event["status"] == "FINISHED":
                    marks["slot_cpu"] = meter.stop()
            marks.setdefault(event["status"], (time.perf_counter(), time.process_time()))
        elif event["type"] == "checkpoint" and event.get("event") == "completed":
            completed.append(event.get("id"))
        elif event["type"] == "metrics":
            for group in (event.get("watermark_alignment") or {}).values():
                marks["most_ahead"] = max(marks.get("most_ahead", 0), group["most_ahead"])
            paused = sum(task.get("alignment_paused_ms", 0) for task in event["tasks"].values())
            marks["alignment_paused_ms"] = max(marks.get("alignment_paused_ms", 0), paused)

    with tempfile.TemporaryDirectory() as work:
        output_dir = Path(work) / "out"
        job_master = job_master_for(JOBS[job](input_dir, output_dir, parallelism), deployment,
                                    checkpoint_dir=str(Path(work) / "checkpoints"), on_event=on_event)
        result = job_master.start(600).wait()
        if result.status != "FINISHED":
            raise SystemExit(f"benchmark job {job} {result.status}: {result.failure_cause}")
        found = committed_output(output_dir) if job == "tumbling" else committed_lines(output_dir)
    if figures is not None:
        figures["checkpoints"] = len(completed)
        figures["most_ahead_ms"] = marks.get("most_ahead")
        figures["alignment_paused_ms"] = marks.get("alignment_paused_ms")
        if "slot_cpu" in marks:
            figures["slot_cpu"] = marks["slot_cpu"]
    (wall_start, cpu_start), (wall_end, cpu_end) = marks["RUNNING"], marks["FINISHED"]
    if job != "tumbling":
        if not expected:
            expected.update(found)
        elif found != expected:
            raise SystemExit(f"{job} at p={parallelism} on {type(deployment).__name__}: {sum(found.values())} output "
                             f"lines against the first run's {sum(expected.values())}")
        return events / (wall_end - wall_start), (cpu_end - cpu_start) / events * 1e6
    if found != expected:
        missing = len(set(expected) - set(found))
        wrong = sum(1 for key in expected if key in found and found[key] != expected[key])
        raise SystemExit(f"output differs from the plain computation: {missing} windows missing, {wrong} wrong, "
                         f"{len(set(found) - set(expected))} extra")
    (wall_start, cpu_start), (wall_end, cpu_end) = marks["RUNNING"], marks["FINISHED"]
    return events / (wall_end - wall_start), (cpu_end - cpu_start) / events * 1e6


def slot_cpu_text(slot_cpu: SlotCpu, events: int) -> str:
    """The run's slot processes' CPU per event, busiest first, and the JVM's."""
    slots = sorted(slot_cpu.busy_processes().values(), reverse=True)
    return (" + ".join(f"{seconds / events * 1e6:.2f}" for seconds in slots) + " µs/event"
            f" (JVM {slot_cpu.jvm_s / events * 1e6:.2f})")


def cpu_scaling_figures(slot_cpus: dict[str, list[SlotCpu]], events: int) -> dict:
    """Per job: the slots' CPU per event at p=1 and p=2 (least of the repeats: the least
    disturbed) and the CPU-normalised p=2 / p=1 (``engine``-independent of the machine's load:
    ``tests.bench.slot_cpu``). Printed, with the busiest p=2 slot's share of the p=2 CPU."""
    figures: dict = {}
    for job in JOBS:
        suffix = "" if job == "tumbling" else f"_{job}"
        p1_runs, p2_runs = slot_cpus.get(f"spark_p1{suffix}"), slot_cpus.get(f"spark_p2{suffix}")
        if not p1_runs or not p2_runs:
            continue
        p1 = min(p1_runs, key=lambda run: run.total_s)
        p2 = min(p2_runs, key=lambda run: run.busiest_s)
        scaling = cpu_normalised_scaling(p1, p2)
        figures[f"spark_cpu_us_per_event_p1{suffix}"] = round(p1.total_s / events * 1e6, 3)
        figures[f"spark_cpu_us_per_event_p2{suffix}"] = round(p2.total_s / events * 1e6, 3)
        figures[f"spark_p2_over_p1_cpu_normalised{suffix}"] = None if scaling is None else round(scaling, 2)
        print(f"{job}: slot CPU per event p=1 {p1.total_s / events * 1e6:.2f} µs, p=2 {p2.total_s / events * 1e6:.2f}"
              f" µs (busiest slot {p2.busiest_s / max(p2.total_s, 1e-9):.0%} of it); CPU-normalised p=2 / p=1 "
              f"{scaling if scaling is None else round(scaling, 2)} (limit 2.0)")
    return figures


def busy_neighbour_runs(deployment, input_dir: Path, expected: dict, events: int) -> list[float]:
    """``REPEATS`` p=2 runs while a busy loop pinned to CPU 1 competes with the slot there."""
    loop = subprocess.Popen([sys.executable, "-c", "import os\nos.sched_setaffinity(0, {1})\nwhile True: pass"])
    try:
        runs = []
        for _ in range(REPEATS):
            runs.append(timed_run(deployment, input_dir, 2, expected, events)[0])
            print(f"  spark_p2_busy_neighbour: {runs[-1]:,.0f} events/s", file=sys.stderr)
        return runs
    finally:
        loop.kill()
        loop.wait()


def main() -> None:
    arguments = [argument for argument in sys.argv[1:] if not argument.startswith("--")]
    events = int(arguments[0]) if arguments else EVENTS
    with_spark = "--no-spark" not in sys.argv
    with tempfile.TemporaryDirectory() as work:
        input_dir = Path(work) / "events"
        input_dir.mkdir()
        paths = generate(input_dir, events)
        expected = expected_result(paths)
        variants = {"inprocess_p1": (InProcess(), 1),
                    # the tumbling job without the fields path (engine.runtime.json_fields), interleaved with it
                    RECORD_PATH: (InProcess(config={"json_fields": False}), 1)}
        session = None
        if with_spark:
            from engine.cluster.spark_session import create_spark_session

            session = create_spark_session("bench-events", "local[2]")
            variants["spark_p1"] = (Spark(session=session), 1)
            variants["spark_p2"] = (Spark(session=session), 2)
            timed_run(variants["spark_p2"][0], input_dir, 2, expected, events)  # warm the Python workers
        meter = SlotCpuMeter(jvm_pid(session)) if session is not None and jvm_pid(session) else None
        runs: dict[str, list[float]] = {}
        slot_cpus: dict[str, list[SlotCpu]] = {}
        cpu_us: list[float] = []
        record_path_cpu_us: list[float] = []
        outputs = {job: (expected if job == "tumbling" else Counter()) for job in JOBS}
        checkpoints: dict[str, int] = {}
        ahead: dict[str, int] = {}  # label -> the most a source subtask's watermark was ahead of the other's
        for _ in range(REPEATS):
            for job in JOBS:
                for name, (deployment, parallelism) in variants.items():
                    if name == RECORD_PATH and job != "tumbling":
                        continue
                    figures: dict = {}
                    rps, cpu = timed_run(deployment, input_dir, parallelism, outputs[job], events, job, figures,
                                         meter if name.startswith("spark") else None)
                    label = name if job == "tumbling" else f"{name}_{job}"
                    runs.setdefault(label, []).append(rps)
                    checkpoints[job] = figures["checkpoints"]
                    if figures.get("most_ahead_ms") is not None:
                        ahead[label] = max(ahead.get(label, 0), figures["most_ahead_ms"])
                    if label == "inprocess_p1":
                        cpu_us.append(cpu)
                    elif label == RECORD_PATH:
                        record_path_cpu_us.append(cpu)
                    slot_cpu = figures.get("slot_cpu")
                    if slot_cpu is not None:
                        slot_cpus.setdefault(label, []).append(slot_cpu)
                    print(f"  {label}: {rps:,.0f} events/s, {figures['checkpoints']} checkpoints"
                          + (f", source watermarks at most {figures['most_ahead_ms']:,} ms apart, sources paused "
                             f"{figures['alignment_paused_ms']:,.0f} ms" if figures.get("most_ahead_ms") is not None
                             else "")
                          + (f", slot CPU {slot_cpu_text(slot_cpu, events)}" if slot_cpu else "")
                          + f", load {os.getloadavg()[0]:.1f}", file=sys.stderr)
        if with_spark and "--busy-neighbour" in sys.argv:
            runs["spark_p2_busy_neighbour"] = busy_neighbour_runs(variants["spark_p2"][0], input_dir, expected, events)
        if session is not None:
            session.stop()
    best = {name: max(figures) for name, figures in runs.items()}
    for name, rps in best.items():
        print(f"{name:<24} {rps:>12,.0f} events/s (best of {REPEATS}: "
              f"{', '.join(f'{figure:,.0f}' for figure in runs[name])})")
    summary = {f"rps_{name}": round(rps) for name, rps in best.items()}
    if "rps_spark_p2" in summary:
        summary["spark_p2_over_p1"] = round(best["spark_p2"] / best["spark_p1"], 2)
        for job in JOBS:
            if job != "tumbling":
                ratio = best[f"spark_p2_{job}"] / best[f"spark_p1_{job}"]
                summary[f"spark_p2_over_p1_{job}"] = round(ratio, 2)
                print(f"{job}: Spark p=2 over p=1 {ratio:.2f}")
        print(f"tumbling: Spark p=2 over p=1 {summary['spark_p2_over_p1']:.2f} (goal 1.8)")
    summary.update(cpu_scaling_figures(slot_cpus, events))
    summary.update({f"checkpoints_{job}": count for job, count in checkpoints.items()})
    summary["alignment"] = "--no-alignment" not in sys.argv
    summary.update({f"most_ahead_ms_{label}": most for label, most in ahead.items()})
    print("checkpoints completed in each job's last run: "
          + ", ".join(f"{job} {count}" for job, count in checkpoints.items()))
    summary["flink_sql_anchor"] = flink_sql_anchor()
    ratios = sorted(fields / records for fields, records in zip(cpu_us, record_path_cpu_us))
    print(f"in process, CPU per event: fields path {min(cpu_us):.3f} µs, record path {min(record_path_cpu_us):.3f} µs "
          f"(least of {REPEATS}); per round fields / record path "
          + ", ".join(f"{ratio:.2f}" for ratio in ratios))
    summary.update({"cpu_us_per_event_inprocess_p1": round(min(cpu_us), 2),
                    "cpu_us_per_event_inprocess_p1_record_path": round(min(record_path_cpu_us), 2),
                    "fields_over_record_path_cpu": round(ratios[len(ratios) // 2], 2), "events": events,
                    "load_average_1m": round(os.getloadavg()[0], 2)})
    print(json.dumps(summary))


def flink_sql_anchor():
    """The same job in Flink SQL (PyFlink's Table API, JVM) as an anchor; skipped without PyFlink."""
    try:
        import pyflink  # noqa: F401
    except ImportError:
        print("Flink SQL anchor: skipped (PyFlink is not installed: pip install apache-flink)")
        return None
    print("Flink SQL anchor: PyFlink is installed, but this bench has no Flink SQL phase yet: skipped")
    return None


if __name__ == "__main__":
    main()
