"""``join.interval`` and ``join.window`` against plain-Python references.

Two levels. The operator level drives one join with random batches of both sides and
random watermarks between them (out-of-order times, late records, allowed lateness) and
compares with a reference that keeps every record forever and decides lateness the same
way. The job level runs random out-of-order events through whole pipelines in streaming
and batch mode at parallelism 1 and 2; there the disorder stays within the watermarks'
bound, so no record is late however the two inputs interleave, and both modes must give
the reference's result exactly.
"""
from __future__ import annotations

import json
import tempfile
from collections import Counter
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.cluster.local import LocalCluster
from engine.runtime.io.events import MAX_WATERMARK, TimestampedBatch, Watermark
from engine.runtime.operators.base import OperatorContext
from engine.runtime.operators.joins.interval_join import IntervalJoinOperator
from engine.runtime.operators.joins.window_join import CLEAN, FIRE, WindowJoinOperator
from engine.runtime.state.key_groups import KeyGroupRange, key_group_for
from engine.spec.expressions import compile_batch_expression
from tests.builders import edge, node, pipeline
from tests.engine.joins_reference import interval_reference, late_reference, window_ends, window_reference
from tests.engine.lifecycle.support import as_counter

OUTPUT = '[left["id"], right["id"] if right is not None else None]'
KEYS = ["a", "b", 1, (2, 3)]


# -- the operator level ------------------------------------------------------------------------

def join_operator(cls, params: dict):
    context = OperatorContext(task=("j", 0), node_id="j", parallelism=1, max_parallelism=8, config={},
                              side_key_functions={"left": compile_batch_expression('x["k"]'),
                                                  "right": compile_batch_expression('x["k"]')})
    operator = cls({"id": "j", "type": "join", "params": {"output": OUTPUT, **params}}, context)
    operator.initialize_state()
    emitted = Counter()
    operator.emit = lambda batch: emitted.update(json.dumps(record) for record in batch)
    operator.late = Counter()
    for side in ("left", "right"):
        operator.side_outputs[f"late_{side}"] = (
            lambda batch, side=side: operator.late.update((side, record["id"]) for record in batch))
    return operator, emitted


def restored_from_snapshot(operator, key_group_range=None, snapshot=None):
    """A new operator of ``operator``'s kind restored from a snapshot of its keyed state now (or from
    ``snapshot``, ``{key group: {state: entries}}``), for the key groups of ``key_group_range`` (all by
    default), and the Counter of what the new one emits."""
    if snapshot is None:
        snapshot = operator.context.snapshot_backends().keyed.by_key_group()

    class Restore:
        def knows(self, _node):
            return True

        def keyed_state(self, _node, _range, _max_parallelism):
            return snapshot

    context = OperatorContext(task=("j", 0), node_id="j", parallelism=1, max_parallelism=8, config={},
                              side_key_functions=operator.context.side_key_functions, restore=Restore(),
                              key_group_range=key_group_range)
    restored = type(operator)(operator.node, context)
    restored.initialize_state()
    emitted = Counter()
    restored.emit = lambda batch: emitted.update(json.dumps(record) for record in batch)
    restored.late = Counter()
    for side in ("left", "right"):
        restored.side_outputs[f"late_{side}"] = (
            lambda batch, side=side: restored.late.update((side, record["id"]) for record in batch))
    return restored, emitted


def drive(operator, steps) -> None:
    for step in steps:
        drive_step(operator, step)
    operator.process_watermark(MAX_WATERMARK)


def drive_step(operator, step) -> None:
    if step[0] == "watermark":
        operator.process_watermark(Watermark(step[1]))
    else:
        side, events = step
        batch = TimestampedBatch(events, [e["t"] for e in events])
        (operator.process_left if side == "left" else operator.process_right)(batch)


@st.composite
def join_steps(draw):
    """Batches of both sides with times that mostly grow but jump back (some late), watermarks between."""
    steps, now, ids = [], 0, 0
    for _ in range(draw(st.integers(1, 25))):
        if draw(st.booleans()):
            now += draw(st.integers(0, 30))
            steps.append(("watermark", now - draw(st.integers(0, 40))))
            continue
        side = draw(st.sampled_from(["left", "right"]))
        events = []
        for _ in range(draw(st.integers(1, 8))):
            now += draw(st.integers(0, 10))
            ids += 1
            events.append({"k": draw(st.sampled_from(KEYS)), "t": now - draw(st.sampled_from([0, 0, 5, 60])),
                           "id": ids})
        steps.append((side, events))
    return steps


