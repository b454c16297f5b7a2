"""Whole pipelines: results, checkpoints, savepoints, restarts -- in process, and on Spark where the
``deployment`` fixture runs a test on both (ids ``inprocess`` and ``spark``)."""
from __future__ import annotations

import gc
import json
from collections import Counter
from pathlib import Path

import pytest

from engine.checkpoint.storage import load_metadata
from engine.cluster.local import LocalCluster
from engine.runtime.gc_tuning import YOUNG_THRESHOLD
from tests.builders import edge, node, pipeline
from tests.support import wait_until


COLLECT_ALL = {"max_records": 100000}


@pytest.fixture
def cluster():
    return LocalCluster(config={"batch_size": 100})


def run(cluster, definition, tmp_path, **kwargs):
    result = cluster.run(definition, timeout=60, checkpoint_dir=str(tmp_path / "checkpoints"), **kwargs)
    assert result.status == "FINISHED", result.failure
    return result


def test_map_filter_flat_map_chain(deployment, tmp_path):
    definition = pipeline(
        [node("gen", "source.datagen", count=1000), node("double", "transform.map", expression="x * 2"),
         node("odd3", "transform.filter", predicate="x % 3 != 0"),
         node("pair", "transform.flat_map", expression="[x, -x]"), node("out", "sink.collect", **COLLECT_ALL)],
        [edge("gen", "double"), edge("double", "odd3"), edge("odd3", "pair"), edge("pair", "out")])
    result = run(deployment, definition, tmp_path)
    expected = [y for x in range(1000) if (x * 2) % 3 != 0 for y in (x * 2, -x * 2)]
    assert result.collected["out"] == expected
    assert result.counts["out"] == len(expected)


@pytest.mark.parametrize("partitioning,source_parallelism,target_parallelism", [
    ("rebalance", 2, 3), ("rescale", 4, 2), ("rescale", 2, 4), ("hash", 3, 2), ("forward", 3, 3)])
def test_partitionings_deliver_every_record_once(deployment, tmp_path, partitioning, source_parallelism,
                                                 target_parallelism):
    definition = pipeline(
        [node("gen", "source.datagen", parallelism=source_parallelism, count=5000),
         node("id", "transform.map", parallelism=target_parallelism, expression="x"),
         node("out", "sink.collect", parallelism=target_parallelism, **COLLECT_ALL)],
        [edge("gen", "id", partitioning, key="x % 7" if partitioning == "hash" else None), edge("id", "out")])
    result = run(deployment, definition, tmp_path)
    assert sorted(result.collected["out"]) == list(range(5000))


def test_broadcast_sends_every_record_to_every_subtask(deployment, tmp_path):
    definition = pipeline(
        [node("gen", "source.datagen", count=300), node("out", "sink.collect", parallelism=3, **COLLECT_ALL)],
        [edge("gen", "out", "broadcast")])
    result = run(deployment, definition, tmp_path)
    assert Counter(result.collected["out"]) == Counter({x: 3 for x in range(300)})


def keyed_sum(parallelism=2, count=3000, rate=0, function="sum", sink=None, checkpointing=None, restart=None,
              value="x"):
    return pipeline(
        [node("gen", "source.datagen", count=count, rate=rate),
         node("agg", "aggregate.reduce", function=function, value=value),
         sink or node("out", "sink.collect", **COLLECT_ALL)],
        [edge("gen", "agg", "hash", key="x % 10"), edge("agg", (sink or {"id": "out"})["id"])],
        parallelism=parallelism, checkpointing=checkpointing, restart=restart)


def final_values(records):
    finals = {}
    for key, value in records:
        finals[key] = value
    return finals


@pytest.mark.parametrize("function,expected", [
    ("sum", lambda xs: sum(xs)), ("count", len), ("min", min), ("max", max)])
@pytest.mark.parametrize("value,of", [("x", lambda x: x), ("(x * 7919) % 1000 - 500", lambda x: (x * 7919) % 1000 - 500)])
def test_keyed_aggregates(deployment, tmp_path, function, expected, value, of):
    result = run(deployment, keyed_sum(function=function, value=value), tmp_path)
    by_key = {k: [of(x) for x in range(3000) if x % 10 == k] for k in range(10)}
    assert final_values(result.collected["out"]) == {k: expected(xs) for k, xs in by_key.items()}


