"""Exactly-once end to end: datagen -> keyed running sum -> two-phase-commit file sink.

The job runs in the in-process cluster with checkpoints every 100 ms while a kill hook
crashes subtasks at 30 randomised points: in sources and in the keyed operator, while
processing, while aligning barriers, right before the synchronous snapshot, during the
asynchronous upload, before the acknowledgement, and between pre-commit and commit (a
checkpoint completed, its files not yet renamed). After every crash the job restarts from
its latest completed checkpoint. The committed output must equal that of a failure-free
run: nothing lost, nothing doubled.

Every other killed run chains a map (adding nothing) to the source, so its numbers travel
as int64 arrays up to the exchange (``engine.runtime.columnar``): the kills hit that path too.

Determinism: with key ``x % 12`` and parallelism 2, 3 or 4 (all divide 12), every key's
numbers come from one source subtask, in increasing order, so the running sums -- and
hence the output lines -- of a failure-free run are fixed.
"""
from __future__ import annotations

import json
import random
import threading
from collections import Counter
from pathlib import Path

import pytest

from engine.cluster.local import LocalCluster
from tests.support import assert_exactly_once

RECORDS = 6000
KILLS = 30
KILL_POINTS = [
    # (point, vertex, condition on the hook's info)
    ("source_poll", "gen", None),
    ("process", "sum", None),
    ("barrier", "sum", lambda info: info.get("aligning")),
    ("snapshot", "gen", None),
    ("snapshot", "sum", None),
    ("async_upload", "gen", None),
    ("async_upload", "sum", None),
    ("before_ack", "sum", None),
    ("before_commit", "sum", None),
    ("before_commit", "gen", None),
    ("after_commit", "sum", None),
]


def definition(sink_dir: Path, parallelism: int, rate: int, columnar: bool = False) -> dict:
    """With ``columnar`` a map (adding nothing) follows the source in its chain: the numbers then travel
    as int64 arrays up to the hash exchange (``engine.runtime.columnar``), routed a whole array at once."""
    spec = {
        "format": 1, "name": "exactly-once", "mode": "streaming", "parallelism": parallelism,
        "max_parallelism": 128,
        "checkpointing": {"interval_ms": 100, "mode": "exactly_once", "timeout_ms": 20000, "retained": 2},
        "restart": {"strategy": "fixed_delay", "attempts": KILLS + 5, "delay_ms": 5},
        "nodes": [
            {"id": "gen", "type": "source.datagen", "params": {"count": RECORDS, "rate": rate}},
            {"id": "sum", "type": "aggregate.reduce", "params": {"function": "sum", "value": "x"}},
            {"id": "sink", "type": "sink.file", "params": {"path": str(sink_dir)}},
        ],
        "edges": [
            {"id": "keyed", "from": "gen", "to": "sum", "partitioning": "hash", "key": "x % 12"},
            {"id": "out", "from": "sum", "to": "sink"},
        ],
    }
    if columnar:
        spec["nodes"].insert(1, {"id": "same", "type": "transform.map", "params": {"expression": "x + 0"}})
        spec["edges"] = [{"id": "chained", "from": "gen", "to": "same"}, {**spec["edges"][0], "from": "same"},
                         spec["edges"][1]]
    return spec


class KillPlan:
    """Kills subtasks at ``KILLS`` randomised points, one after another. Thread-safe hook."""

    def __init__(self, seed: int):
        self.random = random.Random(seed)
        self.parallelism = 2
        self.lock = threading.Lock()
        self.kills: list[tuple] = []
        self.limit = KILLS
        self.rearm()

    def rearm(self) -> None:
        """Choose the next kill: a point, a subtask, and how many matching calls to let pass."""
        self.point, self.vertex, self.condition = self.random.choice(KILL_POINTS)
        self.index = self.random.randrange(self.parallelism)
        self.skip = self.random.randrange(0, 3)

    def __call__(self, point: str, task: tuple, info: dict) -> bool:
        with self.lock:
            if len(self.kills) >= self.limit or point != self.point or task != (self.vertex, self.index):
                return False
            if self.condition is not None and not self.condition(info):
                return False
            if self.skip > 0:
                self.skip -= 1
                return False
            self.kills.append((point, task, info.get("checkpoint_id")))
            self.rearm()
            return True


