"""What the Kafka tests share: topics with events, the Kafka -> keyed window -> Kafka job, its exact output.

Events ``{"user", "amount", "ts"}``: event ``i`` goes to partition ``i % partitions`` with
time ``BASE_TS + i * STEP_MS``, so each partition's times rise and, with one watermark per
partition and no out-of-orderness, no record is ever late: the windows a failure-free run
emits are fixed, whatever the interleaving, the kills and the parallelism.
"""
from __future__ import annotations

import json
import uuid
from collections import Counter

from engine.api import load_checkpoint_metadata
from tests.kafka_log import read_topic

USERS = 12
BASE_TS = 1_700_000_000_000
STEP_MS = 7
WINDOW_MS = 500
COUNT_SMALL = 4000


def new_topic(cluster, name: str, partitions: int) -> str:
    return cluster.create_topic(f"{name}-{uuid.uuid4().hex[:10]}", partitions)


def event(i: int) -> dict:
    return {"user": f"u{i % USERS}", "amount": i, "ts": BASE_TS + i * STEP_MS}


def produce_events(bootstrap: str, topic: str, count: int, partitions: int, start: int = 0) -> None:
    from confluent_kafka import Producer

    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5, "log_level": 3})
    for i in range(start, start + count):
        producer.produce(topic, json.dumps(event(i)).encode(), key=f"u{i % USERS}".encode(),
                         partition=i % partitions, timestamp=event(i)["ts"])
        if i % 5000 == 0:
            producer.poll(0)
    assert producer.flush(30) == 0


def kafka_source(bootstrap: str, topic: str, **params) -> dict:
    return {"id": "events", "type": "source.kafka",
            "params": {"bootstrap_servers": bootstrap, "topics": [topic], "emit": "value", "watermarks": True,
                       "timestamp": "x['ts']", "bounded": True, "group": f"g-{topic}", **params}}


def kafka_sink(bootstrap: str, topic: str, **params) -> dict:
    return {"id": "out", "type": "sink.kafka",
            "params": {"bootstrap_servers": bootstrap, "topic": topic, "key": "x[0]", **params}}


def window_job(source: dict, sink: dict, *, parallelism: int = 2, interval_ms: int = 150, attempts: int = 0,
               name: str = "kafka-windows") -> dict:
    """Kafka -> hash(user) -> tumbling window (sum of amounts) -> Kafka."""
    return {
        "format": 1, "name": name, "parallelism": parallelism, "max_parallelism": 128,
        "checkpointing": {"interval_ms": interval_ms, "timeout_ms": 30000, "retained": 2},
        "restart": {"strategy": "fixed_delay" if attempts else "none", "attempts": attempts, "delay_ms": 10},
        "nodes": [source,
                  {"id": "window", "type": "window.tumbling",
                   "params": {"size_ms": WINDOW_MS, "function": "sum", "value": "x['amount']"}},
                  sink],
        "edges": [{"id": "by-user", "from": source["id"], "to": "window", "partitioning": "hash", "key": "x['user']"},
                  {"id": "to-sink", "from": "window", "to": sink["id"]}],
    }


def expected_windows(count: int, start: int = 0) -> Counter:
    """Every ``[user, window end, sum]`` of a failure-free run over events ``start .. start+count-1``, once."""
    sums: Counter = Counter()
    for i in range(start, start + count):
        e = event(i)
        end = (e["ts"] // WINDOW_MS) * WINDOW_MS + WINDOW_MS
        sums[(e["user"], end)] += e["amount"]
    return Counter((user, end, total) for (user, end), total in sums.items())


def committed_windows(bootstrap: str, topic: str) -> tuple[Counter, dict]:
    """The windows a read_committed consumer gets from ``topic``, and the transactions left open
    (``{partition: {producer id: records}}``)."""
    logs = read_topic(bootstrap, topic)
    windows = Counter(tuple(json.loads(record.value)) for log in logs.values() for record in log.committed)
    return windows, {partition: log.open_producers for partition, log in logs.items() if log.open_producers}


def group_offsets(bootstrap: str, group: str, topic: str, partitions: int) -> dict[int, int]:
    """The consumer group's committed offset per partition (-1001: none)."""
    from confluent_kafka import Consumer, TopicPartition

    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": group, "log_level": 3})
    try:
        answered = consumer.committed([TopicPartition(topic, p) for p in range(partitions)], timeout=10)
        return {tp.partition: tp.offset for tp in answered}
    finally:
        consumer.close()


def checkpoint_offsets(location: str, node: str = "events") -> dict[int, float]:
    """The source's offset per partition in the checkpoint at ``location``; a partition it does not
    hold is infinite (its subtask had read it to the end and finished, so it has no state)."""
    from collections import defaultdict

    from engine.runtime.state.restore import TaskRestore

    state = TaskRestore(load_checkpoint_metadata(location), 0, 1).operator_state(node) or {}
    offsets: dict[int, float] = defaultdict(lambda: float("inf"))
    offsets.update({split["partition"]: split["offset"] for split in state.get("partitions", ())})
    return offsets
