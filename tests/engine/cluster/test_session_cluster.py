"""Session mode: several jobs in one Spark application, each its own JobMaster, sharing the slots fairly.

The pool's rules are checked alone (no Spark); the rest runs on the test process's shared
Spark session (``local[4]``: four slots), as the studio's session driver runs its runs.
"""
from __future__ import annotations

import threading

import pytest

from engine.api import InSession, SessionCluster, job_master_for
from engine.cluster.session_cluster import SlotPool
from tests.engine.cluster.test_spark_job_master import committed_records, exactly_once_pipeline
from tests.engine.deployers import KillAfterCheckpoints, SparkDeployment
from tests.support import simple_pipeline


def test_a_later_job_never_takes_the_slots_an_earlier_one_waits_for():
    pool = SlotPool(lambda: 4)
    pool.take("a", 3)
    pool.wait_for("b", 2)  # b needs 2, one is free
    assert pool.available_to("b") == 1
    assert pool.available_to("c") == 0, "c came later: the free slot is b's turn"
    pool.wait_for("c", 1)
    pool.give_back("a", 3)
    assert (pool.available_to("b"), pool.available_to("c")) == (4, 2)
    pool.take("b", 2)
    assert pool.available_to("c") == 2
    assert pool.usage() == {"slots": 4, "used": 2, "held": {"b": 2}, "waiting": {"c": 1}}
    pool.leave("b")
    pool.leave("c")
    assert pool.usage() == {"slots": 4, "used": 0, "held": {}, "waiting": {}}


def test_waiting_again_keeps_a_jobs_place_in_the_queue():
    pool = SlotPool(lambda: 2)
    pool.take("a", 2)
    pool.wait_for("b", 2)
    pool.wait_for("c", 1)
    pool.wait_for("b", 2)  # b looks again: still first
    assert list(pool.usage()["waiting"]) == ["b", "c"]


@pytest.fixture
def session_cluster(spark_session):
    return SessionCluster(slots=4, session=spark_session)


def final_sums(records) -> dict:
    finals = {}
    for key, total in records:
        finals[key] = max(finals.get(key, 0), total)
    return finals


def expected_sums(count: int) -> dict:
    totals = {}
    for x in range(count):
        totals[x % 7] = totals.get(x % 7, 0) + x
    return totals


@pytest.mark.spark
def test_a_killed_slot_of_one_run_restarts_that_run_only_and_both_stay_exact(session_cluster, tmp_path):
    count = 3000
    victim_events, bystander_events = [], []
    killer = KillAfterCheckpoints(kills=2, seed=40)
    victim = job_master_for(exactly_once_pipeline(tmp_path / "a-out", count, 600), InSession(session_cluster, "run-a"),
                            checkpoint_dir=str(tmp_path / "a-chk"),
                            on_event=lambda e: (victim_events.append(e), killer.on_event(e)))
    bystander = job_master_for(exactly_once_pipeline(tmp_path / "b-out", count, 600),
                               InSession(session_cluster, "run-b"), checkpoint_dir=str(tmp_path / "b-chk"),
                               on_event=bystander_events.append)
    victim_handle, bystander_handle = victim.start(240), bystander.start(240)
    killer.start(SparkDeployment(session_cluster.session), victim_handle)
    try:
        victim_result, bystander_result = victim_handle.wait(300), bystander_handle.wait(300)
    finally:
        killer.join()

    assert (victim_result.status, bystander_result.status) == ("FINISHED", "FINISHED"), (
        victim_result.failure, bystander_result.failure)
    assert len(killer.killed) == 2
    assert victim_result.restarts == 2 and bystander_result.restarts == 0
    assert not [e for e in bystander_events if e["type"] == "task_failed"]
    for out in ("a-out", "b-out"):
        records = committed_records(tmp_path / out)
        assert len(records) == count, f"{out}: every running sum exactly once"
        assert final_sums(records) == expected_sums(count)
    assert victim.deployer.job_group != bystander.deployer.job_group
    assert (victim.deployer.scheduler_pool, bystander.deployer.scheduler_pool) == ("run-a", "run-b")
    assert session_cluster.usage()["used"] == 0, "both gave their slots back"