def test_checkpoint_events_carry_flink_statistics_and_metadata_is_written(cluster, tmp_path):
    events = []
    result = run(cluster, keyed_sum(count=20000, rate=40000, checkpointing={"retained": 2}), tmp_path,
                 on_event=events.append)
    checkpoint_events = [e for e in events if e["type"] == "checkpoint"]
    completed = [e for e in checkpoint_events if e["event"] == "completed"]
    assert len(completed) >= 2, [e["event"] for e in checkpoint_events]
    event = completed[0]
    for field in ("id", "trigger_timestamp", "latest_ack_timestamp", "end_to_end_duration", "state_size",
                  "num_acknowledged_subtasks", "num_subtasks", "external_path", "subtasks", "tasks"):
        assert field in event
    assert event["num_acknowledged_subtasks"] == event["num_subtasks"] == 4
    assert event["state_size"] > 0
    for subtask in event["subtasks"]:
        if subtask["status"] == "completed":
            for field in ("ack_timestamp", "start_delay", "alignment_duration", "sync_duration", "async_duration",
                          "state_size"):
                assert subtask[field] is not None and subtask[field] >= 0
    first_id = event["id"]
    kinds = [e["event"] for e in checkpoint_events if e["id"] == first_id]
    assert kinds[0] == "triggered" and "acknowledged" in kinds and "completed" in kinds
    metadata = load_metadata(event["external_path"]) if Path(event["external_path"]).exists() else None
    retained = sorted(p.name for p in (tmp_path / "checkpoints").glob("chk-*"))
    assert len(retained) <= 2
    latest = load_metadata(str(tmp_path / "checkpoints" / retained[-1]))
    assert set(latest["vertices"]) == {"gen", "agg"} and latest["vertices"]["agg"]["parallelism"] == 2
    assert metadata is None or metadata["checkpoint_id"] == first_id
    assert any(e["event"] == "discarded" for e in checkpoint_events) or len(completed) <= 2
    assert result.checkpoints["counts"]["completed"] == len(completed)


def test_unbounded_job_savepoint_cancel_and_rescaled_restore(cluster, tmp_path):
    events = []
    handle = cluster.submit(keyed_sum(parallelism=2, count=None, rate=20000), on_event=events.append,
                            checkpoint_dir=str(tmp_path / "checkpoints"))
    location = handle.trigger_savepoint(str(tmp_path / "savepoints")).result(timeout=20)
    metadata = load_metadata(location)
    assert metadata["kind"] == "savepoint" and metadata["vertices"]["agg"]["parallelism"] == 2
    handle.cancel()
    assert handle.wait(20).status == "CANCELED"
    splits = []
    for task, state in metadata["tasks"].items():
        if task.startswith("gen#"):
            splits.append(state["operators"]["gen"]["operator_state"]["union/splits"])
    assert splits == [1, 1]

    # restore at parallelism 3 and run a bounded continuation: state and offsets carry over
    definition = keyed_sum(parallelism=3, count=None)
    restored = cluster.submit(definition, restore=location, checkpoint_dir=str(tmp_path / "restored"))
    restored_location = restored.trigger_savepoint().result(timeout=20)
    restored.cancel()
    assert restored.wait(20).status == "CANCELED"
    again = load_metadata(restored_location)
    assert again["vertices"]["agg"]["parallelism"] == 3
    assert again["checkpoint_id"] > metadata["checkpoint_id"]


def test_rescaled_restore_continues_exactly_where_the_savepoint_was(cluster, tmp_path):
    """Sums per key after savepoint (p=2) + restore (p=3) equal the sums of one uninterrupted run."""
    handle = cluster.submit(keyed_sum(parallelism=2, count=20000, rate=20000),
                            checkpoint_dir=str(tmp_path / "checkpoints"))
    location = handle.trigger_savepoint(str(tmp_path / "savepoints")).result(timeout=20)
    handle.cancel()
    handle.wait(20)
    result = cluster.run(keyed_sum(parallelism=3, count=20000), restore=location, timeout=30,
                         checkpoint_dir=str(tmp_path / "restored"))
    assert result.status == "FINISHED", result.failure
    expected = {k: sum(x for x in range(20000) if x % 10 == k) for k in range(10)}
    finals = final_values(result.collected["out"])
    for key, value in finals.items():
        assert value == expected[key]
    savepoint = load_metadata(location)
    assert finals or savepoint["vertices"]["gen"]["finished"]


