"""The end offsets of a source's partitions, asked of the brokers without blocking the source.

A Kafka source's lag per partition is its end offset minus the position after the last
record emitted. librdkafka's cached end offsets come with fetches, and a backpressured
source stops fetching -- just when its lag grows -- so they stop moving; asking the leaders
synchronously would block the subtask's mailbox thread for a round trip per partition (one
behind a fetch waiting on the same connection takes up to ``fetch.wait.max.ms``).

:class:`EndOffsets` asks with ``AdminClient.list_offsets`` (``OffsetSpec.latest``, at the
source's isolation level: the last stable offset when reading committed records) and does
not wait: each ``latest`` call takes in the answers of the request before, if they are
there, and sends the next one. So a figure is at most one metrics report old. Mailbox thread only.
"""
from __future__ import annotations

import logging

from engine.runtime.operators.connectors.kafka.clients import base_config

logger = logging.getLogger(__name__)


class EndOffsets:
    """Latest known end offset per ``(topic, partition)``, refreshed one request at a time."""

    def __init__(self, node: dict, read_committed: bool):
        from confluent_kafka.admin import AdminClient

        self._admin = AdminClient(base_config(node))
        self._read_committed = read_committed
        self._asked: dict | None = None  # TopicPartition -> future of the request in flight
        self._known: dict[tuple[str, int], int] = {}

    def latest(self, partitions: list[tuple[str, int]]) -> dict[tuple[str, int], int]:
        """The end offsets known now (those answered so far); asks again for ``partitions``."""
        if self._asked is not None and all(future.done() for future in self._asked.values()):
            for partition, future in self._asked.items():
                try:
                    self._known[(partition.topic, partition.partition)] = future.result().offset
                except Exception as error:  # a leader away: that partition keeps its last figure
                    logger.debug("no end offset of %s/%s: %s", partition.topic, partition.partition, error)
            self._asked = None
        if self._asked is None and partitions:
            self._asked = self._ask(partitions)
        return dict(self._known)

    def _ask(self, partitions: list[tuple[str, int]]) -> dict:
        from confluent_kafka import IsolationLevel, TopicPartition
        from confluent_kafka.admin import OffsetSpec

        isolation = IsolationLevel.READ_COMMITTED if self._read_committed else IsolationLevel.READ_UNCOMMITTED
        return self._admin.list_offsets({TopicPartition(topic, number): OffsetSpec.latest()
                                         for topic, number in partitions}, isolation_level=isolation)
