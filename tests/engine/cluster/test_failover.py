"""Failover on both deployments: exactly-once under kills, rescaled restores, regional restarts.

Every test runs in process and on Spark (the ``deployment`` fixture). On Spark a kill is a
SIGKILL of the slot's Python worker; in process the slot's subtasks fail at their next
kill point. Either way the JobMaster restarts only the failed region's failover set, from
the latest completed checkpoint (streaming) or from its blocking inputs (batch).

Determinism: with key ``x % 12`` and parallelism 2 or 3 (both divide 12), every key's
numbers come from one source subtask in increasing order, so the running sums -- hence the
committed lines -- of a failure-free run are fixed.
"""
from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path

import pytest

from tests.builders import edge, node, pipeline
from tests.engine.deployers import run_with_kills
from tests.support import assert_exactly_once, wait_until

RECORDS = 4000


def keyed_sums(sink_dir: Path, *, parallelism: int = 2, count: int | None = RECORDS, rate: float = 2000,
               prefix: str = "", attempts: int = 10) -> dict:
    """datagen -> hash(x % 12) -> running sum -> two-phase-commit file sink."""
    return pipeline(branch(sink_dir, prefix, count, rate), branch_edges(prefix), name="keyed-sums",
                    parallelism=parallelism, interval_ms=100,
                    restart={"strategy": "fixed_delay", "attempts": attempts, "delay_ms": 0})


def branch(sink_dir: Path, prefix: str, count: int | None, rate: float) -> list[dict]:
    return [node(f"{prefix}gen", "source.datagen", count=count, rate=rate),
            node(f"{prefix}sum", "aggregate.reduce", function="sum"),
            node(f"{prefix}sink", "sink.file", path=str(sink_dir))]


def branch_edges(prefix: str) -> list[dict]:
    return [edge(f"{prefix}gen", f"{prefix}sum", "hash", "x % 12", id=f"{prefix}keyed"),
            edge(f"{prefix}sum", f"{prefix}sink", id=f"{prefix}out")]


def committed_lines(sink_dir: Path) -> Counter:
    return Counter(tuple(json.loads(line)) for path in Path(sink_dir).glob("part-*.jsonl")
                   for line in path.read_text().splitlines() if line)


def expected_lines(count: int = RECORDS) -> Counter:
    sums: dict[int, int] = {}
    lines: Counter = Counter()
    for x in range(count):
        sums[x % 12] = sums.get(x % 12, 0) + x
        lines[(x % 12, sums[x % 12])] += 1
    return lines


def statuses(events: list[dict]) -> list[str]:
    return [event["status"] for event in events if event["type"] == "status"]


def test_random_kills_leave_the_committed_output_equal_to_a_failure_free_run(deployment, tmp_path):
    clean = deployment.run(keyed_sums(tmp_path / "clean", rate=0), checkpoint_dir=str(tmp_path / "c0"))
    assert clean.status == "FINISHED", clean.failure
    assert committed_lines(tmp_path / "clean") == expected_lines()

    result, _ = run_with_kills(deployment, keyed_sums(tmp_path / "out", rate=1000), kills=3,
                               seed=int(os.environ.get("KILL_SEED", "20261121")), checkpoint_dir=str(tmp_path / "c1"))
    assert result.restarts == 3
    lines = committed_lines(tmp_path / "out")
    assert_exactly_once(lines, expected_lines())
    assert lines == committed_lines(tmp_path / "clean")


@pytest.mark.parametrize("before,after", [(2, 3), (3, 2)], ids=["2to3", "3to2"])
def test_restore_at_a_new_parallelism_continues_exactly_once(deployment, tmp_path, before, after):
    first_checkpoint = []
    handle = deployment.submit(keyed_sums(tmp_path / "out", parallelism=before, rate=2000),
                               checkpoint_dir=str(tmp_path / "c1"),
                               on_event=lambda e: e["type"] == "checkpoint" and e["event"] == "completed"
                               and first_checkpoint.append(e))
    wait_until(lambda: first_checkpoint and committed_lines(tmp_path / "out"), 120, "committed output")
    location = handle.stop_with_savepoint(drain=False).result(60)
    assert handle.wait(60).status == "FINISHED"
    stopped = committed_lines(tmp_path / "out")
    assert 0 < sum(stopped.values()) < RECORDS, "the stop comes before the bounded source ends"

    result = deployment.run(keyed_sums(tmp_path / "out", parallelism=after, rate=0), restore=location,
                            checkpoint_dir=str(tmp_path / "c2"))
    assert result.status == "FINISHED", result.failure
    assert committed_lines(tmp_path / "out") == expected_lines(), "nothing lost, nothing doubled"