@settings(max_examples=300, deadline=None)
@given(steps=join_steps(), bounds=st.tuples(st.integers(-30, 30), st.integers(0, 40)),
       lateness=st.sampled_from([0, 0, 10, 50]), outer=st.booleans())
def test_the_interval_join_emits_the_references_pairs_and_unmatched_lefts(steps, bounds, lateness, outer):
    lower, upper = bounds[0], bounds[0] + bounds[1]
    operator, emitted = join_operator(IntervalJoinOperator, {
        "lower_ms": lower, "upper_ms": upper, "allowed_lateness_ms": lateness,
        "join_type": "left_outer" if outer else "inner"})
    drive(operator, steps)
    assert emitted == interval_reference(steps, lower, upper, lateness, outer)
    assert operator.late == late_reference(steps, lateness, lambda t, watermark: t <= watermark - lateness)
    assert not operator.left.entries and not operator.right.entries and not operator.matched.entries
    assert len(operator.timers) == 0


@settings(max_examples=300, deadline=None)
@given(steps=join_steps(), size=st.sampled_from([10, 25]), sliding=st.booleans(),
       lateness=st.sampled_from([0, 0, 10, 50]), outer=st.booleans())
def test_the_window_join_emits_the_references_pairs_and_unmatched_lefts_per_window(steps, size, sliding, lateness,
                                                                                   outer):
    slide = size // 5 if sliding else size
    operator, emitted = join_operator(WindowJoinOperator, {
        "size_ms": size, "slide_ms": slide, "allowed_lateness_ms": lateness,
        "join_type": "left_outer" if outer else "inner"})
    drive(operator, steps)
    assert emitted == window_reference(steps, size, slide, lateness, outer)
    assert operator.late == late_reference(steps, lateness, lambda t, watermark: all(
        end - 1 + lateness <= watermark for end in window_ends(t, size, slide)))
    assert not operator.pending and not operator.kept
    assert len(operator.timers) == 0


@settings(max_examples=200, deadline=None)
@given(steps=join_steps(), size=st.sampled_from([10, 25]), sliding=st.booleans(),
       lateness=st.sampled_from([0, 10, 50]), outer=st.booleans(), cut=st.integers(0, 25),
       split=st.booleans())
def test_a_window_join_restored_from_its_snapshot_midway_gives_the_references_result(steps, size, sliding,
                                                                                    lateness, outer, cut, split):
    """Snapshot after ``cut`` steps, restore (into two subtasks of half the key groups each when ``split``),
    go on: the pairs, unmatched lefts and late records of both halves together are the reference's. The
    restored subtasks get the watermark again first, as a restored job's inputs send it."""
    slide = size // 5 if sliding else size
    operator, emitted = join_operator(WindowJoinOperator, {
        "size_ms": size, "slide_ms": slide, "allowed_lateness_ms": lateness,
        "join_type": "left_outer" if outer else "inner"})
    for step in steps[:cut]:
        drive_step(operator, step)
    ranges = [KeyGroupRange(0, 3), KeyGroupRange(4, 7)] if split else [None]
    restored = [restored_from_snapshot(operator, key_group_range) for key_group_range in ranges]
    late = Counter(operator.late)
    for subtask, _ in restored:
        if operator.watermark > -(2**63):
            subtask.process_watermark(Watermark(operator.watermark))
    for step in [*steps[cut:], ("watermark", MAX_WATERMARK.timestamp)]:
        if step[0] == "watermark":
            for subtask, _ in restored:
                drive_step(subtask, step)
            continue
        for index, (subtask, _) in enumerate(restored):
            mine = [e for e in step[1] if not split or (key_group_for(e["k"], 8) >= 4) == index]
            if mine:
                drive_step(subtask, (step[0], mine))
    for subtask, again in restored:
        emitted.update(again)
        late.update(subtask.late)
        assert not subtask.pending and not subtask.kept and not subtask.timers
    assert emitted == window_reference(steps, size, slide, lateness, outer)
    assert late == late_reference(steps, lateness, lambda t, watermark: all(
        end - 1 + lateness <= watermark for end in window_ends(t, size, slide)))


