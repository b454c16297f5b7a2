"""The JobMaster's event log stays bounded however many checkpoints a job takes, and keeps what matters."""
from __future__ import annotations

import threading

from engine.api import normalise_definition
from engine.cluster.event_log import EventLog
from engine.cluster.job_master import JobMaster
from engine.cluster.local import ThreadDeployer
from tests.support import simple_pipeline


def test_frequent_events_are_bounded_the_rest_kept_in_order():
    log = EventLog(recent=3)
    appended = [{"type": "status", "status": "RUNNING"}]
    appended += [{"type": "checkpoint", "event": "completed", "id": n, "kind": "checkpoint"} for n in range(10)]
    appended += [{"type": "checkpoint", "event": "completed", "id": 99, "kind": "savepoint"},
                 {"type": "metrics", "vertices": {}}, {"type": "task_failed", "task": "v#0"}]
    for event in appended:
        log.append(event)
    assert list(log) == [appended[0], *appended[9:14]]  # the newest three frequent ones: checkpoints 8, 9, metrics
    assert len(log) == 6 and log.dropped == 8


def test_a_long_checkpointing_job_keeps_a_bounded_log(tmp_path):
    """A job of many checkpoints: the log holds the newest of its checkpoint and metrics events, and every
    status change, however many checkpoints it took."""
    definition = normalise_definition(simple_pipeline(count=None, rate=500, interval_ms=10, parallelism=1))
    master = JobMaster(definition, ThreadDeployer(), checkpoint_dir=str(tmp_path))
    master.events = EventLog(recent=50)
    enough = threading.Event()
    completed = []

    def on_event(event):
        if event.get("type") == "checkpoint" and event.get("event") == "completed":
            completed.append(event["id"])
            if len(completed) == 200:
                enough.set()

    master._on_event = on_event
    runner = threading.Thread(target=master.run, kwargs={"timeout": 120}, daemon=True)
    runner.start()
    assert enough.wait(120), f"only {len(completed)} checkpoints completed"
    master.cancel()
    runner.join(60)
    kept = list(master.events)
    assert len(kept) <= 50 + 10 and master.events.dropped > 500
    statuses = [event["status"] for event in kept if event["type"] == "status"]
    assert statuses[0] == "RUNNING" and statuses[-1] == "CANCELED"
    checkpoints = [event["id"] for event in kept if event["type"] == "checkpoint"]
    assert min(checkpoints) > 100 and max(checkpoints) >= completed[-1]  # the newest ones
