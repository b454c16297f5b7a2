"""What librdkafka's mock cluster does and does not do, as ``tests/kafka_server.py`` states it.

The Kafka tests' guarantees rest on these facts; a librdkafka upgrade that changes one fails
here first, and the module docstring of ``tests/kafka_server.py`` must then be updated.
"""
from __future__ import annotations

import json
import time

from engine.runtime.operators.connectors.kafka.clients import transactional_producer
from engine.runtime.operators.connectors.kafka.protocol import ProducerIdentity, end_transaction
from tests.engine.connectors.kafka_support import new_topic
from tests.kafka_log import read_partition

NODE = {"id": "probe", "type": "sink.kafka", "params": {"bootstrap_servers": ""}}


def consume_all(bootstrap: str, topic: str, expected: int) -> list[bytes]:
    """What a librdkafka ``read_committed`` consumer receives from partition 0."""
    from confluent_kafka import Consumer, TopicPartition

    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "probe", "isolation.level": "read_committed",
                         "enable.auto.commit": False, "log_level": 3})
    consumer.assign([TopicPartition(topic, 0, 0)])
    values, deadline = [], time.monotonic() + 30
    while len(values) < expected and time.monotonic() < deadline:
        values += [message.value() for message in consumer.consume(100, 0.2) if message.error() is None]
    consumer.close()
    return values


def producer(bootstrap: str, transactional_id: str):
    return transactional_producer({**NODE, "params": {"bootstrap_servers": bootstrap}},
                                  {"bootstrap.servers": bootstrap, "log_level": 3}, transactional_id, 10)


def test_the_mock_hands_aborted_records_to_read_committed_consumers_and_the_log_reader_does_not(kafka_cluster):
    bootstrap = kafka_cluster.bootstrap
    topic = new_topic(kafka_cluster, "isolation", 1)
    client, _ = producer(bootstrap, f"{topic}-tx")
    for value, commit in ((b"kept", True), (b"dropped", False)):
        client.begin_transaction()
        client.produce(topic, value, partition=0)
        client.flush(10)
        client.commit_transaction(10) if commit else client.abort_transaction(10)
    assert consume_all(bootstrap, topic, 2) == [b"kept", b"dropped"], "the mock isolates now: update the docs"
    log = read_partition(bootstrap, topic, 0)
    assert [record.value for record in log.committed] == [b"kept"] and log.aborted == 1


def test_the_mock_does_not_fence_an_earlier_producer_of_the_same_transactional_id(kafka_cluster):
    """A real broker bumps the epoch and aborts the open transaction; the mock hands out a new producer
    id and the first producer's transaction stays open, and can still be committed."""
    bootstrap = kafka_cluster.bootstrap
    topic = new_topic(kafka_cluster, "fencing", 1)
    first, first_identity = producer(bootstrap, f"{topic}-tx")
    first.begin_transaction()
    first.produce(topic, b"first", partition=0)
    first.flush(10)
    second, second_identity = producer(bootstrap, f"{topic}-tx")
    assert second_identity.producer_id != first_identity.producer_id
    assert read_partition(bootstrap, topic, 0).open_producers == {first_identity.producer_id: 1}
    first.commit_transaction(10)
    assert [record.value for record in read_partition(bootstrap, topic, 0).committed] == [b"first"]


def test_a_transaction_of_a_dead_producer_is_committed_by_end_txn(kafka_cluster):
    """What sink recovery does: EndTxn with the producer id and epoch the registry kept."""
    import subprocess
    import sys

    bootstrap = kafka_cluster.bootstrap
    topic = new_topic(kafka_cluster, "resume", 2)
    script = (
        "import json, os, sys\n"
        "from tests.engine.connectors.test_kafka_mock import producer\n"
        "client, identity = producer(sys.argv[1], sys.argv[2])\n"
        "client.begin_transaction()\n"
        "for i in range(4): client.produce(sys.argv[2], b'%d' % i, partition=i % 2)\n"
        "client.flush(10)\n"
        "print(json.dumps([identity.producer_id, identity.epoch]), flush=True)\n"
        "os._exit(0)\n")  # dies with its transaction open, as a killed subtask
    answer = subprocess.run([sys.executable, "-c", script.replace("sys.argv[2], b", "sys.argv[3], b"), bootstrap,
                             f"{topic}-tx", topic], capture_output=True, text=True, check=True, timeout=60)
    producer_id, epoch = json.loads(answer.stdout.strip().splitlines()[-1])
    assert all(read_partition(bootstrap, topic, p).open_producers for p in (0, 1))
    assert end_transaction(bootstrap, ProducerIdentity(f"{topic}-tx", producer_id, epoch), commit=True) == 0
    logs = [read_partition(bootstrap, topic, p) for p in (0, 1)]
    assert [[r.value for r in log.committed] for log in logs] == [[b"0", b"2"], [b"1", b"3"]]
    assert not any(log.open_producers for log in logs)


def test_a_broker_down_and_up_keeps_its_partitions_data(kafka_cluster):
    from confluent_kafka import Producer
    from confluent_kafka.admin import AdminClient

    bootstrap = kafka_cluster.bootstrap
    topic = new_topic(kafka_cluster, "downup", 3)
    plain = Producer({"bootstrap.servers": bootstrap, "log_level": 3})
    for partition in range(3):
        plain.produce(topic, b"before", partition=partition)
    assert plain.flush(10) == 0
    leader = AdminClient({"bootstrap.servers": bootstrap}).list_topics(topic, timeout=10).topics[topic] \
        .partitions[0].leader
    kafka_cluster.broker_down(leader)
    kafka_cluster.broker_up(leader)
    assert [record.value for record in read_partition(bootstrap, topic, 0).committed] == [b"before"]
