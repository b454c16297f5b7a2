"""Output buffers on the edges into a join leave with a watermark once one holds a quarter of a batch.

A join keeps each record until a watermark lets it go, so a watermark held back in a filling
output buffer keeps that much more event time of records in the join (``record_writer``,
``watermarks_send_buffers``); sent with every watermark, though, each buffer at parallelism 2
carried half of what parallelism 1 pushes, and paid a frame and two wake-ups for it
(``watermark_send_min_records``, the deployment setting ``join_buffer_min_records``: a quarter of
the batch size by default, 0 for every watermark). Into any other consumer the buffers fill as
before, watermarks inside them.
"""
from __future__ import annotations

from pathlib import Path

from engine.plan.channels import ChannelId
from engine.plan.job_graph import build_job_graph
from engine.runtime.io.events import CheckpointBarrier, TimestampedBatch, Watermark
from engine.runtime.io.input_gate import InputGate
from engine.runtime.io.local_channel import LocalChannel
from engine.runtime.io.network import LocalNetwork
from engine.runtime.io.partitioner import RoundRobinPartitioner
from engine.runtime.io.record_writer import RecordWriter
from engine.runtime.operators.joins.two_input import keeps_records_until_watermark
from engine.runtime.stream_task import StreamTask
from tests.builders import edge, node, pipeline
from tests.engine.cluster.test_fan_out_chain_jobs import fan_out_join
from tests.engine.runtime.test_channels_and_gate import drain, elements
from tests.engine.runtime.test_stream_task import RecordingGateway


def write_batches(**options) -> list[list]:
    """Five batches with a watermark after each, a barrier, one more: what each of two channels got."""
    channels = [LocalChannel(i) for i in range(2)]
    gates = [InputGate([channel]) for channel in channels]
    writer = RecordWriter("e", channels, RoundRobinPartitioner(2), inline_watermarks=True, **options)
    for step in range(5):
        writer.emit(TimestampedBatch(range(step * 3, step * 3 + 3), range(step * 30, step * 30 + 3)))
        writer.broadcast_event(Watermark(step * 30 + 2))
    writer.broadcast_event(CheckpointBarrier(1, 0))
    writer.emit(TimestampedBatch([7], [300]))
    writer.flush()
    return [[item for _, item in drain(gate)] for gate in gates]


def test_watermarks_that_send_the_buffers_leave_inside_them_in_the_same_order():
    sent, filled = write_batches(watermarks_send_buffers=True), write_batches()
    assert [elements(items) for items in sent] == [elements(items) for items in filled]
    for items in sent:
        buffers = [item for item in items if isinstance(item, TimestampedBatch) and item.watermarks]
        assert len(buffers) == 5, "one buffer per watermark and channel"
        assert all(item.watermarks == [(len(item), mark)] for item, mark in
                   zip(buffers, (Watermark(step * 30 + 2) for step in range(5)))), "each watermark ends its buffer"
    assert all(len([item for item in items if getattr(item, "watermarks", None)]) == 1 for items in filled), \
        "without the option the buffers fill across watermarks"


def test_a_watermark_sends_the_buffers_once_one_of_them_holds_the_least_records():
    least = 4
    held = write_batches(watermarks_send_buffers=True, watermark_send_min_records=least, buffer_timeout_s=1e6)
    filled = write_batches()
    assert [elements(items) for items in held] == [elements(items) for items in filled]
    before_barrier = [[item for item in items[:next(i for i, item in enumerate(items)
                                                       if isinstance(item, CheckpointBarrier))]
                       if isinstance(item, TimestampedBatch)] for items in held]
    sent_together = list(zip(*before_barrier))
    assert sent_together, "some buffers left with a watermark before the barrier"
    for buffers in sent_together[:-1]:  # the last ones before the barrier left with it, not with a watermark
        assert all(buffer.watermarks[-1][0] == len(buffer) for buffer in buffers), "a watermark sent them"
        assert max(len(buffer) for buffer in buffers) >= least, "one of them held the least records"
        assert all(buffer.watermarks[-2][0] < least for buffer in buffers if len(buffer.watermarks) > 1), \
            "no earlier watermark found that many records in one of them"
    assert any(len(buffer.watermarks) > 1 for buffers in sent_together for buffer in buffers), \
        "the watermarks before it waited in the buffers"


def test_without_the_least_records_every_watermark_sends_the_buffers():
    for least in (0, 1):
        sent = write_batches(watermarks_send_buffers=True, watermark_send_min_records=least)
        assert sent == write_batches(watermarks_send_buffers=True)


def test_a_debloated_or_unpartitioned_writer_ignores_the_option():
    channels = [LocalChannel(i) for i in range(2)]
    assert not RecordWriter("e", channels, None, inline_watermarks=True, watermarks_send_buffers=True).watermarks_send_buffers
    assert not RecordWriter("e", channels, RoundRobinPartitioner(2), debloat=True, inline_watermarks=True,
                            watermarks_send_buffers=True).watermarks_send_buffers
    assert not RecordWriter("e", channels, RoundRobinPartitioner(2), watermarks_send_buffers=True).watermarks_send_buffers


