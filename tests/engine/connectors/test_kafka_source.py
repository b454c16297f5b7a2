"""``source.kafka``: what a record holds, formats, where partitions start, partitions found while
running, per-partition watermarks and idleness, and a record that cannot be read."""
from __future__ import annotations

import io
import json
import struct

import pytest

from engine.api import InProcess, run, submit
from engine.runtime.io.events import WATERMARK_IDLE
from engine.runtime.operators.connectors.kafka.source import NO_WATERMARK, PartitionWatermarks
from tests.engine.connectors.kafka_support import committed_windows, new_topic
from tests.kafka_log import committed_values
from tests.support import wait_until

AVRO_SCHEMA = {"type": "record", "name": "Click", "fields": [{"name": "user", "type": "string"},
                                                             {"name": "n", "type": "long"}]}


def produce(bootstrap: str, topic: str, messages: list[dict]) -> None:
    from confluent_kafka import Producer

    producer = Producer({"bootstrap.servers": bootstrap, "log_level": 3})
    for message in messages:
        producer.produce(topic, **message)
    assert producer.flush(10) == 0


def read_all(bootstrap: str, topic: str, tmp_path, **params) -> list:
    """Every record of ``topic`` (bounded), as the source emits them, in partition and offset order."""
    definition = {"format": 1, "name": "read", "parallelism": 1,
                  "nodes": [{"id": "src", "type": "source.kafka",
                             "params": {"bootstrap_servers": bootstrap, "topics": [topic], "bounded": True,
                                        **params}},
                            {"id": "out", "type": "sink.collect", "params": {"max_records": 10000}}],
                  "edges": [{"id": "e", "from": "src", "to": "out"}]}
    result = run(definition, InProcess(), checkpoint_dir=str(tmp_path / "c"), timeout=60)
    assert result.status == "FINISHED", result.failure
    return result.collected["out"]


def test_a_record_holds_topic_partition_offset_timestamp_key_headers_and_value(kafka_cluster, tmp_path):
    topic = new_topic(kafka_cluster, "envelope", 2)
    produce(kafka_cluster.bootstrap, topic, [
        {"value": b'{"n": 1}', "key": b"alice", "partition": 0, "timestamp": 1000, "headers": [("trace", b"t-1")]},
        {"value": b'{"n": 2}', "partition": 1, "timestamp": 2000},
        {"value": None, "key": b"alice", "partition": 0, "timestamp": 3000}])
    records = sorted(read_all(kafka_cluster.bootstrap, topic, tmp_path), key=lambda r: (r["partition"], r["offset"]))
    assert records == [
        {"topic": topic, "partition": 0, "offset": 0, "timestamp": 1000, "key": "alice", "headers": {"trace": "t-1"},
         "value": {"n": 1}},
        {"topic": topic, "partition": 0, "offset": 1, "timestamp": 3000, "key": "alice", "headers": {}, "value": None},
        {"topic": topic, "partition": 1, "offset": 0, "timestamp": 2000, "key": None, "headers": {}, "value": {"n": 2}},
    ]


def _csv_row(fields: list) -> bytes:
    import csv

    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="").writerow(fields)
    return buffer.getvalue().encode()


def _avro(value: dict, framing: bytes = b"") -> bytes:
    import fastavro

    buffer = io.BytesIO(framing)
    buffer.seek(len(framing))
    fastavro.schemaless_writer(buffer, fastavro.parse_schema(AVRO_SCHEMA), value)
    return buffer.getvalue()