def test_the_window_join_keeps_one_timer_per_window_end_whatever_its_keys():
    """The state waits per window end: 100 keys' records in two windows, held behind a lagging watermark,
    are two timers (a timer per key and window before), and the snapshot still reads per key."""
    operator, emitted = join_operator(WindowJoinOperator, {"size_ms": 10, "allowed_lateness_ms": 5})
    lefts = [{"k": f"user-{n}", "t": n % 20, "id": n} for n in range(100)]
    operator.process_left(TimestampedBatch(lefts, [e["t"] for e in lefts]))
    operator.process_right(TimestampedBatch([{"k": "user-3", "t": 3, "id": 1000}], [3]))
    assert sorted(operator.timers) == [(9, FIRE, 10), (19, FIRE, 20)]
    assert operator.windows_held() == 100
    entries = operator.context.snapshot_backends().keyed.entries
    assert entries["left"]["user-3"] == {10: [lefts[3]]} and entries["left"]["user-13"] == {20: [lefts[13]]}
    assert entries["right"] == {"user-3": {10: [{"k": "user-3", "t": 3, "id": 1000}]}} and entries["fired"] == {}
    operator.process_watermark(Watermark(9))
    assert emitted == Counter({"[3, 1000]": 1}) and sorted(operator.timers) == [(14, CLEAN, 10), (19, FIRE, 20)]
    fired = operator.context.snapshot_backends().keyed.entries["fired"]
    assert fired == {f"user-{n}": {10: True} for n in range(100) if n % 20 < 10}


def test_a_window_join_restored_from_subtasks_that_fired_different_windows_keeps_each_keys_own():
    """Rescaling merges key groups of subtasks whose watermarks differed (unaligned checkpoints): the key
    whose window fired joins a late partner at once and does not fire again; the other's fires later."""
    parts = []
    for key, watermark in (("a", 20), ("b", None)):
        operator, emitted = join_operator(WindowJoinOperator, {"size_ms": 10, "allowed_lateness_ms": 50})
        operator.process_left(TimestampedBatch([{"k": key, "t": 3, "id": f"{key}1"}], [3]))
        operator.process_right(TimestampedBatch([{"k": key, "t": 4, "id": f"{key}2"}], [4]))
        if watermark is not None:
            operator.process_watermark(Watermark(watermark))
        parts.append((operator, emitted))
    assert parts[0][1] == Counter({'["a1", "a2"]': 1}) and not parts[1][1]
    merged = {}
    for operator, _ in parts:
        merged.update(operator.context.snapshot_backends().keyed.by_key_group())
    restored, again = restored_from_snapshot(parts[0][0], snapshot=merged)
    restored.process_right(TimestampedBatch([{"k": "a", "t": 5, "id": "a3"}, {"k": "b", "t": 5, "id": "b3"}], [5, 5]))
    assert again == Counter({'["a1", "a3"]': 1})
    restored.process_watermark(Watermark(20))
    assert again == Counter({'["a1", "a3"]': 1, '["b1", "b2"]': 1, '["b1", "b3"]': 1})
    restored.process_watermark(MAX_WATERMARK)
    assert sum(again.values()) == 3 and not restored.pending and not restored.kept and not restored.timers


def test_late_records_are_counted_and_join_nothing():
    operator, emitted = join_operator(IntervalJoinOperator, {"lower_ms": 0, "upper_ms": 10})
    operator.process_left(TimestampedBatch([{"k": "a", "t": 100, "id": 1}], [100]))
    operator.process_watermark(Watermark(150))
    operator.process_right(TimestampedBatch([{"k": "a", "t": 105, "id": 2}], [105]))
    operator.process_watermark(MAX_WATERMARK)
    assert not emitted and operator.metrics() == {"late_records": 1}
    assert operator.late == Counter({("right", 2): 1})


def test_a_record_for_a_fired_window_within_the_lateness_joins_at_once_with_only_its_new_pairs():
    operator, emitted = join_operator(WindowJoinOperator, {"size_ms": 10, "allowed_lateness_ms": 20})
    operator.process_left(TimestampedBatch([{"k": "a", "t": 3, "id": 1}], [3]))
    operator.process_right(TimestampedBatch([{"k": "a", "t": 4, "id": 2}], [4]))
    operator.process_watermark(Watermark(12))
    assert emitted == Counter({"[1, 2]": 1})
    operator.process_right(TimestampedBatch([{"k": "a", "t": 5, "id": 3}], [5]))
    assert emitted == Counter({"[1, 2]": 1, "[1, 3]": 1})
    operator.process_watermark(Watermark(29))
    operator.process_left(TimestampedBatch([{"k": "a", "t": 6, "id": 4}], [6]))
    assert emitted == Counter({"[1, 2]": 1, "[1, 3]": 1}) and operator.late == Counter({("left", 4): 1})


