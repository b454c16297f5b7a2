"""``sink.kafka``: recovery at each point of a transaction's life, at-least-once delivery, keys and
partitions from expressions, encodings, and failures that name the node."""
from __future__ import annotations

import io
import json

import pytest

from engine.api import InProcess, run
from engine.cluster.local import LocalCluster
from tests.engine.connectors.kafka_support import (COUNT_SMALL, committed_windows, expected_windows, kafka_sink,
                                                   kafka_source, new_topic, produce_events, window_job)
from tests.engine.lifecycle.support import KillOnce
from tests.kafka_log import read_topic

PARTITIONS = 4


@pytest.fixture
def events(kafka_cluster):
    topic = new_topic(kafka_cluster, "events", PARTITIONS)
    produce_events(kafka_cluster.bootstrap, topic, COUNT_SMALL, PARTITIONS)
    return topic


def paced(job: dict) -> dict:
    from tests.engine.connectors.test_kafka_exactly_once import paced as pace

    return pace(job, work=20000)


@pytest.mark.timeout(120)
@pytest.mark.parametrize("point", ["before_commit", "after_commit", "snapshot", "process"])
def test_a_restart_ends_every_transaction_the_killed_attempt_left(kafka_cluster, events, tmp_path, point):
    """Killed once (window and sink share a subtask): after the checkpoint completed but before the
    commit (the restore must commit the pre-committed transaction with EndTxn, or its windows are
    lost), after the commit (committing again changes nothing), during a snapshot and while
    processing (the open transaction must end aborted, or its windows are doubled or left open).
    An in-process kill lets the subtask close, which aborts its open transaction itself; a process
    that dies cannot, and the next attempt's recovery aborts it from the registry: the SIGKILL tests
    of ``test_kafka_exactly_once`` prove that path (the mock never ends an open transaction)."""
    bootstrap = kafka_cluster.bootstrap
    out = new_topic(kafka_cluster, "windows", 3)
    condition = (lambda info: info.get("checkpoint_id", 0) >= 2) if point != "process" else \
        (lambda info: info.get("records_in", 0) > 100)
    kill = KillOnce(point, ("window", 0), condition)
    job = paced(window_job(kafka_source(bootstrap, events), kafka_sink(bootstrap, out), attempts=3,
                           interval_ms=100))
    result = LocalCluster().run(job, kill_hook=kill, timeout=100, checkpoint_dir=str(tmp_path / "c"))
    assert result.status == "FINISHED", result.failure
    assert kill.fired, "the kill point was never reached"
    windows, left_open = committed_windows(bootstrap, out)
    assert windows == expected_windows(COUNT_SMALL) and not left_open, (point, left_open)
    assert not list((tmp_path / "c" / "kafka-transactions").rglob("*.json"))


def test_at_least_once_delivery_writes_every_window_without_transactions(kafka_cluster, events, tmp_path):
    bootstrap = kafka_cluster.bootstrap
    out = new_topic(kafka_cluster, "windows", 2)
    job = window_job(kafka_source(bootstrap, events), kafka_sink(bootstrap, out, delivery="at_least_once"))
    result = run(job, InProcess(), checkpoint_dir=str(tmp_path / "c"), timeout=60)
    assert result.status == "FINISHED", result.failure
    windows, _ = committed_windows(bootstrap, out)
    assert windows == expected_windows(COUNT_SMALL)
    logs = read_topic(bootstrap, out)
    assert not any(log.markers for log in logs.values()), "no transaction markers without transactions"
    assert not (tmp_path / "c" / "kafka-transactions").exists() or \
        not list((tmp_path / "c" / "kafka-transactions").rglob("*.json"))


def test_keys_partitions_and_timestamps_come_from_expressions(kafka_cluster, events, tmp_path):
    bootstrap = kafka_cluster.bootstrap
    out = new_topic(kafka_cluster, "windows", 3)
    sink = kafka_sink(bootstrap, out, key="x[0]", partition="int(x[0][1:]) % 3", timestamp="x[1]",
                      value="{'user': x[0], 'sum': x[2]}")
    result = run(window_job(kafka_source(bootstrap, events), sink), InProcess(), checkpoint_dir=str(tmp_path / "c"),
                 timeout=60)
    assert result.status == "FINISHED", result.failure
    logs = read_topic(bootstrap, out)
    records = [record for log in logs.values() for record in log.committed]
    assert len(records) == sum(expected_windows(COUNT_SMALL).values()), {p: (len(log.committed), log.aborted,
                                                                           log.open_producers, dict(log.markers))
                                                                       for p, log in logs.items()}
    for record in records:
        value = json.loads(record.value)
        assert record.key.decode() == value["user"]
        assert record.partition == int(value["user"][1:]) % 3
        assert record.timestamp % 500 == 0  # a window's end


def test_avro_values_are_written_with_the_schema_registry_framing(kafka_cluster, events, tmp_path):
    import fastavro

    bootstrap = kafka_cluster.bootstrap
    out = new_topic(kafka_cluster, "windows", 1)
    schema = {"type": "record", "name": "W", "fields": [{"name": "user", "type": "string"},
                                                        {"name": "total", "type": "long"}]}
    sink = kafka_sink(bootstrap, out, format="avro", avro_schema=schema, avro_framing="confluent", avro_schema_id=42,
                      value="{'user': x[0], 'total': x[2]}")
    result = run(window_job(kafka_source(bootstrap, events), sink), InProcess(), checkpoint_dir=str(tmp_path / "c"),
                 timeout=60)
    assert result.status == "FINISHED", result.failure
    values = [record.value for log in read_topic(bootstrap, out).values() for record in log.committed]
    assert values and all(value[:5] == b"\x00\x00\x00\x00\x2a" for value in values)
    decoded = [fastavro.schemaless_reader(io.BytesIO(value[5:]), fastavro.parse_schema(schema), None)
               for value in values]
    assert sorted((d["user"], d["total"]) for d in decoded) == sorted(
        (user, total) for user, _, total in expected_windows(COUNT_SMALL).elements())


