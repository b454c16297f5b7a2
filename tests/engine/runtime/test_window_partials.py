"""Local aggregation in front of windows: partials cross the exchange, the windows' results stay the same."""
from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.cluster.local import LocalCluster
from engine.plan.job_graph import build_job_graph
from engine.runtime.io.events import (WATERMARK_ACTIVE, WATERMARK_IDLE, CheckpointBarrier, TimestampedBatch,
                                     Watermark)
from engine.runtime.io.partitioner import ForwardPartitioner, HashPartitioner
from engine.runtime.io.record_writer import RecordWriter
from engine.runtime.operators.base import OperatorContext
from engine.runtime.operators.windows.window import WindowOperator
from engine.runtime.operators.windows.window_partials import WindowPartials, pre_aggregated_window
from engine.spec.expressions import compile_batch_expression
from engine.spec import normalise_definition
from tests.builders import edge, node, pipeline
from tests.engine.lifecycle.support import as_counter


def windowed(path: Path, kind: str = "tumbling", function: str = "sum", *, window_parallelism: int = 1,
             size: int = 100, disorder_ms: int = 0, value: str = 'x["v"]') -> dict:
    """file -> event time from x["t"] -> hash by x["k"] -> window -> collect."""
    params = {"size_ms": size, "function": function, "value": value}
    if kind == "sliding":
        params["slide_ms"] = size // 2
    return pipeline([node("src", "source.file", path=str(path)),
                     node("time", "transform.watermark", timestamp='x["t"]', max_out_of_orderness_ms=disorder_ms),
                     node("window", f"window.{kind}", parallelism=window_parallelism, **params),
                     node("out", "sink.collect", parallelism=window_parallelism, max_records=100000)],
                    [edge("src", "time"), edge("time", "window", "hash", 'x["k"]'), edge("window", "out")])


def write_events(events: list[dict]) -> Path:
    path = Path(tempfile.mkdtemp(prefix="partials-")) / "events.jsonl"
    path.write_text("".join(json.dumps(event) + "\n" for event in events))
    return path


@st.composite
def events_strategy(draw):
    """Events whose time mostly grows (a few steps a window) but jumps back now and then (some late).

    Float values are multiples of 1/4: their sums are exact in any order, so folding partials
    (which sums in another order) must give the very same floats. Arbitrary floats differ in the
    last bit between orders, in any engine."""
    quarters = st.integers(-40, 40).map(lambda quarter: quarter / 4)
    values = draw(st.sampled_from([st.integers(-50, 50), st.integers(-50, 50) | quarters]))
    steps = draw(st.lists(st.tuples(st.sampled_from(["a", "b", "c", 1, 2]), values,
                                    st.integers(0, 40), st.integers(-400, 0)), min_size=10, max_size=200))
    events, now = [], 0
    for key, value, step, back in steps:
        now += step
        events.append({"k": key, "v": value, "t": max(0, now + (back if back < -350 else 0))})
    return events


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(events=events_strategy(), kind=st.sampled_from(["tumbling", "sliding"]),
       function=st.sampled_from(["sum", "count", "min", "max"]), window_parallelism=st.integers(1, 2),
       batch_size=st.sampled_from([1, 16, 64]), disorder_ms=st.sampled_from([0, 300]),
       size=st.sampled_from([100, 1000]))
def test_windows_give_the_same_result_and_drop_the_same_late_records_with_local_aggregation(
        events, kind, function, window_parallelism, batch_size, disorder_ms, size):
    """Out-of-order events (some late), mixed int/float values and key types, several windows per batch."""
    definition = windowed(write_events(events), kind, function, window_parallelism=window_parallelism,
                          disorder_ms=disorder_ms, size=size)
    results = {}
    for local_aggregation in (True, False):
        result = LocalCluster(config={"batch_size": batch_size, "local_aggregation": local_aggregation}).run(
            definition, timeout=60)
        assert result.status == "FINISHED", result.failure
        results[local_aggregation] = as_counter(result.collected.get("out", []))
    assert results[True] == results[False]


def window_operator(node: dict, pre_aggregated: bool) -> tuple[WindowOperator, list]:
    context = OperatorContext(task=("w", 0), node_id=node["id"], parallelism=1, max_parallelism=8, config={},
                              batch_key_function=compile_batch_expression('x["k"]'),
                              pre_aggregated_input=pre_aggregated)
    params = node["params"]
    window = WindowOperator(node, context, params["size_ms"], params.get("slide_ms", params["size_ms"]))
    window.initialize_state()
    emitted: list = []
    window.emit = lambda batch: emitted.extend(zip(batch, batch.timestamps))
    return window, emitted


