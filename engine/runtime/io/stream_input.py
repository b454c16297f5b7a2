"""The inputs of a subtask's default action: network input (gate + barriers) or a source.

``process_input()`` does one step and says what to do next (Flink's ``InputStatus``):
``MORE_AVAILABLE`` (call again), ``NOTHING_AVAILABLE`` (suspend; ``when_available``
resumes), ``END_OF_DATA`` (no record follows, but barriers may: call again) or
``END_OF_INPUT``.

:class:`NetworkInput` (Flink's ``CheckpointedInputGate`` + ``StreamTaskNetworkInput``)
    polls the input gate: a buffer goes to the head operator; a barrier or cancel marker
    to the barrier handler (which blocks channels and triggers the checkpoint); a
    watermark or watermark status through the watermark valve (a change of the subtask's
    idleness goes to the head operator, before a watermark when it becomes active, after
    one when it goes idle); a latency marker to ``process_latency_marker`` (the chain records
    it and sends it on; without one it is dropped); EndOfData ends a channel's data (it no longer
    holds the watermark back, unless it ended without drain); EndOfPartition closes a
    channel. ``END_OF_DATA`` is reported once, when every channel's data ended
    (``drained`` then says whether every one ended with drain); the input ends when every
    channel delivered EndOfPartition.

    During an unaligned checkpoint (``record_channels``) the items read from the channels
    whose barrier has not arrived yet are also appended to the checkpoint's input channel
    state. ``process_input`` is then swapped for a recording variant, so the common path
    pays nothing for it.

:class:`SortingInput` (batch mode, keyed operators)
    reads the whole input into a :class:`~engine.runtime.io.external_sort.KeyGroupingSorter`
    first, then feeds the operator key group by key group; see its docstring.

:class:`SourceInput`
    polls a source operator for one batch; when the source has nothing right now, the
    subtask is resumed when the source says its input has more (``when_readable``), or else
    by a timer mail after the source's ``next_poll_delay``. With watermark
    alignment (``engine.runtime.watermark_alignment``) a source whose watermark ran ahead of
    its group's bound is polled no more until the group's coordinator lets it go on.

Threading model: the subtask's mailbox thread; ``when_available`` callbacks come from
other threads and only resume the suspended default action (a mail).
"""
from __future__ import annotations

from enum import Enum
from typing import Callable

from engine.runtime.io.events import (WATERMARK_ACTIVE, WATERMARK_IDLE, CancelCheckpointMarker, ChannelError,
                                      CheckpointBarrier, EndOfData, EndOfPartition, LatencyMarker, TimestampedBatch,
                                      Watermark, WatermarkStatus)
from engine.runtime.io.external_sort import KeyGroupingSorter, key_groups_in_pieces
from engine.runtime.io.watermark_valve import WatermarkValve
from engine.runtime.kill_hooks import maybe_kill

END_OF_INPUT = object()
"""What a source's ``poll_next`` returns once it is exhausted (:mod:`engine.runtime.operators.source`);
:class:`SourceInput` then reports ``END_OF_INPUT_STATUS``."""


class InputStatus(Enum):
    MORE_AVAILABLE = "MORE_AVAILABLE"
    NOTHING_AVAILABLE = "NOTHING_AVAILABLE"
    END_OF_DATA = "END_OF_DATA"
    END_OF_INPUT = "END_OF_INPUT"


MORE_AVAILABLE = InputStatus.MORE_AVAILABLE
NOTHING_AVAILABLE = InputStatus.NOTHING_AVAILABLE
END_OF_DATA_STATUS = InputStatus.END_OF_DATA
END_OF_INPUT_STATUS = InputStatus.END_OF_INPUT


