"""StreamTask driven step by step (``run_mailbox_step``): alignment, checkpoints, notifications."""
from __future__ import annotations

import time

import pytest

from engine.plan.channels import ChannelId
from engine.plan.job_graph import build_job_graph
from engine.runtime.io.events import (END_OF_PARTITION, MAX_WATERMARK, CancelCheckpointMarker, CheckpointBarrier,
                                      EndOfData, TimestampedBatch)
from engine.runtime.io.input_gate import InputGate
from engine.runtime.io.network import LocalNetwork
from engine.runtime.stream_task import StreamTask
from tests.builders import definition_of, edge, node


class RecordingGateway:
    def __init__(self):
        self.acks, self.declines, self.finished, self.failed = [], [], [], []

    def acknowledge_checkpoint(self, ack):
        self.acks.append(ack)

    def decline_checkpoint(self, checkpoint_id, task, reason):
        self.declines.append((checkpoint_id, reason))

    def report_metrics(self, task, metrics):
        pass

    def task_finished(self, task, result):
        self.finished.append((task, result))

    def task_failed(self, task, error):
        self.failed.append((task, error))


def sum_job(sink, parallelism=2):
    """gen --hash "h"--> sum --forward "o"--> sink (the tests name channels by these edge ids)."""
    return definition_of(
        [node("gen", "source.datagen", count=10), node("sum", "aggregate.reduce", function="sum", value="x"), sink],
        [edge("gen", "sum", "hash", "x % 2", id="h"), edge("sum", sink["id"], id="o")],
        parallelism=parallelism, max_parallelism=16, checkpointing={"interval_ms": 1000})


def build(tmp_path, vertex_id, index=0, sink=None, parallelism=2):
    sink = sink or node("out", "sink.collect", max_records=1000)
    job_graph = build_job_graph(sum_job(sink, parallelism))
    network = LocalNetwork()
    gateway = RecordingGateway()
    task = StreamTask(job_graph=job_graph, vertex=job_graph.vertex(vertex_id), index=index, network=network,
                      gateway=gateway, config={"checkpoint_storage": str(tmp_path / "chk"),
                                               "checkpointing": {"interval_ms": 1000}, "batch_size": 4})
    task.before_invoke()
    return task, network, gateway


def channel(network, producer, consumer=0, edge="h", source="gen", target="sum"):
    return network.input_channel(ChannelId(edge, (source, producer), (target, consumer)))


def steps(task, count=20):
    for _ in range(count):
        task.run_mailbox_step()


def test_alignment_holds_back_records_after_the_barrier_until_all_barriers_arrived(tmp_path):
    task, network, gateway = build(tmp_path, "sum")
    first, second = channel(network, 0), channel(network, 1)
    first.push([0, 2])
    first.push(CheckpointBarrier(1, 0, {}))
    first.push([4])  # after the barrier: must wait for the snapshot
    second.push([1])
    steps(task)
    sink = task.chain.operators[-1]
    assert sorted(sink.records) == [[0, 0], [0, 2], [1, 1]]
    assert gateway.acks == [] and task.gate.is_blocked(0)
    second.push(CheckpointBarrier(1, 0, {}))
    steps(task)
    assert [ack["checkpoint_id"] for ack in gateway.acks] == [1]
    ack = gateway.acks[0]
    assert ack["task"] == ["sum", 0] and ack["state"]["operators"]["sum"]["key_groups"] is not None
    metrics = ack["metrics"]
    assert metrics["alignment_duration"] >= 0 and metrics["sync_duration"] >= 0 and metrics["state_size"] > 0
    assert list(sink.records)[-1] == [0, 6]  # processed after the snapshot, and 6 = 0 + 2 + 4
    assert not task.gate.is_blocked(0)


def test_cancel_marker_aborts_the_alignment_and_declines(tmp_path):
    task, network, gateway = build(tmp_path, "sum")
    first, second = channel(network, 0), channel(network, 1)
    first.push(CheckpointBarrier(3, 0, {}))
    first.push([2])
    second.push(CancelCheckpointMarker(3))
    steps(task)
    assert gateway.declines and gateway.declines[0][0] == 3 and gateway.declines[0][1].startswith("canceled")
    assert not task.gate.is_blocked(0) and list(task.chain.operators[-1].records) == [[0, 2]]
    second.push(CheckpointBarrier(3, 0, {}))  # late barrier of the aborted checkpoint: ignored
    steps(task)
    assert gateway.acks == []


def join_job():
    """left --hash "lt"--> join <--hash "rt"-- right; join --forward "o"--> out."""
    return definition_of(
        [node("left", "source.datagen", count=10), node("right", "source.datagen", count=10),
         node("join", "join.interval", lower_ms=0, upper_ms=0), node("out", "sink.collect", max_records=1000)],
        [edge("left", "join", "hash", "x", id="lt", side="left"),
         edge("right", "join", "hash", "x", id="rt", side="right"), edge("join", "out", id="o")],
        parallelism=1, max_parallelism=16, checkpointing={"interval_ms": 1000})


