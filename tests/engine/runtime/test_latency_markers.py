"""Latency markers: sources emit them every interval, they travel with the records, each operator
records their age per source subtask and the head of a task the hop they came over; the figures
are part of the operators' metrics. Off unless asked for. A slow operator makes the markers wait
in front of it: the sink's latency rises and the largest hop is the one into the slow operator;
behind a delay of known length, the markers' p50 is that delay, within 20% of what the records
took in the same run. Both deployments."""
from __future__ import annotations

import threading

from engine.runtime.latency_stats import percentile
from tests.builders import edge, node, pipeline
from tests.engine.slow_operators import (
    register_marker_delay_operators,
    register_slow_operator,
)
from tests.support import wait_until

TIMEOUT_S = 120


class MetricsWatch:
    """Keeps the latest ``metrics`` event of a job; ``latest`` is read while the job runs."""

    def __init__(self):
        self._lock = threading.Lock()
        self._latest: dict | None = None

    def __call__(self, event: dict) -> None:
        if event["type"] == "metrics":
            with self._lock:
                self._latest = event

    def operator(self, node_id: str) -> list[dict]:
        """Every subtask's figures of ``node_id`` in the latest metrics event."""
        with self._lock:
            event = self._latest
        if event is None:
            return []
        return [report["operators"][node_id] for report in event["tasks"].values()
                if node_id in (report.get("operators") or {})]


def latency_of(watch: MetricsWatch, node_id: str, what: str = "latency") -> list[dict]:
    return [figures[what] for figures in watch.operator(node_id) if what in figures]


def test_markers_reach_every_operator_after_the_source_with_their_age_per_source_subtask(deployment, tmp_path):
    job = pipeline([node("gen", "source.datagen", rate=2000), node("shape", "transform.map", expression="x + 1"),
                    node("out", "sink.collect")],
                   [edge("gen", "shape", "hash", "x % 10"), edge("shape", "out")], parallelism=2,
                   interval_ms=500, latency_tracking={"interval_ms": 20})
    watch = MetricsWatch()
    handle = deployment.submit(job, checkpoint_dir=str(tmp_path / "c"), on_event=watch, timeout=TIMEOUT_S)
    try:
        sources = wait_until(lambda: _all_sources_seen(latency_of(watch, "out")), 60,
                             "the sink's markers from both source subtasks")
    finally:
        handle.cancel()
        handle.wait(60)
    assert sources == {"gen#0", "gen#1"}
    for figures in latency_of(watch, "out"):
        assert 0 <= figures["p50_ms"] <= figures["p99_ms"] <= figures["max_ms"]
        assert figures["markers"] == sum(source["markers"] for source in figures["sources"].values())
    hops = latency_of(watch, "shape", "hop_latency")
    assert hops and all(hop["markers"] > 0 for hop in hops), "the head after the hash edge records the hop"
    assert not latency_of(watch, "out", "hop_latency"), "a chained operator came over no channel"
    assert not latency_of(watch, "gen"), "a source does not record its own markers"


def _all_sources_seen(figures: list[dict]) -> set[str] | None:
    seen = {source for subtask in figures for source in subtask["sources"]}
    return seen if seen == {"gen#0", "gen#1"} else None


def test_without_latency_tracking_no_marker_is_sent(deployment, tmp_path):
    job = pipeline([node("gen", "source.datagen", count=3000, rate=6000), node("out", "sink.collect")],
                   [edge("gen", "out", "rebalance")], parallelism=2, interval_ms=100)
    events = []
    result = deployment.run(job, checkpoint_dir=str(tmp_path / "c"), on_event=events.append)
    assert result.status == "FINISHED", result.failure
    reports = [report for event in events if event["type"] == "metrics" for report in event["tasks"].values()]
    assert reports
    assert not [figures for report in reports for figures in report["operators"].values() if "latency" in figures]


def test_the_definitions_interval_wins_over_the_deployments_and_zero_is_off(tmp_path):
    from tests.engine.deployers import InProcessDeployment

    def operators_with_latency(latency_tracking: dict | None) -> set[str]:
        fields = {} if latency_tracking is None else {"latency_tracking": latency_tracking}
        job = pipeline([node("gen", "source.datagen", count=2000, rate=4000), node("out", "sink.collect")],
                       [edge("gen", "out", "rebalance")], interval_ms=100, **fields)
        events = []
        result = InProcessDeployment({"latency_interval_ms": 10}).run(
            job, checkpoint_dir=str(tmp_path / str(latency_tracking)), on_event=events.append)
        assert result.status == "FINISHED", result.failure
        return {node_id for event in events if event["type"] == "metrics" for report in event["tasks"].values()
                for node_id, figures in report["operators"].items() if "latency" in figures}

    assert operators_with_latency(None) == {"out"}, "the deployment's default interval"
    assert operators_with_latency({"interval_ms": 0}) == set()


SLOW_DELAY_MS = 40
"""What the slow operator takes per batch."""


def test_a_slow_operator_raises_the_sinks_latency_and_the_largest_hop_is_the_one_into_it(deployment, tmp_path):
    slow = register_slow_operator()
    job = pipeline([node("gen", "source.datagen", rate=20_000), node("slow", slow, delay_ms=SLOW_DELAY_MS),
                    node("out", "sink.collect", max_records=10)],
                   [edge("gen", "slow", "hash", "x % 10"), edge("slow", "out", "rebalance")],
                   interval_ms=1000, latency_tracking={"interval_ms": 25})
    watch = MetricsWatch()
    handle = deployment.submit(job, checkpoint_dir=str(tmp_path / "c"), on_event=watch, timeout=TIMEOUT_S)
    try:
        # a marker waits behind the batches queued in front of the slow operator: at least one of them
        wait_until(lambda: _hop_p50(watch, "slow") >= SLOW_DELAY_MS and _sink_p50(watch) >= SLOW_DELAY_MS, 90,
                   f"the hop into 'slow', and the sink's latency, to take at least its {SLOW_DELAY_MS} ms per batch")
        hops = {node_id: _hop_p50(watch, node_id) for node_id in ("slow", "out")}
        sink = latency_of(watch, "out")
    finally:
        handle.cancel()
        handle.wait(60)
    assert max(hops, key=hops.get) == "slow", hops
    assert sink[0]["sources"].keys() == {"gen#0"}, sink


