"""A channel between two subtasks of the same process: a bounded in-memory queue.

The producer's record writer pushes buffers (lists of records) and events; the consumer's
input gate pops them. Buffers are handed over as the same list objects: no copy, no
serialisation. The queue is bounded by ``capacity`` items: when it holds that many the
channel is not writable and the producer suspends its default action until the consumer
took one (backpressure). ``push`` itself never refuses an item, so a producer may finish
the batch in hand and may always send events (a barrier must never wait behind a full
queue it would unblock); memory is thus bounded by capacity plus one step's output.

Unaligned checkpoints: ``push_priority`` puts a barrier at the head of the queue, overtaking
the buffers in it, and returns them (the producer persists them as output channel state;
the consumer still processes them, after its snapshot). ``prepend`` puts restored channel
state back at the head on recovery, before anything a restored producer sends.

Threading model
    ``push``, ``push_priority``, ``is_writable`` and ``when_writable`` are called by the producer's task thread;
    ``attach``, ``pop``, ``block``, ``unblock`` by the consumer's (through its input gate).
    The fields marked below are guarded by ``self._lock``; the gate is told about new data
    after that lock is released, so the two locks are never held together.
"""
from __future__ import annotations

import pickle
import threading
from collections import deque
from typing import Callable

from engine.runtime.io.events import CheckpointBarrier, TimestampedBatch, in_flight_state

DEFAULT_CAPACITY = 8
"""Buffers a channel holds before its producer is backpressured (Flink: 2 exclusive + floating)."""


def _barrier_index(queue, checkpoint_id: int) -> int | None:
    for index, item in enumerate(queue):
        if type(item) is CheckpointBarrier and item.id == checkpoint_id:
            return index
    return None


