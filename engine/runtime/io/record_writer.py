"""The record writer: the output of a subtask for one job edge.

It splits each emitted batch with the edge's partitioner and pushes the parts into the
channels to the consumer subtasks; events (barriers, watermarks, end of partition) go to
every channel.

Output buffers (partitioned edges only): a partitioner cuts each batch into one small part
per channel -- at parallelism n, about 1/n of a batch each. Pushed as they are, every part
would cost a buffer's overhead (a queue hand-over, a wake-up of the consumer, across
processes a frame, a pickle and a GIL hand-over on each side) for a fraction of the
records, so the overhead per record would grow with the parallelism. Instead each channel
has an output buffer that collects parts until it holds ``buffer_records`` records (the
batch size), as Flink fills a network buffer before sending it. A buffer also leaves

- before any event (barrier, end of data / partition; a watermark too unless it travels
  inside the buffer, see below): nothing ever overtakes or falls behind an event, so
  checkpoints stay exact;
- when the subtask runs out of work (``flush``; the task's mailbox calls it before its
  thread blocks -- idle, backpressured or waiting in an operator): a quiet stream is not
  delayed;
- when it is older than ``buffer_timeout_s`` at the next emit (Flink's buffer timeout, 100
  ms): a busy subtask with a selective output does not hold records back for long.

Forward and broadcast edges push each batch as it comes: it is whole already.

Watermarks inside buffers (``inline_watermarks``, streaming jobs): a watermark assigner
emits a watermark after every batch, and sending the buffers before each one made every
batch cost a push per channel -- a wake-up of the consumer, and to another process a
pickled frame -- whatever the buffers held: a third of a source's time when a window's
partial aggregates (a few per key) were all that crossed. Instead the watermark is noted
in each channel's buffer at its position (``TimestampedBatch.watermarks``) and travels
with it, as Flink serialises watermarks into its network buffers; the consumer processes
the records and watermarks in their order. A buffer holding only watermarks leaves with
the buffer timeout or the next flush, like one holding few records.

Watermarks that send the buffers (``watermarks_send_buffers``: edges into a join, see
``engine.runtime.operators.joins.two_input.keeps_records_until_watermark``): a consumer that
keeps every record until a watermark lets it go keeps, for every watermark a buffer holds
back, that much more event time of records. Filled to ``buffer_records``, a hash edge's
buffer at parallelism 2 of ``make bench-events``' join held about 8 source batches (~8 s of
event time) before it left, so each join subtask kept 3-4 times the windows it kept at
parallelism 1, and firing them read records long out of the CPU's caches. On such an edge
each watermark still travels inside the buffers, and then sends them: one push per channel
and source batch, as at parallelism 1 (``docs/performance.md``, "The join's state held back
in output buffers"). The deployment setting ``"join_buffers_per_watermark": false`` fills them
as on any other edge.

... once a buffer holds a part worth sending (``watermark_send_min_records``): at parallelism
2 a source batch's part per channel and edge is about half of what parallelism 1 pushes, and
every such part crossing to the other slot process costs a frame, a socket write, a wake-up
of the reader thread there and of the join, whatever it holds -- per thread, those fixed
costs were about half of what the join of ``make bench-events`` paid for its records
crossing (``docs/performance.md``, "Frames into the join per quarter batch"). So a
watermark sends the buffers once one of them holds at least that many records (the
deployment setting ``"join_buffer_min_records"``, a quarter of the batch size by default; 0:
with every watermark, as before). The watermarks before it wait in the buffers, as on
other edges, for at most that many records, the buffer timeout, or the task running out of
work (``flush``): a few source batches of event time, not the eight that filling whole
buffers held.

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

import random
import time
from typing import Callable, Sequence

import numpy as np

from engine.runtime.io.events import TimestampedBatch, Watermark, in_flight_state
from engine.runtime.io.partitioner import Partitioner

DEFAULT_BUFFER_RECORDS = 1024
"""Records an output buffer collects before it is sent (the default batch size)."""
DEFAULT_BUFFER_TIMEOUT_S = 0.1
"""Age after which an output buffer leaves at the next emit, full or not."""


class RecordWriter:
    """Writes batches and events of one job edge into its output channels."""

    def __init__(self, edge_id: str, channels: Sequence, partitioner: Partitioner | None, *,
                 debloat: bool = False, buffer_records: int = DEFAULT_BUFFER_RECORDS,
                 buffer_timeout_s: float = DEFAULT_BUFFER_TIMEOUT_S, inline_watermarks: bool = False,
                 watermarks_send_buffers: bool = False, watermark_send_min_records: int = 0):
        self.edge_id = edge_id
        self.channels = list(channels)
        self.partitioner = partitioner
        """None means broadcast: every batch goes to every channel."""
        self.records_out = 0
        self.buffer_records = max(1, int(buffer_records))
        self.buffer_timeout_s = buffer_timeout_s
        self._single = self.channels[0] if len(self.channels) == 1 else None
        self._buffers: list = [None] * len(self.channels)  # channel -> output buffer (None: empty)
        self._buffered_since: float | None = None  # first part buffered since the last flush (None: none)
        if debloat:
            self.emit = self._emit_debloated  # type: ignore[method-assign]
        self.buffers_output = (not debloat and self._single is None and partitioner is not None
                               and partitioner.parts_are_new)
        if self.buffers_output:
            self.emit = self._emit_buffered  # type: ignore[method-assign]
        self.inline_watermarks = inline_watermarks and self.buffers_output
        self.watermarks_send_buffers = watermarks_send_buffers and self.inline_watermarks
        """Each watermark, noted in every buffer, also sends them (a consumer that keeps records until it)."""
        self.watermark_send_min_records = max(0, int(watermark_send_min_records))
        """... once a buffer holds at least this many records (0 or 1: every watermark sends them)."""
        self.partials = None
        """The window partials this writer sends instead of records (``pre_aggregate_with``), None: records."""
        self._array_channels = [bool(getattr(channel, "takes_int_arrays", False)) for channel in self.channels]
        """Channels a full part may be pushed to as an int64 array (to another process: ``tcp_channel``)."""
        self._small_array_channels = [bool(getattr(channel, "takes_small_int_arrays", False))
                                      for channel in self.channels]
        """... and any part, which the channel collects itself (a blocking partition's file: ``shuffle``)."""

    def pre_aggregate_with(self, partials) -> None:
        """Send ``partials.combine(batch)`` for each batch: the partial aggregates of a window
        behind this edge instead of its records (``engine.runtime.operators.windows.window_partials``)."""
        send, combine = self.emit, partials.combine
        route = getattr(partials, "route_by", None)
        if route is not None and send == self._emit_buffered and route(self.partitioner):
            emit_buffered, buffer_parts = send, self._buffer_parts

            def send(made) -> None:  # routed by the partials (``session_partials``): a list of (channel, part)
                if type(made) is list:
                    buffer_parts(sum(len(part) for _, part in made), made)
                else:
                    emit_buffered(made)

        def emit_partials(batch: list) -> None:
            send(combine(batch))

        self.emit = emit_partials  # type: ignore[method-assign]
        self.partials = partials
        self.send_partials = send
        """Sends partial aggregates made elsewhere (``engine.runtime.json_fields``), as ``emit`` sends its own."""

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

    def takes_columnar(self) -> bool:
        """Whether ``emit_columnar`` may be offered int64 arrays: a buffered hash edge whose key
        compiles to arrays (``engine.runtime.columnar``), not debloated or pre-aggregating."""
        return self.emit == self._emit_buffered and getattr(self.partitioner, "columnar_key", None) is not None

    def emit_columnar(self, batch, bounds=None) -> bool:
        """Send an int64 array of records, routed a whole array at once; False (nothing sent) when
        its keys must be computed the Python way (the caller then emits ``batch.tolist()``). A
        part for a channel to another process that fills a buffer on its own goes as an array
        (``tcp_channel``'s INTS frames); every other part becomes Python ints here. ``bounds``:
        bounds every record lies within, when the caller knows them (``compile_int_steps``)."""
        parts = self.partitioner.partition_columnar(batch, self._array_channels, bounds)
        if parts is None:
            return False
        self._buffer_parts(len(batch), parts)
        return True

    def _emit_buffered(self, batch: list) -> None:
        """``emit`` of a partitioned edge: parts go into the channels' output buffers."""
        if batch:
            self._buffer_parts(len(batch), self.partitioner.partition(batch))

    def _buffer_parts(self, records: int, parts: list) -> None:
        if not records:
            return
        self.records_out += records
        buffers = self._buffers
        limit = self.buffer_records
        for index, part in parts:
            buffer = buffers[index]
            if type(part) is np.ndarray:  # for a channel to another process (``emit_columnar``)
                if buffer is None and (len(part) >= limit or self._small_array_channels[index]):
                    self.channels[index].push(part)
                    continue
                part = part.tolist()
            if buffer is None:
                buffer = part  # the partitioner's own new list: adopted, not copied
            elif type(buffer) is type(part):
                buffer.extend(part)
                if type(buffer) is TimestampedBatch:
                    buffer.timestamps.extend(part.timestamps)
            else:  # records with event times after records without (or back): keep them apart
                self.channels[index].push(buffer)
                buffer = part
            if len(buffer) >= limit:
                buffers[index] = None
                self.channels[index].push(buffer)
            else:
                buffers[index] = buffer
        if self._buffered_since is None:
            if any(buffer is not None for buffer in buffers):
                self._buffered_since = time.monotonic()
        elif time.monotonic() - self._buffered_since >= self.buffer_timeout_s:
            self.flush()

    def flush(self) -> None:
        """Send every output buffer that holds records, full or not."""
        if self._buffered_since is not None:
            self._send_buffers()

    def _send_buffers(self) -> None:
        self._buffered_since = None
        buffers = self._buffers
        for index, buffer in enumerate(buffers):
            if buffer is not None:
                buffers[index] = None
                self.channels[index].push(buffer)

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
        if self.partials is not None:  # partials merge only records later than the watermark sent
            held = self.partials.note_event(event)
            if held:  # window partials held for their window: they go before the watermark that fires it
                self.send_partials(held)
        if self.inline_watermarks and type(event) is Watermark:
            self._buffer_watermark(event)
            return
        self.flush()
        for channel in self.channels:
            channel.push(event)

    def _buffer_watermark(self, watermark: Watermark) -> None:
        """Note ``watermark`` in every channel's buffer, behind the records buffered so far."""
        buffers = self._buffers
        for index, buffer in enumerate(buffers):
            if type(buffer) is not TimestampedBatch:
                if buffer is not None:  # records without event times cannot carry it: they go first
                    self.channels[index].push(buffer)
                buffer = buffers[index] = TimestampedBatch()
            marks = buffer.watermarks
            if marks is None:
                buffer.watermarks = [(len(buffer), watermark)]
            else:
                marks.append((len(buffer), watermark))
        if self.watermarks_send_buffers:
            least = self.watermark_send_min_records
            if least <= 1 or any(len(buffer) >= least for buffer in buffers):
                self._send_buffers()  # every buffer holds the watermark now
                return
        if self._buffered_since is None:
            self._buffered_since = time.monotonic()
        elif time.monotonic() - self._buffered_since >= self.buffer_timeout_s:
            self.flush()

    def emit_latency_marker(self, marker) -> None:
        """Send a latency marker to one channel chosen at random (Flink's ``randomEmit``): every
        consumer subtask gets samples over time, and a marker never multiplies. What that
        channel's output buffer holds goes first, so the marker stays behind the records sent
        before it and waits where they wait."""
        index = random.randrange(len(self.channels)) if self._single is None else 0
        buffer = self._buffers[index]
        if buffer is not None:
            self._buffers[index] = None
            self.channels[index].push(buffer)
        self.channels[index].push(marker)

    def broadcast_priority_event(self, event) -> dict:
        """An unaligned barrier: into every channel ahead of what is queued there. Returns
        ``{channel id: overtaken items}`` -- this writer's output channel state."""
        held = self.partials.release() if self.partials is not None else None
        if held:  # held window partials are the records before the barrier too
            self.send_partials(held)
        self.flush()
        state = {}
        for channel in self.channels:
            overtaken = in_flight_state(channel.push_priority(event))
            if overtaken:
                state[channel.channel_id] = overtaken
        return state

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
