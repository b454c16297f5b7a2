"""Planned kills (``engine.api.KillPlan``), paced sources and operator plugins, on both deployments.

A plan says ahead which subtask dies where in which attempt of the job; it travels as data
to the slots, so the same plan crashes a Spark slot's process (SIGKILL: no cleanup runs) and
raises in process. Every kill of the plan fires, once, in its attempt, and is written down
before it crashes; the committed output is still exactly once.
"""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from engine.api import KillPlan, PlannedKill
from tests.builders import edge, node, pipeline
from tests.engine.broken_sinks import register_broken_sinks
from tests.support import assert_exactly_once

RECORDS = 3000
PACED = {"batch_size": 50, "source_pacing": {"records_per_checkpoint": 200}}


def job(sink_dir: Path, *, sink_type: str = "sink.file", kills: int = 0) -> dict:
    return pipeline([node("gen", "source.datagen", count=RECORDS), node("double", expression="x * 2"),
                     node("sink", sink_type, path=str(sink_dir))],
                    [edge("gen", "double"), edge("double", "sink", "hash", "x % 10")], parallelism=2,
                    interval_ms=10, restart={"strategy": "fixed_delay", "attempts": kills + 1, "delay_ms": 0})


def committed(sink_dir: Path) -> Counter:
    return Counter(json.loads(line) for path in sink_dir.glob("part-*") for line in path.read_text().splitlines())


PLAN = (PlannedKill(0, ("sink", 1), "mid_batch", 3), PlannedKill(1, ("gen", 0), "snapshot", 2),
        PlannedKill(2, ("sink", 0), "before_commit", 1), PlannedKill(3, ("sink", 1), "after_commit", 2),
        PlannedKill(4, ("gen", 1), "source_poll", 4), PlannedKill(5, ("sink", 0), "before_ack", 1))


def test_every_planned_kill_fires_once_in_its_attempt_and_the_output_stays_exactly_once(deployment, tmp_path):
    plan = KillPlan(PLAN, crash="exit", record_dir=str(tmp_path / "kills"))
    paced = deployment.configured(PACED)
    result = paced.run(job(tmp_path / "out", kills=len(PLAN)), checkpoint_dir=str(tmp_path / "chk"),
                       kill_plan=plan, timeout=240)
    assert result.status == "FINISHED", result.failure
    fired = plan.recorded()
    assert [PlannedKill.from_dict(kill) for kill in fired] == list(PLAN)
    assert result.restarts == len(PLAN)
    assert_exactly_once(committed(tmp_path / "out"), Counter(2 * x for x in range(RECORDS)), deployment.id)


def test_a_paced_source_reads_about_the_records_it_may_per_checkpoint(tmp_path):
    from engine.api import InProcess, run

    definition = job(tmp_path / "out")
    result = run(definition, InProcess({"batch_size": 50, "source_pacing": {"records_per_checkpoint": 100}}),
                 checkpoint_dir=str(tmp_path / "chk"), timeout=120)
    assert result.status == "FINISHED", result.failure
    # each of the 2 source subtasks reads 1500 records, at most 100 + a batch between two checkpoints
    assert result.checkpoints["counts"]["completed"] >= 1500 // 150
    assert committed(tmp_path / "out") == Counter(2 * x for x in range(RECORDS))


def test_a_sink_committing_before_its_checkpoint_completed_doubles_records_at_a_planned_kill(deployment, tmp_path):
    """The kill comes after the sink's snapshot (which committed already) and before the checkpoint
    completed: the restore reads those records again, and the broken sink commits them twice."""
    sink_type = register_broken_sinks()
    plan = KillPlan((PlannedKill(0, ("sink", 0), "before_ack", 2),), record_dir=str(tmp_path / "kills"))
    result = deployment.configured(PACED).run(job(tmp_path / "out", sink_type=sink_type, kills=1), checkpoint_dir=str(tmp_path / "chk"),
                            kill_plan=plan, timeout=240)
    assert result.status == "FINISHED", result.failure
    assert len(plan.recorded()) == 1
    doubled = committed(tmp_path / "out") - Counter(2 * x for x in range(RECORDS))
    assert doubled, "the eager sink's records of the failed checkpoint were committed twice"
