"""Unaligned checkpoints at the unit level: barrier states, priority barriers in channels."""
from __future__ import annotations

import time

from engine.plan.channels import ChannelId
from engine.runtime.io.barrier_handler import (AlignedBarrierHandler, CollectingBarriers, CollectingUnaligned,
                                               WaitingForFirstBarrier)
from engine.runtime.io.events import CheckpointBarrier, Watermark, in_flight_state
from engine.runtime.io.input_gate import InputGate
from engine.runtime.io.local_channel import LocalChannel
from engine.runtime.io.record_writer import RecordWriter
from engine.runtime.io.tcp_channel import TcpNetwork


class Controller:
    """A BarrierHandlerController that logs, in order, what the handler asks for."""

    def __init__(self, gate=None, held_back=0):
        self.gate = gate
        self.log: list[tuple] = []
        self.checks: list[tuple] = []
        self.held_back = held_back

    def block_channel(self, channel):
        self.log.append(("block", channel))

    def unblock_all_channels(self):
        self.log.append(("unblock",))

    def trigger_checkpoint_on_barrier(self, barrier, alignment):
        self.log.append(("aligned", barrier.id))

    def abort_checkpoint_on_barrier(self, checkpoint_id, reason):
        self.log.append(("abort", checkpoint_id, reason.split(":")[0]))

    def trigger_unaligned_checkpoint(self, barrier, alignment, received):
        self.log.append(("unaligned", barrier.id, frozenset(received)))

    def unaligned_barrier_received(self, channel, barrier):
        self.log.append(("barrier", channel))

    def unaligned_checkpoint_aligned(self, checkpoint_id):
        self.log.append(("complete", checkpoint_id))

    def schedule_alignment_check(self, checkpoint_id, delay_ms):
        self.checks.append((checkpoint_id, delay_ms))

    def held_back_bytes(self):
        return self.held_back


def now_ms() -> int:
    return int(time.time() * 1000)


def unaligned(checkpoint_id, **options):
    return CheckpointBarrier(checkpoint_id, now_ms(), {"unaligned": True, **options})


def test_an_unaligned_barrier_snapshots_at_once_and_blocks_nothing():
    controller = Controller()
    handler = AlignedBarrierHandler(controller, 3)
    handler.barrier_received(1, unaligned(7))
    assert controller.log == [("unaligned", 7, frozenset({1})), ("barrier", 1)]
    assert isinstance(handler.state, CollectingUnaligned) and handler.is_unaligned
    handler.barrier_received(1, unaligned(7))  # a duplicate changes nothing
    handler.barrier_received(0, unaligned(7))
    handler.end_of_partition(2)  # a channel that ends counts as arrived
    assert controller.log[2:] == [("barrier", 0), ("complete", 7)]
    assert isinstance(handler.state, WaitingForFirstBarrier)


def test_a_newer_barrier_aborts_the_unaligned_checkpoint_still_collecting():
    controller = Controller()
    handler = AlignedBarrierHandler(controller, 2)
    handler.barrier_received(0, unaligned(1))
    handler.barrier_received(0, unaligned(2))
    assert controller.log[2][:2] == ("abort", 1)
    assert controller.log[3] == ("unaligned", 2, frozenset({0}))


def test_an_alignment_switches_to_unaligned_when_a_producer_sent_its_barrier_unaligned():
    controller = Controller()
    handler = AlignedBarrierHandler(controller, 3)
    handler.barrier_received(0, CheckpointBarrier(4, now_ms()))
    assert isinstance(handler.state, CollectingBarriers)
    handler.barrier_received(2, unaligned(4))
    # the aligned channel 0 needs no channel state; 1 is recorded from now on
    assert controller.log == [("block", 0), ("unblock",), ("unaligned", 4, frozenset({0, 2})), ("barrier", 2)]


def test_an_alignment_switches_to_unaligned_at_its_timeout():
    controller = Controller()
    handler = AlignedBarrierHandler(controller, 2)
    handler.barrier_received(0, CheckpointBarrier(3, now_ms() - 50, {"aligned_timeout_ms": 60_000}))
    assert controller.checks and 0 < controller.checks[0][1] <= 60_000
    handler.check_alignment(3)  # before the timeout: still aligned, looks again later
    assert isinstance(handler.state, CollectingBarriers)
    handler.state.barrier.options["aligned_timeout_ms"] = 10  # the timeout passed
    handler.check_alignment(3)
    assert controller.log == [("block", 0), ("unblock",), ("unaligned", 3, frozenset({0}))]
    handler.barrier_received(1, CheckpointBarrier(3, 0))
    assert controller.log[-1] == ("complete", 3)


def test_a_first_barrier_that_arrives_after_the_timeout_is_taken_unaligned_at_once():
    controller = Controller()
    handler = AlignedBarrierHandler(controller, 2)
    handler.barrier_received(1, CheckpointBarrier(5, now_ms() - 1000, {"aligned_timeout_ms": 100}))
    assert controller.log == [("unaligned", 5, frozenset({1})), ("barrier", 1)]


def test_an_alignment_holding_back_more_than_the_cap_is_declined():
    controller = Controller(held_back=10_000)
    handler = AlignedBarrierHandler(controller, 2, max_aligned_bytes=5_000)
    handler.barrier_received(0, CheckpointBarrier(2, now_ms()))
    assert controller.checks, "a capped alignment looks at what it holds back"
    handler.check_alignment(2)
    assert controller.log == [("block", 0), ("unblock",), ("abort", 2, "alignment_limit")]
    assert isinstance(handler.state, WaitingForFirstBarrier)
    controller.held_back = 100
    handler.barrier_received(0, CheckpointBarrier(3, now_ms()))
    handler.check_alignment(3)
    assert isinstance(handler.state, CollectingBarriers)


