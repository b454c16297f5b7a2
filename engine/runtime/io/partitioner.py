"""Partitioners: which output channel each record of a batch goes to.

A partitioner works on a whole batch and returns the sub-batches per channel, so the
per-record cost is a slice or one list append, never a call per record into the writer:

- ``forward``: everything to the single channel (equal parallelism, subtask i -> i);
- ``rebalance``: round robin over all consumers, record by record (done with slices);
- ``rescale``: round robin over the consumers this producer is wired to (pointwise);
- ``hash``: by key group of the key expression, then key group -> consumer subtask (the
  same math the keyed state uses, so a key always reaches the subtask owning its state;
  the channels of keys already seen are remembered);
- ``broadcast``: the same batch to every channel (not a partitioner: the writer sends the
  one list object to each channel).

Batches with event times (:class:`TimestampedBatch`) are split together with their
timestamps.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from engine.runtime.columnar import Bounds, ChannelsOfKeys, IntKey, channel_table, split_by_channel
from engine.runtime.io.events import TimestampedBatch
from engine.runtime.state.key_groups import _GOLDEN, _MASK32, key_group_for, key_groups_for


class Partitioner:
    """Splits a batch over ``number_of_channels`` channels."""

    parts_are_new = False
    """Whether ``partition`` always returns lists of its own (never the batch it was given),
    which a record writer may then keep and extend as output buffers."""

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

    parts_are_new = True  # slices (at n == 1 the writer has a single channel and never asks)

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


ROUTE_CACHE_LIMIT = 1 << 16
"""Distinct keys a hash partitioner remembers the channel of (a few MB at most); keys past
that are routed by computing their key group, as every key is the first time."""


class HashPartitioner(Partitioner):
    """Routes each record by the key group of its key.

    The routing is the per-record work that parallelism adds (at parallelism 1 the edge has
    one channel), so it is kept to the floor. A key's channel is remembered in a dict once
    computed (hashing a key to its key group costs as much as the rest), and while every
    key of a batch is known one loop does it all, the key expression inline
    (``router``, ~65 ns a record); a batch with a new key takes three passes instead: the
    keys (the expression inline in one comprehension, ``batch_key_function``), their
    channels, and the split (~90 ns). A key's channel is the subtask owning its key group,
    the same math the keyed state uses, so a key always reaches the subtask holding its state.
    """

    parts_are_new = True  # (at n == 1 the writer has a single channel and never asks)

    def __init__(self, number_of_channels: int, key_function: Callable, max_parallelism: int,
                 batch_key_function: Callable[[list], list] | None = None,
                 router: Callable[[list, dict, list], None] | None = None, columnar_key: IntKey | None = None):
        super().__init__(number_of_channels)
        self.key_function = key_function
        self.columnar_key = columnar_key
        """The key over an int64 array (``engine.runtime.columnar``), when the key expression compiles so."""
        self.batch_key_function = batch_key_function or (lambda batch: [key_function(record) for record in batch])
        self.router = router
        self.max_parallelism = max_parallelism
        # key group -> channel, precomputed: subtask_for_key_group for every key group
        self._channel_of_group = [
            group * number_of_channels // max_parallelism for group in range(max_parallelism)]
        self._channel_of_key: dict = {}
        self._channels_of_keys = ChannelsOfKeys(channel_table(self._channel_of_group, number_of_channels),
                                                max_parallelism) if columnar_key else None

    def partition(self, batch: list) -> list[tuple[int, list]]:
        n = self.number_of_channels
        if n == 1:
            return [(0, batch)]
        if self.router is not None and type(batch) is list:
            outputs = [[] for _ in range(n)]
            try:
                self.router(batch, self._channel_of_key, [output.append for output in outputs])
                return [(c, outputs[c]) for c in range(n) if outputs[c]]
            except (KeyError, TypeError):  # a new or unhashable key, or a failing key expression:
                pass  # the passes below route the batch, or raise the expression's error again
        channels = self._channels_of(self.batch_key_function(batch))
        outputs = _split(batch, channels, n)
        if type(batch) is TimestampedBatch:
            stamps = _split(batch.timestamps, channels, n)
            return [(c, TimestampedBatch(outputs[c], stamps[c])) for c in range(n) if outputs[c]]
        return [(c, outputs[c]) for c in range(n) if outputs[c]]

    def partition_columnar(self, batch, array_channels: list[bool] | None = None,
                           bounds: Bounds | None = None) -> list[tuple[int, list]] | None:
        """``partition`` of an int64 array, routed a whole array at once; the parts are lists of
        Python ints, or int64 arrays for the channels ``array_channels`` marks. ``bounds``: bounds
        every record of ``batch`` lies within, when the caller knows them. None when this
        partitioner has no columnar key or the batch's keys could leave the exact range (route
        ``batch.tolist()`` then)."""
        keyed = self.columnar_key.with_bounds(batch, bounds) if self.columnar_key is not None else None
        if keyed is None:
            return None
        return split_by_channel(batch, self._channels_of_keys(*keyed), self.number_of_channels, array_channels)

    def channels_of(self, keys: list) -> list[int]:
        """The channel of each key value, as ``partition`` routes a record whose key expression gives it
        (``session_partials`` routes its partials by their keys before the writer would)."""
        return self._channels_of(keys)

    def _channels_of(self, keys: list) -> list[int]:
        if len(self._channel_of_key) < ROUTE_CACHE_LIMIT:
            try:
                return list(map(self._channel_of_key.__getitem__, keys))
            except KeyError:  # a key not seen yet
                pass
            except TypeError:  # an unhashable key (a list or dict)
                return self._computed_channels(keys)
        return self._learned_channels(keys)

    def _learned_channels(self, keys: list) -> list[int]:
        """Channels of keys some of which are new: computed, and remembered while there is room."""
        known = self._channel_of_key
        channel_of_group = self._channel_of_group
        max_parallelism = self.max_parallelism
        channels = []
        append = channels.append
        try:
            for k in keys:
                channel = known.get(k)
                if channel is None:
                    if type(k) is int:  # key_group_for, inline
                        channel = channel_of_group[(((k * _GOLDEN) & _MASK32) >> 8) % max_parallelism]
                    else:
                        channel = channel_of_group[key_group_for(k, max_parallelism)]
                    if len(known) < ROUTE_CACHE_LIMIT:
                        known[k] = channel
                append(channel)
        except TypeError:  # an unhashable key
            return self._computed_channels(keys)
        return channels

    def _computed_channels(self, keys: list) -> list[int]:
        channel_of_group = self._channel_of_group
        return [channel_of_group[group] for group in key_groups_for(keys, self.max_parallelism)]


def _split(items: list, channels: list[int], n: int) -> list[list]:
    """``items`` spread over ``n`` lists by their ``channels`` (order kept within each)."""
    outputs: list[list] = [[] for _ in range(n)]
    appends = [output.append for output in outputs]
    for item, channel in zip(items, channels):
        appends[channel](item)
    return outputs


def create_partitioner(partitioning: str, number_of_channels: int, *, key_function=None,
                       max_parallelism: int = 128, producer_index: int = 0,
                       batch_key_function=None, router=None, columnar_key=None) -> Partitioner | None:
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
        return HashPartitioner(number_of_channels, key_function, max_parallelism, batch_key_function, router,
                               columnar_key)
    raise ValueError(f"unknown partitioning '{partitioning}'")
