"""Barrier handlers: when a subtask with several input channels takes its checkpoint.

Each upstream subtask sends checkpoint barrier n into each of its channels between the
records before and after checkpoint n. A subtask with several input channels sees the
barriers of one checkpoint arrive at different times and must decide when to snapshot.

Exactly-once: :class:`AlignedBarrierHandler` (Flink's ``CheckpointBarrierAligner``)
    A channel that delivered barrier n is *blocked*: its later records belong after the
    checkpoint, so they must not reach the operators before the snapshot. When barrier n
    arrived on every open channel (a closed channel counts as arrived) the channels are
    unblocked and the checkpoint is triggered. A barrier of a newer checkpoint m > n
    aborts the alignment for n (n can no longer complete here) and starts aligning m; a
    cancel marker aborts the alignment it names. The states are classes --
    :class:`WaitingForFirstBarrier` and :class:`CollectingBarriers` -- and every event
    returns the next state.

Exactly-once, unaligned (Flink's unaligned checkpoints, FLIP-76): :class:`CollectingUnaligned`
    Under backpressure an aligned barrier waits behind every buffer in flight, and the
    blocked channels stop the subtask from reading. An *unaligned* barrier (trigger option
    ``"unaligned": true``) instead overtakes the buffers: the producer puts it at the head
    of its output queues and persists what it overtook as *output channel state*, a TCP
    receiver puts it at the head of its input queue and keeps what it overtook as *input
    channel state*. The consumer snapshots on the *first* barrier, blocks nothing, and
    records every buffer it reads from a channel whose barrier has not arrived yet (also
    input channel state: those records are after its snapshot but before the producer's).
    When every barrier arrived the channel state is complete and the checkpoint is
    written. On restore the channel state is replayed before any new data.

Aligned timeout (``aligned_timeout_ms``): a checkpoint starts aligned; an alignment still
    running that long after the checkpoint's trigger switches to unaligned (the channels
    already aligned need no channel state, the others are recorded), and so does an
    alignment that receives a barrier some producer already sent unaligned. A cap on the
    bytes an alignment holds back in blocked channels (``max_aligned_bytes``) declines the
    checkpoint instead of letting alignment grow.

At-least-once: :class:`BarrierTracker`
    Never blocks a channel; counts the barriers of each checkpoint and triggers when a
    checkpoint's barriers arrived from every open channel. Records after a barrier may be
    processed before the snapshot, so after a restore they are processed again.

Metrics (reported with the acknowledgement): *start delay* = arrival of the first
barrier minus the checkpoint's trigger timestamp; *alignment duration* = arrival of the
last barrier minus arrival of the first.

Threading model: everything here runs in the subtask's mailbox thread.
"""
from __future__ import annotations

import time
from typing import Protocol

from engine.runtime.io.events import CancelCheckpointMarker, CheckpointBarrier


class BarrierHandlerController(Protocol):
    """What a barrier handler asks of its subtask (implemented by the input processor)."""

    def block_channel(self, channel: int) -> None: ...

    def unblock_all_channels(self) -> None: ...

    def trigger_checkpoint_on_barrier(self, barrier: CheckpointBarrier, alignment: dict) -> None:
        """All barriers of ``barrier.id`` are in: snapshot. ``alignment`` holds the metrics."""

    def abort_checkpoint_on_barrier(self, checkpoint_id: int, reason: str) -> None:
        """Checkpoint ``checkpoint_id`` cannot complete here: decline it, tell downstream."""

    def trigger_unaligned_checkpoint(self, barrier: CheckpointBarrier, alignment: dict,
                                     received: set[int]) -> None:
        """Snapshot now; the channels not in ``received`` are recorded until their barrier comes."""

    def unaligned_barrier_received(self, channel: int, barrier: CheckpointBarrier) -> None:
        """The barrier of the unaligned checkpoint arrived on ``channel``: stop recording it."""

    def unaligned_checkpoint_aligned(self, checkpoint_id: int) -> None:
        """Every barrier of the unaligned checkpoint arrived: its channel state is complete."""

    def schedule_alignment_check(self, checkpoint_id: int, delay_ms: float) -> None:
        """Call ``handler.check_alignment(checkpoint_id)`` in about ``delay_ms`` (a mail)."""

    def held_back_bytes(self) -> int:
        """Bytes queued in the blocked channels (what alignment holds back)."""


def _now_ms() -> float:
    return time.time() * 1000.0