class InputChannelBase:
    """The consumer-side contract an :class:`~engine.runtime.io.input_gate.InputGate` relies on.

    Subclasses (local, TCP) keep a queue of items and tell the gate when the queue turns
    non-empty while the channel is neither blocked nor already announced.
    """

    def __init__(self, channel_id, capacity: int = DEFAULT_CAPACITY):
        self.channel_id = channel_id
        self.capacity = capacity
        self._lock = threading.Lock()
        self._queue: deque = deque()  # guarded by: self._lock
        self._blocked = False  # guarded by: self._lock
        self._announced = False  # guarded by: self._lock; "the gate lists this channel as available"
        self._gate = None
        self._index = -1
        self.max_queued = 0
        """High-water mark of the queue length (for bounded-memory tests)."""
        self._overtaken: dict[int, list] = {}  # guarded by: self._lock; checkpoint id -> items a barrier overtook here

    def attach(self, gate, index: int) -> None:
        """Connect to the consumer's gate as its channel ``index``; announce queued data."""
        with self._lock:
            self._gate = gate
            self._index = index
            announce = self._should_announce_locked()
        if announce:
            gate._channel_available(index)

    def _should_announce_locked(self) -> bool:
        if self._queue and not self._blocked and not self._announced and self._gate is not None:
            self._announced = True
            return True
        return False

    def _enqueue(self, item) -> None:
        """Append an item that arrived for the consumer; announce it to the gate if needed."""
        with self._lock:
            self._queue.append(item)
            if len(self._queue) > self.max_queued:
                self.max_queued = len(self._queue)
            announce = self._should_announce_locked()
        if announce:
            self._gate._channel_available(self._index)

    def _enqueue_priority(self, event, keep: bool = False) -> list:
        """Put ``event`` (a barrier) at the head of the queue; return the items it overtook
        (oldest first). ``keep``: also keep them for the consumer's ``take_overtaken`` --
        under the same lock, so the consumer cannot take the barrier before them."""
        with self._lock:
            overtaken = list(self._queue)
            if keep:
                for older in [key for key in self._overtaken if key < event.id]:
                    del self._overtaken[older]  # a barrier the consumer ignored (outdated, aligned)
                self._overtaken[event.id] = in_flight_state(overtaken)
            self._queue.appendleft(event)
            announce = self._announce_priority_locked()
        if announce:
            self._gate._channel_prioritized(self._index)
        return overtaken

    def _announce_priority_locked(self) -> bool:
        """Whether to tell the gate that a priority event heads the queue (it is served next)."""
        if self._blocked or self._gate is None:
            return False
        self._announced = True
        return True

    def holds_barrier(self, checkpoint_id: int) -> bool:
        """Whether barrier ``checkpoint_id`` still waits in this queue (aligned timeout's watch)."""
        with self._lock:
            return _barrier_index(self._queue, checkpoint_id) is not None

    def overtake_barrier(self, barrier) -> list | None:
        """Aligned timeout: replace the queued barrier of ``barrier.id`` by ``barrier`` at the
        head; return the items it overtook, or None when that barrier already left."""
        with self._lock:
            index = _barrier_index(self._queue, barrier.id)
            if index is None:
                return None
            overtaken = [self._queue.popleft() for _ in range(index)]
            self._queue.popleft()
            self._queue.extendleft(reversed(overtaken))
            self._queue.appendleft(barrier)
            announce = self._announce_priority_locked()
        if announce:
            self._gate._channel_prioritized(self._index)
        return overtaken

    def prepend(self, items: list) -> None:
        """Restore channel state: ``items`` go before everything queued. Consumer thread, before reading."""
        if not items:
            return
        with self._lock:
            self._queue.extendleft(reversed(items))
            announce = self._should_announce_locked()
        if announce:
            self._gate._channel_available(self._index)

    def take_overtaken(self, checkpoint_id: int) -> list:
        """What barrier ``checkpoint_id`` overtook in this (receiving) queue, for the consumer's
        channel state; empty where the producer persisted it (local channels)."""
        with self._lock:
            return self._overtaken.pop(checkpoint_id, [])

    def queued_bytes(self) -> int:
        """The pickled size of the buffers queued here (what a blocked channel holds back).
        Costly: only for a capped alignment's periodic check."""
        with self._lock:
            items = list(self._queue)
        kinds = (list, TimestampedBatch)
        return sum(len(pickle.dumps(item, protocol=5)) for item in items if type(item) in kinds)

    # -- consumer side (gate, mailbox thread of the consumer) ------------------------------
    def pop(self):
        """Return ``(item, still_available)``, or ``(None, False)`` when blocked or empty."""
        with self._lock:
            if self._blocked or not self._queue:
                self._announced = False
                return None, False
            item = self._queue.popleft()
            still = bool(self._queue)
            if not still:
                self._announced = False
        self._on_consumed(item)
        return item, still

    def block(self) -> None:
        """Stop handing out items (barrier alignment) until ``unblock``."""
        with self._lock:
            self._blocked = True

    def unblock(self) -> None:
        with self._lock:
            self._blocked = False
            announce = self._should_announce_locked()
        if announce:
            self._gate._channel_available(self._index)

    @property
    def is_blocked(self) -> bool:
        return self._blocked

    def queued(self) -> int:
        return len(self._queue)

    def _on_consumed(self, item) -> None:
        """Hook: ``item`` left the queue (local: wake the producer; TCP: grant a credit)."""

    def announce_buffer_size(self, records: int) -> None:
        """Buffer debloating: ask the producer to send buffers of at most ``records`` records.

        Consumer thread. The default ignores it (a blocking partition has no live producer).
        """


class LocalChannel(InputChannelBase):
    """Both ends of an in-process channel: the producer pushes, the consumer's gate pops."""

    def __init__(self, channel_id, capacity: int = DEFAULT_CAPACITY):
        super().__init__(channel_id, capacity)
        self._writable_callback: Callable[[], None] | None = None  # guarded by: self._lock
        self.buffer_size: int | None = None
        """Records per buffer the consumer asked for (buffer debloating); None: whole batches.
        Written by the consumer, read by the producer: a plain attribute, a stale read only
        delays the change by one batch."""

    def announce_buffer_size(self, records: int) -> None:
        self.buffer_size = int(records)

    # -- producer side -------------------------------------------------------------------
    def push(self, item) -> None:
        """Append a buffer or an event. Producer thread; never blocks, never refuses."""
        self._enqueue(item)

    def push_priority(self, event) -> list:
        """An unaligned barrier: overtake every queued item; return them (output channel state)."""
        return self._enqueue_priority(event)

    def is_writable(self) -> bool:
        """Whether the queue has room; read without the lock (advisory, rechecked on wait)."""
        return len(self._queue) < self.capacity

    def when_writable(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` once the queue has room (now, or from the consumer's thread)."""
        with self._lock:
            if len(self._queue) >= self.capacity:
                self._writable_callback = callback
                return
        callback()

    def _on_consumed(self, item) -> None:
        callback = self._writable_callback
        if callback is None:
            return
        with self._lock:
            callback = self._writable_callback
            if callback is None or len(self._queue) >= self.capacity:
                return
            self._writable_callback = None
        callback()

    def close(self) -> None:
        """Nothing to release for an in-memory channel."""
