"""Kafka throughput: events per second through Kafka -> keyed window -> Kafka, exactly once, beside
the file source on the same events.

The events (``tests/engine/connectors/kafka_support.event``: ``{"user", "amount", "ts"}``, JSON)
are written once into a 4-partition topic of librdkafka's mock cluster (a process of its own,
``tests/kafka_server.py``) and once into a JSON-lines file. Two jobs read them at parallelism 2
with checkpoints every second:

- kafka: ``source.kafka`` (bounded, per-partition watermarks from ``ts``) -> hash(user) ->
  1-second tumbling window (sum) -> ``sink.kafka`` (exactly once: a transaction per subtask
  and checkpoint);
- file: ``source.file`` -> ``transform.watermark`` (``ts``) -> hash(user) -> the same window ->
  ``sink.file`` (exactly once: two-phase commit of files).

A rate is the events over the job's whole run (start, the final checkpoint and its commit
included), after one untimed run of each (imports, first connections). The jobs run interleaved, ``rounds`` times each, and each round's ratio is printed,
since a shared 2-core machine moves by tens of percent. The windows each job committed are
counted and checked against the events (both must hold every window once).

The last line is one JSON object: ``rps_kafka_exactly_once`` and ``rps_file_same_events`` (the
medians), ``ratio_kafka_to_file`` (the median of the rounds' ratios), ``events``, ``rounds``,
``load_average``.

Run: ``make bench-kafka`` or ``.venv/bin/python tests/bench/bench_kafka.py [events] [rounds]``
(default 300,000 events, 3 rounds).
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
from tests.bench.smoke import sized  # noqa: E402
from tests.engine.connectors.kafka_support import (  # noqa: E402
    committed_windows,
    event,
    kafka_sink,
    kafka_source,
    new_topic,
    window_job,
)
from tests.kafka_server import KafkaMockCluster  # noqa: E402

EVENTS = int(sys.argv[1]) if len(sys.argv) > 1 else sized(300_000, 2_000)
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else sized(3, 1)
PARTITIONS = 4
CONFIG = {"interval_ms": 1000}


def write_topic(bootstrap: str, topic: str) -> None:
    from confluent_kafka import Producer

    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 20, "batch.num.messages": 10000,
                         "log_level": 3})
    for i in range(EVENTS):
        e = event(i)
        while True:
            try:
                producer.produce(topic, json.dumps(e, separators=(",", ":")).encode(), partition=i % PARTITIONS,
                                 timestamp=e["ts"])
                break
            except BufferError:
                producer.poll(0.01)
    assert producer.flush(60) == 0


def write_file(path: Path) -> None:
    with path.open("w") as handle:
        for i in range(EVENTS):
            handle.write(json.dumps(event(i), separators=(",", ":")) + "\n")


def kafka_job(bootstrap: str, source_topic: str, sink_topic: str) -> dict:
    job = window_job(kafka_source(bootstrap, source_topic), kafka_sink(bootstrap, sink_topic),
                     interval_ms=CONFIG["interval_ms"], name="bench-kafka")
    job["nodes"][1]["params"]["size_ms"] = 1000
    return job


def file_job(path: Path, out: Path) -> dict:
    job = window_job({"id": "events", "type": "source.file", "params": {"path": str(path)}},
                     {"id": "out", "type": "sink.file", "params": {"path": str(out)}},
                     interval_ms=CONFIG["interval_ms"], name="bench-file")
    job["nodes"][1]["params"]["size_ms"] = 1000
    job["nodes"].insert(1, {"id": "time", "type": "transform.watermark", "params": {"timestamp": "x['ts']"}})
    job["edges"][0] = {**job["edges"][0], "from": "time"}
    job["edges"].insert(0, {"id": "timed", "from": "events", "to": "time"})
    return job


def expected_window_count() -> int:
    ends = {(event(i)["user"], event(i)["ts"] // 1000) for i in range(EVENTS)}
    return len(ends)


def run(definition: dict, label: str) -> float:
    with tempfile.TemporaryDirectory() as checkpoints:
        result = LocalCluster().run(definition, timeout=900, checkpoint_dir=checkpoints)
    if result.status != "FINISHED":
        raise RuntimeError(f"{label}: {result.failure}")
    rate = EVENTS / result.duration_s
    print(f"{label:<8} {EVENTS:>9,} events {result.duration_s:7.2f} s {rate:>11,.0f} events/s", flush=True)
    return rate


def warm_up(cluster, source_topic: str, path: Path, scratch: Path) -> None:
    """One untimed run of each job: the first run of a process pays imports and first connections."""
    for definition in (kafka_job(cluster.bootstrap, source_topic, new_topic(cluster, "bench-warm-up", PARTITIONS)),
                       file_job(path, scratch / "warm-up")):
        with tempfile.TemporaryDirectory() as checkpoints:
            LocalCluster().run(definition, timeout=900, checkpoint_dir=checkpoints)


def file_windows(out: Path) -> int:
    return sum(1 for path in out.rglob("*.jsonl") if not path.name.startswith((".", "_"))
               for line in path.read_text().splitlines() if line.strip())


def main() -> None:
    wanted = expected_window_count()
    print(f"{EVENTS:,} events, {PARTITIONS} partitions, parallelism 2, {wanted:,} windows, {ROUNDS} rounds "
          f"(load {os.getloadavg()[0]:.2f})", flush=True)
    kafka_rates, file_rates = [], []
    with KafkaMockCluster() as cluster, tempfile.TemporaryDirectory() as scratch:
        source_topic = new_topic(cluster, "bench-events", PARTITIONS)
        started = time.monotonic()
        write_topic(cluster.bootstrap, source_topic)
        print(f"wrote the topic in {time.monotonic() - started:.1f} s", flush=True)
        path = Path(scratch) / "events.jsonl"
        write_file(path)
        warm_up(cluster, source_topic, path, Path(scratch))
        for round_ in range(ROUNDS):
            sink_topic = new_topic(cluster, "bench-windows", PARTITIONS)
            kafka_rates.append(run(kafka_job(cluster.bootstrap, source_topic, sink_topic), "kafka"))
            windows, left_open = committed_windows(cluster.bootstrap, sink_topic)
            if sum(windows.values()) != wanted or left_open:
                raise RuntimeError(f"kafka: {sum(windows.values())} windows committed, {wanted} expected; "
                                   f"open: {left_open}")
            out = Path(scratch) / f"out-{round_}"
            file_rates.append(run(file_job(path, out), "file"))
            if file_windows(out) != wanted:
                raise RuntimeError(f"file: {file_windows(out)} windows committed, {wanted} expected")
            print(f"round {round_ + 1}: kafka/file {kafka_rates[-1] / file_rates[-1]:.2f}", flush=True)
    ratios = [k / f for k, f in zip(kafka_rates, file_rates)]
    print(json.dumps({"rps_kafka_exactly_once": round(statistics.median(kafka_rates)),
                      "rps_file_same_events": round(statistics.median(file_rates)),
                      "ratio_kafka_to_file": round(statistics.median(ratios), 3), "events": EVENTS,
                      "rounds": ROUNDS, "load_average": round(os.getloadavg()[0], 2)}))


if __name__ == "__main__":
    main()