class CheckpointBarrierHandler:
    """Common bookkeeping: open channels, the latest checkpoint seen, alignment timing."""

    def __init__(self, controller: BarrierHandlerController, number_of_channels: int, *,
                 max_aligned_bytes: int = 0):
        self.controller = controller
        self.open_channels = number_of_channels
        self.latest_checkpoint_id = -1
        """The newest checkpoint triggered or aborted here; older barriers are outdated."""
        self.max_aligned_bytes = int(max_aligned_bytes or 0)
        """Decline an aligned checkpoint whose blocked channels hold more (0: no cap)."""
        self._first_barrier_ms = 0.0
        self._start_delay_ms = 0.0

    def barrier_received(self, channel: int, barrier: CheckpointBarrier) -> None:
        raise NotImplementedError(f"{type(self).__name__}.barrier_received() must be overridden")

    def cancel_received(self, channel: int, marker: CancelCheckpointMarker) -> None:
        raise NotImplementedError(f"{type(self).__name__}.cancel_received() must be overridden")

    def end_of_partition(self, channel: int) -> None:
        raise NotImplementedError(f"{type(self).__name__}.end_of_partition() must be overridden")

    @property
    def is_aligning(self) -> bool:
        return False

    # -- helpers for the states ------------------------------------------------------------
    def start_alignment(self, barrier: CheckpointBarrier) -> None:
        now = _now_ms()
        self._first_barrier_ms = now
        self._start_delay_ms = max(0.0, now - barrier.timestamp)
        self.latest_checkpoint_id = barrier.id

    def alignment_metrics(self) -> dict:
        return {"start_delay": self._start_delay_ms,
                "alignment_duration": max(0.0, _now_ms() - self._first_barrier_ms)}

    def complete(self, barrier: CheckpointBarrier) -> None:
        self.controller.trigger_checkpoint_on_barrier(barrier, self.alignment_metrics())

    @staticmethod
    def timeout_remaining_ms(barrier: CheckpointBarrier) -> float | None:
        """Milliseconds until an aligned ``barrier`` switches to unaligned (None: never)."""
        timeout = barrier.options.get("aligned_timeout_ms") or 0
        if timeout <= 0:
            return None
        return timeout - (_now_ms() - barrier.timestamp)

    def next_check_ms(self, remaining: float | None) -> float:
        """When to look at a running alignment again: at its timeout, and often if capped."""
        delay = remaining if remaining is not None else ALIGNMENT_CHECK_MS
        return min(delay, ALIGNMENT_CHECK_MS) if self.max_aligned_bytes else delay

    def check_alignment(self, checkpoint_id: int) -> None:
        """A scheduled look at a running alignment (timeout, held-back bytes). Mailbox thread."""

    def abort(self, checkpoint_id: int, reason: str) -> None:
        self.latest_checkpoint_id = max(self.latest_checkpoint_id, checkpoint_id)
        self.controller.abort_checkpoint_on_barrier(checkpoint_id, reason)


# -- exactly-once: alignment ----------------------------------------------------------------

class BarrierHandlerState:
    """One state of the aligned handler; each event returns the next state."""

    def barrier_received(self, handler: "AlignedBarrierHandler", channel: int,
                         barrier: CheckpointBarrier) -> "BarrierHandlerState":
        raise NotImplementedError

    def cancel_received(self, handler: "AlignedBarrierHandler",
                        marker: CancelCheckpointMarker) -> "BarrierHandlerState":
        raise NotImplementedError

    def end_of_partition(self, handler: "AlignedBarrierHandler", channel: int) -> "BarrierHandlerState":
        raise NotImplementedError


class WaitingForFirstBarrier(BarrierHandlerState):
    """We have not seen any barrier of a checkpoint newer than the latest one."""

    def barrier_received(self, handler, channel, barrier):
        if barrier.id <= handler.latest_checkpoint_id:
            return self  # outdated: its checkpoint was taken or aborted already
        handler.start_alignment(barrier)
        remaining = handler.timeout_remaining_ms(barrier)
        if barrier.options.get("unaligned") or (remaining is not None and remaining <= 0):
            return CollectingUnaligned.start(handler, barrier, {channel}, channel)
        if handler.open_channels <= 1:
            handler.complete(barrier)
            return self
        handler.controller.block_channel(channel)
        if remaining is not None or handler.max_aligned_bytes:
            handler.controller.schedule_alignment_check(barrier.id, handler.next_check_ms(remaining))
        return CollectingBarriers(barrier, {channel})

    def cancel_received(self, handler, marker):
        if marker.id > handler.latest_checkpoint_id:
            handler.abort(marker.id, "checkpoint canceled upstream")
        return self

    def end_of_partition(self, handler, channel):
        return self