def test_allowed_lateness_keeps_a_left_record_for_a_late_partner():
    operator, emitted = join_operator(IntervalJoinOperator, {"lower_ms": 0, "upper_ms": 10,
                                                             "allowed_lateness_ms": 100})
    operator.process_left(TimestampedBatch([{"k": "a", "t": 100, "id": 1}], [100]))
    operator.process_watermark(Watermark(150))
    operator.process_right(TimestampedBatch([{"k": "a", "t": 105, "id": 2}], [105]))
    assert emitted == Counter({"[1, 2]": 1})
    assert operator.late_records == 0


def test_a_left_outer_join_emits_an_unmatched_left_once_the_watermark_passes_its_interval():
    operator, emitted = join_operator(IntervalJoinOperator, {"lower_ms": -5, "upper_ms": 5,
                                                             "join_type": "left_outer"})
    operator.process_left(TimestampedBatch([{"k": "a", "t": 100, "id": 1}, {"k": "b", "t": 100, "id": 2}],
                                           [100, 100]))
    operator.process_right(TimestampedBatch([{"k": "a", "t": 103, "id": 3}], [103]))
    operator.process_watermark(Watermark(104))
    assert emitted == Counter({"[1, 3]": 1})
    operator.process_watermark(Watermark(105))
    assert emitted == Counter({"[1, 3]": 1, "[2, null]": 1})


def test_pairs_are_stamped_with_the_later_time_and_window_pairs_with_the_windows_end():
    stamps = []
    operator, _ = join_operator(IntervalJoinOperator, {"lower_ms": -10, "upper_ms": 10})
    operator.emit = lambda batch: stamps.extend(batch.timestamps)
    operator.process_right(TimestampedBatch([{"k": "a", "t": 7, "id": 1}], [7]))
    operator.process_left(TimestampedBatch([{"k": "a", "t": 3, "id": 2}], [3]))
    window, _ = join_operator(WindowJoinOperator, {"size_ms": 10})
    window.emit = lambda batch: stamps.extend(batch.timestamps)
    window.process_left(TimestampedBatch([{"k": "a", "t": 3, "id": 1}], [3]))
    window.process_right(TimestampedBatch([{"k": "a", "t": 7, "id": 2}], [7]))
    window.process_watermark(Watermark(9))
    assert stamps == [7, 9]


def test_state_restored_from_a_snapshot_joins_what_arrives_after_it():
    operator, _ = join_operator(IntervalJoinOperator, {"lower_ms": 0, "upper_ms": 10, "join_type": "left_outer"})
    operator.process_left(TimestampedBatch([{"k": "a", "t": 100, "id": 1}, {"k": "b", "t": 100, "id": 2}],
                                           [100, 100]))
    restored, emitted = restored_from_snapshot(operator)
    restored.process_right(TimestampedBatch([{"k": "a", "t": 104, "id": 3}], [104]))
    restored.process_watermark(MAX_WATERMARK)
    assert emitted == Counter({"[1, 3]": 1, "[2, null]": 1})


# -- the job level -----------------------------------------------------------------------------

DISORDER_MS = 30


@st.composite
def side_events(draw, first_id: int):
    """Events in file order whose times jump back by at most DISORDER_MS (the watermarks' bound)."""
    events, now = [], 0
    for offset in range(draw(st.integers(0, 60))):
        now += draw(st.integers(0, 12))
        events.append({"k": draw(st.sampled_from(["a", "b", "c", 1])), "id": first_id + offset,
                       "t": max(0, now - draw(st.sampled_from([0, 0, 0, 7, DISORDER_MS])))})
    return events


def write(events: list[dict], name: str) -> Path:
    path = Path(tempfile.mkdtemp(prefix="joins-")) / f"{name}.jsonl"
    path.write_text("".join(json.dumps(event) + "\n" for event in events))
    return path


