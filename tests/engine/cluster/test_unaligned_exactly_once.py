"""Exactly-once with unaligned checkpoints under backpressure, in-process, despite kills.

The pipeline of ``test_local_exactly_once`` (datagen -> hash -> keyed running sum -> 2PC
file sink), paced, with a slow node chained in front of the sink: the sink's subtask is the
bottleneck, so the hash channels are full and the checkpoints' barriers overtake buffers.
Checkpoints are unaligned, every 100 ms. A kill hook crashes subtasks at random points --
while collecting an unaligned checkpoint's channel state, in the snapshot, the
upload, before the acknowledgement, around the commit -- and the job restarts from its
latest checkpoint, replaying the persisted in-flight buffers first. The committed output
must equal that of a failure-free run, and the checkpoints must really have been
unaligned with in-flight data persisted (otherwise this would prove nothing new).
"""
from __future__ import annotations

import random

import pytest

from engine.cluster.local import LocalCluster
from tests.engine.cluster.test_local_exactly_once import KillPlan, committed_lines, expected_lines
from tests.support import assert_exactly_once

KILLS = 12
RATE = 4000
PAUSE_S = 0.001
"""The sources emit 4,000 records/s and the node before the sink pauses 1 ms per record: at
parallelism 2 or 3 it passes on at most 3,000/s, on any CPU, so the hash channels fill while
the sources still emit and barriers enter from them. (Unpaced, datagen emits its 6,000 numbers
in a poll or two and finishes; on a fast machine the checkpoints then all came after that, with
nothing in flight, and a slowness made of arithmetic was too little.)"""
KILL_POINTS = [
    ("source_poll", "gen", None),
    ("process", "sum", None),
    ("barrier", "sum", lambda info: info.get("aligning")),  # channel state still being recorded
    ("snapshot", "gen", None),
    ("snapshot", "sum", None),
    ("async_upload", "sum", None),
    ("before_ack", "sum", None),
    ("before_commit", "sum", None),
    ("after_commit", "sum", None),
]


def definition(sink_dir, parallelism: int, unaligned: dict, *, rate: float = RATE,
               pause_s: float = PAUSE_S) -> dict:
    """``pause_s``: the node before the sink is a Python function that passes each batch on
    after ``pause_s`` per record (records unchanged)."""
    code = f"import time\n\ndef process(records):\n    time.sleep({pause_s} * len(records))\n    return records\n"
    return {
        "format": 1, "name": "unaligned-exactly-once", "mode": "streaming", "parallelism": parallelism,
        "max_parallelism": 128,
        "checkpointing": {"interval_ms": 100, "mode": "exactly_once", "timeout_ms": 20000, "retained": 2,
                          **unaligned},
        "restart": {"strategy": "fixed_delay", "attempts": KILLS + 5, "delay_ms": 5},
        "nodes": [
            {"id": "gen", "type": "source.datagen", "params": {"count": 6000, "rate": rate}},
            {"id": "sum", "type": "aggregate.reduce", "params": {"function": "sum", "value": "x"}},
            {"id": "slow", "type": "transform.python", "params": {"code": code}},
            {"id": "sink", "type": "sink.file", "params": {"path": str(sink_dir)}},
        ],
        "edges": [
            {"id": "keyed", "from": "gen", "to": "sum", "partitioning": "hash", "key": "x % 12"},
            {"id": "e2", "from": "sum", "to": "slow"},
            {"id": "out", "from": "slow", "to": "sink"},
        ],
    }


class UnalignedKillPlan(KillPlan):
    def rearm(self) -> None:
        self.point, self.vertex, self.condition = self.random.choice(KILL_POINTS)
        self.index = self.random.randrange(self.parallelism)
        self.skip = self.random.randrange(0, 3)


def completed_checkpoints(result) -> list[dict]:
    return [e for e in result.events if e.get("type") == "checkpoint" and e.get("event") == "completed"]


