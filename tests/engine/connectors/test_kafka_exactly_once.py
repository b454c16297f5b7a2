"""Kafka -> keyed window -> Kafka, exactly once: under kills, across a rescale, with a broker down.

The job reads events from a 4-partition topic (bounded), sums them per user in tumbling
event-time windows and writes the windows into a transactional Kafka sink. Whatever is
killed on the way, the output a ``read_committed`` consumer gets (``tests/kafka_log``,
which applies read_committed to the mock cluster's raw log) must be exactly the windows of
a failure-free run, no transaction of the job may be left open, and the consumer group's
committed offsets must never pass the offsets of the latest completed checkpoint.
"""
from __future__ import annotations

import random
import threading
from collections import defaultdict
from pathlib import Path

import pytest

from engine.api import latest_checkpoint
from engine.cluster.local import LocalCluster
from tests.engine.connectors.kafka_support import (checkpoint_offsets, committed_windows, expected_windows,
                                                   group_offsets, kafka_sink, kafka_source, new_topic,
                                                   produce_events, window_job)
from tests.engine.connectors.support import KillPlan

PARTITIONS = 4
COUNT = 12_000


def paced(job: dict, work: int = 8000) -> dict:
    """``job`` with a pacing map chained to the source: ``work`` 8000 costs about 50 µs a record, so
    the job runs for seconds, long enough for its kills."""
    source = job["nodes"][0]["id"]
    job["nodes"].insert(1, {"id": "pace", "type": "transform.map",
                            "params": {"expression": f"x if sum([1] * {work}) else x"}})
    job["edges"][0] = {**job["edges"][0], "from": "pace"}
    job["edges"].insert(0, {"id": "paced", "from": source, "to": "pace"})
    return job


class OffsetWatch:
    """After every completed checkpoint: the group's committed offsets are at most the latest completed
    checkpoint's (read in that order, so a checkpoint completing in between only widens the bound)."""

    def __init__(self, bootstrap: str, topic: str, checkpoint_dir: Path):
        self.bootstrap, self.topic, self.checkpoint_dir = bootstrap, topic, str(checkpoint_dir)
        self.violations: list[str] = []
        self.checks = 0
        self._due = threading.Event()
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def on_event(self, event: dict) -> None:
        if event.get("type") == "checkpoint" and event.get("event") == "completed":
            self._due.set()

    def _run(self) -> None:
        while not self._done.is_set():
            if self._due.wait(0.2):
                self._due.clear()
                self.check()

    def check(self) -> None:
        committed = group_offsets(self.bootstrap, f"g-{self.topic}", self.topic, PARTITIONS)
        latest = latest_checkpoint(self.checkpoint_dir)
        covered = checkpoint_offsets(latest["location"]) if latest else defaultdict(int)
        self.checks += 1
        for partition, offset in committed.items():
            if offset >= 0 and offset > covered[partition]:
                self.violations.append(f"partition {partition}: group at {offset}, checkpoint at {covered[partition]}")

    def stop(self) -> None:
        self._done.set()
        self._thread.join(10)
        self.check()


def assert_exact(bootstrap: str, topic: str, count: int, context: str) -> None:
    windows, left_open = committed_windows(bootstrap, topic)
    wanted = expected_windows(count)
    missing, doubled = wanted - windows, windows - wanted
    assert not missing and not doubled, (f"{context}: {sum(missing.values())} windows lost, "
                                         f"{sum(doubled.values())} doubled; missing {sorted(missing)[:3]}, "
                                         f"doubled {sorted(doubled)[:3]}")
    assert not left_open, f"{context}: transactions left open {left_open}"


def assert_registry_empty(checkpoint_dir: Path) -> None:
    left = [path.name for path in (checkpoint_dir / "kafka-transactions").rglob("*.json")]
    assert left == [], f"transactions still registered: {left}"


@pytest.fixture
def topics(kafka_cluster):
    source = new_topic(kafka_cluster, "events", PARTITIONS)
    produce_events(kafka_cluster.bootstrap, source, COUNT, PARTITIONS)
    return source, new_topic(kafka_cluster, "windows", 3)


@pytest.mark.timeout(240)
def test_window_output_is_exact_despite_kills_at_random_points(kafka_cluster, topics, tmp_path):
    """Subtasks killed in process at random points: polling, processing, snapshotting, acknowledging,
    committing (before and after) -- each restart ends the transactions the killed attempt left."""
    source, sink = topics
    bootstrap = kafka_cluster.bootstrap
    seed = random.randrange(2 ** 32)
    points = [("source_poll", "events"), ("snapshot", "events"), ("process", "window"), ("snapshot", "window"),
              ("async_upload", "window"), ("before_ack", "window"), ("before_commit", "window"),
              ("after_commit", "window")]
    plan = KillPlan(seed, limit=6, parallelism=2, points=points)
    checkpoints = tmp_path / "checkpoints"
    watch = OffsetWatch(bootstrap, source, checkpoints)
    job = paced(window_job(kafka_source(bootstrap, source), kafka_sink(bootstrap, sink), attempts=12,
                           interval_ms=100), work=25000)
    try:
        result = LocalCluster(config={"batch_size": 64}).run(job, kill_hook=plan, timeout=200,
                                                               checkpoint_dir=str(checkpoints),
                                                               on_event=watch.on_event)
    finally:
        watch.stop()
    context = f"seed {seed}, kills {plan.kills}"
    assert result.status == "FINISHED", f"{context}: {result.failure}"
    assert len(plan.kills) >= 3, context
    assert_exact(bootstrap, sink, COUNT, context)
    assert_registry_empty(checkpoints)
    assert watch.checks >= 3 and not watch.violations, watch.violations


