"""Source lag: a held-back sink makes what the sources have left to read grow, letting it go drains it, and
the figures are what the source's own system says (Redis ``XINFO``/``XLEN``, Kafka's end offsets,
PostgreSQL's ``pg_replication_slots``, the file's bytes)."""
from __future__ import annotations

import json
import os
import threading
import uuid

import psycopg
import pytest

from tests.engine.connectors.kafka_support import new_topic, produce_events
from tests.engine.deployers import InProcessDeployment
from tests.engine.held_sink import register_held_sink
from tests.support import wait_until

NO_CHECKPOINT_MS = 3_600_000
"""Checkpoints every hour: none while a test holds its sink (a held sink would let one expire)."""

WAIT_S = 90


class LagReports:
    """The ``metrics`` events of a job, as its ``on_event`` hears them (from the JobMaster's threads)."""

    def __init__(self):
        self._lock = threading.Lock()
        self._events: list[dict] = []  # guarded by: self._lock

    def __call__(self, event: dict) -> None:
        if event.get("type") == "metrics":
            with self._lock:
                self._events.append(event)

    def count(self) -> int:
        with self._lock:
            return len(self._events)

    def figures(self, node: str, since: int = 0) -> list[dict]:
        """Per metrics event from the ``since``-th on: the node's lag summed over its subtasks' splits
        (``records_behind``, ``bytes_behind``, ``pending``; None where no split says it), its records out,
        the records into ``out``, and the enumerator's unassigned splits."""
        with self._lock:
            events = self._events[since:]
        return [_figures(event, node) for event in events]

    def latest(self, node: str) -> dict | None:
        figures = self.figures(node, max(0, self.count() - 1))
        return figures[-1] if figures else None

    def stalled(self, node: str) -> dict | None:
        """The latest figures once the last two reports read the same and something is behind."""
        figures = self.figures(node, max(0, self.count() - 2))
        if len(figures) == 2 and figures[0] == figures[1] and figures[1]["splits"] and (
                figures[1]["records_behind"] or figures[1]["bytes_behind"]):
            return figures[1]
        return None


def _figures(event: dict, node: str) -> dict:
    splits, read, into_sink = [], 0, 0
    for report in (event.get("tasks") or {}).values():
        operators = report.get("operators") or {}
        if node in operators:
            splits.extend(operators[node].get("lag") or [])
            read += operators[node]["records_out"]
        if "out" in operators:
            into_sink += operators["out"]["records_in"]

    def total(name: str):
        values = [split[name] for split in splits if split[name] is not None]
        return sum(values) if values else None

    return {"splits": sorted(split["split"] for split in splits), "records_behind": total("records_behind"),
            "bytes_behind": total("bytes_behind"), "pending": total("pending"), "read": read,
            "into_sink": into_sink, "enumerator": (event.get("enumerators") or {}).get(node)}


def held_job(source: dict, gate, parallelism: int = 1) -> dict:
    """``source`` -> rebalance -> a held sink (a rebalance edge: the sink is a subtask of its own, so the
    source's subtask goes on reporting while the sink is held)."""
    return {"format": 1, "name": "held", "parallelism": parallelism, "max_parallelism": 64,
            "checkpointing": {"interval_ms": NO_CHECKPOINT_MS, "timeout_ms": NO_CHECKPOINT_MS},
            "restart": {"strategy": "none"},
            "nodes": [source, {"id": "out", "type": register_held_sink(), "params": {"gate": str(gate),
                                                                                      "max_records": 1}}],
            "edges": [{"id": "e", "from": source["id"], "to": "out", "partitioning": "rebalance"}]}


class HeldJob:
    """``source`` into a sink held from the start, running: ``release()`` lets the sink go; leaving the
    block cancels the job (when it has not ended)."""

    def __init__(self, deployment, source: dict, tmp_path, parallelism: int = 1):
        self.gate = tmp_path / "gate"
        self.gate.touch()
        self.reports = LagReports()
        self.handle = deployment.submit(held_job(source, self.gate, parallelism),
                                        checkpoint_dir=str(tmp_path / "chk"), on_event=self.reports)

    def release(self) -> int:
        """Let the sink go; the number of reports so far (what follows is after the release)."""
        released_at = self.reports.count()
        self.gate.unlink()
        return released_at

    def __enter__(self) -> "HeldJob":
        return self

    def __exit__(self, *exc) -> None:
        self.gate.unlink(missing_ok=True)
        self.handle.cancel()
        self.handle.wait(120)


@pytest.fixture
def redis_client():
    import redis

    client = redis.Redis.from_url(os.environ["REDIS_URL"], decode_responses=True)
    streams: list[str] = []
    yield client, streams
    for stream in streams:
        client.delete(stream)
    client.close()


def add_entries(client, stream: str, start: int, count: int) -> None:
    pipeline = client.pipeline(transaction=False)
    for i in range(start, start + count):
        pipeline.xadd(stream, {"value": json.dumps(i)})
    pipeline.execute()


