"""What travels on a channel: buffers of records, and events in-band between them.

A *buffer* is a batch of records: a plain ``list`` (or a :class:`TimestampedBatch`, a list
that also carries each record's event time). Records are plain Python values. Within a
process a buffer is handed from producer to consumer as the very same list object, never
copied, so operators must treat the lists they receive as read-only and build new lists.

*Events* travel in the same queue as buffers, so their order relative to the data is the
order they were sent in: a barrier separates the records before a checkpoint from those
after it, a watermark promises that no older event time follows, EndOfData says no record
follows (but barriers may: the producer still takes part in checkpoints), EndOfPartition
says the channel is finished. Events are small immutable objects; ``is_buffer`` tells them apart
with one type check.
"""
from __future__ import annotations

from dataclasses import dataclass, field


class TimestampedBatch(list):
    """A batch of records with their event times (milliseconds), ``timestamps[i]`` for ``self[i]``.

    Created by the watermark assigner; operators that keep records one to one reuse the
    timestamps list, operators that drop or multiply records build a new one.

    ``watermarks``: on an output buffer of a partitioned edge, the watermarks emitted between
    its records, as ``[(position, Watermark)]`` -- the watermark follows ``self[:position]``
    (Flink serialises watermarks into its network buffers the same way). A watermark after
    every batch no longer sends every buffer early: the buffer fills across batches and
    carries them along (``RecordWriter``); the reader splits it again (``NetworkInput``).
    """

    __slots__ = ("timestamps", "watermarks")

    def __init__(self, records=(), timestamps=None, watermarks=None):
        super().__init__(records)
        self.timestamps = list(timestamps) if timestamps is not None else []
        self.watermarks = watermarks

    def __reduce__(self):
        return (TimestampedBatch, (list(self), self.timestamps, self.watermarks))

    def segment(self, start: int, end: int) -> "TimestampedBatch":
        """Records ``start:end`` with their timestamps (no watermarks)."""
        return TimestampedBatch(self[start:end], self.timestamps[start:end])

    def __repr__(self) -> str:
        marks = f", watermarks={self.watermarks!r}" if self.watermarks else ""
        return f"TimestampedBatch({list(self)!r}, timestamps={self.timestamps!r}{marks})"


BUFFER_TYPES = (list, TimestampedBatch)


def is_buffer(item) -> bool:
    """Whether a channel item is a buffer of records (and not an event)."""
    kind = type(item)
    return kind is list or kind is TimestampedBatch


def in_flight_state(items) -> list:
    """The items of a queue that an unaligned checkpoint persists as channel state: buffers
    and watermarks (with idleness), in order. Barriers and cancel markers belong to their
    checkpoint; end of data / partition come again from the restored producer."""
    return [item for item in items if type(item) in _CHANNEL_STATE_TYPES]


class RuntimeEvent:
    """Base class of in-band events."""

    __slots__ = ()


@dataclass(frozen=True)
class CheckpointBarrier(RuntimeEvent):
    """Separates the records before checkpoint ``id`` from those after it.

    ``timestamp`` is the coordinator's trigger time in epoch milliseconds (start delays are
    measured against it); ``options`` are the trigger options (kind, target, location).
    """

    id: int
    timestamp: int
    options: dict = field(default_factory=dict, compare=False, hash=False)


@dataclass(frozen=True)
class CancelCheckpointMarker(RuntimeEvent):
    """Checkpoint ``id`` was aborted upstream: stop aligning for it and pass the marker on."""

    id: int


@dataclass(frozen=True)
class Watermark(RuntimeEvent):
    """No record with an event time at or below ``timestamp`` follows on this channel."""

    timestamp: int


MAX_WATERMARK = Watermark(2**63 - 1)
"""Sent at end of input: every event-time window may fire."""


@dataclass(frozen=True)
class WatermarkStatus(RuntimeEvent):
    """The channel went idle (no records for a while) or became active again (Flink's
    ``WatermarkStatus``). A consumer leaves idle channels out of its watermark, so an input
    without data does not hold event time back; a subtask whose open inputs are all idle
    is idle itself and says so downstream."""

    idle: bool


WATERMARK_IDLE = WatermarkStatus(idle=True)
WATERMARK_ACTIVE = WatermarkStatus(idle=False)


@dataclass(frozen=True)
class LatencyMarker(RuntimeEvent):
    """A sample of how long data takes from a source to here (Flink's ``LatencyMarker``).

    A source subtask emits one every ``latency_interval_ms`` (a timer mail, so it is sent
    also while the source is backpressured), stamped with the wall clock. It travels in the
    channels behind the records sent before it, so it waits in every queue they wait in,
    but it bypasses the operators' logic: each operator it reaches records ``now -
    marked_ms`` for ``source`` (``engine.runtime.latency_stats``), and a task forwards it to
    one random channel of each output, never to all (a marker must not multiply).
    ``forwarded_ms`` is when it left the previous task: ``now - forwarded_ms`` at a task's
    head is the time it spent on that one hop. Wall clocks are compared across processes,
    as Flink does; one machine, or synchronised clocks, keep the figures honest.
    """

    marked_ms: float
    source: str
    """The source subtask that emitted it, ``"node#index"``."""
    forwarded_ms: float


@dataclass(frozen=True)
class EndOfData(RuntimeEvent):
    """No more records follow; barriers may still follow (the producer awaits a final checkpoint).

    ``drain`` says how the data ended (Flink's ``StopMode``): True for a normal end of input
    and for stop-with-savepoint ``--drain`` -- consumers then *finish* their operators (flush
    buffers, fire every window) and pass EndOfData on; False for stop-with-savepoint without
    drain -- the savepoint was taken before this event and holds everything still buffered,
    so consumers must not finish their operators (that would emit results the restored job
    emits again); they only pass the event on and end.
    """

    drain: bool = True


@dataclass(frozen=True)
class EndOfPartition(RuntimeEvent):
    """The producer finished: nothing follows on this channel at all."""


_CHANNEL_STATE_TYPES = (list, TimestampedBatch, Watermark, WatermarkStatus)

END_OF_DATA = EndOfData()
END_OF_DATA_NO_DRAIN = EndOfData(drain=False)
END_OF_PARTITION = EndOfPartition()


class ChannelError(RuntimeEvent):
    """Put into an input channel whose connection broke; the consuming subtask fails on it."""

    __slots__ = ("message",)

    def __init__(self, message: str):
        self.message = message

    def __repr__(self) -> str:
        return f"ChannelError({self.message!r})"
