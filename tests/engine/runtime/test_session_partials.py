"""Local aggregation in front of session windows (``session_partials``): partial sessions cross the
exchange, the window's results and late records stay the record path's."""
from __future__ import annotations

import json
import os
import random
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.cluster.local import LocalCluster
from engine.plan.job_graph import build_job_graph
from engine.runtime.io.events import WATERMARK_ACTIVE, WATERMARK_IDLE, TimestampedBatch, Watermark
from engine.runtime.io.record_writer import RecordWriter
from engine.runtime.json_fields import FieldDecoder
from engine.runtime.operators.base import OperatorContext
from engine.runtime.operators.windows.session_partials import SessionPartials
from engine.runtime.operators.windows.session_window import SessionWindowOperator
from engine.runtime.operators.windows.window_partials import partials_for, pre_aggregated_window
from engine.spec import normalise_definition
from engine.spec.expressions import compile_batch_expression
from tests.builders import edge, node, pipeline
from tests.engine.connectors.support import KillPlan
from tests.engine.lifecycle.support import as_counter
from tests.engine.runtime.test_projection import events_job, write_events
from tests.engine.runtime.test_window_partials import events_strategy, write_events as write_event_list


def sessions(path: Path, function: str = "sum", *, window_parallelism: int = 1, gap: int = 50,
             disorder_ms: int = 0, idle_timeout_ms: int = 0) -> dict:
    """file -> event time from x["t"] -> hash by x["k"] -> session window -> collect."""
    time_params = {"timestamp": 'x["t"]', "max_out_of_orderness_ms": disorder_ms}
    if idle_timeout_ms:
        time_params["idle_timeout_ms"] = idle_timeout_ms
    return pipeline([node("src", "source.file", path=str(path)),
                     node("time", "transform.watermark", **time_params),
                     node("window", "window.session", parallelism=window_parallelism, gap_ms=gap,
                          function=function, value='x["v"]'),
                     node("out", "sink.collect", parallelism=window_parallelism, max_records=100000)],
                    [edge("src", "time"), edge("time", "window", "hash", 'x["k"]'), edge("window", "out")])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(events=events_strategy(), function=st.sampled_from(["sum", "count", "min", "max"]),
       window_parallelism=st.integers(1, 2), batch_size=st.sampled_from([1, 16, 64]),
       disorder_ms=st.sampled_from([0, 300]), gap=st.sampled_from([5, 50, 500]))
def test_session_windows_give_the_same_result_with_local_aggregation(events, function, window_parallelism,
                                                                      batch_size, disorder_ms, gap):
    """Out-of-order events (some late), mixed int/float values and key types, sessions bridging batches."""
    definition = sessions(write_event_list(events), function, window_parallelism=window_parallelism,
                          disorder_ms=disorder_ms, gap=gap)
    results = {}
    for local_aggregation in (True, False):
        result = LocalCluster(config={"batch_size": batch_size, "local_aggregation": local_aggregation}).run(
            definition, timeout=60)
        assert result.status == "FINISHED", result.failure
        results[local_aggregation] = as_counter(result.collected.get("out", []))
    assert results[True] == results[False]


def session_operator(node: dict, pre_aggregated: bool) -> tuple[SessionWindowOperator, list]:
    context = OperatorContext(task=("w", 0), node_id=node["id"], parallelism=1, max_parallelism=8, config={},
                              batch_key_function=compile_batch_expression('x["k"]'),
                              pre_aggregated_input=pre_aggregated)
    window = SessionWindowOperator(node, context)
    window.initialize_state()
    emitted: list = []
    window.emit = lambda batch: emitted.extend(zip(batch, batch.timestamps))
    return window, emitted


@st.composite
def session_events(draw):
    """Events of few keys whose times mostly grow by less than a gap but jump back now and then by up
    to two gaps (late for the window, or touching a session still open), with int values mostly."""
    gap = draw(st.sampled_from([1, 20, 300]))
    values = draw(st.sampled_from([st.integers(-50, 50), st.integers(-50, 50) | st.sampled_from([0.1, 0.2, 0.3, True])]))
    steps = draw(st.lists(st.tuples(st.sampled_from(["a", "b"]), values, st.integers(0, gap + 5),
                                    st.integers(-2 * gap - 5, 0), st.integers(0, 1)), min_size=5, max_size=150))
    events, now = [], 0
    for key, value, step, back, jump in steps:
        now += step
        events.append({"k": key, "v": value, "t": max(0, now + (back if jump == 0 else 0))})
    return gap, events


@settings(max_examples=300, deadline=None)
@given(case=session_events(), function=st.sampled_from(["sum", "count", "min", "max"]),
       batch_size=st.integers(1, 40), disorder_ms=st.sampled_from([0, 30, 300]), idle_after=st.integers(0, 20),
       ahead=st.integers(0, 600))
