"""librdkafka clients for a node: their configuration, and errors turned into messages naming the node.

A definition is untrusted input, so ``properties`` takes only the tuning properties of
``engine.spec.kafka_catalog.TUNING_PROPERTIES`` (checked again here, at the moment of use);
everything else a node needs is a parameter of its own.
"""
from __future__ import annotations

import json
import time

from engine.runtime.operators.base import ConfigurationError
from engine.runtime.operators.connectors.kafka.protocol import ProducerIdentity
from engine.spec.kafka_catalog import property_problems

METADATA_TIMEOUT_S = 10.0
IDENTITY_STATS_INTERVAL_MS = 25
"""How often a transactional producer reports statistics: the producer id and epoch, which
recovery needs, reach us only that way (librdkafka has no call that returns them)."""


def base_config(node: dict) -> dict:
    """Bootstrap servers and the node's tuning properties (refused ones fail naming the node)."""
    params = node.get("params") or {}
    properties = dict(params.get("properties") or {})
    problems = property_problems(properties)
    if problems:
        raise ConfigurationError(node, "; ".join(problems))
    return {"bootstrap.servers": params["bootstrap_servers"], "client.id": f"pipeline-studio-{node['id']}",
            **{name: value for name, value in properties.items()}, "log_level": 3}


def kafka_error(node: dict, action: str, error) -> ConfigurationError:
    """A ConfigurationError naming the node, what it tried and librdkafka's reason."""
    reason = error.args[0] if getattr(error, "args", None) else error
    text = reason.str() if hasattr(reason, "str") else str(reason)
    return ConfigurationError(node, f"{action} at Kafka {node['params']['bootstrap_servers']}: {text}")


def topic_partitions(node: dict, client, topics: list[str] | None = None, pattern=None) -> dict[str, list[int]]:
    """``{topic: [partition, ...]}`` of the named topics (each must exist) or of those matching ``pattern``."""
    from confluent_kafka import KafkaException

    try:
        metadata = client.list_topics(timeout=METADATA_TIMEOUT_S)
    except KafkaException as error:
        raise kafka_error(node, "cannot read the topics", error) from None
    found = {name: sorted(topic.partitions) for name, topic in metadata.topics.items()
             if topic.error is None and not name.startswith("__")}
    if pattern is not None:
        return {name: partitions for name, partitions in found.items() if pattern.fullmatch(name)}
    missing = [name for name in topics or () if name not in found]
    if missing:
        raise ConfigurationError(node, f"topic {', '.join(missing)} does not exist at "
                                       f"{node['params']['bootstrap_servers']}")
    return {name: found[name] for name in topics or ()}


class _IdentityListener:
    """Stats callback of a transactional producer: keeps its producer id and epoch once known."""

    def __init__(self):
        self.identity: tuple[int, int] | None = None

    def __call__(self, stats: str) -> None:
        if self.identity is not None:
            return
        eos = json.loads(stats).get("eos") or {}
        if eos.get("producer_id", -1) >= 0:
            self.identity = (int(eos["producer_id"]), int(eos["producer_epoch"]))


def transactional_producer(node: dict, config: dict, transactional_id: str, timeout_s: float):
    """A transactional producer for ``transactional_id``, initialised, with its :class:`ProducerIdentity`."""
    from confluent_kafka import KafkaException, Producer

    listener = _IdentityListener()
    producer = Producer({**config, "transactional.id": transactional_id,
                         "statistics.interval.ms": IDENTITY_STATS_INTERVAL_MS, "stats_cb": listener})
    try:
        producer.init_transactions(timeout_s)
    except KafkaException as error:
        raise kafka_error(node, f"cannot start transaction {transactional_id}", error) from None
    deadline = time.monotonic() + timeout_s
    while listener.identity is None:
        if time.monotonic() > deadline:
            raise ConfigurationError(node, f"transaction {transactional_id}: no producer id reported")
        producer.poll(IDENTITY_STATS_INTERVAL_MS / 1000)
    producer_id, epoch = listener.identity
    return producer, ProducerIdentity(transactional_id, producer_id, epoch)