def join_pipeline(left: Path, right: Path, join: dict, *, mode: str, parallelism: int) -> dict:
    """Two files -> event time from x["t"] -> hash by x["k"] -> join (left, right) -> collect."""
    return pipeline([node("l", "source.file", path=str(left)),
                     node("r", "source.file", path=str(right)),
                     node("lt", "transform.watermark", timestamp='x["t"]', max_out_of_orderness_ms=DISORDER_MS),
                     node("rt", "transform.watermark", timestamp='x["t"]', max_out_of_orderness_ms=DISORDER_MS),
                     node("join", join["type"], parallelism=parallelism, output=OUTPUT, **join["params"]),
                     node("out", "sink.collect", parallelism=parallelism, max_records=100000)],
                    [edge("l", "lt"), edge("r", "rt"),
                     {**edge("lt", "join", "hash", 'x["k"]'), "side": "left"},
                     {**edge("rt", "join", "hash", 'x["k"]'), "side": "right"},
                     edge("join", "out")], mode=mode)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(left=side_events(0), right=side_events(1000), kind=st.sampled_from(["interval", "tumbling", "sliding"]),
       outer=st.booleans(), parallelism=st.integers(1, 2), batch_size=st.sampled_from([1, 7, 64]))
def test_streaming_and_batch_jobs_give_the_references_result(left, right, kind, outer, parallelism, batch_size):
    if kind == "interval":
        join = {"type": "join.interval", "params": {"lower_ms": -15, "upper_ms": 10,
                                                    "join_type": "left_outer" if outer else "inner"}}
        steps = [("left", left), ("right", right)]
        expected = interval_reference(steps, -15, 10, 0, outer)
    else:
        slide = 20 if kind == "tumbling" else 5
        join = {"type": "join.window", "params": {"size_ms": 20, "slide_ms": slide,
                                                  "join_type": "left_outer" if outer else "inner"}}
        expected = window_reference([("left", left), ("right", right)], 20, slide, 0, outer)
    left_path, right_path = write(left, "left"), write(right, "right")
    for mode in ("streaming", "batch"):
        definition = join_pipeline(left_path, right_path, join, mode=mode, parallelism=parallelism)
        result = LocalCluster(config={"batch_size": batch_size}).run(definition, timeout=60)
        assert result.status == "FINISHED", result.failure
        assert as_counter(result.collected.get("out", [])) == as_counter(json.loads(p) for p in expected.elements()), mode


def test_a_snapshot_keeps_the_buckets_as_they_were_while_the_join_goes_on():
    operator, _ = join_operator(IntervalJoinOperator, {"lower_ms": 0, "upper_ms": 10})
    operator.process_left(TimestampedBatch([{"k": "a", "t": 1, "id": 1}], [1]))
    snapshot = operator.context.snapshot_backends().keyed
    operator.process_left(TimestampedBatch([{"k": "a", "t": 1, "id": 2}, {"k": "b", "t": 1, "id": 3}], [1, 1]))
    assert snapshot.entries["left"] == {"a": {1: [{"k": "a", "t": 1, "id": 1}]}}


def test_a_restored_window_join_knows_which_windows_fired_and_joins_late_records_without_firing_again():
    operator, emitted = join_operator(WindowJoinOperator, {"size_ms": 10, "allowed_lateness_ms": 50})
    operator.process_left(TimestampedBatch([{"k": "a", "t": 3, "id": 1}], [3]))
    operator.process_right(TimestampedBatch([{"k": "a", "t": 4, "id": 2}], [4]))
    operator.process_watermark(Watermark(20))
    assert emitted == Counter({"[1, 2]": 1})
    restored, again = restored_from_snapshot(operator)
    restored.process_right(TimestampedBatch([{"k": "a", "t": 5, "id": 3}], [5]))
    restored.process_watermark(MAX_WATERMARK)
    assert again == Counter({"[1, 3]": 1})
    assert not restored.pending and not restored.kept


def test_a_left_outer_window_join_emits_each_left_without_a_right_in_its_window_once_when_it_fires():
    operator, emitted = join_operator(WindowJoinOperator, {"size_ms": 10, "slide_ms": 5, "join_type": "left_outer"})
    stamps = []
    operator.emit = lambda batch: (emitted.update(json.dumps(record) for record in batch),
                                   stamps.extend(batch.timestamps))
    operator.process_left(TimestampedBatch([{"k": "a", "t": 3, "id": 1}, {"k": "a", "t": 7, "id": 2},
                                            {"k": "b", "t": 7, "id": 3}], [3, 7, 7]))
    operator.process_right(TimestampedBatch([{"k": "a", "t": 8, "id": 4}], [8]))
    operator.process_watermark(Watermark(9))  # [-5, 5) fires: 1 alone; [0, 10): a has a right, b none
    assert emitted == Counter({"[1, null]": 1, "[1, 4]": 1, "[2, 4]": 1, "[3, null]": 1})
    assert stamps == [4, 9, 9, 9]
    operator.process_watermark(Watermark(14))  # [5, 15) fires; 1 (t 3) is not in it
    assert emitted == Counter({"[1, null]": 1, "[1, 4]": 1, "[2, 4]": 2, "[3, null]": 2})
    operator.process_watermark(MAX_WATERMARK)
    assert sum(emitted.values()) == 6 and not operator.pending and not operator.kept