def test_a_session_window_merging_partials_emits_what_it_emits_merging_records(case, function, batch_size,
                                                                              disorder_ms, idle_after, ahead):
    """The window's watermark is the sender's own until the sender goes idle; then another input moves
    it ``ahead`` (the window leaves the idle channel out), and the sender's records may be late by
    more than its own watermark says."""
    gap, events = case
    node = {"id": "w", "type": "window.session", "params": {"gap_ms": gap, "function": function, "value": 'x["v"]'}}
    by_records, from_records = session_operator(node, pre_aggregated=False)
    by_partials, from_partials = session_operator(node, pre_aggregated=True)
    partials = SessionPartials(node, 'x["k"]')
    highest, boost = -1, None
    for number, start in enumerate(range(0, len(events), batch_size)):
        part = events[start:start + batch_size]
        batch = TimestampedBatch(part, [event["t"] for event in part])
        by_records.process_batch(batch)
        by_partials.process_batch(partials.combine(batch))
        highest = max(highest, *batch.timestamps)
        own = highest - disorder_ms - 1
        partials.note_event(Watermark(own))
        if number == idle_after:
            partials.note_event(WATERMARK_IDLE)
            boost = own + ahead
            partials.note_event(WATERMARK_ACTIVE)
        for window in (by_records, by_partials):
            window.process_watermark(Watermark(own if boost is None else max(own, boost)))
    for window in (by_records, by_partials):
        window.finish_keys()
    assert Counter(map(repr, from_partials)) == Counter(map(repr, from_records))  # same results, value types
    assert by_partials.late_records == by_records.late_records
    assert by_partials.records_represented == len(events)


@pytest.mark.parametrize("sent_watermark, idle", [(99, False), (50, True)])
def test_a_record_the_window_drops_as_late_is_not_merged_with_a_later_one_that_keeps_it(sent_watermark, idle):
    """Record by record, ``a`` at 62 comes after the window's watermark passed its window and touches no
    session: dropped; ``a`` at 81 then extends the open session. Merged first, 62 would have been kept.
    The window's watermark (99) is the one the sender sent, or above it after the sender went idle."""
    node = {"id": "w", "type": "window.session", "params": {"gap_ms": 20, "function": "sum", "value": 'x["v"]'}}
    outputs = []
    for pre_aggregated in (False, True):
        window, emitted = session_operator(node, pre_aggregated)
        partials = SessionPartials(node, 'x["k"]')
        if idle:
            partials.note_event(WATERMARK_IDLE)
            partials.note_event(WATERMARK_ACTIVE)
        for records, stamps in (([{"k": "a", "v": 1}], [100]), ([{"k": "a", "v": 10}, {"k": "a", "v": 100}], [62, 81])):
            batch = TimestampedBatch(records, stamps)
            window.process_batch(partials.combine(batch) if pre_aggregated else batch)
            partials.note_event(Watermark(sent_watermark))
            window.process_watermark(Watermark(99))
        window.finish_keys()
        outputs.append((emitted, window.late_records))
    assert outputs[0] == outputs[1] == ([(["a", 81, 120, 101], 119)], 1)


def test_a_batch_merges_into_the_sessions_its_records_form_per_key():
    partials = SessionPartials({"id": "w", "type": "window.session",
                                "params": {"gap_ms": 10, "function": "sum", "value": 'x["v"]'}}, 'x["k"]')
    batch = TimestampedBatch([{"k": "a", "v": 1}, {"k": "b", "v": 2}, {"k": "a", "v": 3}, {"k": "a", "v": 4},
                              {"k": "a", "v": 5}], [15, 2, 5, 40, 30])
    combined = partials.combine(batch)
    # a at 5 and 15 touch ([5, 15) and [15, 25)); 30 and 40 touch; b alone
    assert list(combined) == [["a", 5, 25, 4, 2], ["a", 30, 50, 9, 2], ["b", 2, 12, 2, 1]]
    assert combined.timestamps == [5, 30, 2]
    assert partials.merged_batches == 1


def test_records_that_might_be_late_floats_and_idleness_go_one_partial_per_record():
    node_ = {"id": "w", "type": "window.session", "params": {"gap_ms": 10, "function": "sum", "value": 'x["v"]'}}
    partials = SessionPartials(node_, 'x["k"]')
    records = TimestampedBatch([{"k": "a", "v": 1}, {"k": "a", "v": 2}], [20, 21])
    partials.note_event(Watermark(29))  # 20 + 10 - 1 <= 29: the window may call it late
    assert list(partials.combine(records)) == [["a", 20, 30, 1, 1], ["a", 21, 31, 2, 1]]
    partials.note_event(Watermark(5))  # watermarks never go back
    assert len(partials.combine(records)) == 2
    fresh = SessionPartials(node_, 'x["k"]')
    floats = TimestampedBatch([{"k": "a", "v": 0.1}, {"k": "a", "v": 0.2}], [20, 21])
    assert len(fresh.combine(floats)) == 2  # a float sum rounds by order
    assert list(fresh.combine(records)) == [["a", 20, 31, 3, 2]]
    fresh.note_event(WATERMARK_IDLE)
    fresh.note_event(WATERMARK_ACTIVE)
    assert len(fresh.combine(records)) == 2  # the window may have left this channel out of its watermark


