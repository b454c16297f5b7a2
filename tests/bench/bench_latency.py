"""Event-to-output latency at fixed input rates: Redis Streams -> map -> keyed reduce -> Redis Streams.

The job: ``source.redis_stream`` -> ``transform.map`` (a new record of three fields) ->
hash by user (100 users) -> ``aggregate.reduce`` (per user the max of the events' send
times, emitted after every record) -> ``sink.redis_stream``; checkpoints every
``INTERVAL_MS``. Two paths: at least once (at-least-once checkpoints, the sink appends at
once) and exactly once (the sink's entries become visible when their checkpoint completes).
Two placements: in process at parallelism 1 and on Spark ``local[2]`` at parallelism 2 (the
stream is one split: one source subtask reads it, the map beside it, and the hash exchange
spreads the users over both slots).

A producer process appends entries ``{"value": json}`` at a fixed rate (1k, 10k and 100k
events/s): every moment it appends, in one pipelined round trip, the entries that are due,
each stamped with the wall-clock time (ms) of that send -- at 1k/s one entry per send. A
consumer process follows the output stream (``XREAD BLOCK``) and takes, for each output
entry, its arrival time minus the send time it carries (the max over the user's events: the
latest event of that user, whose output it is) -- and, beside it, the time Redis wrote the
entry into the output stream (its id's milliseconds, ``XADD *``: Redis's clock, when any
reader could have it) minus the send time, both in whole milliseconds (``written_latency_...``, so within a millisecond). The
two differ by the consumer's own delays: a consumer process waiting for a CPU reads late and
counts that wait as latency; the written figure does not. One clock: both processes are on this
machine. The first ``WARM_UP_S`` seconds of each run are not counted; the producer runs
``SECONDS`` seconds. The rate the producer achieved and the rate of output entries are
printed beside each figure, and how many checkpoints completed during the run.

Beside each outside figure, what the job's own latency markers measured at the sink (one every
``MARKER_INTERVAL_MS`` from each source subtask; the sink's metrics at the moment the producer
stopped, so over its latest 128 markers per source subtask): per sink subtask and for the sink
(the median of the subtasks' medians, the highest p99), from the source to the sink
(``marker_latency_...``) and, for the exactly-once path, from the source to the commit that made
the entry visible (``marker_visible_latency_...``), which is what the consumer sees. The markers
start at the source subtask, so they miss the time an entry waits in the input stream before the
source reads it and the consumer's read of the output; the outside figure includes both.

Goals (issue 39): at-least-once p99 ≤ 10 ms at 10k events/s; exactly-once p99 ≤ the
checkpoint interval + 50 ms. Figures are printed, never asserted. The last line is one JSON
object with ``latency_{p50,p99,max}_ms_<path>_<rate>`` (in process), ``written_latency_...`` (to the output
stream, by its entry ids),
``spark_latency_..._<path>_<rate>`` (Spark p=2), the markers' ``[spark_]marker_latency_{p50,p99}_ms_<path>_<rate>``
and ``[spark_]marker_visible_latency_{p50,p99}_ms_exactly_once_<rate>``, ``marker_interval_ms``,
``checkpoint_interval_ms`` and
``marker_overhead_percent`` (the latency markers' cost at the studio's interval: the last phase,
``tests/bench/bench_markers.py``, also ``make bench-markers`` alone; pairs of runs with markers off and
on at the same time on one CPU, the median of the rounds' ratios of CPU time per record, printed with
every run's markers and the load), with its quartiles, the wall-clock figure, the figure with markers
every 10 ms and what one marker costs.

Run: ``make bench-latency`` or ``.venv/bin/python tests/bench/bench_latency.py [--no-spark] [--smoke]
[--rates=1000,10000] [--paths=at_least_once]``.
"""
from __future__ import annotations

import json
import multiprocessing
import os
import statistics
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from engine.api import InProcess, Spark, job_master_for  # noqa: E402
from engine.spec import normalise_definition  # noqa: E402
from tests.bench.smoke import SMOKE, sized  # noqa: E402

RATES = sized((1_000, 10_000, 100_000), (10_000,))
SECONDS = sized(6.0, 1.0)
WARM_UP_S = sized(1.0, 0.2)
INTERVAL_MS = 1000
MARKER_INTERVAL_MS = 25
"""Latency markers this often: 128 of them (the window each source subtask's figures cover) span 3.2 s."""
USERS = 100
PATHS = ("at_least_once", "exactly_once")


