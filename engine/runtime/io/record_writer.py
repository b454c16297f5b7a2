"""The record writer: the output of a subtask for one job edge.

It splits each emitted batch with the edge's partitioner and pushes the parts into the
channels to the consumer subtasks; events (barriers, watermarks, end of partition) go to
every channel. A batch is pushed as soon as it is emitted: the operators already work in
batches, so there is no second buffering layer and no flush timer; a barrier can never
overtake records because both go through the same queues in emission order.

Availability: the writer is available while every channel has room. The task checks it
between two steps of its default action and, if a channel is full, suspends the default
action until that channel's consumer took a buffer (``when_available``).

Buffer debloating (``debloat=True``): each channel may carry a ``buffer_size`` announced by
its consumer; a part larger than that is pushed as several buffers of at most that many
records, and ``step_budget`` tells a source how many records one poll may produce so
that one step fills each channel by about one buffer.

Threading model: used only by the producer's mailbox thread.
"""
from __future__ import annotations

from typing import Callable, Sequence

from engine.runtime.io.events import TimestampedBatch
from engine.runtime.io.partitioner import Partitioner


class RecordWriter:
    """Writes batches and events of one job edge into its output channels."""

    def __init__(self, edge_id: str, channels: Sequence, partitioner: Partitioner | None, *,
                 debloat: bool = False):
        self.edge_id = edge_id
        self.channels = list(channels)
        self.partitioner = partitioner
        """None means broadcast: every batch goes to every channel."""
        self.records_out = 0
        self._single = self.channels[0] if len(self.channels) == 1 else None
        if debloat:
            self.emit = self._emit_debloated  # type: ignore[method-assign]

    def emit(self, batch: list) -> None:
        """Send a batch of records (must not be mutated afterwards by the caller)."""
        if not batch:
            return
        self.records_out += len(batch)
        single = self._single
        if single is not None:
            single.push(batch)
        elif self.partitioner is None:
            for channel in self.channels:
                channel.push(batch)
        else:
            channels = self.channels
            for index, part in self.partitioner.partition(batch):
                channels[index].push(part)

    def _emit_debloated(self, batch: list) -> None:
        """``emit`` when debloating: parts are cut to each channel's announced buffer size."""
        if not batch:
            return
        self.records_out += len(batch)
        if self.partitioner is None:
            for channel in self.channels:
                _push_sized(channel, batch)
        else:
            channels = self.channels
            for index, part in self.partitioner.partition(batch):
                _push_sized(channels[index], part)

    def step_budget(self) -> int | None:
        """Records one step may emit to fill each channel by about one announced buffer (None: no limit)."""
        sizes = [getattr(channel, "buffer_size", None) for channel in self.channels]
        if not sizes or None in sizes:
            return None
        return sum(sizes) if self.partitioner is not None else min(sizes)  # broadcast: each gets it all

    def broadcast_event(self, event) -> None:
        """Send an event to every channel, behind everything emitted before."""
        for channel in self.channels:
            channel.push(event)

    def is_available(self) -> bool:
        single = self._single
        if single is not None:
            return single.is_writable()
        for channel in self.channels:
            if not channel.is_writable():
                return False
        return True

    def when_available(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` once a full channel has room again (or now if none is full)."""
        for channel in self.channels:
            if not channel.is_writable():
                channel.when_writable(callback)
                return
        callback()

    def close(self) -> None:
        for channel in self.channels:
            channel.close()


def _push_sized(channel, part: list) -> None:
    size = getattr(channel, "buffer_size", None)
    if size is None or len(part) <= size:
        channel.push(part)
        return
    stamps = part.timestamps if type(part) is TimestampedBatch else None
    for start in range(0, len(part), size):
        if stamps is None:
            channel.push(part[start:start + size])
        else:
            channel.push(TimestampedBatch(part[start:start + size], stamps[start:start + size]))