def test_the_writer_tells_the_partials_what_it_sends():
    partials = SessionPartials({"id": "w", "type": "window.session",
                                "params": {"gap_ms": 10, "function": "count"}}, 'x["k"]')
    writer = RecordWriter("e", [type("Channel", (), {"push": lambda self, item: None})()], None)
    writer.pre_aggregate_with(partials)
    writer.broadcast_event(Watermark(7))
    assert partials.watermark == 7
    writer.broadcast_event(WATERMARK_IDLE)
    assert not partials.merging


def test_the_edge_into_a_session_window_carries_partial_sessions():
    definition = normalise_definition(sessions(Path("unused.jsonl")))
    graph = build_job_graph(definition)
    (into_window,) = [e for e in graph.edges if e.target_node == "window"]
    window = pre_aggregated_window(into_window, graph.vertex(into_window.target), graph, {})
    assert type(partials_for(window, into_window.key)) is SessionPartials
    assert pre_aggregated_window(into_window, graph.vertex(into_window.target), graph,
                                 {"local_aggregation": False}) is None
    lateness = normalise_definition(sessions(Path("unused.jsonl")))
    lateness["nodes"][2]["params"]["allowed_lateness_ms"] = 100
    graph = build_job_graph(lateness)
    (into_window,) = [e for e in graph.edges if e.target_node == "window"]
    assert pre_aggregated_window(into_window, graph.vertex(into_window.target), graph, {}) is None


def test_an_idle_source_subtask_keeps_the_results_exact(tmp_path):
    """Two source subtasks, one of which goes idle while the other moves event time on: after it
    comes back, its records may be late for the window; the partials must drop exactly those."""
    events = [{"k": f"u{i % 3}", "v": i % 5, "t": i * 7} for i in range(400)]
    path = write_event_list(events)
    definition = sessions(path, window_parallelism=2, idle_timeout_ms=1)
    results = {}
    for local_aggregation in (True, False):
        result = LocalCluster(config={"batch_size": 16, "local_aggregation": local_aggregation}).run(
            definition, timeout=60)
        assert result.status == "FINISHED", result.failure
        results[local_aggregation] = as_counter(result.collected.get("out", []))
    assert results[True] == results[False]


def session_events_job(input_dir: Path, output_dir: Path, **options) -> dict:
    """``test_projection.events_job`` with a 500 ms session window in place of the tumbling one."""
    job = events_job(input_dir, output_dir, **options)
    job["nodes"][3] = {"id": "per_user", "type": "window.session",
                       "params": {"gap_ms": 500, "function": "sum", "value": 'x["amount"]'}}
    return job


def expected_sessions(directory: Path) -> Counter:
    """The session job's result in plain Python: ``[user, start, end, sum]`` lines (nothing is late)."""
    times: dict = {}
    for line in (directory / "events.jsonl").read_text().splitlines():
        event = json.loads(line)
        if event["kind"] != "scroll":
            times.setdefault(event["user"], []).append((event["ts"], event["amount"]))
    found: Counter = Counter()
    for user, items in times.items():
        items.sort()
        start, total = items[0]
        end = start + 500
        for t, amount in items[1:]:
            if t <= end:
                total += amount
                end = max(end, t + 500)
            else:
                found[json.dumps([user, start, end, total])] += 1
                start, end, total = t, t + 500, amount
        found[json.dumps([user, start, end, total])] += 1
    return found


def committed_lines(output_dir: Path) -> Counter:
    found: Counter = Counter()
    for path in output_dir.glob("part-*"):
        found.update(json.dumps(json.loads(line)) for line in path.read_text().splitlines())
    return found


def test_the_session_events_job_gives_the_plain_result_on_fields_and_on_records(tmp_path, monkeypatch):
    write_events(tmp_path / "in", 5000)
    decoded = []
    original = FieldDecoder.decode
    monkeypatch.setattr(FieldDecoder, "decode", lambda self, *block: decoded.append(original(self, *block)) or decoded[-1])
    merged = []
    combine = SessionPartials.fold
    monkeypatch.setattr(SessionPartials, "fold", lambda self, *a: merged.append(len(a[0])) or combine(self, *a))
    for config in ({}, {"json_fields": False}, {"local_aggregation": False}):
        out = tmp_path / f"out-{len(os.listdir(tmp_path))}"
        result = LocalCluster(config={"batch_size": 256, **config}).run(
            session_events_job(tmp_path / "in", out, parallelism=2), timeout=120,
            checkpoint_dir=str(tmp_path / f"c-{out.name}"))
        assert result.status == "FINISHED", result.failure
        assert committed_lines(out) == expected_sessions(tmp_path / "in"), config
    assert sum(len(batch) for batch in decoded if batch is not None) == 5000  # the first run: every record on fields
    assert merged  # ... and through the partial sessions