class NetworkInput:
    """Reads the input gate; feeds records, watermarks and barriers where they belong."""

    def __init__(self, gate, barrier_handler, process_batch: Callable, process_watermark: Callable,
                 on_barrier_arrival: Callable | None = None, kill_hook=None, task=None,
                 process_watermark_status: Callable | None = None, channel_targets: list[Callable] | None = None,
                 process_latency_marker: Callable | None = None):
        self.gate = gate
        self._process_latency_marker = process_latency_marker
        self._channel_targets = channel_targets
        """Two-input operators: per channel, where its batches go (else every batch goes to ``process_batch``)."""
        self._process_watermark_status = process_watermark_status
        self._kill_hook = kill_hook
        self._task = task
        self.barrier_handler = barrier_handler
        self._process_batch = process_batch
        self._process_watermark = process_watermark
        self._on_barrier_arrival = on_barrier_arrival
        self.valve = WatermarkValve(gate.number_of_channels)
        self.finished_channels = 0
        self.channels_without_data = 0
        self.records_in = 0
        self.drained = True
        """Whether every channel whose data ended ended it with drain (see ``EndOfData``)."""
        self._data_ended = [False] * gate.number_of_channels
        self._not_drained = [False] * gate.number_of_channels
        self.channel_finished = [False] * gate.number_of_channels
        """Per channel: EndOfPartition arrived."""
        self._end_of_data_reported = False
        self._recording: dict[int, list] = {}  # channel -> its input channel state being recorded

    # -- unaligned checkpoints ------------------------------------------------------------------
    def record_channels(self, channels, state: dict[int, list]) -> None:
        """Append what ``channels`` deliver (buffers, watermarks) to ``state[channel]`` from now on."""
        for channel in channels:
            self._recording[channel] = state.setdefault(channel, [])
        if self._recording:
            self.process_input = self._process_input_recording  # type: ignore[method-assign]

    def stop_recording(self, channel: int | None = None) -> None:
        """Stop recording ``channel`` (None: every channel)."""
        if channel is None:
            self._recording.clear()
        else:
            self._recording.pop(channel, None)
        if not self._recording:
            self.__dict__.pop("process_input", None)

    def _process_input_recording(self) -> InputStatus:
        polled = self.gate.poll_next()
        if polled is None:
            return END_OF_INPUT_STATUS if self.is_finished else NOTHING_AVAILABLE
        channel, item = polled
        kind = type(item)
        record = self._recording.get(channel)
        if record is not None and (kind is list or kind is TimestampedBatch or kind is Watermark
                                   or kind is WatermarkStatus):
            record.append(item)
        return self._process_item(channel, item)

    @property
    def is_finished(self) -> bool:
        return self.finished_channels >= self.gate.number_of_channels

    def process_input(self) -> InputStatus:
        polled = self.gate.poll_next()
        if polled is None:
            return END_OF_INPUT_STATUS if self.is_finished else NOTHING_AVAILABLE
        return self._process_item(*polled)

    def _process_item(self, channel: int, item) -> InputStatus:
        kind = type(item)
        if kind is list or kind is TimestampedBatch:
            if kind is TimestampedBatch and item.watermarks:
                return self._process_with_watermarks(channel, item)
            self._process_records(channel, item)
            return MORE_AVAILABLE
        return self._process_event(channel, item)

    def _process_with_watermarks(self, channel: int, buffer: TimestampedBatch) -> InputStatus:
        """A buffer that carries watermarks (``RecordWriter``'s inline watermarks): its records
        and watermarks in their order, as if they had arrived one after the other."""
        start = 0
        for position, watermark in buffer.watermarks:
            if position > start:
                self._process_records(channel, buffer.segment(start, position))
            self._process_event(channel, watermark)
            start = position
        if start < len(buffer):
            self._process_records(channel, buffer.segment(start, len(buffer)))
        return MORE_AVAILABLE

    def _process_records(self, channel: int, records: list) -> None:
        """A buffer's records: to the operator, or for a join to the channel's side."""
        if self._kill_hook is not None:
            maybe_kill(self._kill_hook, "process", self._task, {"records_in": self.records_in})
        self.records_in += len(records)
        if self._channel_targets is None:
            self._process_batch(records)
        else:
            self._channel_targets[channel](records)

    def _process_event(self, channel: int, event) -> InputStatus:
        kind = type(event)
        if kind is CheckpointBarrier:
            if self._on_barrier_arrival is not None:
                self._on_barrier_arrival(event, self.barrier_handler.is_aligning)
            self.barrier_handler.barrier_received(channel, event)
        elif kind is Watermark:
            was_idle = self.valve.idle
            watermark = self.valve.input_watermark(channel, event.timestamp)
            self._forward_idleness_change(was_idle)  # active again: say so before the watermark
            self._forward_watermark(watermark)
        elif kind is WatermarkStatus:
            was_idle = self.valve.idle
            watermark = self.valve.input_status(channel, event.idle)
            if event.idle:  # the watermark its idleness released goes first, then the idleness
                self._forward_watermark(watermark)
                self._forward_idleness_change(was_idle)
            else:
                self._forward_idleness_change(was_idle)
                self._forward_watermark(watermark)
        elif kind is CancelCheckpointMarker:
            self.barrier_handler.cancel_received(channel, event)
        elif kind is LatencyMarker:
            if self._process_latency_marker is not None:
                self._process_latency_marker(event)
        elif kind is EndOfData:
            self._channel_data_ended(channel, event.drain)
            return self._maybe_end_of_data()
        elif kind is EndOfPartition:
            if not self._data_ended[channel]:  # a producer that never sent EndOfData
                self._channel_data_ended(channel, True)
            self.finished_channels += 1
            self.channel_finished[channel] = True
            self._recording.pop(channel, None)
            self.barrier_handler.end_of_partition(channel)
            if not self._not_drained[channel]:
                self._close_in_valve(channel)
            if self.is_finished:
                return END_OF_INPUT_STATUS
            return self._maybe_end_of_data()
        elif kind is ChannelError:
            raise ConnectionError(f"input channel {self.gate.channel_infos[channel]}: {event.message}")
        else:
            raise TypeError(f"unexpected item on an input channel: {event!r}")
        return MORE_AVAILABLE

    def _channel_data_ended(self, channel: int, drain: bool) -> None:
        if self._data_ended[channel]:
            return
        self._data_ended[channel] = True
        self.channels_without_data += 1
        if drain:  # no record follows on this channel: it no longer holds the watermark back
            self._close_in_valve(channel)
        else:  # stopped without drain: event time must not advance past the savepoint's
            self._not_drained[channel] = True
            self.drained = False

    def _maybe_end_of_data(self) -> InputStatus:
        if self._end_of_data_reported or self.channels_without_data < self.gate.number_of_channels:
            return MORE_AVAILABLE
        self._end_of_data_reported = True
        return END_OF_DATA_STATUS

    def _forward_watermark(self, timestamp: int | None) -> None:
        if timestamp is not None:
            self._process_watermark(Watermark(timestamp))

    def _close_in_valve(self, channel: int) -> None:
        """The channel no longer holds event time back; the others may all be idle now."""
        was_idle = self.valve.idle
        self._forward_watermark(self.valve.channel_finished(channel))
        self._forward_idleness_change(was_idle)

    def _forward_idleness_change(self, was_idle: bool) -> None:
        is_idle = self.valve.idle
        if is_idle != was_idle and self._process_watermark_status is not None:
            self._process_watermark_status(WATERMARK_IDLE if is_idle else WATERMARK_ACTIVE)

    def when_available(self, callback: Callable[[], None]) -> None:
        self.gate.when_available(callback)