class CollectingBarriers(BarrierHandlerState):
    """Barrier ``barrier.id`` arrived on the channels in ``received`` (all blocked); waiting for the rest."""

    def __init__(self, barrier: CheckpointBarrier, received: set[int]):
        self.barrier = barrier
        self.received = received

    def barrier_received(self, handler, channel, barrier):
        if barrier.id < self.barrier.id:
            return self
        if barrier.id > self.barrier.id:
            handler.controller.unblock_all_channels()
            handler.abort(self.barrier.id, f"barrier of checkpoint {barrier.id} arrived before "
                                           f"alignment of {self.barrier.id} completed")
            return WaitingForFirstBarrier().barrier_received(handler, channel, barrier)
        self.received.add(channel)
        if barrier.options.get("unaligned"):  # a producer went unaligned: so do we
            return self.switch_to_unaligned(handler, channel)
        handler.controller.block_channel(channel)
        return self._complete_if_aligned(handler)

    def switch_to_unaligned(self, handler, channel: int | None = None) -> "BarrierHandlerState":
        """The aligned channels stay as they are (no channel state); the rest are recorded."""
        handler.controller.unblock_all_channels()
        return CollectingUnaligned.start(handler, self.barrier, self.received, channel)

    def check(self, handler) -> "BarrierHandlerState":
        """Timeout reached: go unaligned; too much held back: decline; else look again later."""
        remaining = handler.timeout_remaining_ms(self.barrier)
        if remaining is not None and remaining <= 0:
            return self.switch_to_unaligned(handler)
        if handler.max_aligned_bytes:
            held = handler.controller.held_back_bytes()
            if held > handler.max_aligned_bytes:
                handler.controller.unblock_all_channels()
                handler.abort(self.barrier.id, f"alignment_limit: alignment held back {held} bytes, more than "
                                               f"max_aligned_bytes {handler.max_aligned_bytes}")
                return WaitingForFirstBarrier()
        handler.controller.schedule_alignment_check(self.barrier.id, handler.next_check_ms(remaining))
        return self

    def cancel_received(self, handler, marker):
        if marker.id < self.barrier.id:
            return self
        handler.controller.unblock_all_channels()
        handler.abort(self.barrier.id, "checkpoint canceled upstream")
        if marker.id > self.barrier.id:
            handler.abort(marker.id, "checkpoint canceled upstream")
        return WaitingForFirstBarrier()

    def end_of_partition(self, handler, channel):
        self.received.discard(channel)
        return self._complete_if_aligned(handler)

    def _complete_if_aligned(self, handler):
        if len(self.received) < handler.open_channels:
            return self
        handler.controller.unblock_all_channels()
        handler.complete(self.barrier)
        return WaitingForFirstBarrier()


ALIGNMENT_CHECK_MS = 20.0
"""How often a capped alignment looks at the bytes it holds back."""


class CollectingUnaligned(BarrierHandlerState):
    """Checkpoint ``barrier.id`` was snapshotted on its first barrier; the channels not in
    ``received`` are recorded (channel state) until their barrier arrives. Nothing blocks."""

    def __init__(self, barrier: CheckpointBarrier, received: set[int]):
        self.barrier = barrier
        self.received = received

    @classmethod
    def start(cls, handler, barrier: CheckpointBarrier, received: set[int],
              channel: int | None) -> BarrierHandlerState:
        handler.controller.trigger_unaligned_checkpoint(barrier, handler.alignment_metrics(), set(received))
        if channel is not None:
            handler.controller.unaligned_barrier_received(channel, barrier)
        return cls(barrier, set(received))._complete_if_aligned(handler)

    def barrier_received(self, handler, channel, barrier):
        if barrier.id < self.barrier.id:
            return self
        if barrier.id > self.barrier.id:
            handler.abort(self.barrier.id, f"barrier of checkpoint {barrier.id} arrived before "
                                           f"the barriers of {self.barrier.id}")
            return WaitingForFirstBarrier().barrier_received(handler, channel, barrier)
        if channel not in self.received:
            self.received.add(channel)
            handler.controller.unaligned_barrier_received(channel, barrier)
        return self._complete_if_aligned(handler)

    def cancel_received(self, handler, marker):
        if marker.id < self.barrier.id:
            return self
        handler.abort(self.barrier.id, "checkpoint canceled upstream")
        if marker.id > self.barrier.id:
            handler.abort(marker.id, "checkpoint canceled upstream")
        return WaitingForFirstBarrier()

    def end_of_partition(self, handler, channel):
        self.received.discard(channel)
        return self._complete_if_aligned(handler)

    def _complete_if_aligned(self, handler):
        if len(self.received) < handler.open_channels:
            return self
        handler.controller.unaligned_checkpoint_aligned(self.barrier.id)
        return WaitingForFirstBarrier()


