"""The network environment: who gives each (job edge, producer, consumer) its channel.

A channel connects one producer subtask to one consumer subtask over one job edge
(:class:`~engine.plan.channels.ChannelId`; which channels an edge has: :mod:`engine.plan.channels`).

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
from typing import Protocol

from engine.plan.channels import ChannelId
from engine.runtime.io.local_channel import DEFAULT_CAPACITY, LocalChannel


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
