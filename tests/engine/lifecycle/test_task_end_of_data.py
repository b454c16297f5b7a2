"""End of data, end of input and stop-with-savepoint at one subtask, driven step by step.

The subtask under test is ``rec``: a recording operator between a two-subtask datagen
(hash edge: two input channels) and a collect sink (rebalance edge: one output channel),
so a test pushes items into its input channels, runs mailbox steps, and reads what it
sent downstream and which life-cycle calls its operator saw.
"""
from __future__ import annotations

import pytest

from engine.plan.channels import ChannelId
from engine.plan.job_graph import build_job_graph
from engine.runtime.io.events import (END_OF_DATA, END_OF_DATA_NO_DRAIN, END_OF_PARTITION, MAX_WATERMARK,
                                      CheckpointBarrier, EndOfData)
from engine.runtime.io.input_gate import InputGate
from engine.runtime.io.network import LocalNetwork
from engine.runtime.operators import OPERATOR_FACTORIES
from engine.runtime.stream_task import StreamTask
from engine.runtime.task_lifecycle import EndingData
from tests.builders import definition_of, edge, node
from tests.engine.lifecycle.support import Recorder


class Gateway:
    def __init__(self):
        self.acks, self.declines, self.finished, self.failed = [], [], [], []

    def acknowledge_checkpoint(self, ack):
        self.acks.append(ack["checkpoint_id"])

    def decline_checkpoint(self, checkpoint_id, task, reason):
        self.declines.append(checkpoint_id)

    def report_metrics(self, task, metrics):
        pass

    def task_finished(self, task, result):
        self.finished.append(task)

    def task_failed(self, task, error):
        self.failed.append(error)


@pytest.fixture(autouse=True)
def recorder(monkeypatch):
    monkeypatch.setitem(OPERATOR_FACTORIES, "test.recorder", "tests.engine.lifecycle.support:Recorder")
    Recorder.log = []
    return Recorder


def job_graph(rate=0, count=None):
    """gen --hash "h"--> rec --rebalance "r"--> out (the tests name channels by these edge ids)."""
    return build_job_graph(definition_of(
        [node("gen", "source.datagen", count=count, rate=rate), node("rec", "test.recorder", parallelism=1),
         node("out", "sink.collect", parallelism=1)],
        [edge("gen", "rec", "hash", "x % 2", id="h"), edge("rec", "out", "rebalance", id="r")],
        parallelism=2, max_parallelism=16, checkpointing={"interval_ms": 1000}))


def build(tmp_path, vertex="rec", index=0, **graph):
    graph_ = job_graph(**graph)
    network = LocalNetwork()
    gateway = Gateway()
    task = StreamTask(job_graph=graph_, vertex=graph_.vertex(vertex), index=index, network=network, gateway=gateway,
                      config={"checkpoint_storage": str(tmp_path / "chk"), "checkpointing": {"interval_ms": 1000},
                              "batch_size": 3})
    task.before_invoke()
    return task, network, gateway


def inputs(network):
    return [network.input_channel(ChannelId("h", ("gen", p), ("rec", 0))) for p in range(2)]


def output(network, producer=("rec", 0), edge="r"):
    return InputGate([network.input_channel(ChannelId(edge, producer, ("out", 0)))])


def drain(gate) -> list:
    items = []
    while (polled := gate.poll_next()) is not None:
        items.append(polled[1])
    return items


def steps(task, count=10):
    for _ in range(count):
        task.run_mailbox_step()


def calls(name):
    return [entry for entry in Recorder.log if entry[0] == name]


def test_end_of_data_on_every_channel_finishes_the_operators_and_barriers_still_pass(tmp_path):
    task, network, gateway = build(tmp_path)
    first, second = inputs(network)
    downstream = output(network)
    first.push([0, 2])
    first.push(END_OF_DATA)
    second.push([1])
    steps(task)
    assert not calls("finish"), "one channel still has data"
    second.push(END_OF_DATA)
    steps(task)
    assert calls("finish") == [("finish",)]
    assert drain(downstream) == [[0, 2], [1], EndOfData()]
    for channel in (first, second):  # an upstream subtask awaiting its final checkpoint
        channel.push(CheckpointBarrier(5, 0, {"location": str(tmp_path / "chk" / "chk-5")}))
    steps(task)
    assert gateway.acks == [5] and calls("snapshot") == [("snapshot", 5)]
    assert drain(downstream) == [CheckpointBarrier(5, 0, {})]
    assert task.processor.is_running, "the input has not ended: no EndOfPartition yet"
    first.push(END_OF_PARTITION)
    second.push(END_OF_PARTITION)
    steps(task)
    assert not task.processor.is_running
    assert len(calls("finish")) == 1


