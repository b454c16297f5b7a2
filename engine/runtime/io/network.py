"""The network environment: who gives each (job edge, producer, consumer) its channel.

A channel connects one producer subtask to one consumer subtask over one job edge. Which
subtasks are connected is fixed by the edge's partitioning: ALL_TO_ALL edges (hash,
rebalance, broadcast) connect every producer with every consumer; POINTWISE edges
(forward, rescale) connect each producer with a few consumers (see :func:`pointwise_consumers`).

A :class:`NetworkEnvironment` hands out both ends of a channel: ``output_channel`` to the
producer's record writer, ``input_channel`` to the consumer's input gate. Implementations:

- :class:`LocalNetwork`: both ends in this process; one :class:`LocalChannel` serves as both.
- :class:`~engine.runtime.io.tcp_channel.TcpNetwork`: ends in different processes are
  connected over TCP with credit-based flow control; ends in the same process still get a
  local channel.

Threading model: ``output_channel`` / ``input_channel`` are called while slots build their
tasks (before any task runs), from any thread; implementations lock their registries.
"""
from __future__ import annotations

import threading
from typing import NamedTuple, Protocol

from engine.plan.connection_patterns import pointwise_consumers, pointwise_producers
from engine.runtime.io.local_channel import DEFAULT_CAPACITY, LocalChannel


class ChannelId(NamedTuple):
    """One channel: job edge ``edge``, from producer subtask ``producer`` to consumer ``consumer``.

    ``producer`` and ``consumer`` are task ids ``(vertex id, subtask index)``.
    """

    edge: str
    producer: tuple
    consumer: tuple

    def as_list(self) -> list:
        return [self.edge, list(self.producer), list(self.consumer)]

    @classmethod
    def from_list(cls, value) -> "ChannelId":
        edge, producer, consumer = value
        return cls(edge, (producer[0], int(producer[1])), (consumer[0], int(consumer[1])))


def output_channel_ids(edge, producer_index: int, producers: int, consumers: int) -> list[ChannelId]:
    """The channels a producer subtask writes for a job edge, ordered by consumer index."""
    if _is_all_to_all(edge):
        targets = range(consumers)
    else:
        targets = pointwise_consumers(producer_index, producers, consumers)
    return [ChannelId(edge.id, (edge.source, producer_index), (edge.target, c)) for c in targets]


def input_channel_ids(edge, consumer_index: int, producers: int, consumers: int) -> list[ChannelId]:
    """The channels a consumer subtask reads for a job edge, ordered by producer index."""
    if _is_all_to_all(edge):
        sources = range(producers)
    else:
        sources = pointwise_producers(consumer_index, producers, consumers)
    return [ChannelId(edge.id, (edge.source, p), (edge.target, consumer_index)) for p in sources]


def _is_all_to_all(edge) -> bool:
    distribution = getattr(edge, "distribution", None)
    value = getattr(distribution, "value", distribution)
    if value is not None:
        return value == "ALL_TO_ALL"
    return edge.partitioning in ("hash", "rebalance", "broadcast")


class NetworkEnvironment(Protocol):
    """Hands out the two ends of every channel of the subtasks of one process (or slot)."""

    def output_channel(self, channel_id: ChannelId):
        """The producer end: ``push(item)``, ``is_writable()``, ``when_writable(cb)``, ``close()``."""

    def input_channel(self, channel_id: ChannelId):
        """The consumer end, attached to an ``InputGate`` (see ``InputChannelBase``)."""

    def close(self) -> None:
        """Release sockets and threads."""


class LocalNetwork:
    """All channels in memory: both ends of a channel are the same :class:`LocalChannel`."""

    def __init__(self, capacity: int = DEFAULT_CAPACITY):
        self.capacity = capacity
        self._lock = threading.Lock()
        self._channels: dict[ChannelId, LocalChannel] = {}  # guarded by: self._lock

    def _channel(self, channel_id: ChannelId) -> LocalChannel:
        with self._lock:
            channel = self._channels.get(channel_id)
            if channel is None:
                channel = self._channels[channel_id] = LocalChannel(channel_id, self.capacity)
            return channel

    def output_channel(self, channel_id: ChannelId) -> LocalChannel:
        return self._channel(channel_id)

    def input_channel(self, channel_id: ChannelId) -> LocalChannel:
        return self._channel(channel_id)

    def channels(self) -> list[LocalChannel]:
        with self._lock:
            return list(self._channels.values())

    def close(self) -> None:
        with self._lock:
            self._channels.clear()