def definition(url: str, source: str, sink: str, path: str, parallelism: int) -> dict:
    exactly_once = path == "exactly_once"
    return normalise_definition({
        "format": 1, "name": f"bench-latency-{path}", "mode": "streaming", "parallelism": parallelism,
        "max_parallelism": 128,
        "checkpointing": {"enabled": True, "interval_ms": INTERVAL_MS,
                          "mode": "exactly_once" if exactly_once else "at_least_once"},
        "restart": {"strategy": "none"}, "latency_tracking": {"interval_ms": MARKER_INTERVAL_MS},
        "nodes": [
            {"id": "in", "type": "source.redis_stream", "params": {"stream": source, "url": url}},
            {"id": "shape", "type": "transform.map",
             "params": {"expression": '{"user": x["user"], "sent": x["sent"], "amount": x["amount"] * 2}'}},
            {"id": "latest", "type": "aggregate.reduce", "params": {"function": "max", "value": 'x["sent"]'}},
            {"id": "out", "type": "sink.redis_stream",
             "params": {"stream": sink, "url": url, "delivery": path}},
        ],
        "edges": [
            {"id": "e1", "from": "in", "to": "shape"},
            {"id": "e2", "from": "shape", "to": "latest", "partitioning": "hash", "key": 'x["user"]'},
            {"id": "e3", "from": "latest", "to": "out"},
        ],
    })


def produce(url: str, stream: str, rate: int, seconds: float, results) -> None:
    """Append ``rate`` entries a second for ``seconds``; put (entries, seconds, sends)."""
    import redis

    client = redis.Redis.from_url(url)
    started = time.time()
    sent = sends = 0
    users = [f"user-{number:03d}" for number in range(USERS)]
    while True:
        now = time.time()
        if now - started >= seconds:
            break
        due = int((now - started) * rate)
        if due <= sent:
            time.sleep(max(0.0, started + (sent + 1) / rate - time.time()))
            continue
        stamp = now * 1000
        pipeline = client.pipeline(transaction=False)
        for number in range(sent, due):
            pipeline.execute_command("XADD", stream, "*", "value", json.dumps(
                {"user": users[number % USERS], "sent": stamp, "amount": number % 7}, separators=(",", ":")))
        pipeline.execute()
        sent, sends = due, sends + 1
    results.put((sent, time.time() - started, sends))
    client.close()


def consume(url: str, stream: str, warm_up_s: float, stop, results, ready) -> None:
    """Follow ``stream`` until ``stop`` is set and it has been quiet for a moment; put the latencies (ms) of
    the events sent ``warm_up_s`` after it began to read. ``ready`` is set then (the producer starts): a
    consumer still starting would count its own start-up as latency."""
    import redis

    client = redis.Redis.from_url(url)
    client.xread({stream: "0-0"}, count=1, block=1)
    counted_after_ms = (time.time() + warm_up_s) * 1000
    ready.set()
    last_id, latencies, written, entries = "0-0", [], [], 0
    quiet_since = None
    while True:
        answer = client.xread({stream: last_id}, count=10_000, block=50)
        now = time.time() * 1000
        if answer:
            quiet_since = None
            for entry_id, fields in answer[0][1]:
                last_id = entry_id
                entries += 1
                _user, sent = json.loads(fields[b"value"])
                if sent >= counted_after_ms:
                    latencies.append(now - sent)
                    written.append(int(entry_id.partition(b"-")[0]) - int(sent))
        elif stop.is_set():
            quiet_since = quiet_since or time.monotonic()
            if time.monotonic() - quiet_since > INTERVAL_MS / 1000 + 1.0:
                break
    results.put((latencies, written, entries))
    client.close()


def percentile(values: list[float], percent: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * percent / 100))]