class SortingInput:
    """Batch mode's input for a keyed head operator: everything first, then key by key.

    Phase 1 reads the gate until every channel delivered EndOfPartition, putting each
    buffer into the sorter (watermarks only update the valve; there are no checkpoints in
    batch mode, so barriers cannot occur and are ignored). Phase 2 hands the operator the
    records in hash order, one piece (about ``batch_size`` records, cut at key boundaries)
    per step. After a piece that ends its keys it calls ``on_keys_finished`` -- the task
    lets the operator emit the final results of those keys (``finish_keys``) and drops
    their keyed state, so state never holds more than one piece's keys. Event time does
    not advance while keys are processed (nothing is late in batch mode); at the end the
    final watermark (the maximum, from bounded inputs) is passed on once.
    """

    def __init__(self, gate, process_batch: Callable, process_watermark: Callable, on_keys_finished: Callable,
                 sorter: KeyGroupingSorter, batch_size: int, kill_hook=None, task=None,
                 channel_tags: list | None = None):
        self.gate = gate
        self._channel_tags = channel_tags
        """Two-input operators: per channel, the tag its records are sorted with, as ``(tag, record)``."""
        self._process_batch = process_batch
        self._process_watermark = process_watermark
        self._on_keys_finished = on_keys_finished
        self.sorter = sorter
        self.batch_size = batch_size
        self._kill_hook = kill_hook
        self._task = task
        self.valve = WatermarkValve(gate.number_of_channels)
        self.finished_channels = 0
        self.records_in = 0
        self.drained = True
        self._pieces = None

    def process_input(self) -> InputStatus:
        if self._pieces is None:
            return self._read()
        piece = next(self._pieces, None)
        if piece is None:
            self.sorter.close()
            if self.valve.current > -(2**63):
                self._process_watermark(Watermark(self.valve.current))
            return END_OF_INPUT_STATUS
        records, stamps, ends_keys = piece
        if self._kill_hook is not None:
            maybe_kill(self._kill_hook, "process", self._task, {"records_in": self.records_in})
        self._process_batch(records if stamps is None else TimestampedBatch(records, stamps))
        if ends_keys:
            self._on_keys_finished()
        return MORE_AVAILABLE

    def _read(self) -> InputStatus:
        polled = self.gate.poll_next()
        if polled is None:
            return NOTHING_AVAILABLE
        channel, item = polled
        kind = type(item)
        if kind is list or kind is TimestampedBatch:
            if self._kill_hook is not None:
                maybe_kill(self._kill_hook, "process", self._task, {"records_in": self.records_in})
            self.records_in += len(item)
            stamps = item.timestamps if kind is TimestampedBatch else None
            for _, watermark in (item.watermarks or ()) if kind is TimestampedBatch else ():
                self.valve.input_watermark(channel, watermark.timestamp)  # sorted input: order does not matter
            if self._channel_tags is not None:
                tag = self._channel_tags[channel]
                item = [(tag, record) for record in item]
            self.sorter.add(item, stamps)
        elif kind is Watermark:
            self.valve.input_watermark(channel, item.timestamp)
        elif kind is WatermarkStatus or kind is LatencyMarker:
            pass  # event time does not advance while keys are processed; nothing waits in a queue for latency
        elif kind is EndOfPartition:
            self.finished_channels += 1
            self.valve.channel_finished(channel)
            if self.finished_channels >= self.gate.number_of_channels:
                self._pieces = key_groups_in_pieces(self.sorter.sorted_entries(), self.batch_size)
        elif kind is ChannelError:
            raise ConnectionError(f"input channel {self.gate.channel_infos[channel]}: {item.message}")
        elif kind is EndOfData:
            self.drained = self.drained and item.drain
        return MORE_AVAILABLE

    def when_available(self, callback: Callable[[], None]) -> None:
        self.gate.when_available(callback)

    def metrics(self) -> dict:
        return {"sorted_records": self.sorter.records, "spilled_runs": self.sorter.spilled_runs,
                "spilled_records": self.sorter.spilled_records}

    def close(self) -> None:
        self.sorter.close()


