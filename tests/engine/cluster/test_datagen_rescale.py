"""A rate-limited datagen rescaled 1 -> 2 -> 1 through savepoints: every subtask has numbers to
emit at every parallelism (so the job's total rate holds), and the three runs together emit
every number exactly once. In process and on Spark."""
from __future__ import annotations

import threading
from collections import Counter

import pytest

from hypothesis import given, strategies as st

from engine.runtime.operators.connectors.datagen import _take_in_order, deal_splits
from tests.builders import edge, node, pipeline
from tests.support import assert_exactly_once

COUNT = 2400
RATE = 400
"""Records per second over all subtasks: each run stops after ``PER_RUN`` records, long before the end."""
PER_RUN = 240


def numbers(splits: list[dict], limit: int = 10_000) -> list[int]:
    return [x for split in splits
            for x in range(split["next"], min(split["end"] if split["end"] is not None else limit, limit),
                           split["step"])]


@pytest.mark.parametrize(("before", "after"), [(1, 2), (2, 1), (2, 3), (3, 2), (1, 4), (4, 4), (3, 5)])
def test_dealt_splits_give_every_subtask_work_and_keep_every_number_once(before, after):
    splits = [{"next": 7 + index, "step": before, "end": 600} for index in range(before)]
    shares = [deal_splits(splits, index, after) for index in range(after)]
    assert all(shares), f"a subtask got nothing: {shares}"
    assert sorted(x for share in shares for x in numbers(share)) == list(range(7, 600))
    counts = [len(numbers(share)) for share in shares]
    assert max(counts) - min(counts) <= len(shares[0]) * 2  # every subtask an even share, up to a piece's rounding


@given(st.lists(st.tuples(st.integers(0, 50), st.integers(1, 6), st.one_of(st.none(), st.integers(0, 300))),
                min_size=2, max_size=5, unique_by=lambda t: t[0]), st.integers(1, 40))
def test_several_splits_of_one_subtask_are_emitted_merged_in_increasing_order(shape, wanted):
    """After a restore a subtask may hold pieces of several old splits: taken in turns, one piece's
    batch ran ahead of the others' numbers, and event time derived from them fell behind the
    subtask's own watermark (session windows lost records as late after a rescale 2 -> 3)."""
    splits = [{"next": start, "step": step, "end": end} for start, step, end in shape]
    expected = sorted({x for split in splits for x in numbers([split], 2_000)})
    if len(expected) != sum(len(numbers([split], 2_000)) for split in splits):
        return  # overlapping progressions: not a state deal_splits makes
    emitted = []
    while any(split["end"] is None or split["next"] < split["end"] for split in splits) and len(emitted) < len(expected):
        taken = _take_in_order(splits, wanted).tolist()
        assert taken, "a poll with numbers left gave none"
        emitted += taken
    assert emitted[:len(expected)] == expected


def test_repeated_rescales_keep_the_splits_few():
    splits = [{"next": 0, "step": 1, "end": None}]
    for parallelism in (2, 1, 2, 1, 2, 3, 2, 1):
        splits = [split for index in range(parallelism) for split in deal_splits(splits, index, parallelism)]
    assert len(splits) <= 6  # the least common multiple of 2 and 3, not a product of every step
    assert sorted(numbers(splits, 1200)) == list(range(1200))


def test_exhausted_splits_are_left_out_and_the_rest_is_shared():
    splits = [{"next": 600, "step": 2, "end": 600}, {"next": 301, "step": 2, "end": 600}]
    shares = [deal_splits(splits, index, 2) for index in range(2)]
    assert all(shares) and sorted(numbers(shares[0]) + numbers(shares[1])) == list(range(301, 600, 2))


def rated(parallelism: int) -> dict:
    return pipeline([node("gen", "source.datagen", count=COUNT, rate=RATE), node("out", "sink.collect",
                                                                                 max_records=COUNT)],
                    [edge("gen", "out")], parallelism=parallelism, interval_ms=100)


class SourceProgress:
    """The latest records out of each source subtask, from the job's metrics events."""

    def __init__(self):
        self.by_subtask: dict[str, int] = {}
        self.enough = threading.Event()

    def __call__(self, event: dict) -> None:
        if event.get("type") != "metrics":
            return
        for task, metrics in event.get("tasks", {}).items():
            if task.startswith("gen#"):
                self.by_subtask[task] = int(metrics.get("operators", {}).get("gen", {}).get("records_out") or 0)
        if sum(self.by_subtask.values()) >= PER_RUN:
            self.enough.set()


