"""Local channels, the input gate and the record writer: order, fairness, blocking, backpressure."""
from __future__ import annotations

import threading

from engine.runtime.io.events import END_OF_PARTITION, CheckpointBarrier, TimestampedBatch, Watermark
from engine.runtime.io.input_gate import InputGate
from engine.runtime.io.local_channel import LocalChannel
from engine.runtime.io.partitioner import ForwardPartitioner, RoundRobinPartitioner
from engine.runtime.io.record_writer import RecordWriter
from engine.runtime.io.stream_input import NOTHING_AVAILABLE, NetworkInput


def drain(gate):
    items = []
    while (polled := gate.poll_next()) is not None:
        items.append(polled)
    return items


def test_items_keep_their_order_and_buffers_are_not_copied():
    channel = LocalChannel("c")
    gate = InputGate([channel])
    batch = [1, 2, 3]
    channel.push(batch)
    channel.push(CheckpointBarrier(1, 0))
    channel.push([4])
    items = drain(gate)
    assert [item for _, item in items] == [[1, 2, 3], CheckpointBarrier(1, 0), [4]]
    assert items[0][1] is batch


def test_gate_takes_turns_between_channels():
    channels = [LocalChannel(i) for i in range(2)]
    gate = InputGate(channels)
    for i in range(3):
        channels[0].push([f"a{i}"])
        channels[1].push([f"b{i}"])
    order = [item[0] for _, item in drain(gate)]
    assert order == ["a0", "b0", "a1", "b1", "a2", "b2"]


def test_blocked_channel_keeps_its_data_until_unblocked():
    channels = [LocalChannel(i) for i in range(2)]
    gate = InputGate(channels)
    channels[0].push(["a"])
    channels[1].push(["b"])
    gate.block(0)
    assert [(i, item) for i, item in drain(gate)] == [(1, ["b"])]
    channels[0].push(["a2"])
    assert drain(gate) == []
    gate.unblock_all()
    assert drain(gate) == [(0, ["a"]), (0, ["a2"])]


def test_availability_listener_fires_once_data_arrives_from_another_thread():
    channel = LocalChannel("c")
    gate = InputGate([channel])
    fired = threading.Event()
    gate.when_available(fired.set)
    assert not fired.is_set()
    thread = threading.Thread(target=lambda: channel.push([1]))
    thread.start()
    thread.join()
    assert fired.wait(1)
    gate.when_available(lambda: fired.clear())  # data present: called at once
    assert not fired.is_set()


def test_full_channel_backpressures_the_writer_until_the_consumer_takes_a_buffer():
    channel = LocalChannel("c", capacity=2)
    gate = InputGate([channel])
    writer = RecordWriter("e", [channel], ForwardPartitioner(1))
    writer.emit([1])
    assert writer.is_available()
    writer.emit([2])
    assert not writer.is_available()
    writer.emit([3])  # never refused: the step in hand finishes
    writer.broadcast_event(END_OF_PARTITION)  # events always pass
    woke = []
    writer.when_available(lambda: woke.append(True))
    gate.poll_next()
    gate.poll_next()
    assert not woke  # still full (3 items left of capacity 2)
    gate.poll_next()
    assert woke == [True]
    assert channel.max_queued == 4


def test_round_robin_writer_spreads_records_over_channels():
    channels = [LocalChannel(i) for i in range(3)]
    gates = [InputGate([channel]) for channel in channels]
    writer = RecordWriter("e", channels, RoundRobinPartitioner(3))
    writer.emit(list(range(7)))
    writer.emit([7, 8])
    writer.flush()
    received = [[x for _, batch in drain(gate) for x in batch] for gate in gates]
    assert received == [[0, 3, 6], [1, 4, 7], [2, 5, 8]]
    assert writer.records_out == 9


def test_partitioned_writer_sends_a_channel_s_parts_as_one_full_buffer():
    channels = [LocalChannel(i) for i in range(2)]
    gates = [InputGate([channel]) for channel in channels]
    writer = RecordWriter("e", channels, RoundRobinPartitioner(2), buffer_records=4)
    writer.emit([0, 1, 2, 3, 4, 5])
    assert [drain(gate) for gate in gates] == [[], []]  # three records each: kept
    writer.emit([6, 7, 8])
    assert [[batch for _, batch in drain(gate)] for gate in gates] == [[[0, 2, 4, 6, 8]], [[1, 3, 5, 7]]]
    writer.emit([9])
    writer.flush()  # the task is about to wait: what is buffered leaves
    assert [[batch for _, batch in drain(gate)] for gate in gates] == [[], [[9]]]