@pytest.mark.parametrize("params, encode, expected", [
    ({"format": "json"}, lambda v: json.dumps(v).encode(), lambda v: v),
    ({"format": "csv", "columns": ["user", "n"]}, lambda v: _csv_row([v["user"], v["n"]]),
     lambda v: {"user": v["user"], "n": str(v["n"])}),
    ({"format": "avro", "avro_schema": AVRO_SCHEMA}, _avro, lambda v: v),
    ({"format": "avro", "avro_schema": json.dumps(AVRO_SCHEMA), "avro_framing": "confluent"},
     lambda v: _avro(v, struct.pack(">bI", 0, 7)), lambda v: v),
    ({"format": "string"}, lambda v: v["user"].encode(), lambda v: v["user"]),
], ids=["json", "csv", "avro", "avro-confluent", "string"])
def test_values_are_decoded_in_their_format(kafka_cluster, tmp_path, params, encode, expected):
    topic = new_topic(kafka_cluster, "formats", 1)
    values = [{"user": f"u{i}, \"quoted\"", "n": i} for i in range(50)]
    produce(kafka_cluster.bootstrap, topic, [{"value": encode(v), "partition": 0} for v in values])
    assert read_all(kafka_cluster.bootstrap, topic, tmp_path, emit="value", **params) == list(map(expected, values))


def test_an_avro_schema_is_read_from_a_file(kafka_cluster, tmp_path):
    topic = new_topic(kafka_cluster, "avrofile", 1)
    (tmp_path / "click.avsc").write_text(json.dumps(AVRO_SCHEMA))
    produce(kafka_cluster.bootstrap, topic, [{"value": _avro({"user": "a", "n": 1}), "partition": 0}])
    assert read_all(kafka_cluster.bootstrap, topic, tmp_path, emit="value", format="avro",
                    avro_schema_file=str(tmp_path / "click.avsc")) == [{"user": "a", "n": 1}]


def test_a_value_that_is_not_json_fails_the_job_naming_node_partition_and_offset(kafka_cluster, tmp_path):
    topic = new_topic(kafka_cluster, "malformed", 1)
    produce(kafka_cluster.bootstrap, topic, [{"value": b'{"ok": 1}', "partition": 0},
                                             {"value": b'{"broken', "partition": 0}])
    definition = {"format": 1, "name": "bad", "parallelism": 1,
                  "nodes": [{"id": "src", "type": "source.kafka",
                             "params": {"bootstrap_servers": kafka_cluster.bootstrap, "topics": [topic],
                                        "bounded": True}},
                            {"id": "out", "type": "sink.collect", "params": {}}],
                  "edges": [{"id": "e", "from": "src", "to": "out"}]}
    result = run(definition, InProcess(), checkpoint_dir=str(tmp_path / "c"), timeout=60)
    assert result.status == "FAILED"
    assert f"node 'src' (source.kafka): the record at {topic}/0 offset 1 cannot be read: its value is not JSON" \
        in result.failure


def test_partitions_start_at_the_groups_offsets_or_at_their_end(kafka_cluster, tmp_path):
    from confluent_kafka import Consumer, TopicPartition

    bootstrap = kafka_cluster.bootstrap
    topic = new_topic(kafka_cluster, "starts", 2)
    produce(bootstrap, topic, [{"value": json.dumps(i).encode(), "partition": i % 2, "timestamp": 1000 + i}
                               for i in range(20)])
    group = Consumer({"bootstrap.servers": bootstrap, "group.id": f"{topic}-g", "log_level": 3})
    group.commit(offsets=[TopicPartition(topic, 0, 8)], asynchronous=False)  # partition 1: none committed
    group.close()
    from_group = read_all(bootstrap, topic, tmp_path / "g", emit="value", start="committed", group=f"{topic}-g",
                          committed_fallback="latest")
    assert sorted(from_group) == [16, 18]
    assert read_all(bootstrap, topic, tmp_path / "l", emit="value", start="latest") == []