def test_a_held_sink_makes_the_stream_lag_grow_and_letting_it_go_drains_it(deployment, redis_client, tmp_path):
    client, streams = redis_client
    stream = f"lag-{uuid.uuid4().hex}"
    streams.append(stream)
    add_entries(client, stream, 0, 4000)
    source = {"id": "in", "type": "source.redis_stream",
              "params": {"stream": stream, "url": os.environ["REDIS_URL"], "batch_size": 50}}
    with HeldJob(deployment, source, tmp_path) as job:
        held = wait_until(lambda: job.reports.stalled("in"), WAIT_S, "the held sink to stop the source")
        assert held["splits"] == [stream]
        assert 0 < held["records_behind"] == client.xlen(stream) - held["read"], held

        add_entries(client, stream, 4000, 1500)
        grown = wait_until(lambda: (job.reports.stalled("in") or {}).get("records_behind", 0) > held["records_behind"]
                           and job.reports.stalled("in"), WAIT_S, "the lag to grow")
        assert grown["records_behind"] == client.xlen(stream) - grown["read"], grown

        released_at = job.release()
        wait_until(lambda: (job.reports.latest("in") or {}).get("records_behind") == 0
                   and job.reports.latest("in")["into_sink"] == 5500, WAIT_S, "the source to catch up")
        after = [figures["records_behind"] for figures in job.reports.figures("in", released_at)]
        assert after == sorted(after, reverse=True), f"the lag only shrinks once the sink is let go: {after}"
        assert after[-1] == 0


def test_a_consumer_groups_lag_and_pending_entries_are_what_xinfo_says(redis_client, tmp_path):
    client, streams = redis_client
    stream = f"lag-group-{uuid.uuid4().hex}"
    streams.append(stream)
    add_entries(client, stream, 0, 5000)
    source = {"id": "in", "type": "source.redis_stream",
              "params": {"stream": stream, "group": "g", "url": os.environ["REDIS_URL"], "batch_size": 50}}
    with HeldJob(InProcessDeployment({"batch_size": 50}), source, tmp_path, parallelism=2) as job:
        held = wait_until(lambda: job.reports.stalled("in"), WAIT_S, "the held sink to stop the source")
        group = client.xinfo_groups(stream)[0]
        assert held["splits"] == [f"{stream}/g/in-0", f"{stream}/g/in-1"]
        undelivered = group.get("lag")  # Redis 7 says it; Redis 6 (the embedded one) does not
        if undelivered is None:
            undelivered = len(client.xrange(stream, min=f"({group['last-delivered-id']}"))
        assert held["records_behind"] == undelivered == client.xlen(stream) - held["read"] > 0, held
        assert held["pending"] == group["pending"] == held["read"], "delivered, no checkpoint acknowledged them"

        job.release()
        wait_until(lambda: (job.reports.latest("in") or {}).get("records_behind") == 0
                   and job.reports.latest("in")["into_sink"] == 5000, WAIT_S, "the group to catch up")


def kafka_end_offsets(bootstrap: str, topic: str, partitions: int) -> int:
    from confluent_kafka import Consumer, TopicPartition

    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "lag-probe", "log_level": 3})
    try:
        return sum(consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=10)[1] for p in range(partitions))
    finally:
        consumer.close()


def test_kafka_lag_per_partition_is_the_end_offset_minus_the_position(deployment, kafka_cluster, tmp_path):
    topic = new_topic(kafka_cluster, "lag", 2)
    produce_events(kafka_cluster.bootstrap, topic, 3000, 2)
    source = {"id": "in", "type": "source.kafka",
              "params": {"bootstrap_servers": kafka_cluster.bootstrap, "topics": [topic], "emit": "value",
                         "isolation": "read_uncommitted"}}
    with HeldJob(deployment.configured({"batch_size": 50}), source, tmp_path) as job:
        held = wait_until(lambda: job.reports.stalled("in"), WAIT_S, "the held sink to stop the source")
        assert held["splits"] == [f"{topic}/0", f"{topic}/1"]
        assert 0 < held["records_behind"] == kafka_end_offsets(kafka_cluster.bootstrap, topic, 2) - held["read"]

        produce_events(kafka_cluster.bootstrap, topic, 1000, 2, start=3000)
        wait_until(lambda: (job.reports.stalled("in") or {}).get("records_behind", 0) > held["records_behind"],
                   WAIT_S, "the lag to grow")
        grown = job.reports.latest("in")
        assert grown["records_behind"] == 4000 - grown["read"]

        job.release()
        wait_until(lambda: (job.reports.latest("in") or {}).get("records_behind") == 0
                   and job.reports.latest("in")["into_sink"] == 4000, WAIT_S, "the source to catch up")


@pytest.fixture
def slot(postgres_dsn):
    name = f"lag_{uuid.uuid4().hex[:12]}"
    yield name
    with psycopg.connect(postgres_dsn, autocommit=True) as connection:
        connection.execute("SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots "
                           "WHERE slot_name = %s AND NOT active", (name,))


def slot_distance(url: str, slot: str) -> int:
    """What PostgreSQL says: the WAL bytes from the slot's confirmed LSN to the current one."""
    with psycopg.connect(url, autocommit=True) as connection:
        return int(connection.execute("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), confirmed_flush_lsn) "
                                      "FROM pg_replication_slots WHERE slot_name = %s", (slot,)).fetchone()[0])


