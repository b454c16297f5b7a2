"""Partitioners: which output channel each record of a batch goes to.

A partitioner works on a whole batch and returns the sub-batches per channel, so the
per-record cost is a slice or one list append, never a call per record into the writer:

- ``forward``: everything to the single channel (equal parallelism, subtask i -> i);
- ``rebalance``: round robin over all consumers, record by record (done with slices);
- ``rescale``: round robin over the consumers this producer is wired to (pointwise);
- ``hash``: by key group of the key expression, then key group -> consumer subtask (the
  same math the keyed state uses, so a key always reaches the subtask owning its state);
- ``broadcast``: the same batch to every channel (not a partitioner: the writer sends the
  one list object to each channel).

Batches with event times (:class:`TimestampedBatch`) are split together with their
timestamps.
"""
from __future__ import annotations

from typing import Callable

from engine.runtime.io.events import TimestampedBatch
from engine.runtime.state.key_groups import _GOLDEN, _MASK32, key_group_for, key_groups_for


class Partitioner:
    """Splits a batch over ``number_of_channels`` channels."""

    def __init__(self, number_of_channels: int):
        self.number_of_channels = number_of_channels

    def partition(self, batch: list) -> list[tuple[int, list]]:
        """Return ``(channel index, non-empty sub-batch)`` pairs."""
        raise NotImplementedError(f"{type(self).__name__}.partition() must be overridden")


class ForwardPartitioner(Partitioner):
    def partition(self, batch: list) -> list[tuple[int, list]]:
        return [(0, batch)]


class RoundRobinPartitioner(Partitioner):
    """Record i of the stream goes to channel (offset + i) % n: rebalance and rescale."""

    def __init__(self, number_of_channels: int, start: int = 0):
        super().__init__(number_of_channels)
        self._offset = start % max(1, number_of_channels)

    def partition(self, batch: list) -> list[tuple[int, list]]:
        n = self.number_of_channels
        if n == 1:
            return [(0, batch)]
        offset = self._offset
        self._offset = (offset + len(batch)) % n
        timestamps = batch.timestamps if type(batch) is TimestampedBatch else None
        parts = []
        for channel in range(n):
            first = (channel - offset) % n
            records = batch[first::n]
            if records:
                if timestamps is not None:
                    records = TimestampedBatch(records, timestamps[first::n])
                parts.append((channel, records))
        return parts


class HashPartitioner(Partitioner):
    """Routes each record by the key group of ``key_function(record)``."""

    def __init__(self, number_of_channels: int, key_function: Callable, max_parallelism: int):
        super().__init__(number_of_channels)
        self.key_function = key_function
        self.max_parallelism = max_parallelism
        # key group -> channel, precomputed: subtask_for_key_group for every key group
        self._channel_of_group = [
            group * number_of_channels // max_parallelism for group in range(max_parallelism)]

    def partition(self, batch: list) -> list[tuple[int, list]]:
        n = self.number_of_channels
        if n == 1:
            return [(0, batch)]
        if type(batch) is TimestampedBatch:
            return self._partition_timestamped(batch)
        key = self.key_function
        max_parallelism = self.max_parallelism
        channel_of_group = self._channel_of_group
        outputs: list[list] = [[] for _ in range(n)]
        appends = [output.append for output in outputs]
        # One pass, integer keys hashed inline (as key_groups_for does): the routing is
        # per-record work that parallelism adds, so it is kept to the floor.
        for record in batch:
            k = key(record)
            if type(k) is int:
                appends[channel_of_group[(((k * _GOLDEN) & _MASK32) >> 8) % max_parallelism]](record)
            else:
                appends[channel_of_group[key_group_for(k, max_parallelism)]](record)
        return [(c, outputs[c]) for c in range(n) if outputs[c]]

    def _partition_timestamped(self, batch: "TimestampedBatch") -> list[tuple[int, list]]:
        n = self.number_of_channels
        key = self.key_function
        groups = key_groups_for([key(record) for record in batch], self.max_parallelism)
        channel_of_group = self._channel_of_group
        outputs: list[list] = [[] for _ in range(n)]
        stamps: list[list] = [[] for _ in range(n)]
        for record, stamp, group in zip(batch, batch.timestamps, groups):
            channel = channel_of_group[group]
            outputs[channel].append(record)
            stamps[channel].append(stamp)
        return [(c, TimestampedBatch(outputs[c], stamps[c])) for c in range(n) if outputs[c]]


def create_partitioner(partitioning: str, number_of_channels: int, *, key_function=None,
                       max_parallelism: int = 128, producer_index: int = 0) -> Partitioner | None:
    """Return the partitioner of an edge, or None for broadcast (the writer copies to all)."""
    if partitioning == "broadcast":
        return None
    if partitioning == "forward" or number_of_channels == 1:
        return ForwardPartitioner(number_of_channels)
    if partitioning in ("rebalance", "rescale"):
        return RoundRobinPartitioner(number_of_channels, start=producer_index)
    if partitioning == "hash":
        if key_function is None:
            raise ValueError("hash partitioning needs a key function")
        return HashPartitioner(number_of_channels, key_function, max_parallelism)
    raise ValueError(f"unknown partitioning '{partitioning}'")
