"""Latency markers cost per marker, never per record: checked by what runs, not by how long it takes.

A writer over two channels feeds a reading subtask (its network input and a chain of two
operators), all in this thread; ``sys.setprofile`` lists the Python functions a step calls. The
figures of what markers cost are ``make bench-markers`` (``docs/performance.md``).
"""
from __future__ import annotations

import sys
from pathlib import Path

from engine.runtime.io.events import LatencyMarker
from engine.runtime.io.input_gate import InputGate
from engine.runtime.io.local_channel import LocalChannel
from engine.runtime.io.partitioner import RoundRobinPartitioner
from engine.runtime.io.record_writer import RecordWriter
from engine.runtime.io.stream_input import NetworkInput
from engine.runtime.operator_chain import OperatorChain
from engine.runtime.operators.base import StreamOperator

BUFFER = 32
"""Records per output buffer: a batch of ``2 * BUFFER`` fills one buffer per channel, which leaves at once."""


class Passing(StreamOperator):
    def __init__(self, node_id):
        self.node_id = node_id
        self.side_outputs = {}
        self.seen = 0

    def process_batch(self, batch):
        self.seen += len(batch)
        self.emit(batch)


class Pipeline:
    """An upstream chain writing over two channels; the subtask reading them."""

    def __init__(self):
        self.channels = [LocalChannel(index) for index in range(2)]
        self.writer = RecordWriter("e", self.channels, RoundRobinPartitioner(2), buffer_records=BUFFER,
                                   buffer_timeout_s=3600.0)
        self.upstream = OperatorChain([Passing("source"), Passing("map")], {"map": [self.writer]})
        self.downstream = OperatorChain([Passing("reduce"), Passing("sink")], {})
        self.input = NetworkInput(InputGate(self.channels), None, self.downstream.head.process_batch,
                                  lambda watermark: None,
                                  process_latency_marker=lambda marker: self.downstream.process_latency_marker(
                                      marker, 2000.0))

    def records(self, count: int = 2 * BUFFER) -> None:
        """``count`` records from the source through the writer, and the reading subtask's input drained."""
        self.upstream.head.process_batch(list(range(count)))
        self.drain()

    def marker(self) -> None:
        """A marker from the source subtask (as its timer mail emits one), and the input drained."""
        self.upstream.process_latency_marker(LatencyMarker(1000.0, "source#0", 1000.0), 1000.0, first=1)
        self.drain()

    def drain(self) -> None:
        while self.input.process_input().name == "MORE_AVAILABLE":
            pass


def calls_during(action) -> list[tuple[str, str]]:
    """The Python functions ``action`` called (file name, function), in order."""
    calls: list[tuple[str, str]] = []

    def profile(frame, event, _arg):
        if event == "call":
            calls.append((Path(frame.f_code.co_filename).name, frame.f_code.co_name))

    sys.setprofile(profile)
    try:
        action()
    finally:
        sys.setprofile(None)
    return [call for call in calls if call[1] != "calls_during"]


def test_records_take_the_same_path_before_and_after_markers_passed():
    pipeline = Pipeline()
    pipeline.records()  # the first batch may set things up once
    without = calls_during(pipeline.records)
    for _ in range(3):
        pipeline.marker()
    after = calls_during(pipeline.records)
    assert pipeline.downstream.per_operator_metrics(0, None)["sink"]["latency"]["markers"] == 3, "markers went through"
    assert after == without
    assert not [call for call in without if "latency" in call[0] or "latency" in call[1]], \
        "no latency code on the records' path"


def test_a_markers_work_does_not_grow_with_the_records_before_it():
    """The records a marker finds in its channel's output buffer leave before it, as one buffer, however
    many they are."""
    few, many = Pipeline(), Pipeline()
    for pipeline in (few, many):
        pipeline.records(100 * BUFFER)
    few.upstream.head.process_batch(list(range(2)))  # one record in each channel's output buffer
    many.upstream.head.process_batch(list(range(2 * BUFFER - 2)))  # a record short of full in each
    assert calls_during(few.marker) == calls_during(many.marker)
