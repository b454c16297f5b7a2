"""Unaligned checkpoints on local Spark: in-flight buffers persisted and replayed across TCP.

datagen -> hash -> keyed running sum -> slow map -> two-phase-commit file sink at
parallelism 2, with buffers of 64 records (so the source cannot put all its data in flight
at once and finish before the first checkpoint): the slow map makes the sink's subtasks the bottleneck, so the hash
channels between the slot processes are full (credit exhausted, sender queues waiting)
when a checkpoint is triggered. Checkpoints are unaligned: the barriers leave the senders
ahead of the queued buffers (PRIORITY frames) and jump the receivers' queues, and both
sides persist what was overtaken. A random slot's Python worker is SIGKILLed a few times
after a checkpoint completed; each restart replays the channel state before new data.
The committed output must be exact: every running sum once.
"""
import os
import threading

import pytest

from engine.api import Spark, job_master_for
from engine.spec import normalise_definition
from tests.engine.cluster.test_spark_exactly_once import KillScheduler
from tests.engine.cluster.test_spark_job_master import committed_records
from tests.support import assert_exactly_once

pytestmark = pytest.mark.spark

KILLS = 3
COUNT = 60_000
KEYS = 11
SLOW = "x[1] * 0 + (sum([x[1]] * 40000) + sum([x[1]] * 40000)) // 80000"
"""About 0.6 ms per record, leaving the running sum unchanged."""


def pipeline(output_dir) -> dict:
    return normalise_definition({
        "format": 1, "name": "unaligned-spark", "parallelism": 2,
        "checkpointing": {"interval_ms": 200, "unaligned": True},
        "restart": {"strategy": "fixed_delay", "attempts": KILLS + 2, "delay_ms": 0},
        "nodes": [
            {"id": "gen", "type": "source.datagen", "params": {"count": COUNT}},
            {"id": "sum", "type": "aggregate.reduce", "params": {"function": "sum"}},
            {"id": "slow", "type": "transform.map", "params": {"expression": f"[x[0], {SLOW}]"}},
            {"id": "out", "type": "sink.file", "params": {"path": str(output_dir)}},
        ],
        "edges": [{"id": "e1", "from": "gen", "to": "sum", "partitioning": "hash", "key": f"x % {KEYS}"},
                  {"id": "e2", "from": "sum", "to": "slow"},
                  {"id": "e3", "from": "slow", "to": "out"}],
    })


def test_slot_kills_with_unaligned_checkpoints_leave_the_committed_output_exact(spark_session, tmp_path):
    kills = KillScheduler(seed=int(os.environ.get("KILL_SEED", "20261125")))
    kills_wanted = KILLS
    events = []
    job_master = job_master_for(pipeline(tmp_path / "out"), Spark(session=spark_session, config={"batch_size": 64}),
                                checkpoint_dir=str(tmp_path / "chk"),
                                on_event=lambda e: (events.append(e), kills.on_event(e)))
    done = threading.Event()

    def kill() -> None:
        import tests.engine.cluster.test_spark_exactly_once as module
        module.KILLS, saved = kills_wanted, module.KILLS
        try:
            kills.kill_repeatedly(job_master, done)
        finally:
            module.KILLS = saved

    killer = threading.Thread(target=kill)
    killer.start()
    try:
        outcome = job_master.run()
    finally:
        done.set()
        killer.join()

    assert outcome.status == "FINISHED", outcome.failure_cause
    completed = [e for e in events if e["type"] == "checkpoint" and e["event"] == "completed"]
    assert any(c["unaligned"] and c["persisted_data"] > 0 for c in completed), \
        "no unaligned checkpoint persisted in-flight data: the channels were not backpressured"
    output = committed_records(tmp_path / "out")
    assert len(output) == COUNT, "every running sum exactly once"
    totals: dict = {}
    for x in range(COUNT):
        totals[x % KEYS] = totals.get(x % KEYS, 0) + x
    finals: dict = {}
    for key, total in output:
        finals[key] = max(finals.get(key, 0), total)
    assert finals == totals
    assert kills.kills == KILLS, f"only {kills.kills} kills happened before the job ended"


@pytest.mark.parametrize("before,after", [(2, 3)], ids=["2to3"])
def test_an_unaligned_checkpoint_restores_its_in_flight_data_at_a_new_parallelism_on_spark(
        spark_session, tmp_path, before, after):
    """The in-flight buffers of a backpressured unaligned checkpoint, persisted by slot processes on
    both sides of TCP channels, are redistributed by key group when the job restarts at 3."""
    from tests.engine.cluster.test_unaligned_exactly_once import (committed_lines, completed_checkpoints_of,
                                                                   expected_lines, rescalable)
    from tests.support import wait_until

    events: list[dict] = []
    # paced, and 2 ms per record downstream on any CPU: the source still emits, backpressured, at the
    # checkpoint (1.5 ms of list sums per record was too little on a fast machine)
    first = job_master_for(normalise_definition(rescalable(tmp_path / "out", before, rate=2000, pause_s=0.002)),
                           Spark(session=spark_session, config={"batch_size": 64}),
                           checkpoint_dir=str(tmp_path / "c1"), on_event=events.append)
    handle = first.start()
    wait_until(lambda: sum(m.get("records_in", 0) for task, m in handle.metrics().items()
                           if task.startswith("sum")) > 0, 120, "records reaching the bottleneck")
    location = handle.trigger_checkpoint().result(60)
    handle.cancel()
    handle.wait(60)
    [taken] = [e for e in completed_checkpoints_of(events) if e["external_path"] == location]
    assert taken["unaligned"] and taken["persisted_data"] > 0, "the checkpoint held no in-flight data"

    second = job_master_for(normalise_definition(rescalable(tmp_path / "out", after, interval_ms=200, pause_s=0)),
                            Spark(session=spark_session, config={"batch_size": 64}),
                            checkpoint_dir=str(tmp_path / "c2"), restore=location)
    outcome = second.run()
    assert outcome.status == "FINISHED", outcome.failure_cause
    assert_exactly_once(committed_lines(tmp_path / "out"), expected_lines())
