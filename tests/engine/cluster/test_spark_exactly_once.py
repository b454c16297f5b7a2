"""The engine's exactly-once test on local Spark: real slot processes killed at random points.

datagen -> map -> hash -> keyed running sum -> two-phase-commit file sink at parallelism 2,
so records cross slot processes over TCP. The map (adding nothing) is chained to the source,
so the numbers travel as int64 arrays up to the exchange and are routed a whole array at
once (``engine.runtime.columnar``): the kills hit that path. Ten times, a random slot's Spark Python worker is
SIGKILLed at a random moment after a checkpoint completed; the job restarts from the
latest checkpoint each time. The committed output must equal a failure-free run's.
"""
import os
import random
import signal
import threading

import pytest

from engine.api import Spark, job_master_for
from engine.spec import normalise_definition
from tests.engine.cluster.test_spark_job_master import committed_records

pytestmark = pytest.mark.spark

KILLS = 10
COUNT = 12_000
KEYS = 11


def pipeline(output_dir) -> dict:
    return normalise_definition({
        "format": 1, "name": "exactly-once-spark", "parallelism": 2,
        "checkpointing": {"interval_ms": 150},
        "restart": {"strategy": "fixed_delay", "attempts": KILLS + 2, "delay_ms": 0},
        "nodes": [
            {"id": "gen", "type": "source.datagen", "params": {"count": COUNT, "rate": 800}},
            {"id": "same", "type": "transform.map", "params": {"expression": "x + 0"}},
            {"id": "sum", "type": "aggregate.reduce", "params": {"function": "sum"}},
            {"id": "out", "type": "sink.file", "params": {"path": str(output_dir)}},
        ],
        "edges": [{"id": "e0", "from": "gen", "to": "same"},
                  {"id": "e1", "from": "same", "to": "sum", "partitioning": "hash", "key": f"x % {KEYS}"},
                  {"id": "e2", "from": "sum", "to": "out"}],
    })


class KillScheduler:
    """Waits for a completed checkpoint of the current attempt, then kills a random slot.

    After a kill, checkpoints still completing before the JobMaster noticed it belong to
    the killed attempt: only a checkpoint after the next RUNNING arms the next kill."""

    def __init__(self, seed: int):
        self.random = random.Random(seed)
        self.completed_since_start = threading.Event()
        self.awaiting_restart = False
        self.kills = 0

    def on_event(self, event: dict) -> None:
        if event["type"] == "status" and event["status"] == "RUNNING":
            self.completed_since_start.clear()
            self.awaiting_restart = False
        if event["type"] == "checkpoint" and event["event"] == "completed" and not self.awaiting_restart:
            self.completed_since_start.set()

    def kill_repeatedly(self, job_master, done: threading.Event) -> None:
        while self.kills < KILLS and not done.is_set():
            if not self.completed_since_start.wait(1):
                continue
            done.wait(self.random.uniform(0, 0.4))  # a random point of the running job
            pids = list(job_master.deployer.slot_pids().values())
            if len(pids) < 2 or done.is_set():
                continue
            self.awaiting_restart = True
            self.completed_since_start.clear()
            os.kill(self.random.choice(pids), signal.SIGKILL)
            self.kills += 1


def expected_output() -> list:
    """The final running sum of every key of a failure-free run."""
    totals = {}
    for x in range(COUNT):
        totals[x % KEYS] = totals.get(x % KEYS, 0) + x
    return sorted(totals.items())


def test_ten_random_slot_kills_leave_the_committed_output_exact(spark_session, tmp_path):
    kills = KillScheduler(seed=int(os.environ.get("KILL_SEED", "20261121")))
    events = []
    job_master = job_master_for(pipeline(tmp_path / "out"), Spark(session=spark_session),
                                checkpoint_dir=str(tmp_path / "chk"),
                                on_event=lambda e: (events.append(e), kills.on_event(e)))
    done = threading.Event()
    killer = threading.Thread(target=kills.kill_repeatedly, args=(job_master, done))
    killer.start()
    try:
        outcome = job_master.run()
    finally:
        done.set()
        killer.join()

    assert outcome.status == "FINISHED", outcome.failure_cause
    assert kills.kills == KILLS, f"only {kills.kills} kills happened before the job ended"
    restarts = [e for e in events if e["type"] == "status" and e["status"] == "RESTARTING"]
    assert len(restarts) == KILLS
    output = committed_records(tmp_path / "out")
    assert len(output) == COUNT, "every running sum exactly once"
    finals = {}
    for key, total in output:
        finals[key] = max(finals.get(key, 0), total)
    assert sorted(finals.items()) == expected_output()