@pytest.mark.spark
def test_a_run_that_cannot_get_its_slots_waits_visibly_and_starts_when_they_come_back(session_cluster, tmp_path):
    def endless(parallelism: int) -> dict:
        definition = simple_pipeline(count=10**9, parallelism=parallelism)
        definition["nodes"][0]["params"]["rate"] = 50
        definition["edges"][0]["partitioning"] = "rebalance"  # one region: ``parallelism`` slots at once
        return definition

    events = {name: [] for name in ("first", "second", "third")}
    running = {name: threading.Event() for name in events}

    def sink(name):
        def on_event(event):
            events[name].append(event)
            if event["type"] == "status" and event["status"] == "RUNNING":
                running[name].set()
        return on_event

    handles = {}
    for name, parallelism in (("first", 2), ("second", 2)):
        handles[name] = job_master_for(endless(parallelism), InSession(session_cluster, name),
                                       checkpoint_dir=str(tmp_path / name), on_event=sink(name)).start(240)
        assert running[name].wait(120), f"{name} did not run"
    handles["third"] = job_master_for(endless(2), InSession(session_cluster, "third"),
                                      checkpoint_dir=str(tmp_path / "third"), on_event=sink("third")).start(240)
    try:
        waiting = _wait_for(lambda: [e for e in events["third"] if e.get("event") == "waiting"])
        assert waiting == [{"type": "region", "event": "waiting", "region": "r0", "slots": 2, "capacity": 0}]
        assert session_cluster.usage()["waiting"] == {"third": 2}
        assert not running["third"].is_set()
        handles["first"].cancel()
        assert handles["first"].wait(120).status == "CANCELED"
        assert running["third"].wait(120), "the slots the first run gave back went to the waiting run"
        assert session_cluster.usage()["held"] == {"second": 2, "third": 2}
    finally:
        for handle in handles.values():
            handle.cancel()
        for handle in handles.values():
            handle.wait(120)
    assert session_cluster.usage() == {"slots": 4, "used": 0, "held": {}, "waiting": {}}


@pytest.mark.spark
def test_a_run_larger_than_the_whole_session_fails_at_once_naming_the_figures(session_cluster, tmp_path):
    result = job_master_for(simple_pipeline(count=10, parallelism=5), InSession(session_cluster, "huge"),
                            checkpoint_dir=str(tmp_path)).run(60)
    assert result.status == "FAILED"
    assert result.failure == ("the job needs 5 slots at once, but the shared session offers 4: "
                              "lower the parallelism or run it isolated, in a driver of its own")


def _wait_for(probe, timeout: float = 60.0):
    """The first truthy answer of ``probe``, asked until ``timeout`` (a condition, not a timing assert)."""
    done = threading.Event()
    deadline = threading.Timer(timeout, done.set)
    deadline.start()
    try:
        while not done.is_set():
            answer = probe()
            if answer:
                return answer
            done.wait(0.1)
    finally:
        deadline.cancel()
    raise AssertionError("not within the time allowed")


@pytest.mark.spark
def test_a_run_in_the_session_cannot_read_another_runs_state_or_output(session_cluster, tmp_path):
    """Bob's job shares Alice's Spark application, but its grants are its own: reading Alice's checkpoints
    or committed output fails Bob's job, naming the place, and leaves Alice's run exact."""
    from engine.api import Grants

    alice, bob = tmp_path / "alice", tmp_path / "bob"
    bob.mkdir()
    count = 1500
    alice_job = job_master_for(exactly_once_pipeline(alice / "out", count, 500), InSession(session_cluster, "alice"),
                               checkpoint_dir=str(alice / "chk"), grants=Grants(write=(str(alice),))).start(240)
    _wait_for(lambda: list((alice / "chk").glob("chk-*/_metadata")), 120)
    results = {}
    for stolen in ("chk", "out"):
        theft = {"format": 1, "name": f"steal-{stolen}", "parallelism": 1, "restart": {"strategy": "none"},
                 "nodes": [{"id": "read", "type": "source.file", "params": {"path": str(alice / stolen)}},
                           {"id": "keep", "type": "sink.collect", "params": {}}],
                 "edges": [{"id": "e1", "from": "read", "to": "keep"}]}
        results[stolen] = job_master_for(theft, InSession(session_cluster, f"bob-{stolen}"),
                                         checkpoint_dir=str(bob / f"chk-{stolen}"),
                                         grants=Grants(write=(str(bob),))).run(120)
    for stolen, result in results.items():
        assert result.status == "FAILED", f"bob read alice's {stolen}"
        assert str(alice / stolen) in result.failure and not result.collected.get("keep")
    alice_result = alice_job.wait(240)
    assert alice_result.status == "FINISHED" and alice_result.restarts == 0, alice_result.failure
    assert final_sums(committed_records(alice / "out")) == expected_sums(count)


@pytest.mark.spark
def test_a_local_session_is_not_elastic_its_cores_are_fixed_for_its_life(spark_session):
    """``local[N]``'s cores are threads of the driver's JVM: elastic settings change nothing, the pool's total
    stays N and the use names no executors (docs/capacity.md)."""
    from engine.api import ElasticSettings

    cluster = SessionCluster(slots=4, session=spark_session, elastic=ElasticSettings(minimum=1, maximum=16))
    assert cluster.elastic is None
    assert (cluster.pool.total, cluster.max_slots) == (4, 4)
    assert "executors" not in cluster.usage()
