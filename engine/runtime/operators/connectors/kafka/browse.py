"""Looking into a Kafka cluster without running a job: its topics, their partitions and offsets, and
the latest messages of a topic -- what a topic browser and a schema inference need.

Reached through ``engine.api`` (``kafka_topics``, ``kafka_sample``). The caller checks the
address against what its user may reach first (the studio's location grants); this module
only connects, with a bounded time for every request, and answers plain data.
"""
from __future__ import annotations

from engine.runtime.operators.base import ConfigurationError
from engine.runtime.operators.connectors.kafka import formats
from engine.runtime.operators.connectors.kafka.clients import METADATA_TIMEOUT_S, kafka_error, topic_partitions

MAX_SAMPLE = 1000
BROWSER_NODE_ID = "topic-browser"


def _node(bootstrap: str, **params) -> dict:
    """A node the client helpers can name in their messages."""
    return {"id": BROWSER_NODE_ID, "type": "source.kafka", "params": {"bootstrap_servers": bootstrap, **params}}


def _config(bootstrap: str) -> dict:
    return {"bootstrap.servers": bootstrap, "client.id": "pipeline-studio-browser", "log_level": 3,
            "socket.timeout.ms": int(METADATA_TIMEOUT_S * 1000)}


def list_topics(bootstrap: str) -> list[dict]:
    """``[{"topic", "partitions": [{"partition", "earliest", "latest"}]}]``, by topic name; internal topics
    (``__consumer_offsets`` ...) left out. Raises ValueError with a readable reason."""
    from confluent_kafka import KafkaException, TopicPartition
    from confluent_kafka.admin import AdminClient, OffsetSpec

    node = _node(bootstrap)
    client = AdminClient(_config(bootstrap))
    try:
        partitions = topic_partitions(node, client, pattern=_ANY)
        every = [TopicPartition(topic, number) for topic, numbers in partitions.items() for number in numbers]
        latest = _offsets(client, {tp: OffsetSpec.latest() for tp in every})
        earliest = _offsets(client, {tp: OffsetSpec.earliest() for tp in every})
    except (ConfigurationError, KafkaException) as error:
        raise ValueError(_reason(node, error)) from None
    return [{"topic": topic, "partitions": [{"partition": number, "earliest": earliest[(topic, number)],
                                             "latest": latest[(topic, number)]} for number in numbers]}
            for topic, numbers in sorted(partitions.items())]


def sample_messages(bootstrap: str, topic: str, limit: int = 20, **params) -> list[dict]:
    """The latest ``limit`` messages of ``topic`` (across its partitions, newest last):
    ``{"partition", "offset", "timestamp", "key", "headers", "value", "text"}`` -- ``value`` decoded as
    the source would with ``params`` (``format``, ``columns``, ``avro_schema`` ...; JSON by default) or
    None where it does not decode, ``text`` the value as UTF-8 text (replacing what is not)."""
    from confluent_kafka import Consumer, KafkaException, TopicPartition

    limit = max(1, min(int(limit), MAX_SAMPLE))
    node = _node(bootstrap, topics=[topic], **params)
    try:
        decode = formats.value_decoder(node["params"])
    except ValueError as error:
        raise ValueError(str(error)) from None
    consumer = Consumer({**_config(bootstrap), "group.id": "pipeline-studio-browser", "enable.auto.commit": False,
                         "enable.partition.eof": True})
    try:
        numbers = topic_partitions(node, consumer, [topic])[topic]
        starts, ends = {}, {}
        for number in numbers:
            low, high = consumer.get_watermark_offsets(TopicPartition(topic, number), timeout=METADATA_TIMEOUT_S)
            starts[number], ends[number] = max(low, high - limit), high
        reading = [number for number in numbers if ends[number] > starts[number]]
        consumer.assign([TopicPartition(topic, number, starts[number]) for number in reading])
        messages = _read_until_ends(consumer, set(reading), ends)
    except (ConfigurationError, KafkaException) as error:
        raise ValueError(_reason(node, error)) from None
    finally:
        consumer.close()
    messages.sort(key=lambda message: (message.timestamp()[1], message.partition(), message.offset()))
    messages = messages[-limit:]
    return [_described(message, value) for message, value in zip(messages, _decoded_each(decode, messages))]


def _read_until_ends(consumer, reading: set, ends: dict) -> list:
    import time

    from confluent_kafka import KafkaError

    found, deadline = [], time.monotonic() + METADATA_TIMEOUT_S
    while reading and time.monotonic() < deadline:
        for message in consumer.consume(500, 0.2):
            error = message.error()
            if error is not None:
                if error.code() == KafkaError._PARTITION_EOF:
                    reading.discard(message.partition())
                continue
            found.append(message)
            if message.offset() + 1 >= ends[message.partition()]:
                reading.discard(message.partition())
    return found


def _decoded_each(decode, messages: list) -> list:
    values = []
    for message in messages:
        try:
            values.append(decode([message.value()])[0])
        except formats.BadRecord:
            values.append(None)
    return values


def _described(message, value) -> dict:
    raw = message.value()
    key = message.key()
    return {"partition": message.partition(), "offset": message.offset(), "timestamp": message.timestamp()[1],
            "key": None if key is None else key.decode("utf-8", "replace"),
            "headers": {name: None if data is None else data.decode("utf-8", "replace")
                        for name, data in (message.headers() or ())},
            "value": value, "text": None if raw is None else raw.decode("utf-8", "replace")}


def _offsets(client, requests: dict) -> dict:
    from confluent_kafka import IsolationLevel

    if not requests:
        return {}
    futures = client.list_offsets(requests, isolation_level=IsolationLevel.READ_UNCOMMITTED,
                                  request_timeout=METADATA_TIMEOUT_S)
    return {(tp.topic, tp.partition): future.result().offset for tp, future in futures.items()}


def _reason(node: dict, error) -> str:
    if isinstance(error, ConfigurationError):
        return error.cause
    return kafka_error(node, "cannot read the cluster", error).cause


class _Everything:
    """A pattern every topic name matches."""

    @staticmethod
    def fullmatch(_name: str) -> bool:
        return True


_ANY = _Everything()