def _sink_p50(watch: MetricsWatch) -> float:
    return min((figures["p50_ms"] for figures in latency_of(watch, "out")), default=0.0)


def _hop_p50(watch: MetricsWatch, node_id: str) -> float:
    hops = latency_of(watch, node_id, "hop_latency")
    return max((hop["p50_ms"] for hop in hops), default=0.0)


def test_a_marker_goes_to_one_channel_behind_the_records_buffered_for_it():
    from engine.runtime.io.events import LatencyMarker
    from engine.runtime.io.input_gate import InputGate
    from engine.runtime.io.local_channel import LocalChannel
    from engine.runtime.io.partitioner import RoundRobinPartitioner
    from engine.runtime.io.record_writer import RecordWriter

    channels = [LocalChannel(i) for i in range(2)]
    gates = [InputGate([channel]) for channel in channels]
    writer = RecordWriter("e", channels, RoundRobinPartitioner(2))
    writer.emit([0, 1, 2, 3])
    marker = LatencyMarker(1.0, "gen#0", 1.0)
    for _ in range(20):
        writer.emit_latency_marker(marker)
    received = [[item for _, item in iter(gate.poll_next, None)] for gate in gates]
    assert sum(items.count(marker) for items in received) == 20, "one channel per marker, never all"
    for items, records in zip(received, ([0, 2], [1, 3])):
        if marker in items:
            assert items[0] == records, "the records buffered before a marker leave before it"


def test_a_chain_records_a_marker_at_each_operator_and_the_hop_at_its_head_only():
    from engine.runtime.io.events import LatencyMarker
    from engine.runtime.operator_chain import OperatorChain
    from engine.runtime.operators.base import StreamOperator

    class Passing(StreamOperator):
        def __init__(self, node_id):
            self.node_id = node_id
            self.side_outputs = {}

        def process_batch(self, batch):
            self.emit(batch)

    chain = OperatorChain([Passing("head"), Passing("tail")], {})
    chain.process_latency_marker(LatencyMarker(1000.0, "gen#1", 1040.0), now_ms=1050.0)
    metrics = chain.per_operator_metrics(0, None)
    assert metrics["head"]["latency"]["p50_ms"] == metrics["tail"]["latency"]["p50_ms"] == 50.0
    assert metrics["head"]["hop_latency"] == {"p50_ms": 10.0, "p99_ms": 10.0, "markers": 1}
    assert "hop_latency" not in metrics["tail"]
    assert metrics["tail"]["latency"]["sources"] == {"gen#1": {"p50_ms": 50.0, "p99_ms": 50.0, "markers": 1}}


HOLD_MS = 200
"""The known delay: how long after a marker's emission ``hold`` lets the record ahead of it go."""


def test_a_markers_p50_is_the_known_delay_it_queued_behind_within_20_percent(deployment, tmp_path):
    """Markers skip an operator's own work, so the delay they must see is one in their queue: every
    marker follows a record of its own moment (``batch_per_marker``), and ``hold`` keeps its subtask
    until ``HOLD_MS`` after that moment before it takes the next item -- the marker. The records
    carry the truth on the same clock (``released_ms - marked_ms``), so the figures are compared
    with what this very run took: at least the known delay, and the markers within 20% of it."""
    pace, hold = register_marker_delay_operators()
    job = pipeline([node("gen", "source.datagen", count=20, rate=10), node("pace", pace),
                    node("hold", hold, delay_ms=HOLD_MS), node("out", "sink.collect", max_records=1000)],
                   [edge("gen", "pace"), edge("pace", "hold", "rebalance"), edge("hold", "out")],
                   interval_ms=1000, latency_tracking={"interval_ms": 50})
    events = []
    result = deployment.run(job, checkpoint_dir=str(tmp_path / "c"), on_event=events.append, timeout=TIMEOUT_S)
    assert result.status == "FINISHED", result.failure
    markers = final_figures(events, "out")["latency"]
    records = result.collected["out"]
    truth = sorted(record["released_ms"] - record["marked_ms"] for record in records)
    assert len(truth) == markers["markers"] >= 10, "one record ahead of every marker, each marker recorded"
    assert sorted(record["marker"] for record in records) == list(range(1, len(records) + 1))
    truth_p50 = percentile(truth, 50)
    # lower bounds hold however loaded the machine (1 ms for the clocks' and the figures' rounding)
    assert truth[0] >= HOLD_MS - 1, "no record left before the known delay"
    assert markers["p50_ms"] >= HOLD_MS - 1, (markers, "a marker waits behind its record's whole delay")
    assert abs(markers["p50_ms"] - truth_p50) <= 0.2 * truth_p50, (markers, truth_p50, HOLD_MS)
    hop = final_figures(events, "hold")["hop_latency"]
    assert hop["p50_ms"] >= HOLD_MS - 1, (hop, "the delay is in the channel into 'hold'")


def final_figures(events: list[dict], node_id: str) -> dict:
    """The figures of ``node_id`` (one subtask) in the job's last metrics event."""
    return [report["operators"][node_id] for event in events if event["type"] == "metrics"
            for report in event["tasks"].values() if node_id in (report.get("operators") or {})][-1]