def source_task_outputs(job: dict, edges: set[str], **config) -> dict[str, list]:
    """Run subtask 0 of ``job``'s source vertex to its end; what it pushed into each channel of ``edges``."""
    job_graph = build_job_graph(job)
    source = job_graph.vertices[0]
    network = LocalNetwork(capacity=100_000)
    task = StreamTask(job_graph=job_graph, vertex=source, index=0, network=network, gateway=RecordingGateway(),
                      config={"checkpoint_storage": "unused", "checkpointing": {"interval_ms": 10**9},
                              "batch_size": 64, **config})
    task.before_invoke()
    for _ in range(500):  # 4,000 records in polls of 64
        task.run_mailbox_step()
    found: dict[str, list] = {}
    for out in job_graph.outputs_of(source.id):
        if out.id not in edges:
            continue
        for consumer in range(job_graph.vertex(out.target).parallelism):
            channel = network.input_channel(ChannelId(out.id, (source.id, 0), (out.target, consumer)))
            items = found.setdefault(f"{out.id}->{consumer}", [])
            while (popped := channel.pop())[0] is not None:
                items.append(popped[0])
    return found


def test_with_the_setting_0_the_edges_into_a_join_send_each_watermark_in_a_buffer_of_its_own(tmp_path: Path):
    job = fan_out_join(tmp_path, rate=0)
    job_graph = build_job_graph(job)
    into_join = {out.id for out in job_graph.inputs_of("j")}
    outputs = source_task_outputs(job, into_join, join_buffer_min_records=0)
    assert len(outputs) == 4, outputs.keys()
    for channel, items in outputs.items():
        buffers = [item for item in items if isinstance(item, TimestampedBatch)]
        marks = [item.watermarks for item in buffers if item.watermarks]
        assert marks, f"{channel}: the source's watermarks did not reach the join"
        assert all(len(held) == 1 and held[0][0] == len(item) for item, held in
                   ((item, item.watermarks) for item in buffers if item.watermarks)), \
            f"{channel}: a buffer into the join held back a watermark behind later records"


def test_without_the_setting_the_buffers_into_a_join_fill_across_watermarks(tmp_path: Path):
    job = fan_out_join(tmp_path, rate=0)
    into_join = {out.id for out in build_job_graph(job).inputs_of("j")}
    outputs = source_task_outputs(job, into_join, join_buffers_per_watermark=False)
    held = [len(item.watermarks) for items in outputs.values() for item in items
            if isinstance(item, TimestampedBatch) and item.watermarks]
    assert held and max(held) > 1


def test_only_the_edges_into_a_join_send_their_buffers_with_watermarks(tmp_path: Path):
    joined = build_job_graph(fan_out_join(tmp_path, rate=0))
    assert all(keeps_records_until_watermark(into, joined.vertex(into.target)) for into in joined.inputs_of("j"))
    windowed = build_job_graph(pipeline(
        [node("src", "source.datagen", count=10), node("st", "transform.watermark", timestamp="x"),
         node("w", "window.tumbling", size_ms=10, function="count"), node("out", "sink.collect")],
        [edge("src", "st"), edge("st", "w", "hash", "x % 2"), edge("w", "out")], parallelism=2))
    (into_window,) = windowed.inputs_of("w")
    assert not keeps_records_until_watermark(into_window, windowed.vertex(into_window.target))


def test_the_edges_into_a_join_send_their_buffers_with_the_watermark_that_finds_the_least_records_in_one(
        tmp_path: Path):
    """Batches of 64: each watermark finds about 19 and 13 records of a batch in the two channels of an edge."""
    job = fan_out_join(tmp_path, rate=0)
    into_join = {out.id for out in build_job_graph(job).inputs_of("j")}
    least = 48
    outputs = source_task_outputs(job, into_join, join_buffer_min_records=least,
                                  buffer_timeout_ms=10**6)  # no buffer leaves by its age
    buffers = {channel: [item for item in items if isinstance(item, TimestampedBatch)] for channel, items in outputs.items()}
    assert all(buffers.values()), "every channel into the join got buffers"
    for channel, sent in buffers.items():
        assert all(item.watermarks and item.watermarks[-1][0] == len(item) for item in sent), \
            f"{channel}: a buffer left without a watermark at its end"
        assert all(item.watermarks[-2][0] < least for item in sent if len(item.watermarks) > 1), \
            f"{channel}: a watermark that found the least records in this buffer did not send it"
    held = [len(item.watermarks) for sent in buffers.values() for item in sent]
    assert max(held) > 1, "the watermarks waited in the buffers until one held the least records"
    assert all(len(item) < least + 64 for sent in buffers.values() for item in sent), "held for a few batches at most"


def test_by_default_a_buffer_into_a_join_waits_for_a_quarter_of_the_batch_size(tmp_path: Path):
    job_graph = build_job_graph(fan_out_join(tmp_path, rate=0))

    def least(**config) -> int:
        task = StreamTask(job_graph=job_graph, vertex=job_graph.vertices[0], index=0, network=LocalNetwork(),
                          gateway=RecordingGateway(), config={"checkpoint_storage": "unused", **config})
        return task._join_buffer_min_records()

    assert least() == 256
    assert least(batch_size=64) == 16
    assert least(batch_size=64, join_buffer_min_records=0) == 0
    assert least(join_buffer_min_records=100) == 100