def test_a_priority_barrier_overtakes_a_local_queue_and_returns_what_it_overtook():
    channel = LocalChannel("c")
    gate = InputGate([channel])
    channel.push([1, 2])
    channel.push(Watermark(5))
    channel.push([3])
    barrier = unaligned(1)
    overtaken = channel.push_priority(barrier)
    assert in_flight_state(overtaken) == [[1, 2], Watermark(5), [3]]
    assert gate.poll_next() == (0, barrier)
    assert [gate.poll_next()[1] for _ in range(3)] == [[1, 2], Watermark(5), [3]]
    channel.prepend([[0]])  # restored channel state goes before everything queued
    channel.push([4])
    assert [gate.poll_next()[1] for _ in range(2)] == [[0], [4]]


def test_a_record_writer_flushes_its_buffers_then_puts_the_barrier_first():
    channels = [LocalChannel(ChannelId("e", ("a", 0), ("b", i))) for i in range(2)]
    writer = RecordWriter("e", channels, None)
    writer.emit([1, 2])
    barrier = unaligned(9)  # one barrier: two made a millisecond apart differ in their timestamp
    state = writer.broadcast_priority_event(barrier)
    assert state == {channel.channel_id: [[1, 2]] for channel in channels}
    assert all(channel.pop()[0] == barrier for channel in channels)


def test_a_priority_barrier_crosses_tcp_ahead_of_queued_buffers_and_jumps_the_receivers_queue():
    slots = [[("a", 0)], [("b", 0)]]
    producer, consumer = TcpNetwork(0, slots, capacity=2), TcpNetwork(1, slots, capacity=2)
    try:
        peers = [producer.peer_info(), consumer.peer_info()]
        producer.set_peers(peers)
        consumer.set_peers(peers)
        channel_id = ChannelId("e", ("a", 0), ("b", 0))
        output = producer.output_channel(channel_id)
        input_channel = consumer.input_channel(channel_id)
        gate = InputGate([input_channel])
        for batch in ([1], [2], [3], [4]):  # two fill the receiver's credit, two wait at the sender
            output.push(batch)
        deadline = time.monotonic() + 10
        while input_channel.queued() < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        barrier = unaligned(1)
        assert output.push_priority(barrier) == [[3], [4]]  # the sender's output channel state
        while (input_channel.queued() < 3 or input_channel._queue[0] != barrier) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert gate.poll_next() == (0, barrier)
        assert input_channel.take_overtaken(1) == [[1], [2]]  # the receiver's input channel state
        received = []
        while len(received) < 4 and time.monotonic() < deadline:
            polled = gate.poll_next()
            if polled is None:
                time.sleep(0.01)
            else:
                received.append(polled[1])
        assert received == [[1], [2], [3], [4]]
    finally:
        producer.close()
        consumer.close()


def test_a_priority_barrier_is_served_before_other_channels_buffers():
    first, second = LocalChannel("a"), LocalChannel("b")
    gate = InputGate([first, second])
    first.push([1])
    first.push([2])
    second.push([3])
    barrier = unaligned(2)
    second.push_priority(barrier)
    assert gate.poll_next() == (1, barrier)


def test_an_aligned_barrier_still_queued_at_the_timeout_is_turned_unaligned_in_place():
    channel = LocalChannel("c")
    gate = InputGate([channel])
    aligned = CheckpointBarrier(3, now_ms(), {"aligned_timeout_ms": 10})
    channel.push([1])
    channel.push(aligned)
    channel.push([2])
    assert channel.holds_barrier(3) and not channel.holds_barrier(4)
    converted = unaligned(3)
    assert channel.overtake_barrier(converted) == [[1]]
    assert [gate.poll_next()[1] for _ in range(3)] == [converted, [1], [2]]
    assert not channel.holds_barrier(3) and channel.overtake_barrier(converted) is None


def test_switching_to_unaligned_pulls_a_queued_aligned_barrier_ahead_and_keeps_what_it_overtook():
    """The consumer side of the aligned timeout: a barrier that already left its producer (over TCP,
    into the receiver's queue) is pulled ahead; the buffers before it are input channel state."""
    from engine.runtime.io.stream_input import NetworkInput

    class Task:
        """Just the parts of StreamTask that trigger_unaligned_checkpoint uses."""

        def __init__(self, gate):
            self.gate = gate
            self.input = NetworkInput(gate, None, lambda batch: None, lambda watermark: None)
            self.performed = []
            self._unaligned_input = None

        def _perform_checkpoint(self, checkpoint_id, timestamp, options, alignment, **kwargs):
            self.performed.append(checkpoint_id)
            return True

    from engine.runtime.stream_task import StreamTask

    first, second = LocalChannel("a"), LocalChannel("b")
    gate = InputGate([first, second])
    queued = CheckpointBarrier(6, now_ms(), {"aligned_timeout_ms": 10})
    second.push([1])
    second.push([2])
    second.push(queued)
    second.push([3])
    task = Task(gate)
    StreamTask.trigger_unaligned_checkpoint(task, queued, {}, {0})
    assert task.performed == [6]
    assert task._unaligned_input[1] == {1: [[1], [2]]}
    assert gate.poll_next()[1].id == 6  # served next, ahead of the buffers it overtook