def test_topics_and_partitions_that_appear_while_running_are_read_from_their_start(kafka_cluster, tmp_path):
    """A pattern source finds a topic created after the job started; everything written to it is read."""
    bootstrap = kafka_cluster.bootstrap
    prefix = new_topic(kafka_cluster, "pattern", 1)
    out = new_topic(kafka_cluster, "pattern-out", 1)
    produce(bootstrap, prefix, [{"value": b'"first"', "partition": 0}])
    definition = {"format": 1, "name": "pattern", "parallelism": 2,
                  "checkpointing": {"interval_ms": 100},
                  "nodes": [{"id": "src", "type": "source.kafka",
                             "params": {"bootstrap_servers": bootstrap, "topic_pattern": f"{prefix}(-more)?",
                                        "discovery_interval_ms": 100, "emit": "value"}},
                            {"id": "out", "type": "sink.kafka",
                             "params": {"bootstrap_servers": bootstrap, "topic": out, "delivery": "at_least_once"}}],
                  "edges": [{"id": "e", "from": "src", "to": "out"}]}
    handle = submit(definition, InProcess(), checkpoint_dir=str(tmp_path / "c"))
    try:
        wait_until(lambda: committed_values(bootstrap, out) == [b'"first"'], 60, "the first topic read")
        later = kafka_cluster.create_topic(f"{prefix}-more", 3)
        produce(bootstrap, later, [{"value": json.dumps(f"later-{p}").encode(), "partition": p} for p in range(3)])
        wait_until(lambda: len(committed_values(bootstrap, out)) == 4, 60, "the topic created later read")
    finally:
        handle.cancel()
        handle.wait(30)
    assert sorted(committed_values(bootstrap, out)) == sorted([b'"first"', b'"later-0"', b'"later-1"', b'"later-2"'])


def test_a_quiet_partition_holds_event_time_back_only_until_its_idle_timeout(kafka_cluster, tmp_path):
    """Partition 1 gets no record: with idle_timeout_ms the windows of partition 0's records fire
    while the job runs (without it, partition 1's watermark would hold every window open)."""
    bootstrap = kafka_cluster.bootstrap
    topic = new_topic(kafka_cluster, "idle", 2)
    out = new_topic(kafka_cluster, "idle-out", 1)
    produce(bootstrap, topic, [{"value": json.dumps({"user": "a", "amount": 1, "ts": t}).encode(), "partition": 0}
                               for t in range(0, 5000, 100)])
    definition = {"format": 1, "name": "idle", "parallelism": 1, "checkpointing": {"interval_ms": 100},
                  "nodes": [{"id": "events", "type": "source.kafka",
                             "params": {"bootstrap_servers": bootstrap, "topics": [topic], "emit": "value",
                                        "watermarks": True, "timestamp": "x['ts']", "idle_timeout_ms": 300}},
                            {"id": "window", "type": "window.tumbling",
                             "params": {"size_ms": 1000, "function": "sum", "value": "x['amount']"}},
                            {"id": "out", "type": "sink.kafka",
                             "params": {"bootstrap_servers": bootstrap, "topic": out}}],
                  "edges": [{"id": "k", "from": "events", "to": "window", "partitioning": "hash", "key": "x['user']"},
                            {"id": "o", "from": "window", "to": "out"}]}
    handle = submit(definition, InProcess(), checkpoint_dir=str(tmp_path / "c"))
    try:
        wait_until(lambda: len(committed_windows(bootstrap, out)[0]) == 4, 60, "windows fired despite partition 1")
    finally:
        handle.cancel()
        handle.wait(30)
    windows, _ = committed_windows(bootstrap, out)
    assert sorted(windows) == [("a", end, 10) for end in (1000, 2000, 3000, 4000)]


def test_partition_watermarks_take_the_lowest_active_partition_and_leave_idle_ones_out():
    marks = PartitionWatermarks(out_of_orderness_ms=10, idle_timeout_s=1.0)
    assert marks.current(0.0) == (None, False), "no partition handed out yet: time held back"
    marks.none_assigned = True
    assert marks.current(0.0) == (None, True), "none for this subtask: idle"
    marks.none_assigned = False
    for partition in (("t", 0), ("t", 1)):
        marks.add(partition)
        marks.last_record_at[partition] = 0.0
    marks.observe([("t", 0), ("t", 0), ("t", 1)], [500, 700, 300], now=0.1)
    assert marks.current(0.2) == (300 - 10 - 1, False), "partition 1 is behind"
    marks.observe([("t", 0)], [900], now=0.9)
    assert marks.current(1.05) == (None, False), "partition 1 still within its timeout: no rise"
    assert marks.current(1.2) == (900 - 10 - 1, False), "partition 1 idle: partition 0 alone"
    assert marks.current(2.5) == (None, True), "both quiet: idle"
    marks.observe([("t", 1)], [400], now=2.6)
    assert marks.current(2.6) == (None, False), "active again, never back below what was emitted"
    assert NO_WATERMARK < 0 and WATERMARK_IDLE is not None