def measure(deployment, parallelism: int, url: str, path: str, rate: int) -> dict:
    """One run: start the job, produce at ``rate`` for ``SECONDS``, collect the latencies, cancel the job."""
    import redis

    source, sink = f"bench-latency-in-{uuid.uuid4().hex}", f"bench-latency-out-{uuid.uuid4().hex}"
    running, checkpoints = threading.Event(), []
    metrics: dict = {}

    def on_event(event):
        if event["type"] == "status" and event["status"] == "RUNNING":
            running.set()
        elif event["type"] == "checkpoint" and event.get("event") == "completed":
            checkpoints.append(time.time())
        elif event["type"] == "metrics":
            metrics["latest"] = event

    context = multiprocessing.get_context("spawn")
    produced, consumed, stop = context.Queue(), context.Queue(), context.Event()
    with tempfile.TemporaryDirectory() as work:
        handle = job_master_for(definition(url, source, sink, path, parallelism), deployment,
                                checkpoint_dir=str(Path(work) / "checkpoints"), on_event=on_event).start(600)
        try:
            if not running.wait(180):
                raise SystemExit(f"the {path} job did not start: {handle.wait(1).failure_cause}")
            time.sleep(0.5)  # the source has opened and polls
            ready = context.Event()
            consumer = context.Process(target=consume, args=(url, sink, WARM_UP_S, stop, consumed, ready))
            consumer.start()
            if not ready.wait(120):
                raise SystemExit("the consumer process did not start reading within 120 s")
            producer = context.Process(target=produce, args=(url, source, rate, SECONDS, produced))
            started = time.time()
            producer.start()
            sent, seconds, sends = produced.get(timeout=SECONDS + 120)
            markers = sink_markers(metrics.get("latest"))  # before the idle stream's markers replace the window
            producer.join()
            stop.set()
            latencies, written, entries = consumed.get(timeout=120)
            consumer.join()
            during = sum(1 for moment in checkpoints if started <= moment <= started + seconds)
        finally:
            handle.cancel()
            result = handle.wait(120)
    client = redis.Redis.from_url(url)
    client.delete(source, sink)
    client.close()
    if result.status not in ("CANCELED", "FINISHED"):
        raise SystemExit(f"the {path} job ended {result.status}: {result.failure_cause}")
    if entries < sent:
        raise SystemExit(f"{path} at {rate}/s: {entries} output entries for {sent} events (lost some)")
    if not latencies:
        raise SystemExit(f"{path} at {rate}/s: no output after the warm-up")
    return {"p50": statistics.median(latencies), "p99": percentile(latencies, 99), "max": max(latencies),
            "written": {"p50": statistics.median(written), "p99": percentile(written, 99), "max": max(written)},
            "achieved_rate": sent / seconds, "sends": sends, "output_rate": entries / seconds,
            "counted": len(latencies), "checkpoints": during, "markers": markers}


def sink_markers(event: dict | None) -> dict:
    """What the latency markers measured at the sink ``out`` in a metrics event: ``{"latency": ...,
    "visible": ...}``, each ``{"subtasks": {index: {"p50_ms", "p99_ms", "markers"}}, "p50_ms", "p99_ms"}``
    (the sink's: the median of the subtasks' medians, the highest p99), or None where none arrived."""
    found: dict = {}
    for kind, name in (("latency", "latency"), ("visible", "source_visible_latency")):
        subtasks = {}
        for task, report in sorted(((event or {}).get("tasks") or {}).items()):
            figures = (report.get("operators") or {}).get("out", {}).get(name)
            if figures:
                subtasks[task.rpartition("#")[2]] = {key: figures[key] for key in ("p50_ms", "p99_ms", "markers")}
        found[kind] = None if not subtasks else {
            "subtasks": subtasks, "p50_ms": round(statistics.median(part["p50_ms"] for part in subtasks.values()), 1),
            "p99_ms": round(max(part["p99_ms"] for part in subtasks.values()), 1)}
    return found


def describe_markers(markers: dict) -> str:
    """The markers' figures in one line, per sink subtask."""
    parts = []
    for kind, label in (("latency", "source to sink"), ("visible", "source to commit")):
        figures = markers.get(kind)
        if figures is None:
            continue
        per_subtask = ", ".join(f"#{index} {part['p50_ms']:.1f}/{part['p99_ms']:.1f} ({part['markers']})"
                                for index, part in figures["subtasks"].items())
        parts.append(f"markers {label}: p50 {figures['p50_ms']:7.1f} ms  p99 {figures['p99_ms']:7.1f} ms "
                     f"[per subtask p50/p99 (markers): {per_subtask}]")
    return "; ".join(parts) or "no latency marker reached the sink"


def marker_overhead() -> dict:
    """The latency markers' cost, measured now by ``tests/bench/bench_markers.py`` (its lines printed as
    it goes): the figures this bench's last line carries."""
    from tests.bench import bench_markers

    often = f"marker_overhead_percent_{bench_markers.OFTEN_MS}ms"
    summary = bench_markers.measure_overhead()
    names = {"marker_overhead_percent": "marker_overhead_percent",
             "marker_overhead_percent_quartiles": "marker_overhead_percent_quartiles",
             "wall_clock_overhead_percent": "marker_overhead_wall_clock_percent", often: often,
             "cpu_us_per_marker": "marker_cpu_us", "projected_marker_overhead_percent": "marker_overhead_percent_projected",
             "markers_emitted_on": "marker_overhead_markers_per_run", "rounds": "marker_overhead_rounds"}
    return {name: summary[key] for key, name in names.items()}