def test_failure_restarts_from_the_latest_checkpoint(cluster, tmp_path):
    kills = []

    def kill_once(point, task, info):
        if point == "process" and task == ("agg", 1) and info["records_in"] > 3000 and not kills:
            kills.append(info)
            return True
        return False

    sink_dir = tmp_path / "out"
    definition = keyed_sum(count=20000, rate=50000, sink=node("out", "sink.file", path=str(sink_dir)),
                           restart={"strategy": "fixed_delay", "attempts": 2, "delay_ms": 10})
    events = []
    result = run(cluster, definition, tmp_path, kill_hook=kill_once, on_event=events.append)
    assert kills and result.restarts == 1
    statuses = [e["status"] for e in events if e["type"] == "status"]
    assert statuses == ["RUNNING", "RESTARTING", "RUNNING", "FINISHED"]
    lines = Counter(tuple(json.loads(line)) for path in sink_dir.glob("part-*.jsonl")
                    for line in path.read_text().splitlines())
    assert sum(lines.values()) == 20000 and max(lines.values()) == 1


def test_exhausted_restart_strategy_fails_the_job_with_the_cause(deployment, tmp_path):
    definition = pipeline([node("gen", "source.datagen", count=100),
                           node("bad", "transform.map", expression="1 // (x - 50)"), node("out", "sink.collect")],
                          [edge("gen", "bad"), edge("bad", "out")],
                          restart={"strategy": "fixed_delay", "attempts": 1, "delay_ms": 0})
    result = deployment.run(definition, timeout=60, checkpoint_dir=str(tmp_path / "c"))
    assert result.status == "FAILED" and result.restarts == 1
    # named by the operator that failed, not by its chain's head (gen)
    assert result.failure.startswith("operator 'bad' (transform.map), subtask 0, failed: ZeroDivisionError")
    assert "gen#0" not in result.failure.splitlines()[0]
    assert result.failure.splitlines()[1] == "record: 50"  # the record the expression failed on


def test_a_failing_filter_predicate_names_its_operator(cluster, tmp_path):
    definition = pipeline([node("gen", "source.datagen", count=100),
                           node("odd", "transform.filter", predicate="1 // (x - 50) > 0"),
                           node("out", "sink.collect")],
                          [edge("gen", "odd"), edge("odd", "out")], restart={"strategy": "none"})
    result = cluster.run(definition, timeout=30, checkpoint_dir=str(tmp_path / "c"))
    assert result.status == "FAILED"
    assert "ZeroDivisionError" in result.failure and "operator 'odd' (transform.filter)" in result.failure


def test_file_sink_commits_at_end_when_checkpointing_is_off(deployment, tmp_path):
    sink_dir = tmp_path / "out"
    definition = pipeline([node("gen", "source.datagen", count=500), node("out", "sink.file", path=str(sink_dir))],
                          [edge("gen", "out")], checkpointing={"enabled": False})
    run(deployment, definition, tmp_path)
    lines = [json.loads(line) for path in sink_dir.glob("part-*.jsonl") for line in path.read_text().splitlines()]
    assert sorted(lines) == list(range(500))
    assert not list(sink_dir.glob(".*inprogress"))


def test_at_least_once_mode_delivers_everything(cluster, tmp_path):
    result = run(cluster, keyed_sum(count=5000, checkpointing={"mode": "at_least_once"}), tmp_path)
    assert final_values(result.collected["out"]) == {k: sum(range(k, 5000, 10)) for k in range(10)}


def test_union_merges_inputs(deployment, tmp_path):
    definition = pipeline(
        [node("a", "source.datagen", count=100), node("b", "source.datagen", count=100, start=1000),
         node("u", "transform.union"), node("out", "sink.collect", **COLLECT_ALL)],
        [edge("a", "u"), edge("b", "u"), edge("u", "out")])
    result = run(deployment, definition, tmp_path)
    assert sorted(result.collected["out"]) == list(range(100)) + list(range(1000, 1100))


def test_tumbling_and_sliding_event_time_windows(deployment, tmp_path):
    records = 'x'  # numbers: event time = x * 10 ms, key = x % 2
    definition = pipeline(
        [node("gen", "source.datagen", count=100),
         node("wm", "transform.watermark", timestamp="x * 10", max_out_of_orderness_ms=0),
         node("tumble", "window.tumbling", size_ms=100, function="sum", value=records),
         node("slide", "window.sliding", size_ms=100, slide_ms=50, function="count"),
         node("out_t", "sink.collect", **COLLECT_ALL), node("out_s", "sink.collect", **COLLECT_ALL)],
        [edge("gen", "wm"), edge("wm", "tumble", "hash", key="x % 2"), edge("wm", "slide", "hash", key="x % 2"),
         edge("tumble", "out_t"), edge("slide", "out_s")], parallelism=2)
    result = run(deployment, definition, tmp_path)
    tumbling = sorted(result.collected["out_t"])
    expected = sorted([k, end, sum(x for x in range(100) if x % 2 == k and end - 100 <= x * 10 < end)]
                      for k in (0, 1) for end in range(100, 1001, 100))
    assert tumbling == expected
    sliding = {(k, end): count for k, end, count in result.collected["out_s"]}
    assert sliding[(0, 150)] == len([x for x in range(100) if x % 2 == 0 and 50 <= x * 10 < 150])
    assert len(sliding) == 2 * 21