def test_a_restored_left_outer_window_join_does_not_emit_a_fired_windows_unmatched_lefts_again():
    operator, emitted = join_operator(WindowJoinOperator, {"size_ms": 10, "allowed_lateness_ms": 50,
                                                           "join_type": "left_outer"})
    operator.process_left(TimestampedBatch([{"k": "a", "t": 3, "id": 1}], [3]))
    operator.process_watermark(Watermark(20))
    assert emitted == Counter({"[1, null]": 1})
    restored, again = restored_from_snapshot(operator)
    restored.process_left(TimestampedBatch([{"k": "a", "t": 4, "id": 2}], [4]))  # a fired window, no right
    assert again == Counter({"[2, null]": 1})
    restored.process_right(TimestampedBatch([{"k": "a", "t": 5, "id": 3}], [5]))  # joins both, retracts nothing
    restored.process_watermark(MAX_WATERMARK)
    assert again == Counter({"[2, null]": 1, "[1, 3]": 1, "[2, 3]": 1})
    assert not restored.pending and not restored.kept


def test_late_records_of_a_job_leave_through_the_late_port_and_every_left_record_leaves_once():
    """Left outer, no right partner: each left record leaves unmatched or, when late, through late_left."""
    lefts = [{"k": x % 3, "t": 0 if x % 10 == 9 else x * 10, "id": x} for x in range(600)]
    definition = pipeline(
        [node("l", "source.datagen", count=600, rate=3000,
              expression='{"k": x % 3, "t": 0 if x % 10 == 9 else x * 10, "id": x}'),
         node("r", "source.datagen", count=1, expression='{"k": 0, "t": 10 ** 9, "id": -1}'),
         node("lt", "transform.watermark", timestamp='x["t"]'),
         node("rt", "transform.watermark", timestamp='x["t"]'),
         node("join", "join.interval", lower_ms=0, upper_ms=0, join_type="left_outer",
              output='left["id"] if right is None else -1'),
         node("out", "sink.collect", max_records=100000),
         node("late", "sink.collect", max_records=100000)],
        [edge("l", "lt"), edge("r", "rt"),
         {**edge("lt", "join", "hash", 'x["k"]'), "side": "left"},
         {**edge("rt", "join", "hash", 'x["k"]'), "side": "right"},
         edge("join", "out"), {**edge("join", "late"), "from_port": "late_left"}])
    result = LocalCluster(config={"batch_size": 16}).run(definition, timeout=60)
    assert result.status == "FINISHED", result.failure
    late = [record["id"] for record in result.collected.get("late", [])]
    assert sorted(result.collected.get("out", []) + late) == [left["id"] for left in lefts]
    assert late and all(lefts[i]["t"] == 0 for i in late)


def test_a_stream_joins_itself_through_two_edges_from_one_node():
    """A self-join: the same watermarked stream feeds both sides (two job edges, distinct channels)."""
    definition = pipeline(
        [node("gen", "source.datagen", count=30, expression='{"k": x % 3, "t": x, "id": x}'),
         node("time", "transform.watermark", timestamp='x["t"]'),
         node("join", "join.interval", parallelism=2, lower_ms=1, upper_ms=3, output=OUTPUT),
         node("out", "sink.collect", parallelism=2, max_records=1000)],
        [edge("gen", "time"),
         {**edge("time", "join", "hash", 'x["k"]'), "side": "left"},
         {**edge("time", "join", "hash", 'x["k"]'), "side": "right"},
         edge("join", "out")])
    for mode in ("streaming", "batch"):
        result = LocalCluster(config={"batch_size": 4}).run({**definition, "mode": mode}, timeout=60)
        assert result.status == "FINISHED", result.failure
        assert sorted(map(tuple, result.collected["out"])) == [(x, x + 3) for x in range(27)], mode