class SourceInput:
    """Polls a step-wise source for one batch per step.

    Pacing (``records_per_checkpoint``, a proof's setting: ``source_pacing`` in the slot
    configuration): after that many records since its last checkpoint the source is polled
    no more until it takes the next one, so a job's checkpoints -- and the kills planned at
    them -- come spread over its whole input, however fast it could read.

    Caught up (``flush_outputs``: the chain's, when it keeps output buffers): after a poll
    whose source says it has read what there is for now (``caught_up``: for a live source a
    poll short of its batch size), what its batches left in the output buffers is sent at
    once. Without it those records waited for a full buffer or the buffer timeout (100 ms)
    whenever the source found a few records at every poll and so never waited: a stream fed
    at 10k events/s polled every ~0.1-1 ms found some each time, and its records reached the
    keyed operators behind a hash edge only 1,024 at a time. A file source is never caught
    up while it reads: its polls give a block's lines, a little under the batch size, and
    read as "caught up" they sent every buffer after every poll -- at parallelism 2 a local
    push and a TCP frame per poll and channel, each waking the consumer, where a buffer
    should leave full (see docs/performance.md, "Output buffers that left after every poll").
    """

    def __init__(self, source, process_batch: Callable, timer_service, kill_hook=None, task=None,
                 records_per_checkpoint: int = 0, flush_outputs: Callable[[], None] | None = None,
                 alignment=None):
        self.source = source
        self.alignment = alignment
        """Watermark alignment (``engine.runtime.watermark_alignment.SourceAlignment``), or None."""
        self._flush_outputs = flush_outputs
        self._kill_hook = kill_hook
        self._task = task
        self._process_batch = process_batch
        self._timer_service = timer_service
        self._records_per_checkpoint = max(0, int(records_per_checkpoint))
        self._since_checkpoint = 0
        self._resume_at_checkpoint: Callable[[], None] | None = None
        self.records_in = 0
        self.is_finished = False
        self.drained = True

    @property
    def is_paced(self) -> bool:
        """Whether the source reads a bounded number of records per checkpoint."""
        return self._records_per_checkpoint > 0

    @property
    def paced(self) -> bool:
        """Whether the source waits for its next checkpoint before it may read on."""
        return 0 < self._records_per_checkpoint <= self._since_checkpoint

    @property
    def records_before_checkpoint(self) -> int:
        """What a paced source may still read before its next checkpoint (at least one: a poll's budget)."""
        return max(1, self._records_per_checkpoint - self._since_checkpoint)

    def process_input(self) -> InputStatus:
        alignment = self.alignment
        if self.paced or (alignment is not None and alignment.paused):
            return NOTHING_AVAILABLE
        if self._kill_hook is not None:
            maybe_kill(self._kill_hook, "source_poll", self._task, {"records_out": self.records_in})
        batch = self.source.poll_next()
        if batch is END_OF_INPUT:
            self.is_finished = True
            if alignment is not None:
                alignment.finish()
            return END_OF_INPUT_STATUS
        records = len(batch)  # (a batch may be an int64 array, which has no truth value)
        if not records:
            if alignment is not None:
                alignment.nothing_read()
            return NOTHING_AVAILABLE
        self.records_in += records
        self._since_checkpoint += records
        self._process_batch(batch)
        if alignment is not None:
            alignment.after_batch()
        if self._flush_outputs is not None and self.source.caught_up(records):
            self._flush_outputs()  # nothing more to fill the buffers with now
        return MORE_AVAILABLE

    def when_available(self, callback: Callable[[], None]) -> None:
        if self.paced:
            self._resume_at_checkpoint = callback
            return
        if self.alignment is not None and self.alignment.paused:
            self.alignment.when_resumed(callback)  # the watermark alignment's coordinator lets it go on
            return
        if self.source.when_readable(callback):
            return  # the source resumes the subtask once its input has more
        delay = self.source.next_poll_delay()
        if delay <= 0:
            callback()
        else:
            self._timer_service.schedule(delay, callback, "poll source again")

    def metrics(self) -> dict:
        """With watermark alignment: how long and how often the source paused for it."""
        return self.alignment.metrics() if self.alignment is not None else {}

    def checkpoint_taken(self) -> None:
        """The source took a checkpoint (mailbox thread): a paced source reads on."""
        self._since_checkpoint = 0
        resume, self._resume_at_checkpoint = self._resume_at_checkpoint, None
        if resume is not None:
            resume()