def test_a_kill_in_one_branch_restarts_only_its_region(deployment, tmp_path):
    """Two independent branches are two pipelined regions: a slot of branch a dies, branch b
    is neither cancelled nor restarted, and both outputs are exact."""
    definition = keyed_sums(tmp_path / "a", prefix="a_", rate=1500)
    definition["nodes"] += branch(tmp_path / "b", "b_", RECORDS, 1500)
    definition["edges"] += branch_edges("b_")
    result, _ = run_with_kills(deployment, definition, kills=1, seed=7, tasks=[("a_gen", 0), ("a_gen", 1)],
                               checkpoint_dir=str(tmp_path / "c"))
    assert result.restarts == 1
    regions = {event["region"]: tuple(event["vertices"]) for event in result.events
               if event["type"] == "region" and event["event"] == "scheduled"}
    region_of = {vertices[0]: region for region, vertices in regions.items()}
    restarting = [event for event in result.events if event["type"] == "status" and event["status"] == "RESTARTING"]
    assert [event["regions"] for event in restarting] == [[region_of["a_gen"]]]
    b_events = [(event["event"]) for event in result.events
                if event["type"] == "region" and event["region"] == region_of["b_gen"]]
    assert b_events == ["scheduled", "finished"], "branch b ran once, start to end"
    assert committed_lines(tmp_path / "a") == expected_lines()
    assert committed_lines(tmp_path / "b") == expected_lines()


def test_batch_failover_reruns_only_the_failed_region_from_its_blocking_inputs(deployment, tmp_path):
    """Batch mode: a slot of one consumer region dies; the producers' partitions are read
    again, not rebuilt, and only that region (and its not yet started consumers) runs again."""
    count = 6000
    definition = {
        "format": 1, "name": "batch-failover", "mode": "batch", "parallelism": 2, "max_parallelism": 64,
        "restart": {"strategy": "fixed_delay", "attempts": 1, "delay_ms": 0},
        "nodes": [{"id": "gen", "type": "source.datagen", "params": {"count": count}},
                  {"id": "slow", "type": "transform.map",
                   "params": {"expression": "(sum([x] * 20000) + sum([x] * 20000)) // 40000"}},
                  {"id": "sum", "type": "aggregate.reduce", "params": {"function": "sum"}},
                  {"id": "out", "type": "sink.collect", "params": {"max_records": 100000}}],
        "edges": [{"id": "e1", "from": "gen", "to": "slow", "partitioning": "hash", "key": "x % 14"},
                  {"id": "e2", "from": "slow", "to": "sum", "partitioning": "hash", "key": "x % 14"},
                  {"id": "e3", "from": "sum", "to": "out"}]}
    handle = deployment.submit(definition, checkpoint_dir=str(tmp_path / "c"))
    wait_until(lambda: ("slow", 1) in handle.job_master.running_slots(), 120, "slow#1 to run")
    deployment.kill(handle, ("slow", 1))
    result = handle.wait(240)
    assert result.status == "FINISHED", result.failure
    assert result.restarts == 1
    scheduled = Counter(f"{vertex}#{subtasks[0]}" for event in result.events
                        if event["type"] == "region" and event["event"] == "scheduled"
                        for vertex, subtasks in event["vertices"].items())
    assert scheduled["gen#0"] == scheduled["gen#1"] == scheduled["slow#0"] == 1
    assert scheduled["slow#1"] == 2
    restarting = [event for event in result.events if event["type"] == "status" and event["status"] == "RESTARTING"]
    assert len(restarting) == 1 and len(restarting[0]["regions"]) >= 1
    sums: dict[int, int] = {}
    for x in range(count):  # batch mode's aggregate is not rolling: each key's final sum, once
        sums[x % 14] = sums.get(x % 14, 0) + x
    assert Counter(map(tuple, result.collected["out"])) == Counter(sums.items())