def committed_lines(sink_dir: Path) -> Counter:
    lines: Counter = Counter()
    for path in sink_dir.glob("part-*.jsonl"):
        for line in path.read_text().splitlines():
            lines[tuple(json.loads(line))] += 1
    return lines


def expected_lines() -> Counter:
    sums: dict[int, int] = {}
    lines: Counter = Counter()
    for x in range(RECORDS):
        key = x % 12
        sums[key] = sums.get(key, 0) + x
        lines[(key, sums[key])] += 1
    return lines


def assert_each_number_summed_once(lines: Counter, context: str) -> None:
    """Every number went into its key's running sum once: each key's committed sums, in increasing order,
    step by exactly that key's numbers, each once. A line committed twice is a step of 0, which only the
    number 0 may take; a lost or doubled record leaves its number out or takes it twice.

    The order a key's numbers arrive in may differ from a failure-free run's: once a source subtask's range
    ended, a restore deals the other ranges out again among all subtasks (``datagen.deal_splits``), and a key's
    numbers then come from several subtasks, interleaved as they happen to arrive. The running sums then pass
    through other values, each one still the sum of numbers taken once."""
    for key in range(12):
        sums = sorted(total for (line_key, total), count in lines.items() if line_key == key for _ in range(count))
        steps = [b - a for a, b in zip([0] + sums, sums)]
        numbers = [x for x in range(RECORDS) if x % 12 == key]
        assert sorted(steps) == numbers, (
            f"{context}: key {key}: {len(steps)} sums for {len(numbers)} numbers; "
            f"lost {sorted(set(numbers) - set(steps))[:5]}, steps that are no number of the key "
            f"{sorted(set(steps) - set(numbers))[:5]}")


@pytest.mark.timeout(150)
def test_committed_output_equals_a_failure_free_run_despite_30_kills(tmp_path):
    seed = random.randrange(2**32)
    cluster = LocalCluster(config={"batch_size": 64})
    clean_output = {}
    for parallelism in (2, 3, 4):
        clean_dir = tmp_path / f"clean-{parallelism}"
        clean = cluster.run(definition(clean_dir, parallelism, rate=0), timeout=60,
                            checkpoint_dir=str(tmp_path / f"clean-checkpoints-{parallelism}"))
        assert clean.status == "FINISHED", clean.failure
        clean_output[parallelism] = committed_lines(clean_dir)
        assert clean_output[parallelism] == expected_lines()

    plan = KillPlan(seed)
    run = restarts = 0
    while restarts < KILLS:  # a job may end before all kills happened: then run another
        parallelism = (2, 3, 4)[run % 3]
        kills_before = len(plan.kills)
        plan.parallelism = parallelism
        plan.limit = len(plan.kills) + KILLS - restarts
        plan.rearm()
        killed_dir = tmp_path / f"killed-{run}"
        columnar = run % 2 == 1  # every other run over int64 arrays
        result = cluster.run(definition(killed_dir, parallelism, rate=4000, columnar=columnar), kill_hook=plan,
                             timeout=100, checkpoint_dir=str(tmp_path / f"killed-checkpoints-{run}"))
        context = (f"seed {seed}, run {run}, parallelism {parallelism}, columnar {columnar}, "
                   f"kills {plan.kills[kills_before:]}")
        assert result.status == "FINISHED", f"{context}: {result.failure}"
        # a kill in a subtask of an attempt that is already failing over causes no extra restart
        assert result.restarts <= len(plan.kills) - kills_before, context
        restarts += result.restarts
        assert_each_number_summed_once(committed_lines(killed_dir), context)
        run += 1
    assert restarts == KILLS


def test_the_columnar_path_is_taken_and_commits_the_same_lines(tmp_path, monkeypatch):
    from engine.runtime.operators.connectors.datagen import DatagenSource

    answers = []
    asked = DatagenSource.emit_int_arrays
    monkeypatch.setattr(DatagenSource, "emit_int_arrays", lambda self: answers.append(asked(self)) or answers[-1])
    result = LocalCluster(config={"batch_size": 64}).run(definition(tmp_path / "out", 3, rate=0, columnar=True),
                                                         timeout=60, checkpoint_dir=str(tmp_path / "checkpoints"))
    assert result.status == "FINISHED", result.failure
    assert answers == [True, True, True]  # each source subtask emits int64 arrays
    assert committed_lines(tmp_path / "out") == expected_lines()