@settings(max_examples=300, deadline=None)
@given(events=events_strategy(), kind=st.sampled_from(["tumbling", "sliding"]),
       function=st.sampled_from(["sum", "count", "min", "max"]), batch_size=st.integers(1, 40),
       size=st.sampled_from([100, 1000]), disorder_ms=st.sampled_from([0, 300]),
       events_between=st.lists(st.sampled_from(["barrier", "idle", "active", None, None, None]), max_size=40))
def test_a_window_folding_partials_emits_what_it_emits_folding_records(events, kind, function, batch_size, size,
                                                                       disorder_ms, events_between):
    """Partials held across batches (and sent before barriers, idle statuses and the watermarks that
    fire their windows) give the window what the records give it, in the same order."""
    params = {"size_ms": size, "function": function, "value": 'x["v"]', **({"slide_ms": size // 2}
                                                                            if kind == "sliding" else {})}
    node = {"id": "w", "type": f"window.{kind}", "params": params}
    by_records, from_records = window_operator(node, pre_aggregated=False)
    by_partials, from_partials = window_operator(node, pre_aggregated=True)
    partials = WindowPartials(node, 'x["k"]')
    highest = -1
    for start in range(0, len(events), batch_size):
        part = events[start:start + batch_size]
        batch = TimestampedBatch(part, [event["t"] for event in part])
        by_records.process_batch(batch)
        sent = partials.combine(batch)
        if sent:  # as the writer sends it: an empty batch (all held) not at all
            by_partials.process_batch(sent)
        highest = max(highest, *batch.timestamps)
        between = events_between[(start // batch_size) % len(events_between)] if events_between else None
        if between is not None:  # what the writer sends before the event: the held partials, or nothing
            held = partials.note_event({"barrier": CheckpointBarrier(1, 0), "idle": WATERMARK_IDLE,
                                        "active": WATERMARK_ACTIVE}[between])
            if held:
                by_partials.process_batch(held)
        watermark = Watermark(highest - disorder_ms - 1)
        held = partials.note_event(watermark)  # what the writer sends before the watermark
        if held:
            by_partials.process_batch(held)
        for window in (by_records, by_partials):
            window.process_watermark(watermark)
    held = partials.note_event(Watermark(2**62))  # the end of input's watermark
    if held:
        by_partials.process_batch(held)
    for window in (by_records, by_partials):
        window.finish_keys()
    assert repr(from_partials) == repr(from_records)  # the same records (and value types), in the same order
    assert by_partials.late_records == by_records.late_records


def test_a_batch_folds_into_one_partial_per_key_and_window_counting_its_records():
    partials = WindowPartials({"id": "w", "type": "window.tumbling",
                               "params": {"size_ms": 10, "function": "sum", "value": 'x["v"]'}}, 'x["k"]')
    batch = TimestampedBatch([{"k": "a", "v": 1}, {"k": "b", "v": 2}, {"k": "a", "v": 3}, {"k": "a", "v": 4}],
                             [1, 2, 3, 12])
    partials.note_event(Watermark(9))  # window 10 may fire: its partials go at once
    combined = partials.combine(batch)
    assert list(combined) == [["a", 10, 4, 2], ["b", 10, 2, 1], ["a", 20, 4, 1]]
    assert combined.timestamps == [9, 9, 19]


def tumbling(function: str = "sum", size: int = 10) -> WindowPartials:
    return WindowPartials({"id": "w", "type": "window.tumbling",
                           "params": {"size_ms": size, "function": function, "value": 'x["v"]'}}, 'x["k"]')


def batch_of(*records: tuple) -> TimestampedBatch:
    """``(key, value, event time)`` records as a batch."""
    return TimestampedBatch([{"k": k, "v": v} for k, v, _ in records], [t for _, _, t in records])


def test_a_windows_partials_are_held_across_batches_until_the_watermark_that_fires_it():
    """Each batch had one partial per key and window, so a key's window crossed once per batch; now one
    partial per key and window crosses, in front of the watermark the window fires at."""
    partials = tumbling()
    for batch in (batch_of(("a", 1, 1), ("b", 2, 2)), batch_of(("a", 3, 4)), batch_of(("b", 4, 5), ("a", 5, 12))):
        assert not partials.combine(batch)
    assert partials.note_event(Watermark(8)) is None  # window 10 cannot fire yet
    released = partials.note_event(Watermark(9))
    assert list(released) == [["a", 10, 4, 2], ["b", 10, 6, 2]] and released.timestamps == [9, 9]
    assert list(partials.note_event(Watermark(100))) == [["a", 20, 5, 1]]
    assert partials.note_event(Watermark(200)) is None


@pytest.mark.parametrize("function, values, expected", [
    ("count", [7, 8, 9], 3), ("min", [7, 3, 9], 3), ("max", [7, 3, 9], 9), ("sum", [7, 3, 9], 19)])
def test_every_order_free_fold_is_held(function, values, expected):
    partials = tumbling(function)
    for value, t in zip(values, (1, 2, 3)):
        assert not partials.combine(batch_of(("a", value, t)))
    assert list(partials.release()) == [["a", 10, expected, 3]]


def test_a_batch_that_may_hold_late_records_sends_the_held_partials_first_then_its_own():
    partials = tumbling()
    assert not partials.combine(batch_of(("a", 1, 15)))
    partials.note_event(Watermark(12))
    sent = partials.combine(batch_of(("a", 2, 5), ("a", 4, 16)))  # 5 is late for the window: not held
    assert list(sent) == [["a", 20, 1, 1], ["a", 10, 2, 1], ["a", 20, 4, 1]] and sent.timestamps == [19, 9, 19]
    assert partials.release() is None


def test_floats_and_mixed_types_are_not_held():
    partials = tumbling()
    assert not partials.combine(batch_of(("a", 1, 1)))
    assert list(partials.combine(batch_of(("a", 0.5, 2)))) == [["a", 10, 1, 1], ["a", 10, 0.5, 1]]
    maximum = tumbling("max")
    assert list(maximum.combine(batch_of(("a", True, 1), ("a", 1, 2)))) == [["a", 10, True, 2]]


def test_after_an_idle_status_nothing_is_held():
    """Once this subtask went idle the window may leave its channel out of its watermark, which may then
    pass ours: nothing is known not to be late any more."""
    partials = tumbling()
    assert not partials.combine(batch_of(("a", 1, 1)))
    assert list(partials.note_event(WATERMARK_IDLE)) == [["a", 10, 1, 1]]
    partials.note_event(WATERMARK_ACTIVE)
    assert list(partials.combine(batch_of(("a", 2, 2)))) == [["a", 10, 2, 1]]


def test_held_partials_are_sent_before_any_event_but_a_watermark_that_fires_nothing():
    """A barrier must follow every record before it, so no partial is ever held in a snapshot."""
    for parallelism in (1, 2):
        channels = [Collect() for _ in range(parallelism)]
        partitioner = ForwardPartitioner(1) if parallelism == 1 else HashPartitioner(
            2, lambda x: x[0], 8, lambda batch: [x[0] for x in batch])
        writer = RecordWriter("e", channels, partitioner, inline_watermarks=True)
        writer.pre_aggregate_with(tumbling())
        writer.emit(batch_of(("a", 1, 1), ("b", 2, 2)))
        writer.broadcast_event(Watermark(5))
        writer.emit(batch_of(("a", 3, 3)))
        writer.broadcast_event(CheckpointBarrier(1, 0))
        writer.emit(batch_of(("b", 4, 4)))
        writer.broadcast_priority_event(CheckpointBarrier(2, 0))
        sequences = [flat(channel.items) for channel in channels]
        assert sorted(item for sequence in sequences for item in sequence if type(item) is tuple) == [
            (["a", 10, 4, 2], 9), (["b", 10, 2, 1], 9), (["b", 10, 4, 1], 9)], parallelism
        for sequence in sequences:
            barriers = [sequence.index(CheckpointBarrier(1, 0)), sequence.index(CheckpointBarrier(2, 0))]
            for position, item in enumerate(sequence):
                if type(item) is tuple:  # b's 4 came between the barriers, the rest before the first
                    assert position < barriers[0] if item[0][2] != 4 or item[0][0] != "b" \
                        else barriers[0] < position < barriers[1], sequence
            assert Watermark(5) in sequence[:barriers[0]]


def flat(items: list) -> list:
    """What a channel got, one partial ``(partial, stamp)`` or event at a time (inline watermarks at their place)."""
    out: list = []
    for item in items:
        if type(item) is not TimestampedBatch:
            out.append(item)
            continue
        marks = dict(item.watermarks or [])
        for position, (partial, stamp) in enumerate(zip(item, item.timestamps)):
            if position in marks:
                out.append(marks.pop(position))
            out.append((partial, stamp))
        out += marks.values()
    return out


class Collect:
    """An output channel that keeps what it is given (priority events too)."""

    def __init__(self):
        self.items = []
        self.channel_id = "c"

    def push(self, item):
        self.items.append(item)

    def push_priority(self, event):
        self.items.append(event)
        return []


def test_float_sums_cross_one_partial_per_record_so_they_round_as_before():
    partials = WindowPartials({"id": "w", "type": "window.tumbling",
                               "params": {"size_ms": 10, "function": "sum", "value": "x"}}, "x > 0")
    combined = partials.combine(TimestampedBatch([0.1, 0.2, 0.3], [1, 1, 1]))
    assert list(combined) == [[True, 10, 0.1, 1], [True, 10, 0.2, 1], [True, 10, 0.3, 1]]


def test_the_edge_into_a_windows_only_input_carries_partials_in_streaming_mode_only():
    definition = normalise_definition(windowed(Path("unused.jsonl")))
    graph = build_job_graph(definition)
    (into_window,) = [e for e in graph.edges if e.target_node == "window"]
    window_vertex = graph.vertex(into_window.target)
    assert pre_aggregated_window(into_window, window_vertex, graph, {})["id"] == "window"
    assert pre_aggregated_window(into_window, window_vertex, graph, {"local_aggregation": False}) is None
    assert pre_aggregated_window(into_window, window_vertex, build_job_graph({**definition, "mode": "batch"}),
                                 {"mode": "batch"}) is None


def test_a_failing_value_expression_is_reported_as_the_windows_failure(tmp_path):
    path = write_events([{"k": "a", "t": 1}])  # no "v"
    result = LocalCluster().run(windowed(path), timeout=60)
    assert result.status == "FAILED"
    assert "operator 'window' (window.tumbling), subtask 0, failed: KeyError: 'v'" in result.failure


@pytest.mark.parametrize("window_parallelism", [1, 2])
def test_windows_over_json_events_on_both_deployments(deployment, tmp_path, window_parallelism):
    """The bench-events shape at a small size: partials cross processes on Spark at parallelism 2."""
    events = [{"k": f"user-{i % 7}", "v": i % 13, "t": i * 3, "kind": "click" if i % 4 else "scroll"}
              for i in range(3000)]
    expected: dict = {}
    for event in events:
        end = event["t"] - event["t"] % 100 + 100
        expected[(event["k"], end)] = expected.get((event["k"], end), 0) + event["v"]
    definition = windowed(write_events(events), window_parallelism=window_parallelism)
    result = deployment.run(definition, checkpoint_dir=str(tmp_path / "checkpoints"))
    assert result.status == "FINISHED", result.failure
    assert {(k, end): total for k, end, total in result.collected["out"]} == expected
    assert len(result.collected["out"]) == len(expected)


@pytest.mark.parametrize("window_parallelism", [1, 2])
def test_held_partials_cross_once_per_key_and_window_on_both_deployments(deployment, tmp_path, window_parallelism):
    """94 batches of 64 records over 6 windows of 7 keys: one partial per key and window reaches the
    windows (across processes on Spark at parallelism 2), where a partial per batch did (~650)."""
    events = [{"k": f"user-{i % 7}", "v": i % 13, "t": i} for i in range(6000)]
    expected: dict = {}
    for event in events:
        end = event["t"] - event["t"] % 1000 + 1000
        expected[(event["k"], end)] = expected.get((event["k"], end), 0) + event["v"]
    definition = windowed(write_events(events), window_parallelism=window_parallelism, size=1000)
    definition["checkpointing"]["interval_ms"] = 600_000  # no barrier sends the held partials early
    handle = deployment.configured({"batch_size": 64}).submit(definition, checkpoint_dir=str(tmp_path / "checkpoints"))
    result = handle.wait(120)
    assert result.status == "FINISHED", result.failure
    assert {(k, end): total for k, end, total in result.collected["out"]} == expected
    assert len(result.collected["out"]) == len(expected) == 42
    windows = [values["operators"]["window"] for values in handle.metrics().values() if "window" in values["operators"]]
    assert sum(figures["records_in"] for figures in windows) == 6000
    assert sum(figures["partials_in"] for figures in windows) == 42