def capped_task(tmp_path, inputs: str, max_aligned_bytes: int):
    """A keyed task of one input (``sum``, two channels of one edge) or two (``join``, one channel
    per side), aligning with ``max_aligned_bytes``; with its two input channels."""
    job_graph = build_job_graph(sum_job(node("out", "sink.collect")) if inputs == "one" else join_job())
    vertex = "sum" if inputs == "one" else "join"
    network, gateway = LocalNetwork(), RecordingGateway()
    checkpointing = {"interval_ms": 1000, "max_aligned_bytes": max_aligned_bytes}
    task = StreamTask(job_graph=job_graph, vertex=job_graph.vertex(vertex), index=0, network=network,
                      gateway=gateway, config={"checkpoint_storage": str(tmp_path / "chk"),
                                               "checkpointing": checkpointing, "batch_size": 4})
    task.before_invoke()
    if inputs == "one":
        return task, gateway, (channel(network, 0), channel(network, 1))
    return task, gateway, (channel(network, 0, edge="lt", source="left", target="join"),
                           channel(network, 0, edge="rt", source="right", target="join"))


@pytest.mark.parametrize("inputs", ["one", "two"])
def test_an_alignment_holding_back_more_than_max_aligned_bytes_is_declined_and_its_channel_released(tmp_path,
                                                                                                    inputs):
    """The cap holds for every task: a join's alignment too (its inputs were once built without it)."""
    task, gateway, (first, second) = capped_task(tmp_path, inputs, max_aligned_bytes=2_000)
    first.push(CheckpointBarrier(1, int(time.time() * 1000), {}))
    for start in range(0, 1000, 100):  # behind the barrier: held back while channel 0 is blocked
        first.push(TimestampedBatch(list(range(start, start + 100)), list(range(start, start + 100))))
    task.run_mailbox_step()
    assert task.gate.is_blocked(0) and task.held_back_bytes() > 2_000
    deadline = time.monotonic() + 10
    while not gateway.declines and time.monotonic() < deadline:  # the alignment check is a timer mail
        task.run_mailbox_step()
    assert [(checkpoint, reason.split(":")[0]) for checkpoint, reason in gateway.declines] == [(1, "alignment_limit")]
    assert not task.gate.is_blocked(0) and task.held_back_bytes() <= 2_000
    second.push(CheckpointBarrier(1, 0, {}))  # the declined checkpoint's late barrier: ignored
    steps(task)
    assert gateway.acks == []


def test_source_takes_the_coordinators_trigger_between_two_batches(tmp_path):
    task, network, gateway = build(tmp_path, "gen", parallelism=1)
    output = InputGate([network.input_channel(ChannelId("h", ("gen", 0), ("sum", 0)))])
    task.run_mailbox_step()  # first batch: 0..3
    task.trigger_checkpoint_from_coordinator(7, 0, {"kind": "checkpoint", "target": None,
                                                   "location": str(tmp_path / "chk" / "chk-7")})
    task.run_mailbox_step()  # the trigger mail runs before the next batch
    items = []
    while (polled := output.poll_next()) is not None:
        items.append(polled[1])
    assert items == [[0, 1, 2, 3], CheckpointBarrier(7, 0, {}), [4, 5, 6, 7]]
    assert gateway.acks[0]["state"]["operators"]["gen"]["operator_state"] == {"union/splits": 1}
    steps(task)
    tail = []
    while (polled := output.poll_next()) is not None:
        tail.append(polled[1])
    # a finished source ends event time, then its data; EndOfPartition follows when invoke() leaves the loop
    assert tail == [[8, 9], MAX_WATERMARK, EndOfData()]
    assert not task.processor.is_running


def test_two_phase_commit_sink_commits_on_notify_and_finishes_after_a_final_checkpoint(tmp_path):
    sink_dir = tmp_path / "files"
    task, network, gateway = build(tmp_path, "sum", sink=node("files", "sink.file", path=str(sink_dir)), parallelism=1)
    input_channel = channel(network, 0)
    input_channel.push([1, 3])
    input_channel.push(CheckpointBarrier(1, 0, {"location": str(tmp_path / "chk" / "chk-1")}))
    input_channel.push([5])
    input_channel.push(END_OF_PARTITION)
    steps(task)
    assert [ack["checkpoint_id"] for ack in gateway.acks] == [1]
    assert not list(sink_dir.glob("part-*"))  # pre-committed only
    assert task.processor.is_running  # waiting for a checkpoint after its end of input
    task.notify_checkpoint_complete(1)
    task.run_mailbox_step()
    committed = [line for p in sink_dir.glob("part-*") for line in p.read_text().splitlines()]
    assert committed == ["[1,1]", "[1,4]"]
    task.trigger_checkpoint_from_coordinator(2, 0, {"location": str(tmp_path / "chk" / "chk-2")})
    task.run_mailbox_step()
    assert [ack["checkpoint_id"] for ack in gateway.acks] == [1, 2]
    task.notify_checkpoint_complete(2)
    task.run_mailbox_step()
    assert not task.processor.is_running
    committed = sorted(line for p in sink_dir.glob("part-*") for line in p.read_text().splitlines())
    assert committed == ["[1,1]", "[1,4]", "[1,9]"]
