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

Throughput is events per second from RUNNING to FINISHED (the processing, not the
start-up), best of ``REPEATS`` interleaved runs of each variant (a busy neighbour slows
them alike): in process at parallelism 1, and on Spark ``local[2]`` at parallelism 1 and
2. The last line is one JSON object with ``rps_inprocess_p1``, ``rps_spark_p1`` and
``rps_spark_p2``. Figures are printed, never asserted.

``--busy-neighbour`` adds ``rps_spark_p2_busy_neighbour``: the p=2 run again while a busy loop
pinned to CPU 1 takes half of that CPU from the slot pinned there -- the case the splits handed
out on request are for (a subtask on a slower CPU reads fewer of them).

Run: ``make bench-events`` or
``.venv/bin/python tests/bench/bench_events.py [events] [--no-spark] [--busy-neighbour]``.
"""
from __future__ import annotations

import glob
import json
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

EVENTS = 1_000_000
FILES = 4
USERS = 200
EVENT_SPACING_MS = 1
JITTER_MS = 1000
WINDOW_MS = 10_000
REPEATS = 5
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
             "params": {"timestamp": 'x["ts"]', "max_out_of_orderness_ms": JITTER_MS}},
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


def timed_run(deployment, input_dir: Path, parallelism: int, expected: dict, events: int) -> tuple[float, float]:
    """Run the job once, check its output; return (events/s from RUNNING to FINISHED, this
    process's CPU µs per event over the run: the in-process cost, steadier than the wall
    clock on a busy machine)."""
    marks: dict = {}

    def on_event(event):
        if event["type"] == "status":
            marks.setdefault(event["status"], (time.perf_counter(), time.process_time()))

    with tempfile.TemporaryDirectory() as work:
        output_dir = Path(work) / "out"
        job_master = job_master_for(definition(input_dir, output_dir, parallelism), deployment,
                                    checkpoint_dir=str(Path(work) / "checkpoints"), on_event=on_event)
        result = job_master.start(600).wait()
        if result.status != "FINISHED":
            raise SystemExit(f"benchmark job {result.status}: {result.failure_cause}")
        found = committed_output(output_dir)
    if found != expected:
        missing = len(set(expected) - set(found))
        wrong = sum(1 for key in expected if key in found and found[key] != expected[key])
        raise SystemExit(f"output differs from the plain computation: {missing} windows missing, {wrong} wrong, "
                         f"{len(set(found) - set(expected))} extra")
    (wall_start, cpu_start), (wall_end, cpu_end) = marks["RUNNING"], marks["FINISHED"]
    return events / (wall_end - wall_start), (cpu_end - cpu_start) / events * 1e6


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
        variants = {"inprocess_p1": (InProcess(), 1)}
        session = None
        if with_spark:
            from engine.cluster.spark_session import create_spark_session

            session = create_spark_session("bench-events", "local[2]")
            variants["spark_p1"] = (Spark(session=session), 1)
            variants["spark_p2"] = (Spark(session=session), 2)
            timed_run(variants["spark_p2"][0], input_dir, 2, expected, events)  # warm the Python workers
        runs: dict[str, list[float]] = {name: [] for name in variants}
        cpu_us: list[float] = []
        for _ in range(REPEATS):
            for name, (deployment, parallelism) in variants.items():
                rps, cpu = timed_run(deployment, input_dir, parallelism, expected, events)
                runs[name].append(rps)
                if name == "inprocess_p1":
                    cpu_us.append(cpu)
                print(f"  {name}: {rps:,.0f} events/s", file=sys.stderr)
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
    summary.update({"cpu_us_per_event_inprocess_p1": round(min(cpu_us), 2), "events": events,
                    "load_average_1m": round(os.getloadavg()[0], 2)})
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
