"""Exactly-once through async I/O: lookups in flight at checkpoints, subtasks killed, jobs restored.

datagen -> lookup.http (the fake service, 2-10 ms per answer) -> two-phase-commit file
sink, in the in-process cluster with checkpoints every 50 ms. A kill plan crashes the
subtask that runs the lookup at fixed points, one after another: while it handles a batch
of completions (``async_complete``), right before its synchronous snapshot, while its
source polls or its input is processed, while barriers align, and between a checkpoint's
completion and the sink's commit. Every crash restarts the job from the latest completed
checkpoint, whose state holds the lookups that were in flight or completed but not
emitted; they are called again. The committed output must hold every record exactly once.

Two layouts: the lookup chained to the source (its queue fills while the source's batch is
being admitted, so checkpoints happen while it yields), and behind a rebalance edge (the
checkpoint comes with aligned barriers).
"""
from __future__ import annotations

import json
import threading
from collections import Counter
from pathlib import Path

import pytest

from engine.cluster.local import LocalCluster
from tests.support import assert_exactly_once

RECORDS = 1200


class KillPlan:
    """Kills at the listed ``(point, vertex, matching calls to let pass)``, in order, in any subtask."""

    def __init__(self, kills: list[tuple]):
        self.kills = list(kills)
        self.fired: list[tuple] = []
        self.lock = threading.Lock()

    def __call__(self, point: str, task: tuple, info: dict) -> bool:
        with self.lock:
            if not self.kills:
                return False
            wanted_point, vertex, skip = self.kills[0]
            if point != wanted_point or task[0] != vertex:
                return False
            if point == "barrier" and not info.get("aligning"):
                return False
            if skip > 0:
                self.kills[0] = (wanted_point, vertex, skip - 1)
                return False
            self.fired.append((point, task))
            self.kills.pop(0)
            return True


def definition(service, sink_dir: Path, chained: bool, mode: str) -> dict:
    edges = [{"id": "in", "from": "gen", "to": "lookup"}, {"id": "out", "from": "lookup", "to": "sink"}]
    if not chained:
        edges[0]["partitioning"] = "rebalance"
    return {
        "format": 1, "name": "async-exactly-once", "parallelism": 2,
        "checkpointing": {"interval_ms": 50, "mode": "exactly_once", "timeout_ms": 20000, "retained": 100},
        "restart": {"strategy": "fixed_delay", "attempts": 20, "delay_ms": 5},
        "nodes": [
            {"id": "gen", "type": "source.datagen", "params": {"count": RECORDS, "rate": 1000}},
            {"id": "lookup", "type": "lookup.http",
             "params": {"url": service.url(), "capacity": 16, "output_mode": mode, "field": "answer"}},
            {"id": "sink", "type": "sink.file", "params": {"path": str(sink_dir)}},
        ],
        "edges": edges,
    }


def lookups_in_checkpoints(result) -> list[int]:
    """Per completed checkpoint: how many lookup inputs (in flight or not emitted) it holds."""
    counts = []
    for checkpoint in result.completed_checkpoints:
        total = 0
        for handle in checkpoint.get("tasks", {}).values():
            described = ((handle or {}).get("operators") or {}).get("lookup") or {}
            total += (described.get("operator_state") or {}).get("in_flight", 0)
        counts.append(total)
    return counts


def committed(sink_dir: Path) -> Counter:
    lines: Counter = Counter()
    for path in sink_dir.glob("part-*.jsonl"):
        for line in path.read_text().splitlines():
            x, answer = json.loads(line)
            lines[(x, answer["value"])] += 1
    return lines


@pytest.mark.timeout(120)
@pytest.mark.parametrize("chained, mode, kills", [
    (True, "ordered", [("async_complete", "gen", 20), ("snapshot", "gen", 1), ("source_poll", "gen", 10),
                       ("async_complete", "gen", 5), ("before_commit", "gen", 1)]),
    (False, "unordered", [("async_complete", "lookup", 20), ("barrier", "lookup", 0), ("snapshot", "lookup", 1),
                          ("process", "lookup", 10), ("before_commit", "lookup", 1)]),
], ids=["chained-ordered", "rebalanced-unordered"])
def test_committed_output_is_exactly_once_despite_kills_mid_flight(service, tmp_path, chained, mode, kills):
    service.latency_s, service.jitter_s = 0.002, 0.008
    plan = KillPlan(kills)
    sink_dir = tmp_path / "out"
    result = LocalCluster(config={"batch_size": 64}).run(
        definition(service, sink_dir, chained, mode), kill_hook=plan, timeout=100,
        checkpoint_dir=str(tmp_path / "checkpoints"))
    assert result.status == "FINISHED", result.failure
    assert plan.fired and not plan.kills, f"kills left: {plan.kills}"
    assert 1 <= result.restarts <= len(plan.fired)  # two kills may land in one attempt under load
    assert_exactly_once(committed(sink_dir), Counter({(x, f"v-{x}"): 1 for x in range(RECORDS)}),
                        f"kills {plan.fired}")
    assert any(lookups_in_checkpoints(result)), "no checkpoint caught a lookup in flight"
    assert sum(service.request_counts().values()) > RECORDS  # calls were repeated; results were not


@pytest.mark.timeout(240)
def test_async_lookups_stay_exactly_once_when_slots_die(deployment, service, tmp_path):
    """On both deployments: lookups in flight at checkpoints, two slots killed (SIGKILL on
    Spark) after checkpoints; the restored subtasks call again what was in flight."""
    from tests.engine.deployers import run_with_kills

    service.latency_s, service.jitter_s = 0.002, 0.008
    sink_dir = tmp_path / "out"
    job = definition(service, sink_dir, chained=False, mode="unordered")
    job["nodes"][0]["params"]["rate"] = 400  # about three seconds: time for two kills and restarts
    result, _ = run_with_kills(deployment, job, kills=2, seed=11, checkpoint_dir=str(tmp_path / "checkpoints"),
                               timeout=200)
    assert result.restarts == 2
    assert_exactly_once(committed(sink_dir), Counter({(x, f"v-{x}"): 1 for x in range(RECORDS)}))
    assert any(lookups_in_checkpoints(result)), "no checkpoint caught a lookup in flight"
