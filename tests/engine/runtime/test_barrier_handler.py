"""Barrier alignment (exactly-once) and tracking (at-least-once), by example and by property."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.runtime.io.barrier_handler import (AlignedBarrierHandler, BarrierTracker, CollectingBarriers,
                                               WaitingForFirstBarrier)
from engine.runtime.io.events import END_OF_PARTITION, CancelCheckpointMarker, CheckpointBarrier, EndOfPartition
from engine.runtime.io.input_gate import InputGate
from engine.runtime.io.local_channel import LocalChannel


class Recorder:
    """A BarrierHandlerController over a real gate that logs what happens, in order."""

    def __init__(self, gate=None):
        self.gate = gate
        self.log: list[tuple] = []
        self.blocked: set[int] = set()

    def block_channel(self, channel):
        self.blocked.add(channel)
        if self.gate is not None:
            self.gate.block(channel)

    def unblock_all_channels(self):
        self.blocked.clear()
        if self.gate is not None:
            self.gate.unblock_all()

    def trigger_checkpoint_on_barrier(self, barrier, alignment):
        assert alignment["alignment_duration"] >= 0 and alignment["start_delay"] >= 0
        self.log.append(("trigger", barrier.id))

    def abort_checkpoint_on_barrier(self, checkpoint_id, reason):
        self.log.append(("abort", checkpoint_id))


def barrier(checkpoint_id):
    return CheckpointBarrier(checkpoint_id, 0)


# -- examples -------------------------------------------------------------------------------------

def test_single_channel_triggers_at_once():
    recorder = Recorder()
    handler = AlignedBarrierHandler(recorder, 1)
    handler.barrier_received(0, barrier(1))
    assert recorder.log == [("trigger", 1)] and not recorder.blocked


def test_alignment_blocks_channels_until_all_barriers_arrived():
    recorder = Recorder()
    handler = AlignedBarrierHandler(recorder, 3)
    handler.barrier_received(0, barrier(1))
    assert isinstance(handler.state, CollectingBarriers) and recorder.blocked == {0}
    handler.barrier_received(2, barrier(1))
    assert recorder.blocked == {0, 2} and recorder.log == []
    handler.barrier_received(1, barrier(1))
    assert recorder.log == [("trigger", 1)] and not recorder.blocked
    assert isinstance(handler.state, WaitingForFirstBarrier)


def test_newer_barrier_aborts_the_older_alignment():
    recorder = Recorder()
    handler = AlignedBarrierHandler(recorder, 2)
    handler.barrier_received(0, barrier(1))
    handler.barrier_received(1, barrier(2))
    assert recorder.log == [("abort", 1)] and recorder.blocked == {1}
    handler.barrier_received(0, barrier(2))
    assert recorder.log == [("abort", 1), ("trigger", 2)]
    handler.barrier_received(1, barrier(1))  # outdated
    assert recorder.log[-1] == ("trigger", 2)


def test_cancel_marker_aborts_and_later_barriers_of_it_are_ignored():
    recorder = Recorder()
    handler = AlignedBarrierHandler(recorder, 2)
    handler.barrier_received(0, barrier(1))
    handler.cancel_received(1, CancelCheckpointMarker(1))
    assert recorder.log == [("abort", 1)] and not recorder.blocked
    handler.barrier_received(1, barrier(1))
    assert recorder.log == [("abort", 1)]
    handler.cancel_received(0, CancelCheckpointMarker(1))  # already aborted: not again
    assert recorder.log == [("abort", 1)]


def test_closed_channels_count_as_aligned():
    recorder = Recorder()
    handler = AlignedBarrierHandler(recorder, 3)
    handler.barrier_received(0, barrier(1))
    handler.end_of_partition(1)
    assert recorder.log == []
    handler.end_of_partition(2)
    assert recorder.log == [("trigger", 1)]
    handler.barrier_received(0, barrier(2))  # one open channel left
    assert recorder.log[-1] == ("trigger", 2)


def test_tracker_never_blocks_and_triggers_when_all_barriers_are_counted():
    recorder = Recorder()
    tracker = BarrierTracker(recorder, 2)
    tracker.barrier_received(0, barrier(1))
    tracker.barrier_received(0, barrier(2))
    assert not recorder.blocked and recorder.log == []
    tracker.barrier_received(1, barrier(2))
    assert recorder.log == [("abort", 1), ("trigger", 2)]
    tracker.barrier_received(1, barrier(1))
    assert recorder.log[-1] == ("trigger", 2)


# -- properties --------------------------------------------------------------------------------

@st.composite
def channel_streams(draw):
    """Per channel, for each checkpoint: records, then a barrier, a cancel marker or (not for the
    last checkpoint) nothing; a channel may end early with EndOfPartition. Every checkpoint is
    thus eventually settled on every channel, as with real upstream subtasks."""
    channels = draw(st.integers(min_value=1, max_value=4))
    checkpoints = draw(st.integers(min_value=1, max_value=4))
    clean = draw(st.booleans())  # every channel delivers every barrier
    streams = []
    for channel in range(channels):
        items = []
        sequence = 0
        ends_early = not clean and draw(st.booleans())
        last = draw(st.integers(min_value=0, max_value=checkpoints)) if ends_early else checkpoints
        for checkpoint_id in range(1, last + 1):
            for _ in range(draw(st.integers(min_value=0, max_value=2))):
                items.append(("record", (channel, sequence)))
                sequence += 1
            choices = ["barrier"] * 6 + ["cancel"] + (["skip"] if checkpoint_id < checkpoints else [])
            marker = "barrier" if clean else draw(st.sampled_from(choices))
            if marker == "barrier":
                items.append(("barrier", checkpoint_id))
            elif marker == "cancel":
                items.append(("cancel", checkpoint_id))
        for _ in range(draw(st.integers(min_value=0, max_value=2))):
            items.append(("record", (channel, sequence)))
            sequence += 1
        if ends_early or (not clean and draw(st.booleans())):
            items.append(("eop", None))
        streams.append(items)
    schedule = draw(st.lists(st.integers(min_value=0, max_value=channels), max_size=60))
    return streams, schedule, clean


def as_event(item):
    kind, value = item
    return {"record": lambda: [value], "barrier": lambda: barrier(value),
            "cancel": lambda: CancelCheckpointMarker(value), "eop": lambda: END_OF_PARTITION}[kind]()


def simulate(handler_class, streams, schedule):
    """Push items in the scheduled interleaving (n = poll one item), then drain everything."""
    channels = [LocalChannel(i, capacity=1000) for i in range(len(streams))]
    gate = InputGate(channels)
    recorder = Recorder(gate)
    handler = handler_class(recorder, len(streams))
    positions = [0] * len(streams)

    def poll_one():
        polled = gate.poll_next()
        if polled is None:
            return False
        channel, item = polled
        if isinstance(item, list):
            recorder.log.append(("record", item[0]))
        elif isinstance(item, CheckpointBarrier):
            recorder.log.append(("barrier", channel, item.id))
            handler.barrier_received(channel, item)
        elif isinstance(item, CancelCheckpointMarker):
            handler.cancel_received(channel, item)
        elif isinstance(item, EndOfPartition):
            recorder.log.append(("eop", channel))
            handler.end_of_partition(channel)
        return True

    for step in schedule:
        if step == len(streams):
            poll_one()
        elif positions[step] < len(streams[step]):
            channels[step].push(as_event(streams[step][positions[step]]))
            positions[step] += 1
    for channel, stream in enumerate(streams):
        for item in stream[positions[channel]:]:
            channels[channel].push(as_event(item))
    while poll_one():
        pass
    return recorder


def records_before_barrier(stream, checkpoint_id):
    """The records of a channel before its barrier ``checkpoint_id`` (None if it never sends it)."""
    records = set()
    for kind, value in stream:
        if kind == "barrier" and value == checkpoint_id:
            return records
        if kind == "record":
            records.add(value)
    return None


@settings(max_examples=300, deadline=None)
@given(channel_streams())
def test_aligned_handler_snapshots_exactly_the_records_before_the_barriers(example):
    streams, schedule, clean = example
    recorder = simulate(AlignedBarrierHandler, streams, schedule)
    log = recorder.log
    all_records = {value for stream in streams for kind, value in stream if kind == "record"}
    processed = [entry[1] for entry in log if entry[0] == "record"]
    assert sorted(processed) == sorted(all_records), "every record processed exactly once"
    assert not recorder.blocked, "no channel stays blocked"
    decisions = [(kind, cid) for kind, cid, *_ in [e for e in log if e[0] in ("trigger", "abort")]]
    triggered = [cid for kind, cid in decisions if kind == "trigger"]
    aborted = [cid for kind, cid in decisions if kind == "abort"]
    assert triggered == sorted(set(triggered)), "triggers strictly increase"
    assert not set(triggered) & set(aborted), "a checkpoint is triggered or aborted, never both"
    assert len(aborted) == len(set(aborted)), "a checkpoint is aborted at most once"
    for position, entry in enumerate(log):
        if entry[0] != "trigger":
            continue
        checkpoint_id = entry[1]
        before = {e[1] for e in log[:position] if e[0] == "record"}
        closed = {e[1] for e in log[:position] if e[0] == "eop"}
        expected = set()
        for channel, stream in enumerate(streams):
            pre = records_before_barrier(stream, checkpoint_id)
            if pre is None:
                assert channel in closed, f"checkpoint {checkpoint_id} triggered without channel {channel}"
                pre = {value for kind, value in stream if kind == "record"}
            expected |= pre
        assert before == expected, f"snapshot {checkpoint_id} covers exactly the records before its barriers"
    if clean:
        checkpoints = max(value for stream in streams for kind, value in stream if kind == "barrier")
        assert triggered == list(range(1, checkpoints + 1)) and not aborted


@settings(max_examples=200, deadline=None)
@given(channel_streams())
def test_tracker_triggers_only_when_every_open_channel_delivered_the_barrier(example):
    streams, schedule, clean = example
    recorder = simulate(BarrierTracker, streams, schedule)
    log = recorder.log
    assert not recorder.blocked
    triggered = [e[1] for e in log if e[0] == "trigger"]
    assert triggered == sorted(set(triggered))
    for position, entry in enumerate(log):
        if entry[0] != "trigger":
            continue
        seen = {e[1] for e in log[:position] if e[0] == "barrier" and e[2] == entry[1]}
        closed = {e[1] for e in log[:position] if e[0] == "eop"}
        assert seen | closed == set(range(len(streams)))
    if clean:
        checkpoints = max(value for stream in streams for kind, value in stream if kind == "barrier")
        assert triggered[-1] == checkpoints