class _ListOffsetsAnswers:
    """The outside world's answer to ListOffsets by timestamp (the mock cluster answers none: see
    ``tests/kafka_server``): partition 0 has a record at or after the time, partition 1 none."""

    def list_offsets(self, requests, isolation_level=None, request_timeout=None):
        from concurrent.futures import Future

        from confluent_kafka.admin import OffsetSpec

        answers = {}
        for tp, spec in requests.items():
            future = Future()
            by_time = {0: 7, 1: -1}[tp.partition]
            latest = {0: 10, 1: 12}[tp.partition]
            offset = latest if isinstance(spec, type(OffsetSpec.latest())) else by_time
            future.set_result(type("Info", (), {"offset": offset})())
            answers[tp] = future
        return answers


def test_a_timestamp_start_takes_the_first_record_at_or_after_it_or_the_end():
    from engine.runtime.operators.connectors.kafka.enumerator import KafkaPartitionEnumerator

    node = {"id": "src", "type": "source.kafka", "params": {"bootstrap_servers": "k:9092", "topics": ["t"],
                                                            "start": "timestamp", "start_timestamp_ms": 5}}
    enumerator = KafkaPartitionEnumerator(node, None, False)
    starts = enumerator._start_offsets(_ListOffsetsAnswers(), {}, [("t", 0), ("t", 1)], "timestamp")
    assert starts == {("t", 0): 7, ("t", 1): 12}


def test_restored_state_naming_another_topic_or_a_bad_offset_is_refused():
    """Restored state is data: a snapshot a user could write must not make the source read a topic
    the node does not name, or seek to an offset that is not one."""
    from engine.runtime.operators.connectors.kafka.enumerator import KafkaPartitionEnumerator, is_split_of

    node = {"id": "src", "type": "source.kafka", "params": {"bootstrap_servers": "k:9092", "topics": ["orders"]}}
    good = {"topic": "orders", "partition": 0, "offset": 5, "stop": None}
    assert is_split_of(good, ["orders"], None)
    for bad in ({**good, "topic": "payroll"}, {**good, "offset": -1}, {**good, "partition": "0"},
                {**good, "stop": 1.5}, {"topic": "orders"}, "orders"):
        assert not is_split_of(bad, ["orders"], None), bad
        enumerator = KafkaPartitionEnumerator(node, {"known": [["orders", 0]], "unassigned": [bad]}, True,
                                              snapshot="/snapshots/chk-3")
        answer = enumerator.handle_event(0, {"kind": "request", "parallelism": 1})
        assert answer["kind"] == "error" and "the snapshot at /snapshots/chk-3 is refused" in answer["message"]


def test_an_avro_schema_file_outside_the_jobs_grants_is_refused_when_opened(tmp_path):
    """A link swapped in after the definition was checked: the file actually opened must be granted."""
    from engine.runtime.grants import Grants
    from engine.runtime.operators.connectors.kafka import formats

    (tmp_path / "granted").mkdir()
    (tmp_path / "secret.avsc").write_text(json.dumps(AVRO_SCHEMA))
    (tmp_path / "granted" / "click.avsc").symlink_to(tmp_path / "secret.avsc")
    params = {"format": "avro", "avro_schema_file": str(tmp_path / "granted" / "click.avsc")}
    with pytest.raises(ValueError, match="outside the locations granted"):
        formats.value_decoder(params, Grants(read=(str(tmp_path / "granted"),)))
    assert formats.value_decoder(params, Grants(read=(str(tmp_path),)))([_avro({"user": "a", "n": 1})]) == \
        [{"user": "a", "n": 1}]
