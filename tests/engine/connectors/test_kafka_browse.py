"""Looking into a Kafka cluster without a job (``engine.api.kafka_topics``, ``kafka_sample``): what a
topic browser and a schema inference are built on."""
from __future__ import annotations

import json

import pytest

from engine.api import kafka_sample, kafka_topics
from tests.engine.connectors.kafka_support import new_topic
from tests.engine.connectors.test_kafka_source import produce


def test_topics_are_listed_with_their_partitions_offsets(kafka_cluster):
    topic = new_topic(kafka_cluster, "browse", 2)
    produce(kafka_cluster.bootstrap, topic, [{"value": b"1", "partition": 0}, {"value": b"2", "partition": 0},
                                             {"value": b"3", "partition": 1}])
    listed = {entry["topic"]: entry for entry in kafka_topics(kafka_cluster.bootstrap)}
    assert listed[topic]["partitions"] == [{"partition": 0, "earliest": 0, "latest": 2},
                                           {"partition": 1, "earliest": 0, "latest": 1}]
    assert not any(name.startswith("__") for name in listed)


def test_a_sample_holds_the_latest_messages_decoded_and_as_text(kafka_cluster):
    topic = new_topic(kafka_cluster, "sample", 2)
    produce(kafka_cluster.bootstrap, topic, [
        {"value": json.dumps({"n": i}).encode(), "key": b"k", "partition": i % 2, "timestamp": 1000 + i,
         "headers": [("h", b"v")]} for i in range(30)] + [{"value": b"not json", "partition": 0, "timestamp": 2000}])
    sample = kafka_sample(kafka_cluster.bootstrap, topic, limit=5)
    assert [m["value"] for m in sample] == [{"n": 26}, {"n": 27}, {"n": 28}, {"n": 29}, None]
    assert sample[-1]["text"] == "not json" and sample[0]["key"] == "k" and sample[0]["headers"] == {"h": "v"}
    assert sample[0]["timestamp"] == 1026 and sample[0]["partition"] == 0


def test_an_unreachable_cluster_or_missing_topic_is_a_readable_error(kafka_cluster):
    with pytest.raises(ValueError, match="topic nothing-here does not exist"):
        kafka_sample(kafka_cluster.bootstrap, "nothing-here")
    with pytest.raises(ValueError, match="cannot read"):
        kafka_topics("127.0.0.1:9")
