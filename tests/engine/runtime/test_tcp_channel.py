"""TCP channels with credit-based flow control, between slots as separate processes would have them."""
from __future__ import annotations

import socket
import threading
import time
from collections import Counter

import numpy as np
import pytest

from engine.cluster.local import LocalCluster
from engine.plan.channels import ChannelId
from engine.runtime.io.events import END_OF_PARTITION, CheckpointBarrier
from engine.runtime.io.input_gate import InputGate
from engine.runtime.io.tcp_channel import RemoteInputChannel, RemoteOutputChannel
from tests.support import connected_networks, wait_until

CAPACITY = 4


def keyed_job(parallelism=2, count=20000, rate=0):
    return {"format": 1, "name": "tcp", "parallelism": parallelism, "max_parallelism": 32,
            "checkpointing": {"interval_ms": 30}, "restart": {"strategy": "none"},
            "nodes": [{"id": "gen", "type": "source.datagen", "params": {"count": count, "rate": rate}},
                      {"id": "sum", "type": "aggregate.reduce", "params": {"function": "count"}},
                      {"id": "out", "type": "sink.collect", "params": {"max_records": 100000}}],
            "edges": [{"id": "h", "from": "gen", "to": "sum", "partitioning": "hash", "key": "x % 10"},
                      {"id": "o", "from": "sum", "to": "out"}]}


def run(definition, tmp_path, kill_hook=None):
    job = LocalCluster(config={"network": "tcp", "channel_capacity": CAPACITY, "batch_size": 200}).job_master(
        definition, checkpoint_dir=str(tmp_path / "c"), kill_hook=kill_hook)
    result = job.run(timeout=60)
    return job, result


def test_pair_of_networks_carries_buffers_and_events_in_order():
    with connected_networks(capacity=2) as networks:
        channel_id = ChannelId("e", ("a", 0), ("b", 0))
        output = networks[0].output_channel(channel_id)
        assert isinstance(output, RemoteOutputChannel)
        items = [[1, (2, "x")], CheckpointBarrier(1, 5), [3], [4], [5], END_OF_PARTITION]
        for item in items:
            output.push(item)
        receiver = networks[1].input_channel(channel_id)
        assert isinstance(receiver, RemoteInputChannel)
        gate = InputGate([receiver])
        received = []
        deadline = time.monotonic() + 10
        while len(received) < len(items) and time.monotonic() < deadline:
            polled = gate.poll_next()
            if polled is None:
                time.sleep(0.001)
                continue
            received.append(polled[1])
        assert received == items
        assert receiver.max_queued <= 2 + 2  # its credit (capacity 2) plus the events


def _received(gate, count: int) -> list:
    received = []
    deadline = time.monotonic() + 10
    while len(received) < count and time.monotonic() < deadline:
        polled = gate.poll_next()
        if polled is None:
            time.sleep(0.001)
            continue
        received.append(polled[1])
    return received


def test_int64_arrays_cross_as_buffers_and_arrive_as_lists_of_python_ints():
    with connected_networks(capacity=2) as networks:
        channel_id = ChannelId("e", ("a", 0), ("b", 0))
        output = networks[0].output_channel(channel_id)
        arrays = [np.array([1, -2, 2**62], dtype=np.int64), np.arange(3, 6, dtype=np.int64),
                  np.array([-(2**62)], dtype=np.int64)]
        for array in arrays:
            output.push(array)
        output.push(END_OF_PARTITION)
        gate = InputGate([networks[1].input_channel(channel_id)])
        assert not output.wait_until_sent(0.2), "an array is a buffer: the third waits for credit"
        received = _received(gate, 4)
        assert received == [[1, -2, 2**62], [3, 4, 5], [-(2**62)], END_OF_PARTITION]
        assert all(type(record) is int for buffer in received[:3] for record in buffer)
        assert output.int_arrays_sent == 3


def test_arrays_waiting_for_credit_become_lists_in_the_output_channel_state():
    """An unaligned barrier overtakes what waits for credit; that state is stored as records
    (the state files load data types only, never numpy's)."""
    with connected_networks(capacity=2) as networks:
        output = networks[0].output_channel(ChannelId("e", ("a", 0), ("b", 0)))
        output.push(np.arange(3, dtype=np.int64))
        output.push([7])
        overtaken = output.push_priority(CheckpointBarrier(1, 5, {"unaligned": True}))
        assert overtaken == [[0, 1, 2], [7]] and all(type(item) is list for item in overtaken)


def test_keyed_job_across_tcp_channels(tmp_path):
    # paced over about 2 s, so checkpoints (every 30 ms) complete across the channels however loaded the
    # machine: unpaced, the job once ended in 0.28 s at load 10 before its first checkpoint completed
    job, result = run(keyed_job(rate=10000), tmp_path)
    assert result.status == "FINISHED", result.failure
    finals = {}
    for key, count in result.collected["out"]:
        finals[key] = count
    assert finals == {key: 2000 for key in range(10)}
    assert result.checkpoints["counts"]["completed"] >= 1