def test_a_value_the_format_cannot_write_fails_the_job_naming_the_node(kafka_cluster, events, tmp_path):
    bootstrap = kafka_cluster.bootstrap
    out = new_topic(kafka_cluster, "windows", 1)
    sink = kafka_sink(bootstrap, out, format="raw", value="x[2]")
    result = run(window_job(kafka_source(bootstrap, events), sink), InProcess(), checkpoint_dir=str(tmp_path / "c"),
                 timeout=60)
    assert result.status == "FAILED"
    assert "node 'out' (sink.kafka): the value" in result.failure and "int is not bytes or text" in result.failure


def test_a_topic_that_does_not_exist_fails_the_job_naming_node_and_topic(kafka_cluster, events, tmp_path):
    sink = kafka_sink(kafka_cluster.bootstrap, "no-such-topic-here")
    result = run(window_job(kafka_source(kafka_cluster.bootstrap, events), sink), InProcess(),
                 checkpoint_dir=str(tmp_path / "c"), timeout=60)
    assert result.status == "FAILED"
    assert "node 'out' (sink.kafka): topic no-such-topic-here does not exist at" in result.failure


@pytest.mark.timeout(120)
def test_a_transaction_its_dying_attempt_could_not_abort_is_aborted_by_the_next_attempt(kafka_cluster, events,
                                                                                       tmp_path, monkeypatch):
    """As when a subtask's process dies: the killed attempt leaves its open transaction open (its
    abort on close does nothing here); the restarted subtask finds it in the registry and aborts it
    with EndTxn before writing."""
    from engine.runtime.operators.connectors.kafka.sink import TransactionalKafkaSink

    aborted = []
    monkeypatch.setattr(TransactionalKafkaSink, "abort", lambda self, transaction: None)
    original = TransactionalKafkaSink.abort_leftover
    monkeypatch.setattr(TransactionalKafkaSink, "abort_leftover",
                        lambda self, handle: (aborted.append(handle.identity), original(self, handle))[1])
    bootstrap = kafka_cluster.bootstrap
    out = new_topic(kafka_cluster, "windows", 3)

    def inside_a_transaction(info: dict) -> bool:
        """Between two windows' results the sink has no transaction open, and a kill then leaves none: the
        snapshot is killed only once subtask 0's sink has begun one (its registry says so, written on this
        subtask's thread before the transaction's first record)."""
        return info.get("checkpoint_id", 0) >= 3 and any((tmp_path / "c").rglob("kafka-transactions/*/0.*.open.json"))

    kill = KillOnce("snapshot", ("window", 0), inside_a_transaction)
    from tests.engine.connectors.test_kafka_exactly_once import paced as pace

    job = pace(window_job(kafka_source(bootstrap, events), kafka_sink(bootstrap, out), attempts=3, interval_ms=100),
               work=60000)
    result = LocalCluster().run(job, kill_hook=kill, timeout=100, checkpoint_dir=str(tmp_path / "c"))
    assert result.status == "FINISHED", result.failure
    assert kill.fired and aborted, "no open transaction was left for the next attempt to abort"
    windows, left_open = committed_windows(bootstrap, out)
    assert windows == expected_windows(COUNT_SMALL) and not left_open, left_open


def test_a_registry_entry_is_never_seen_half_written_nor_read_after_it_was_removed(tmp_path, monkeypatch):
    """Every subtask reads the whole registry while the others write theirs: a reader found one of them
    empty (a JSONDecodeError failed a restore at parallelism 3), or gone between listing and reading."""
    from engine.runtime.operators.connectors.kafka.protocol import ProducerIdentity
    from engine.runtime.operators.connectors.kafka.transactions import _ENTRY, TransactionRegistry

    registry = TransactionRegistry([str(tmp_path)], "sink-abc")
    written = []
    pipe_file = registry._fs.pipe_file
    monkeypatch.setattr(registry._fs, "pipe_file", lambda path, data, **kw: written.append(path) or pipe_file(path, data))
    registry.record(0, 1, ProducerIdentity("sink-abc-0-1", 7, 0))
    registry.record(1, 1, ProducerIdentity("sink-abc-1-1", 8, 0), checkpoint_id=3)
    assert written and not any(_ENTRY.match(path.rsplit("/", 1)[-1]) for path in written)  # renamed into place
    assert [(entry.subtask, entry.checkpoint_id) for entry in registry.transactions()] == [(0, None), (1, 3)]
    directory = tmp_path / "kafka-transactions" / "sink-abc"
    assert sorted(path.name for path in directory.iterdir()) == ["0.1.open.json", "1.1.c3.json"]

    opened = registry._fs.open

    def ended_meanwhile(path, *args, **kwargs):  # subtask 0's transaction ends between the listing and the read
        if path.endswith("0.1.open.json"):
            (directory / "0.1.open.json").unlink()
        return opened(path, *args, **kwargs)

    monkeypatch.setattr(registry._fs, "open", ended_meanwhile)
    assert [(entry.subtask, entry.checkpoint_id) for entry in registry.transactions()] == [(1, 3)]