def test_end_of_partition_without_end_of_data_still_finishes_once(tmp_path):
    task, network, _ = build(tmp_path)
    for channel in inputs(network):
        channel.push([7])
        channel.push(END_OF_PARTITION)
    steps(task)
    assert calls("finish") == [("finish",)] and not task.processor.is_running
    assert drain(output(network))[-1] == END_OF_DATA


def test_stop_without_drain_never_finishes_the_operators(tmp_path):
    task, network, gateway = build(tmp_path)
    downstream = output(network)
    stop = {"kind": "savepoint", "stop": True, "drain": False, "location": str(tmp_path / "sp")}
    for channel in inputs(network):
        channel.push([4])
        channel.push(CheckpointBarrier(9, 0, stop))
    steps(task)
    assert gateway.acks == [9]
    for channel in inputs(network):
        channel.push(END_OF_DATA_NO_DRAIN)  # what sources send once the stop's savepoint completed
        channel.push(END_OF_PARTITION)
    steps(task)
    assert not task.processor.is_running
    assert not calls("finish"), "finish() only on a normal end"
    assert drain(downstream)[-1] == END_OF_DATA_NO_DRAIN


def test_source_stopped_without_drain_polls_no_more_and_ends_when_the_savepoint_completes(tmp_path):
    task, network, gateway = build(tmp_path, vertex="gen", rate=0)
    downstream = InputGate([network.input_channel(ChannelId("h", ("gen", 0), ("rec", 0)))])
    task.run_mailbox_step()
    stop = {"kind": "savepoint", "stop": True, "drain": False, "location": str(tmp_path / "sp")}
    task.trigger_checkpoint_from_coordinator(3, 0, stop)
    steps(task)
    items = drain(downstream)
    assert items[-1] == CheckpointBarrier(3, 0, {}), "nothing may follow the stop's barrier"
    assert gateway.acks == [3] and task.is_stopping
    task.notify_checkpoint_complete(3)
    task.run_mailbox_step()
    assert drain(downstream) == [END_OF_DATA_NO_DRAIN]
    assert not task.processor.is_running


def test_a_source_whose_data_is_ending_takes_a_stop_as_an_ordinary_savepoint_and_ends(tmp_path):
    """Whether a trigger stops the subtask is its state's decision: only a running source stops;
    one that already saw the end of its input takes the savepoint and ends as it would have."""
    task, network, gateway = build(tmp_path, vertex="gen", count=6)
    downstream = InputGate([network.input_channel(ChannelId("h", ("gen", 0), ("rec", 0)))])
    task.run_mailbox_step()  # its three records
    task.run_mailbox_step()  # the end of its input: the data ends at the next default action
    assert isinstance(task.state, EndingData)
    task.trigger_checkpoint_from_coordinator(5, 0, {"kind": "savepoint", "stop": True, "drain": False,
                                                    "location": str(tmp_path / "sp")})
    steps(task)
    assert gateway.acks == [5] and not task.is_stopping
    assert drain(downstream) == [[0, 2, 4], CheckpointBarrier(5, 0, {}), MAX_WATERMARK, END_OF_DATA]
    assert not task.processor.is_running


def test_source_resumes_when_the_stop_savepoint_fails(tmp_path):
    task, network, _ = build(tmp_path, vertex="gen")
    downstream = InputGate([network.input_channel(ChannelId("h", ("gen", 0), ("rec", 0)))])
    task.trigger_checkpoint_from_coordinator(4, 0, {"kind": "savepoint", "stop": True, "drain": False,
                                                    "location": str(tmp_path / "sp")})
    steps(task, 3)
    assert drain(downstream) == [CheckpointBarrier(4, 0, {})]
    task.notify_checkpoint_aborted(4)
    steps(task, 3)
    assert any(isinstance(item, list) for item in drain(downstream)), "the job goes on"
    assert task.processor.is_running and not task.is_stopping