class AlignedBarrierHandler(CheckpointBarrierHandler):
    """Exactly-once barriers: aligned, unaligned or aligned with a timeout (see the module docstring)."""

    def __init__(self, controller: BarrierHandlerController, number_of_channels: int, *,
                 max_aligned_bytes: int = 0):
        super().__init__(controller, number_of_channels, max_aligned_bytes=max_aligned_bytes)
        self.state: BarrierHandlerState = WaitingForFirstBarrier()

    def check_alignment(self, checkpoint_id: int) -> None:
        state = self.state
        if isinstance(state, CollectingBarriers) and state.barrier.id == checkpoint_id:
            self.state = state.check(self)

    def barrier_received(self, channel: int, barrier: CheckpointBarrier) -> None:
        self.state = self.state.barrier_received(self, channel, barrier)

    def cancel_received(self, channel: int, marker: CancelCheckpointMarker) -> None:
        self.state = self.state.cancel_received(self, marker)

    def end_of_partition(self, channel: int) -> None:
        self.open_channels -= 1
        self.state = self.state.end_of_partition(self, channel)

    @property
    def is_aligning(self) -> bool:
        return isinstance(self.state, (CollectingBarriers, CollectingUnaligned))

    @property
    def is_unaligned(self) -> bool:
        """Whether an unaligned checkpoint is collecting its channel state."""
        return isinstance(self.state, CollectingUnaligned)


# -- at-least-once: tracking ------------------------------------------------------------------

class _TrackedCheckpoint:
    __slots__ = ("barrier", "channels", "first_ms", "start_delay_ms")

    def __init__(self, barrier: CheckpointBarrier, channel: int):
        self.barrier = barrier
        self.channels = {channel}
        self.first_ms = _now_ms()
        self.start_delay_ms = max(0.0, self.first_ms - barrier.timestamp)


class BarrierTracker(CheckpointBarrierHandler):
    """At-least-once: counts barriers per checkpoint, never blocks a channel."""

    def __init__(self, controller: BarrierHandlerController, number_of_channels: int):
        super().__init__(controller, number_of_channels)
        self.pending: list[_TrackedCheckpoint] = []
        """Checkpoints with some but not all barriers, oldest first."""

    def barrier_received(self, channel: int, barrier: CheckpointBarrier) -> None:
        if barrier.id <= self.latest_checkpoint_id:
            return
        tracked = next((t for t in self.pending if t.barrier.id == barrier.id), None)
        if tracked is None:
            tracked = _TrackedCheckpoint(barrier, channel)
            self.pending.append(tracked)
            self.pending.sort(key=lambda t: t.barrier.id)
        else:
            tracked.channels.add(channel)
        self._trigger_completed()

    def cancel_received(self, channel: int, marker: CancelCheckpointMarker) -> None:
        if marker.id <= self.latest_checkpoint_id:
            return
        for tracked in [t for t in self.pending if t.barrier.id < marker.id]:
            self.controller.abort_checkpoint_on_barrier(tracked.barrier.id, "subsumed by a canceled newer checkpoint")
        self.pending = [t for t in self.pending if t.barrier.id > marker.id]
        self.abort(marker.id, "checkpoint canceled upstream")

    def end_of_partition(self, channel: int) -> None:
        self.open_channels -= 1
        for tracked in self.pending:
            tracked.channels.discard(channel)
        self._trigger_completed()

    def _trigger_completed(self) -> None:
        complete = [t for t in self.pending if len(t.channels) >= self.open_channels]
        if not complete:
            return
        newest = complete[-1]
        for older in [t for t in self.pending if t.barrier.id < newest.barrier.id]:
            self.controller.abort_checkpoint_on_barrier(
                older.barrier.id, f"checkpoint {newest.barrier.id} completed its barriers first")
        self.pending = [t for t in self.pending if t.barrier.id > newest.barrier.id]
        self.latest_checkpoint_id = newest.barrier.id
        self.controller.trigger_checkpoint_on_barrier(newest.barrier, {
            "start_delay": newest.start_delay_ms,
            "alignment_duration": max(0.0, _now_ms() - newest.first_ms),
        })


def create_barrier_handler(mode: str, controller: BarrierHandlerController, number_of_channels: int,
                           max_aligned_bytes: int = 0) -> CheckpointBarrierHandler:
    """The handler for a checkpointing mode: "exactly_once" (aligned, or unaligned as the
    barriers say) or "at_least_once"."""
    if mode == "at_least_once":
        return BarrierTracker(controller, number_of_channels)
    return AlignedBarrierHandler(controller, number_of_channels, max_aligned_bytes=max_aligned_bytes)