def wal_position(url: str) -> int:
    """The server's current WAL position, in bytes."""
    with psycopg.connect(url, autocommit=True) as connection:
        return int(connection.execute("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')").fetchone()[0])


def insert_rows(url: str, start: int, count: int) -> int:
    """One transaction of ``count`` rows; the WAL bytes it wrote."""
    with psycopg.connect(url, autocommit=True) as connection:
        before = connection.execute("SELECT pg_current_wal_lsn()").fetchone()[0]
        connection.execute("INSERT INTO items SELECT i, i FROM generate_series(%s::integer, %s::integer) AS i", (start, start + count - 1))
        return int(connection.execute("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), %s)", (before,)).fetchone()[0])


def test_cdc_lag_is_the_wal_distance_pg_replication_slots_reports(postgres_dsn, slot, tmp_path):
    with psycopg.connect(postgres_dsn, autocommit=True) as connection:
        connection.execute("CREATE TABLE items (id integer PRIMARY KEY, v integer)")
    source = {"id": "in", "type": "source.postgres_cdc",
              "params": {"url": postgres_dsn, "tables": ["items"], "slot": slot, "snapshot": "never"}}
    deployment = InProcessDeployment({"batch_size": 20})
    with HeldJob(deployment, source, tmp_path) as job:
        wait_until(lambda: (job.reports.latest("in") or {}).get("splits") == [slot], WAIT_S, "the slot to be read")
        insert_rows(postgres_dsn, 0, 2000)
        held = wait_until(lambda: job.reports.stalled("in"), WAIT_S, "the held sink to stop the source")
        assert 0 < held["read"] < 2000
        wait_until(lambda: job.reports.latest("in")["pending"] == slot_distance(postgres_dsn, slot), WAIT_S,
                   "the slot's distance as pg_replication_slots says it")

        written = insert_rows(postgres_dsn, 2000, 500)
        wait_until(lambda: job.reports.latest("in")["bytes_behind"] >= held["bytes_behind"] + written, WAIT_S,
                   "the WAL behind the position to grow by what was written")

        after_ours = wal_position(postgres_dsn)
        job.release()
        wait_until(lambda: job.reports.latest("in")["into_sink"] == 2500, WAIT_S, "every change to arrive")
        drained = job.reports.latest("in")["bytes_behind"]
        # the server's WAL is every database's: what other tests wrote since our last change is behind the slot too
        others = wal_position(postgres_dsn) - after_ours
        assert drained < written + others and written < held["bytes_behind"] + written, \
            "read up to the last change: next to nothing of ours left"


LINE_BYTES = 16
LINES = 4000


def test_file_lag_is_the_bytes_and_splits_not_read_yet(deployment, tmp_path):
    data = tmp_path / "in"
    data.mkdir()
    for name in ("a", "b"):  # lines of 16 bytes, splits of 1,000 lines: every split starts at a line
        (data / f"{name}.jsonl").write_text("".join(f'{{"n":"{i:07d}"}}\n' for i in range(LINES // 2)))
    total = LINES * LINE_BYTES
    source = {"id": "in", "type": "source.file", "params": {"path": str(data), "split_bytes": 1000 * LINE_BYTES}}
    with HeldJob(deployment.configured({"batch_size": 50}), source, tmp_path) as job:
        held = wait_until(lambda: job.reports.stalled("in"), WAIT_S, "the held sink to stop the source")
        unassigned = held["enumerator"]
        assert unassigned["splits_unassigned"] == 4 - len(held["splits"]) > 0
        assert held["bytes_behind"] + unassigned["bytes_unassigned"] == total - held["read"] * LINE_BYTES

        job.release()
        result = job.handle.wait(WAIT_S)
        assert result.status == "FINISHED", result.failure
        assert job.handle.metrics()["out#0"]["operators"]["out"]["records_in"] == LINES


def test_parquet_lag_is_the_rows_left_in_the_split_being_read_and_the_splits_not_handed_out(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    data = tmp_path / "in"
    data.mkdir()
    for name in ("a", "b"):  # eight row groups of 250 rows per file, a split per row group
        pq.write_table(pa.Table.from_pylist([{"n": i} for i in range(2000)]), data / f"{name}.parquet",
                       row_group_size=250)
    source = {"id": "in", "type": "source.parquet", "params": {"path": str(data), "split_bytes": 1}}
    with HeldJob(InProcessDeployment({"batch_size": 50}), source, tmp_path) as job:
        held = wait_until(lambda: job.reports.stalled("in"), WAIT_S, "the held sink to stop the source")
        handed_out = 16 - held["enumerator"]["splits_unassigned"]
        assert len(held["splits"]) <= handed_out < 16, held
        assert all(split.startswith(str(data / "a.parquet")) for split in held["splits"]), "the held sink stops it early"
        # the rows of the splits handed out that were not read: the file's footer says how many each holds
        assert held["records_behind"] == 250 * handed_out - held["read"] > 0, held
        job.release()
        result = job.handle.wait(WAIT_S)
        assert result.status == "FINISHED", result.failure