def main() -> None:
    from studio.embedded_redis import ensure_redis_url

    url = ensure_redis_url()
    with_spark = "--no-spark" not in sys.argv
    rates, paths = RATES, PATHS
    for argument in sys.argv[1:]:
        if argument.startswith("--rates="):
            rates = tuple(int(rate) for rate in argument.split("=", 1)[1].split(","))
        elif argument.startswith("--paths="):
            paths = tuple(argument.split("=", 1)[1].split(","))
    print(f"load average {os.getloadavg()[0]:.2f} (1 min, 2 CPUs shared); checkpoints every {INTERVAL_MS} ms; "
          f"{SECONDS:.0f} s per run, the first {WARM_UP_S:.1f} s not counted", flush=True)
    placements = {"": (InProcess(), 1)}
    session = None
    if with_spark:
        from engine.cluster.spark_session import create_spark_session

        session = create_spark_session("bench-latency", "local[2]")
        placements["spark_"] = (Spark(session=session), 2)
    summary: dict = {}
    try:
        for prefix, (deployment, parallelism) in placements.items():
            where = "Spark local[2], p=2" if prefix else "in process, p=1"
            for path in paths:
                for rate in rates:
                    figures = measure(deployment, parallelism, url, path, rate)
                    label = f"{path}_{rate // 1000}k"
                    for stat in ("p50", "p99", "max"):
                        summary[f"{prefix}latency_{stat}_ms_{label}"] = round(figures[stat], 1)
                        summary[f"{prefix}written_latency_{stat}_ms_{label}"] = round(figures["written"][stat], 1)
                    for name, kind in (("marker_latency", "latency"), ("marker_visible_latency", "visible")):
                        if kind == "visible" and path != "exactly_once":
                            continue  # at least once the output is visible at once: the sink's figure is the one
                        marked = figures["markers"].get(kind)  # null when no marker (or commit of one) arrived
                        for stat in ("p50", "p99"):
                            summary[f"{prefix}{name}_{stat}_ms_{label}"] = marked and marked[f"{stat}_ms"]
                    summary[f"{prefix}achieved_rate_{label}"] = round(figures["achieved_rate"])
                    summary[f"{prefix}checkpoints_{label}"] = figures["checkpoints"]
                    print(f"{where:<20} {path:<14} {rate:>7,}/s (achieved {figures['achieved_rate']:>9,.0f}/s in "
                          f"{figures['sends']:,} sends, output {figures['output_rate']:>9,.0f}/s): p50 "
                          f"{figures['p50']:7.1f} ms  p99 {figures['p99']:7.1f} ms  max {figures['max']:7.1f} ms  "
                          f"({figures['counted']:,} outputs counted, {figures['checkpoints']} checkpoints)", flush=True)
                    written = figures["written"]
                    print(f"{'':<20} {'':<14} {'':>9} written to the output stream (its entry ids): p50 "
                          f"{written['p50']:7.1f} ms  p99 {written['p99']:7.1f} ms  max {written['max']:7.1f} ms", flush=True)
                    print(f"{'':<20} {'':<14} {'':>9} outside p50 {figures['p50']:7.1f} ms  p99 {figures['p99']:7.1f} ms "
                          f"| {describe_markers(figures['markers'])}", flush=True)
    finally:
        if session is not None:
            session.stop()
    overhead = marker_overhead()
    at_least_once = summary.get("latency_p99_ms_at_least_once_10k")
    exactly_once = summary.get("latency_p99_ms_exactly_once_10k")
    print(f"goals at 10k/s in process: at-least-once p99 {at_least_once} ms (goal ≤ 10), exactly-once p99 "
          f"{exactly_once} ms (goal ≤ {INTERVAL_MS + 50}); load average {os.getloadavg()[0]:.2f}")
    print(json.dumps({**summary, "checkpoint_interval_ms": INTERVAL_MS, "marker_interval_ms": MARKER_INTERVAL_MS,
                      **overhead,
                      "seconds_per_run": SECONDS, "smoke": SMOKE, "load_average_1m": round(os.getloadavg()[0], 2)}))


if __name__ == "__main__":
    main()
