"""The channels of a job edge: which producer subtask writes to which consumer subtask, and
the id that names one channel everywhere (network ends, channel state, shuffle files).

A channel connects one producer subtask to one consumer subtask over one job edge. Which
subtasks are connected is fixed by the edge's partitioning: ALL_TO_ALL edges (hash,
rebalance, broadcast) connect every producer with every consumer; POINTWISE edges
(forward, rescale) connect each producer with a few consumers (see
:func:`~engine.plan.connection_patterns.pointwise_consumers`).
"""
from __future__ import annotations

from typing import NamedTuple

from engine.plan.connection_patterns import pointwise_consumers, pointwise_producers


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