def test_a_quiet_keyed_stream_is_not_held_in_output_buffers(tmp_path):
    """A hash edge collects each channel's records into buffers of a batch; a subtask that
    runs out of work sends what it holds, even with a buffer timeout of an hour and no
    checkpoint barrier coming to push the buffers out."""
    patient = LocalCluster(config={"buffer_timeout_ms": 3_600_000})
    handle = patient.submit(keyed_sum(parallelism=2, count=None, rate=20, checkpointing={"enabled": False}),
                            checkpoint_dir=str(tmp_path))
    try:
        wait_until(lambda: all(values.get("records_in", 0) > 0
                               for task, values in handle.metrics().items() if task.startswith("agg")) and
                   len([task for task in handle.metrics() if task.startswith("agg")]) == 2,
                   30, "both keyed subtasks receiving records")
    finally:
        handle.cancel()
    assert handle.wait(20).status == "CANCELED"


def test_the_collector_runs_less_often_while_subtasks_run_and_as_before_after(tmp_path):
    before = gc.get_threshold()
    handle = LocalCluster().submit(keyed_sum(parallelism=2, count=None, rate=1000), checkpoint_dir=str(tmp_path))
    try:
        wait_until(lambda: handle.metrics(), 30, "the first metrics of the running job")
        assert gc.get_threshold()[0] == max(before[0], YOUNG_THRESHOLD)
        assert gc.get_threshold()[1:] == before[1:]
    finally:
        handle.cancel()
    assert handle.wait(20).status == "CANCELED"
    wait_until(lambda: gc.get_threshold() == before, 10, "the collector's thresholds put back")


def reference_windows(records, size, slide, out_of_orderness, batch, key, value, fold):
    """What keyed event-time windows emit when ``records`` (x, time) arrive ``batch`` at a time,
    each batch followed by the bounded-out-of-orderness watermark: a record is late, and
    dropped, for a window that fired already."""
    windows, watermark, highest = {}, -(2**63), -(2**63)
    for first in range(0, len(records), batch):
        chunk = records[first:first + batch]
        for x, time in chunk:
            for start in range(time - time % slide, time - size, -slide):
                if start + size - 1 > watermark:
                    slot = (key(x), start + size)
                    windows[slot] = value(x) if slot not in windows else fold(windows[slot], value(x))
        highest = max(highest, max(time for _, time in chunk))
        watermark = max(watermark, highest - out_of_orderness - 1)
    return sorted([k, end, total] for (k, end), total in windows.items())


@pytest.mark.parametrize("size,slide", [(100, 100), (100, 40)])
@pytest.mark.parametrize("function,fold", [("sum", lambda a, v: a + v), ("count", lambda a, v: a + 1),
                                           ("min", min), ("max", max)])
def test_windows_fold_in_order_and_drop_late_records(tmp_path, size, slide, function, fold):
    """Out-of-order event times (a permutation), small batches: some records come after their
    window fired. The result equals a straightforward model of windows, watermarks and lateness."""
    count, out_of_orderness = 600, 150
    timestamp = "(x * 37) % 600 * 2"
    window = node("win", "window.tumbling", size_ms=size, function=function, value="x % 7 - 3") if size == slide \
        else node("win", "window.sliding", size_ms=size, slide_ms=slide, function=function, value="x % 7 - 3")
    definition = pipeline([node("gen", "source.datagen", count=count),
                           node("time", "transform.watermark", timestamp=timestamp,
                                max_out_of_orderness_ms=out_of_orderness),
                           window, node("out", "sink.collect", **COLLECT_ALL)],
                          [edge("gen", "time"), edge("time", "win", "hash", key="x % 3"), edge("win", "out")])
    result = LocalCluster(config={"batch_size": 10}).run(definition, timeout=60, checkpoint_dir=str(tmp_path))
    assert result.status == "FINISHED", result.failure
    records = [(x, (x * 37) % 600 * 2) for x in range(count)]
    value = (lambda x: 1) if function == "count" else (lambda x: x % 7 - 3)
    expected = reference_windows(records, size, slide, out_of_orderness, 10, lambda x: x % 3, value, fold)
    assert sorted(result.collected["out"]) == expected
    in_time = reference_windows(records, size, slide, 10**9, 10, lambda x: x % 3, value, fold)
    assert expected != in_time, "the setup should make some records late"
