"""How the subtasks at the two ends of a job edge are connected, as groups of ranges.

A result with ``producers`` partitions and ``consumers`` consumer subtasks is cut into
groups; group ``g`` pairs the partitions :meth:`partitions_of_group` with the consumer
subtasks :meth:`consumers_of_group`: every such consumer reads every such partition, and
no other pair is connected. Both are contiguous ranges, and the index arithmetic works in
both directions, so no per-pair or per-subtask table is needed.

All-to-all
    One group: all partitions, all consumers.

Pointwise, producers >= consumers (n >= m)
    One group per consumer: consumer ``j`` reads the contiguous partitions
    ``[⌈j·n/m⌉, ⌈(j+1)·n/m⌉)``; partition ``i`` goes to consumer ``⌊i·m/n⌋``. With equal
    parallelism that is one-to-one.

Pointwise, producers < consumers
    One group per partition: partition ``i`` feeds the contiguous consumers
    ``[⌈i·m/n⌉, ⌈(i+1)·m/n⌉)``; consumer ``j`` reads partition ``⌊j·n/m⌋``.

This is the wiring the runtime builds its channels from (:func:`pointwise_consumers`,
used by ``engine.plan.channels``), so the plan's regions and failover sets describe
the channels that really exist. In both pointwise cases every partition has at least one
consumer and every consumer at least one partition, which the region computation relies
on.
"""
from __future__ import annotations

from engine.plan.job_graph import DistributionPattern


def pointwise_consumers(producer_index: int, producers: int, consumers: int) -> list[int]:
    """The consumer subtasks a producer of a POINTWISE edge writes to.

    With equal parallelism subtask i feeds subtask i. With more producers than consumers
    each producer feeds one consumer, consecutive producers sharing it; with fewer, each
    producer feeds a consecutive block of consumers. Every consumer reads at least one
    producer and every producer writes at least one consumer.
    """
    if producers >= consumers:
        return [producer_index * consumers // producers]
    return [c for c in range(consumers) if c * producers // consumers == producer_index]


def pointwise_producers(consumer_index: int, producers: int, consumers: int) -> list[int]:
    """The producer subtasks a consumer of a POINTWISE edge reads from (inverse of the above)."""
    if producers >= consumers:
        return [p for p in range(producers) if p * consumers // producers == consumer_index]
    return [consumer_index * producers // consumers]


class ConnectionPattern:
    """The group layout of one job edge; see the module docstring."""

    __slots__ = ("producers", "consumers", "group_count")

    def __init__(self, producers: int, consumers: int, group_count: int) -> None:
        if producers < 1 or consumers < 1:
            raise ValueError(f"parallelism must be positive, got {producers} and {consumers}")
        self.producers = producers
        self.consumers = consumers
        self.group_count = group_count

    def partitions_of_group(self, group: int) -> range:
        raise NotImplementedError(f"{type(self).__name__}.partitions_of_group() must be overridden")

    def consumers_of_group(self, group: int) -> range:
        raise NotImplementedError(f"{type(self).__name__}.consumers_of_group() must be overridden")

    def group_of_partition(self, partition: int) -> int:
        raise NotImplementedError(f"{type(self).__name__}.group_of_partition() must be overridden")

    def group_of_consumer(self, consumer: int) -> int:
        raise NotImplementedError(f"{type(self).__name__}.group_of_consumer() must be overridden")

    def groups_of_partitions(self, partitions: range) -> range:
        """Return the groups the given contiguous partitions belong to (groups are monotone)."""
        if not partitions:
            return range(0)
        return range(self.group_of_partition(partitions[0]), self.group_of_partition(partitions[-1]) + 1)


class AllToAllPattern(ConnectionPattern):
    """Every consumer reads every partition: a single group."""

    __slots__ = ()

    def __init__(self, producers: int, consumers: int) -> None:
        super().__init__(producers, consumers, 1)

    def partitions_of_group(self, group: int) -> range:
        return range(self.producers)

    def consumers_of_group(self, group: int) -> range:
        return range(self.consumers)

    def group_of_partition(self, partition: int) -> int:
        return 0

    def group_of_consumer(self, consumer: int) -> int:
        return 0


class PointwiseByConsumerPattern(ConnectionPattern):
    """Producers >= consumers: one group per consumer, reading a contiguous partition range."""

    __slots__ = ()

    def __init__(self, producers: int, consumers: int) -> None:
        super().__init__(producers, consumers, consumers)

    def partitions_of_group(self, group: int) -> range:
        n, m = self.producers, self.consumers
        return range(-(-group * n // m), -(-(group + 1) * n // m))

    def consumers_of_group(self, group: int) -> range:
        return range(group, group + 1)

    def group_of_partition(self, partition: int) -> int:
        return partition * self.consumers // self.producers

    def group_of_consumer(self, consumer: int) -> int:
        return consumer


class PointwiseByPartitionPattern(ConnectionPattern):
    """Producers < consumers: one group per partition, feeding a contiguous consumer range."""

    __slots__ = ()

    def __init__(self, producers: int, consumers: int) -> None:
        super().__init__(producers, consumers, producers)

    def partitions_of_group(self, group: int) -> range:
        return range(group, group + 1)

    def consumers_of_group(self, group: int) -> range:
        n, m = self.producers, self.consumers
        return range(-(-group * m // n), -(-(group + 1) * m // n))

    def group_of_partition(self, partition: int) -> int:
        return partition

    def group_of_consumer(self, consumer: int) -> int:
        # The largest i with ceil(i·m/n) <= consumer, i.e. floor(consumer·n/m).
        return consumer * self.producers // self.consumers


def connection_pattern(
    distribution: DistributionPattern, producers: int, consumers: int
) -> ConnectionPattern:
    """Return the group layout of an edge with this distribution and these parallelisms."""
    if distribution is DistributionPattern.ALL_TO_ALL:
        return AllToAllPattern(producers, consumers)
    if producers >= consumers:
        return PointwiseByConsumerPattern(producers, consumers)
    return PointwiseByPartitionPattern(producers, consumers)