def test_partial_sessions_arrive_exactly_once_despite_random_kills(tmp_path):
    seed = int(os.environ.get("KILL_SEED") or random.randrange(2**32))  # KILL_SEED: replay a failure
    write_events(tmp_path / "in", 6000, seed=seed % 1000)
    points = [("source_poll", "events"), ("process", "per_user"), ("snapshot", "per_user"),
              ("before_ack", "per_user")]
    plan = KillPlan(seed, limit=6, parallelism=2, points=points)
    result = LocalCluster(config={"batch_size": 64, "source_pacing": {"records_per_checkpoint": 500}}).run(
        session_events_job(tmp_path / "in", tmp_path / "out", parallelism=2, interval_ms=50, attempts=20,
                           split_bytes=1 << 14),
        kill_hook=plan, timeout=180, checkpoint_dir=str(tmp_path / "chk"))
    assert result.status == "FINISHED", f"seed {seed}: {result.failure}"
    assert result.restarts >= 1, f"seed {seed}: no kill happened (waiting for {plan.point} of {plan.vertex}#{plan.index})"
    assert committed_lines(tmp_path / "out") == expected_sessions(tmp_path / "in"), f"seed {seed}, kills {plan.kills}"


@pytest.mark.parametrize("window_parallelism", [1, 2])
def test_session_windows_over_json_events_on_both_deployments(deployment, tmp_path, window_parallelism):
    """Partial sessions cross processes on Spark at parallelism 2 (as msgpack lists)."""
    write_events(tmp_path / "in", 3000)
    result = deployment.run(session_events_job(tmp_path / "in", tmp_path / "out", parallelism=window_parallelism),
                            checkpoint_dir=str(tmp_path / "checkpoints"))
    assert result.status == "FINISHED", result.failure
    assert committed_lines(tmp_path / "out") == expected_sessions(tmp_path / "in")


def _partitioner_that_must_not_partition():
    """A 2-channel hash partitioner whose ``partition`` fails: routed partials never reach it."""
    from engine.runtime.io.partitioner import HashPartitioner

    class MustNotPartition(HashPartitioner):
        def partition(self, batch):
            raise AssertionError("session partials are routed while they are made, not partitioned after")

    return MustNotPartition(2, lambda x: x[0], 128, compile_batch_expression("x[0]"))


def test_session_partials_over_a_hash_edge_of_two_channels_are_routed_while_they_are_made():
    """The fold groups a batch per key anyway: each group's channel is one lookup, and the writer buffers
    the parts it is given -- the same partials, in the same order, the partitioner's pass would send."""
    from engine.runtime.io.partitioner import HashPartitioner

    window = {"id": "w", "type": "window.session", "params": {"gap_ms": 10, "function": "sum", "value": 'x["v"]'}}
    users = [f"user-{i}" for i in range(12)]
    batch = TimestampedBatch([{"k": users[i % 12], "v": i} for i in range(60)], [(i * 7) % 50 for i in range(60)])
    expected = HashPartitioner(2, lambda x: x[0], 128, compile_batch_expression("x[0]")).partition(
        SessionPartials(window, 'x["k"]').combine(batch))
    assert len(expected) == 2  # both channels get some
    received: list[list] = [[], []]
    writer = RecordWriter("e", [type("Channel", (), {"push": lambda self, item, i=i: received[i].append(item)})()
                                for i in range(2)], _partitioner_that_must_not_partition(), buffer_records=10_000)
    partials = SessionPartials(window, 'x["k"]')
    writer.pre_aggregate_with(partials)
    writer.emit(batch)  # the record path: combine, then the writer
    writer.flush()
    fields_path = partials.fold([r["k"] for r in batch], [r["v"] for r in batch], batch.timestamps,
                                values_are_ints=True)  # the fields path: fold, then send_partials
    writer.send_partials(fields_path)
    writer.flush()
    assert partials.merged_batches == 2
    for channel, part in expected:
        (first, second) = received[channel]
        assert list(first) == list(part) == list(second) and first.timestamps == part.timestamps
    assert writer.records_out == 2 * sum(len(part) for _, part in expected)
    # one channel, or another partitioner: not routed, a TimestampedBatch as before
    assert not SessionPartials(window, 'x["k"]').route_by(HashPartitioner(1, lambda x: x[0], 128))
    assert not SessionPartials(window, 'x["k"]').route_by(None)