def run_then_stop(deployment, parallelism: int, tmp_path, restore: str | None) -> tuple[list, dict, str]:
    """Run at ``parallelism`` until the sources emitted ``PER_RUN`` records, then stop with a savepoint."""
    progress = SourceProgress()
    handle = deployment.submit(rated(parallelism), checkpoint_dir=str(tmp_path / f"p{parallelism}-{restore is None}"),
                               restore=restore, on_event=progress, timeout=120)
    assert progress.enough.wait(90), f"the sources emitted only {progress.by_subtask}"
    location = handle.stop_with_savepoint(target=str(tmp_path / "savepoints")).result(timeout=60)
    result = handle.wait(60)
    assert result.status == "FINISHED", result.failure
    return result.collected["out"], progress.by_subtask, location


def test_a_rate_limited_datagen_rescaled_1_2_1_keeps_every_subtask_busy_and_its_output_exact(deployment, tmp_path):
    first, first_sources, savepoint = run_then_stop(deployment, 1, tmp_path, None)
    second, second_sources, savepoint = run_then_stop(deployment, 2, tmp_path, savepoint)
    # both subtasks emitted their half: neither was left without numbers (which halved the job's rate)
    assert set(second_sources) == {"gen#0", "gen#1"}
    total = sum(second_sources.values())
    assert all(emitted >= 0.3 * total for emitted in second_sources.values()), second_sources
    result = deployment.run(rated(1), checkpoint_dir=str(tmp_path / "last"), restore=savepoint, timeout=120)
    assert result.status == "FINISHED", result.failure
    assert_exactly_once(Counter(first + second + result.collected["out"]), Counter(range(COUNT)), "1 -> 2 -> 1")
    assert first_sources["gen#0"] > 0 and len(first) >= PER_RUN


class Clock:
    """The datagen's clock, moved by the test: counts per second with no sleeping or timing."""

    def __init__(self):
        self.now = 1024.0

    def monotonic(self) -> float:
        return self.now


class Pooled:
    """What a restore gives one subtask of a union state: the elements of every old subtask."""

    def __init__(self, snapshots: list[dict]):
        self.elements = [element for snapshot in snapshots for element in snapshot.get("union/splits", ())]

    def knows(self, node_id: str) -> bool:
        return True

    def operator_state(self, node_id: str) -> dict:
        return {"union/splits": list(self.elements)}


def subtasks(parallelism: int, restore: Pooled | None) -> list:
    """The datagen's subtasks at ``parallelism``, opened (their rate counted from now)."""
    from engine.runtime.operators.base import OperatorContext
    from engine.runtime.operators.connectors.datagen import DatagenSource

    node = {"id": "gen", "type": "source.datagen", "params": {"rate": RATE}}
    sources = []
    for index in range(parallelism):
        context = OperatorContext(task=("gen", index), node_id="gen", parallelism=parallelism, max_parallelism=64,
                                  config={}, restore=restore)
        source = DatagenSource(node, context)
        source.initialize_state()
        source.open()
        sources.append(source)
    return sources


def emit_for(sources: list, clock: Clock, seconds: int) -> list[list[int]]:
    """What each subtask emits while ``seconds`` pass, polled every 1/128 s as its mailbox would (a
    binary fraction: the clock's sums stay exact)."""
    emitted = [[] for _ in sources]
    for _ in range(seconds * 128):
        clock.now += 1 / 128
        for index, source in enumerate(sources):
            emitted[index] += list(source.poll_next())
    return emitted


def snapshot(sources: list) -> list[dict]:
    for source in sources:
        source.snapshot_state(1)
    return [source.context.snapshot_backends().operator for source in sources]


def test_a_rate_limited_datagen_rescaled_1_2_1_keeps_its_total_rate_and_exact_output(monkeypatch):
    """The proof by counts: while two seconds pass on the source's clock, the job emits RATE × 2
    records at every parallelism (each of two subtasks half of it), and the three stages together
    emit every number once, in order per subtask."""
    from engine.runtime.operators.connectors import datagen

    clock = Clock()
    monkeypatch.setattr(datagen, "time", clock)
    first = subtasks(1, None)
    at_one = emit_for(first, clock, 2)
    second = subtasks(2, Pooled(snapshot(first)))
    at_two = emit_for(second, clock, 2)
    third = subtasks(1, Pooled(snapshot(second)))
    at_one_again = emit_for(third, clock, 2)

    assert [len(numbers) for numbers in at_one] == [2 * RATE]
    assert [len(numbers) for numbers in at_two] == [RATE, RATE]  # both subtasks work: the total rate holds
    assert [len(numbers) for numbers in at_one_again] == [2 * RATE]
    everything = [x for stage in (at_one, at_two, at_one_again) for numbers in stage for x in numbers]
    assert sorted(everything) == list(range(6 * RATE))
    for numbers in at_two + at_one_again:
        assert numbers == sorted(numbers)