@pytest.mark.timeout(300)
def test_window_output_is_exact_when_slots_die(deployment, kafka_cluster, topics, tmp_path):
    """Slots killed after checkpoints (SIGKILL of the Spark Python worker on Spark)."""
    from tests.engine.deployers import run_with_kills

    source, sink = topics
    bootstrap = kafka_cluster.bootstrap
    checkpoints = tmp_path / "checkpoints"
    watch = OffsetWatch(bootstrap, source, checkpoints)
    job = paced(window_job(kafka_source(bootstrap, source), kafka_sink(bootstrap, sink), attempts=5), work=40000)
    try:
        result, killed = run_with_kills(deployment, job, kills=2, seed=11, checkpoint_dir=str(checkpoints),
                                        on_event=watch.on_event, timeout=250)
    finally:
        watch.stop()
    assert result.restarts == 2, killed
    assert_exact(bootstrap, sink, COUNT, f"{deployment.id}, killed {killed}")
    assert_registry_empty(checkpoints)
    assert not watch.violations, watch.violations


@pytest.mark.timeout(300)
@pytest.mark.parametrize("new_parallelism", [3, 1])
def test_a_restore_at_another_parallelism_re_deals_the_partitions(deployment, kafka_cluster, topics, tmp_path,
                                                                  new_parallelism):
    """Stopped with a savepoint at parallelism 2 half-way, restored at 3 (one subtask more than reads)
    or 1 (one reads all four partitions): every window exactly once."""
    from tests.support import wait_until

    source, sink = topics
    bootstrap = kafka_cluster.bootstrap
    first = deployment.submit(paced(window_job(kafka_source(bootstrap, source), kafka_sink(bootstrap, sink)),
                                    work=60000), checkpoint_dir=str(tmp_path / "c1"))
    wait_until(lambda: sum(committed_windows(bootstrap, sink)[0].values()) > 0, 120, "windows before the stop")
    location = first.stop_with_savepoint(drain=False).result(60)
    assert first.wait(60).status == "FINISHED"
    before = sum(committed_windows(bootstrap, sink)[0].values())
    assert 0 < before < sum(expected_windows(COUNT).values()), "the stop came too late to test a restore"
    job = window_job(kafka_source(bootstrap, source), kafka_sink(bootstrap, sink), parallelism=new_parallelism)
    result = deployment.run(job, restore=location, checkpoint_dir=str(tmp_path / "c2"))
    assert result.status == "FINISHED", result.failure
    assert_exact(bootstrap, sink, COUNT, f"{deployment.id}, restored at parallelism {new_parallelism}")


@pytest.mark.timeout(300)
def test_a_broker_down_and_up_again_restarts_the_job_with_exact_output(kafka_cluster, topics, tmp_path):
    """A broker goes down while the job runs: its partitions (input and output) are unreachable, the
    source stops getting records of some and the sink cannot deliver to some; the job fails over and
    keeps restarting until the broker is back, then finishes from its last checkpoint with exact output."""
    source, sink = topics
    bootstrap = kafka_cluster.bootstrap
    events: list[dict] = []
    broker_down = threading.Event()

    def on_event(event):
        events.append(event)
        completed = event.get("type") == "checkpoint" and event.get("event") == "completed"
        if completed and not broker_down.is_set() and len(events) > 5:
            broker_down.set()
            kafka_cluster.broker_down(2)
            threading.Timer(4.0, kafka_cluster.broker_up, args=(2,)).start()

    sink_node = kafka_sink(bootstrap, sink, delivery_timeout_ms=1500)
    job = paced(window_job(kafka_source(bootstrap, source, unavailable_timeout_ms=1500), sink_node, attempts=100))
    job["restart"]["delay_ms"] = 200
    try:
        result = LocalCluster().run(job, timeout=200, checkpoint_dir=str(tmp_path / "checkpoints"),
                                    on_event=on_event)
    finally:
        kafka_cluster.broker_up(2)
    assert broker_down.is_set()
    assert result.status == "FINISHED", result.failure
    assert result.restarts >= 1, "the job never noticed the broker going away"
    assert_exact(bootstrap, sink, COUNT, f"after {result.restarts} restarts")


@pytest.mark.timeout(120)
def test_a_broker_that_stays_away_fails_the_job_naming_the_node(kafka_cluster, topics, tmp_path):
    source, sink = topics
    bootstrap = kafka_cluster.bootstrap
    done = threading.Event()

    def on_event(event):
        if event.get("type") == "checkpoint" and event.get("event") == "completed" and not done.is_set():
            done.set()
            kafka_cluster.broker_down(2)

    job = paced(window_job(kafka_source(bootstrap, source, unavailable_timeout_ms=1000),
                           kafka_sink(bootstrap, sink, delivery_timeout_ms=1000), attempts=1))
    try:
        result = LocalCluster().run(job, timeout=100, checkpoint_dir=str(tmp_path / "checkpoints"), on_event=on_event)
    finally:
        kafka_cluster.broker_up(2)
    assert result.status == "FAILED"
    assert "'out' (sink.kafka)" in result.failure or "'events' (source.kafka)" in result.failure, result.failure
    assert "Kafka" in result.failure and "Traceback" not in result.failure.splitlines()[0], result.failure