def test_a_columnar_keyed_job_sends_its_parts_as_arrays_and_counts_exactly(tmp_path):
    definition = keyed_job(count=30000)
    definition["nodes"].insert(1, {"id": "shift", "type": "transform.map", "params": {"expression": "x + 0"}})
    definition["edges"] = [{"id": "m", "from": "gen", "to": "shift"},
                           {"id": "h", "from": "shift", "to": "sum", "partitioning": "hash", "key": "x % 10"},
                           {"id": "o", "from": "sum", "to": "out"}]
    job, result = run(definition, tmp_path)
    assert result.status == "FINISHED", result.failure
    finals = dict(result.collected["out"])
    assert finals == {key: 3000 for key in range(10)}
    assert sorted(count for key, count in result.collected["out"] if key == 3) == list(range(1, 3001))
    outputs = [channel for network in job.deployer.networks for channel in network.remote_channels()
               if isinstance(channel, RemoteOutputChannel)]
    assert sum(channel.int_arrays_sent for channel in outputs) > 0, "parts crossed as int64 arrays"


def test_slow_sink_keeps_memory_bounded(tmp_path):
    """A fast source in slot 0 and, in slot 1, a sink that takes 2 ms per buffer: the queues of
    the TCP channel between them never exceed its credit, however far the source could run ahead."""
    def slow_sink(point, task, info):
        if point == "process" and task == ("sum", 1):
            time.sleep(0.002)
        return False

    definition = keyed_job(count=40000)
    definition["nodes"][0]["parallelism"] = 1
    job, result = run(definition, tmp_path, kill_hook=slow_sink)
    assert result.status == "FINISHED", result.failure
    assert sum(count for _, count in Counter(k for k, _ in result.collected["out"]).items()) == 40000
    remote = [channel for network in job.deployer.networks for channel in network.remote_channels()]
    outputs = [channel for channel in remote if isinstance(channel, RemoteOutputChannel)]
    inputs = [channel for channel in remote if isinstance(channel, RemoteInputChannel)]
    assert outputs and inputs, "the job crossed slots over TCP"
    # the source ran into the credit limit (backpressure happened) ...
    assert max(channel.max_queued for channel in outputs) >= CAPACITY
    assert max(channel.max_queued for channel in inputs) >= CAPACITY
    # ... and the queues stayed bounded: sender at capacity plus the step in hand, receiver at its
    # credit plus in-band events
    for channel in remote:
        assert channel.max_queued <= CAPACITY + 4, (channel.channel_id, channel.max_queued)


def test_a_producer_waits_until_its_remote_channels_sent_everything():
    """Data waiting for credit must go out before the producer reports finished: its slot then
    closes the connection, and what was still queued would be lost."""
    with connected_networks(capacity=2) as networks:
        channel_id = ChannelId("e", ("a", 0), ("b", 0))
        output = networks[0].output_channel(channel_id)
        output.push([1])
        output.push(END_OF_PARTITION)
        assert not output.wait_until_sent(0.05), "no credit yet: the consumer has not opened its end"
        InputGate([networks[1].input_channel(channel_id)])  # binds: grants the credit
        assert output.wait_until_sent(10)


def test_an_event_waits_until_the_consumer_bound_its_end():
    """An event needs no credit, but it must not reach a slot whose consumer subtask has not
    built its input channel yet: that slot could not tell which channel the frame is for."""
    with connected_networks(capacity=2) as networks:
        channel_id = ChannelId("e", ("a", 0), ("b", 0))
        output = networks[0].output_channel(channel_id)
        barrier = CheckpointBarrier(1, 5)
        output.push(barrier)
        assert not output.wait_until_sent(0.05), "sent before the consumer's end existed"
        gate = InputGate([networks[1].input_channel(channel_id)])
        assert output.wait_until_sent(10)
        received = wait_until(gate.poll_next, 10, "the barrier at the consumer", interval=0.001)
        assert received[1] == barrier


def test_closing_a_network_ends_its_threads_and_stops_listening():
    """A Spark Python worker is reused for the next run: a closed network must leave no
    thread blocked in ``accept`` and no port listening behind it."""
    before = set(threading.enumerate())
    with connected_networks(capacity=2) as networks:
        channel_id = ChannelId("e", ("a", 0), ("b", 0))
        networks[0].output_channel(channel_id).push([1])
        InputGate([networks[1].input_channel(channel_id)])
        addresses = [network.address for network in networks]
        assert set(threading.enumerate()) - before, "the networks run threads of their own"
    wait_until(lambda: not {thread for thread in set(threading.enumerate()) - before if thread.is_alive()}, 10,
               "the networks' threads to end", interval=0.01)
    for address in addresses:
        with pytest.raises(ConnectionRefusedError):
            socket.create_connection(address, timeout=5).close()