def test_an_event_leaves_behind_the_records_buffered_before_it():
    channels = [LocalChannel(i) for i in range(2)]
    gates = [InputGate([channel]) for channel in channels]
    writer = RecordWriter("e", channels, RoundRobinPartitioner(2))
    writer.emit([0, 1, 2])
    writer.broadcast_event(CheckpointBarrier(1, 0))
    writer.emit([3])
    writer.broadcast_event(END_OF_PARTITION)
    assert [[item for _, item in drain(gate)] for gate in gates] == [
        [[0, 2], CheckpointBarrier(1, 0), END_OF_PARTITION],
        [[1], CheckpointBarrier(1, 0), [3], END_OF_PARTITION]]


def test_a_buffer_older_than_the_timeout_leaves_at_the_next_emit():
    channels = [LocalChannel(i) for i in range(2)]
    gates = [InputGate([channel]) for channel in channels]
    writer = RecordWriter("e", channels, RoundRobinPartitioner(2), buffer_timeout_s=0.0)
    writer.emit([0, 1])
    assert [drain(gate) for gate in gates] == [[], []]
    writer.emit([2])
    assert [[batch for _, batch in drain(gate)] for gate in gates] == [[[0, 2]], [[1]]]


def test_buffered_event_times_stay_with_their_records():
    channels = [LocalChannel(i) for i in range(2)]
    gates = [InputGate([channel]) for channel in channels]
    writer = RecordWriter("e", channels, RoundRobinPartitioner(2))
    writer.emit(TimestampedBatch([0, 1, 2], [10, 11, 12]))
    writer.emit(TimestampedBatch([3, 4], [13, 14]))
    writer.emit([5])  # no event times: not merged into a buffer that has them
    writer.flush()
    first, second = [[batch for _, batch in drain(gate)] for gate in gates]
    assert [(type(b), list(b), getattr(b, "timestamps", None)) for b in first] == [
        (TimestampedBatch, [0, 2, 4], [10, 12, 14])]
    assert [(type(b), list(b), getattr(b, "timestamps", None)) for b in second] == [
        (TimestampedBatch, [1, 3], [11, 13]), (list, [5], None)]


def test_empty_batches_are_not_sent():
    channel = LocalChannel("c")
    gate = InputGate([channel])
    RecordWriter("e", [channel], ForwardPartitioner(1)).emit([])
    assert drain(gate) == []


def elements(items: list) -> list:
    """What a channel delivered, as one sequence: records (with event times) and events in order."""
    found = []
    for item in items:
        if not isinstance(item, list):
            found.append(item)
            continue
        stamps = getattr(item, "timestamps", [None] * len(item))
        marks = dict()
        for position, watermark in getattr(item, "watermarks", None) or ():
            marks.setdefault(position, []).append(watermark)
        for index, record in enumerate(item):
            found.extend(marks.pop(index, []))
            found.append((record, stamps[index]))
        found.extend(watermark for position in sorted(marks) for watermark in marks[position])
    return found


def write_a_watermarked_stream(inline: bool) -> tuple[list, list]:
    """Batches with a watermark after each, a barrier, more: the items each of two channels got."""
    channels = [LocalChannel(i) for i in range(2)]
    gates = [InputGate([channel]) for channel in channels]
    writer = RecordWriter("e", channels, RoundRobinPartitioner(2), inline_watermarks=inline)
    for step in range(5):
        writer.emit(TimestampedBatch(range(step * 3, step * 3 + 3), range(step * 30, step * 30 + 3)))
        writer.broadcast_event(Watermark(step * 30))
    writer.broadcast_event(CheckpointBarrier(1, 0))
    writer.emit([100])  # records without event times cannot carry a watermark
    writer.broadcast_event(Watermark(200))
    writer.emit(TimestampedBatch([7], [300]))
    writer.flush()
    return [[item for _, item in drain(gate)] for gate in gates]


def test_watermarks_inside_buffers_reach_each_channel_in_the_same_order_as_events_would():
    inline, separate = write_a_watermarked_stream(True), write_a_watermarked_stream(False)
    assert [elements(items) for items in inline] == [elements(items) for items in separate]
    assert sum(len(items) for items in inline) < sum(len(items) for items in separate) / 3, \
        "a watermark after every batch no longer sends every buffer"
    assert any(getattr(item, "watermarks", None) for items in inline for item in items)


def test_the_reader_splits_a_buffer_at_its_watermarks():
    channels = [LocalChannel(i) for i in range(2)]
    gate = InputGate(channels)
    seen = []
    reader = NetworkInput(gate, None, lambda batch: seen.append((list(batch), batch.timestamps)),
                          lambda watermark: seen.append(watermark))
    channels[1].push(TimestampedBatch([], [], [(0, Watermark(50))]))  # the other channel holds no event time back
    channels[0].push(TimestampedBatch(["a", "b", "c"], [1, 2, 3], [(1, Watermark(1)), (3, Watermark(3))]))
    while reader.process_input() is not NOTHING_AVAILABLE:
        pass
    assert seen == [(["a"], [1]), Watermark(1), (["b", "c"], [2, 3]), Watermark(3)]
    assert reader.records_in == 3
