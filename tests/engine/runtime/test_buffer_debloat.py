"""Buffer debloating: the debloater's arithmetic, producers cutting buffers, the announcement over TCP."""
from __future__ import annotations

import pytest

from engine.cluster.local import LocalCluster
from engine.plan.channels import ChannelId
from engine.runtime.io.buffer_debloater import BufferDebloater, DebloatSettings
from engine.runtime.io.events import TimestampedBatch
from engine.runtime.io.input_gate import InputGate
from engine.runtime.io.local_channel import LocalChannel
from engine.runtime.io.partitioner import RoundRobinPartitioner
from engine.runtime.io.record_writer import RecordWriter
from tests.support import connected_networks, wait_until


def settings(**overrides):
    return DebloatSettings.from_config({"enabled": True, **overrides}, batch_size=1024)


def test_defaults_and_bounds():
    defaults = settings()
    assert (defaults.target_ms, defaults.max_buffer_records, defaults.threshold_percent) == (1000, 1024, 25)
    assert not DebloatSettings.from_config(None, 1024).enabled


def test_the_buffer_size_converges_to_target_time_worth_of_data_smoothly():
    debloater = BufferDebloater(settings(samples=10), number_of_channels=2, capacity=8)
    announced = []
    for _ in range(60):  # 1 record per busy millisecond: 1000 records in flight take the 1 s target
        size = debloater.on_sample(records=100, busy_ms=100)
        if size is not None:
            announced.append(size)
    assert announced[0] < 1024 and announced == sorted(announced, reverse=True), "smoothed: steps down, never back"
    assert len(announced) < 20, "only changes beyond the threshold are announced"
    assert abs(debloater.announced - 1000 / 16) <= 1000 / 16 * 0.25


def test_idle_periods_teach_nothing_and_sizes_stay_within_bounds():
    debloater = BufferDebloater(settings(min_buffer_records=20, samples=1), number_of_channels=1, capacity=8)
    assert debloater.on_sample(records=0, busy_ms=0) is None
    assert debloater.on_sample(records=1, busy_ms=1000) == 20  # 1 record/s would want 0.125 per buffer
    assert debloater.on_sample(records=10**9, busy_ms=1) == 1024


def test_writer_cuts_parts_to_the_announced_size_and_budgets_a_step():
    channels = [LocalChannel(ChannelId("e", ("a", 0), ("b", i)), capacity=100) for i in range(2)]
    writer = RecordWriter("e", channels, RoundRobinPartitioner(2), debloat=True)
    assert writer.step_budget() is None, "nothing announced yet"
    channels[0].announce_buffer_size(3)
    channels[1].announce_buffer_size(2)
    assert writer.step_budget() == 5
    writer.emit(TimestampedBatch(list(range(10)), [t * 10 for t in range(10)]))
    gate = InputGate(channels)
    buffers = []
    while (polled := gate.poll_next()) is not None:
        buffers.append(polled)
    assert all(len(buffer) <= (3 if channel == 0 else 2) for channel, buffer in buffers)
    assert sorted(x for _, buffer in buffers for x in buffer) == list(range(10))
    assert all(buffer.timestamps == [x * 10 for x in buffer] for _, buffer in buffers)
    broadcast = RecordWriter("e", channels, None, debloat=True)
    assert broadcast.step_budget() == 2, "broadcast: every channel gets all of it"


def test_the_announcement_travels_back_to_a_remote_producer():
    with connected_networks(capacity=4) as networks:
        channel_id = ChannelId("e", ("a", 0), ("b", 0))
        producer = networks[0].output_channel(channel_id)
        consumer = networks[1].input_channel(channel_id)
        InputGate([consumer])
        assert producer.buffer_size is None
        consumer.announce_buffer_size(17)
        wait_until(lambda: producer.buffer_size == 17, 10, "the BUFFER_SIZE frame")


def backpressured(debloat: dict | None, count=30000):
    return {"format": 1, "name": "debloat", "parallelism": 1, "checkpointing": {"interval_ms": 50},
            "restart": {"strategy": "none"}, **({"debloat": debloat} if debloat else {}),
            "nodes": [{"id": "gen", "type": "source.datagen", "params": {"count": count}},
                      {"id": "work", "type": "transform.map", "params": {"expression": "sum([x] * 2000) // 2000"}},
                      {"id": "out", "type": "sink.collect", "params": {"max_records": 1}}],
            "edges": [{"id": "e1", "from": "gen", "to": "work", "partitioning": "rebalance"},
                      {"id": "e2", "from": "work", "to": "out"}]}


@pytest.mark.parametrize("network", ["local", "tcp"])
def test_a_backpressured_consumer_shrinks_what_is_in_flight_and_loses_nothing(tmp_path, network):
    debloat = {"enabled": True, "target_ms": 20, "period_ms": 20, "samples": 2, "min_buffer_records": 4}
    job = LocalCluster(config={"batch_size": 512, "network": network}).job_master(
        backpressured(debloat), checkpoint_dir=str(tmp_path / "c"))
    result = job.run(timeout=60)
    assert result.status == "FINISHED", result.failure
    assert result.counts["out"] == 30000
    assert job._metrics[("work", 0)]["buffer_size"] < 512
    completed = [e for e in result.events if e["type"] == "checkpoint" and e["event"] == "completed"]
    assert completed, "checkpoints still complete"


def test_debloating_is_off_unless_enabled(tmp_path):
    job = LocalCluster(config={"batch_size": 64}).job_master(backpressured(None, count=2000),
                                                             checkpoint_dir=str(tmp_path / "c"))
    result = job.run(timeout=60)
    assert result.status == "FINISHED" and "buffer_size" not in job._metrics[("work", 0)]


def test_batch_mode_ignores_debloating(tmp_path):
    definition = {**backpressured({"enabled": True}, count=500), "mode": "batch"}
    result = LocalCluster().run(definition, timeout=60, checkpoint_dir=str(tmp_path / "c"))
    assert result.status == "FINISHED" and result.counts["out"] == 500