def test_a_backpressured_unaligned_job_persists_in_flight_buffers_and_stays_exact(tmp_path):
    result = LocalCluster(config={"batch_size": 64}).run(
        definition(tmp_path / "out", 2, {"unaligned": True}), timeout=120, checkpoint_dir=str(tmp_path / "chk"))
    assert result.status == "FINISHED", result.failure
    assert committed_lines(tmp_path / "out") == expected_lines()
    completed = [c for c in completed_checkpoints(result) if c["kind"] == "checkpoint"]
    with_data = [c for c in completed if c["persisted_data"] > 0]
    assert with_data, "no checkpoint overtook in-flight buffers: the job was not backpressured"
    assert all(c["unaligned"] for c in with_data)
    assert all(s["unaligned"] for c in with_data for s in c["subtasks"] if s["status"] == "completed")


@pytest.mark.timeout(240)
@pytest.mark.parametrize("alignment", [{"unaligned": True}, {"unaligned": True, "aligned_timeout_ms": 5}],
                         ids=["unaligned", "aligned-timeout"])
def test_committed_output_is_exact_despite_kills_with_unaligned_checkpoints(tmp_path, alignment):
    seed = random.randrange(2**32)
    cluster = LocalCluster(config={"batch_size": 64})
    plan = UnalignedKillPlan(seed)
    run = restarts = persisted = 0
    while restarts < KILLS:
        parallelism = (2, 3)[run % 2]
        kills_before = len(plan.kills)
        plan.parallelism = parallelism
        plan.limit = len(plan.kills) + KILLS - restarts
        plan.rearm()
        out = tmp_path / f"killed-{run}"
        result = cluster.run(definition(out, parallelism, alignment), kill_hook=plan, timeout=200,
                             checkpoint_dir=str(tmp_path / f"chk-{run}"))
        context = f"seed {seed}, run {run}, parallelism {parallelism}, kills {plan.kills[kills_before:]}"
        assert result.status == "FINISHED", f"{context}: {result.failure}"
        restarts += result.restarts
        persisted += sum(c["persisted_data"] for c in completed_checkpoints(result))
        assert_exactly_once(committed_lines(out), expected_lines(), context)
        run += 1
    assert persisted > 0, "no checkpoint persisted in-flight data"


def rescalable(sink_dir, parallelism: int, interval_ms: int = 86_400_000, *, rate: float = 0,
               pause_s: float = 0) -> dict:
    """The pipeline with its source at parallelism 2 whatever the rest runs at: each key's
    numbers keep coming from one source subtask, in order, so the running sums stay fixed.
    By default checkpoints come only when the test asks for one."""
    spec = definition(sink_dir, parallelism, {"unaligned": True}, rate=rate, pause_s=pause_s)
    spec["checkpointing"]["interval_ms"] = interval_ms
    spec["nodes"][0]["parallelism"] = 2
    return spec


@pytest.mark.parametrize("before,after", [(2, 3), (3, 2)], ids=["2to3", "3to2"])
def test_an_unaligned_checkpoint_restores_its_in_flight_data_at_a_new_parallelism(tmp_path, before, after):
    from tests.support import wait_until

    cluster = LocalCluster(config={"batch_size": 64})
    events: list[dict] = []
    # paced, and 2 ms per record downstream: the sources still emit, backpressured, at the checkpoint
    # (unpaced, they emit their 6,000 numbers in one poll and finish, and on a fast machine the
    # checkpoint came after that, with nothing in flight)
    handle = cluster.submit(rescalable(tmp_path / "out", before, rate=2000, pause_s=0.002),
                            checkpoint_dir=str(tmp_path / "c1"), on_event=events.append)
    wait_until(lambda: sum(m.get("records_in", 0) for task, m in handle.metrics().items()
                           if task.startswith("sum")) > 300, 60, "records reaching the bottleneck")
    location = handle.trigger_checkpoint().result(60)
    handle.cancel()
    handle.wait(60)
    [taken] = [e for e in completed_checkpoints_of(events) if e["external_path"] == location]
    assert taken["unaligned"] and taken["persisted_data"] > 0, "the checkpoint held no in-flight data"

    result = cluster.run(rescalable(tmp_path / "out", after, interval_ms=100, pause_s=0), restore=location,
                         timeout=120, checkpoint_dir=str(tmp_path / "c2"))
    assert result.status == "FINISHED", result.failure
    assert_exactly_once(committed_lines(tmp_path / "out"), expected_lines())


def completed_checkpoints_of(events: list[dict]) -> list[dict]:
    return [e for e in events if e.get("type") == "checkpoint" and e.get("event") == "completed"]