def test_source_stopped_with_drain_ends_event_time_and_data_before_the_savepoint(tmp_path):
    task, network, gateway = build(tmp_path, vertex="gen")
    downstream = InputGate([network.input_channel(ChannelId("h", ("gen", 0), ("rec", 0)))])
    task.run_mailbox_step()
    task.trigger_checkpoint_from_coordinator(6, 0, {"kind": "savepoint", "stop": True, "drain": True,
                                                    "location": str(tmp_path / "sp")})
    steps(task)
    items = drain(downstream)
    assert items[-3:] == [MAX_WATERMARK, END_OF_DATA, CheckpointBarrier(6, 0, {})]
    assert gateway.acks == [6] and task.processor.is_running  # EndOfPartition only after completion
    task.notify_checkpoint_complete(6)
    task.run_mailbox_step()
    assert not task.processor.is_running and drain(downstream) == []


def test_source_stopped_with_drain_fails_when_its_savepoint_fails(tmp_path):
    task, _, _ = build(tmp_path, vertex="gen")
    task.trigger_checkpoint_from_coordinator(6, 0, {"kind": "savepoint", "stop": True, "drain": True,
                                                    "location": str(tmp_path / "sp")})
    steps(task, 2)
    task.notify_checkpoint_aborted(6)
    with pytest.raises(RuntimeError, match="stop with drain failed"):
        steps(task, 2)


def test_a_trigger_before_the_end_of_partition_arrives_is_taken_at_the_end_of_input(tmp_path):
    """The coordinator triggers a subtask whose upstream finished while its EndOfPartition is still queued."""
    sink = tmp_path / "files"
    graph = build_job_graph({
        "format": 1, "parallelism": 1, "max_parallelism": 16, "checkpointing": {"interval_ms": 1000},
        "nodes": [{"id": "gen", "type": "source.datagen", "params": {"count": 3}},
                  {"id": "files", "type": "sink.file", "params": {"path": str(sink)}}],
        "edges": [{"id": "h", "from": "gen", "to": "files", "partitioning": "rebalance"}]})
    network, gateway = LocalNetwork(), Gateway()
    task = StreamTask(job_graph=graph, vertex=graph.vertex("files"), index=0, network=network, gateway=gateway,
                      config={"checkpoint_storage": str(tmp_path / "chk"), "checkpointing": {"interval_ms": 1000}})
    task.before_invoke()
    channel = network.input_channel(ChannelId("h", ("gen", 0), ("files", 0)))
    channel.push([1, 2, 3])
    task.trigger_checkpoint_from_coordinator(2, 0, {"kind": "checkpoint", "location": str(tmp_path / "chk-2")})
    task.run_mailbox_step()  # the trigger runs first: the input has not ended, it is kept
    assert gateway.acks == []
    channel.push(END_OF_DATA)
    channel.push(END_OF_PARTITION)
    steps(task)
    assert gateway.acks == [2], "taken at the end of input: it covers all the data"
    assert task.processor.is_running, "a 2PC sink waits for that checkpoint to complete"
    task.notify_checkpoint_complete(2)
    task.run_mailbox_step()
    assert not task.processor.is_running
    assert sorted(p.read_text() for p in sink.glob("part-*.jsonl")) == ["1\n2\n3\n"]


def invoke_in_thread(tmp_path, pushes):
    import threading

    graph = job_graph()
    network, gateway = LocalNetwork(), Gateway()
    task = StreamTask(job_graph=graph, vertex=graph.vertex("rec"), index=0, network=network, gateway=gateway,
                      config={"checkpoint_storage": str(tmp_path / "chk"), "checkpointing": {"interval_ms": 1000}})
    for channel, item in pushes(inputs(network)):
        channel.push(item)
    thread = threading.Thread(target=task.invoke)
    thread.start()
    return task, gateway, thread


def test_finish_then_close_on_a_normal_end(tmp_path):
    task, gateway, thread = invoke_in_thread(
        tmp_path, lambda channels: [(c, item) for c in channels for item in ([1], END_OF_DATA, END_OF_PARTITION)])
    thread.join(10)
    assert gateway.finished == [("rec", 0)]
    names = [entry[0] for entry in Recorder.log]
    assert names[:2] == ["initialize_state", "open"] and names[-2:] == ["finish", "close"]


def test_close_without_finish_when_canceled(tmp_path):
    task, gateway, thread = invoke_in_thread(tmp_path, lambda channels: [(channels[0], [1])])
    from tests.support import wait_until

    wait_until(lambda: calls("process"), 10, "the first batch")
    task.cancel()
    thread.join(10)
    assert not thread.is_alive() and gateway.finished == [] and gateway.failed == []
    assert calls("close") == [("close",)] and not calls("finish")
