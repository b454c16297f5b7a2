"""Pipelines on local Spark: one barrier stage, slots talking to the JobMaster over TCP."""
import json
import os
from collections import Counter
import signal
import threading

import pytest

from engine.api import Spark, job_master_for
from engine.checkpoint.storage import CheckpointStorage
from engine.cluster.job_master import JobMaster
from engine.cluster.spark_deployer import SparkDeployer
from engine.spec import normalise_definition
from tests.builders import definition_of, edge, node
from tests.support import simple_pipeline

pytestmark = pytest.mark.spark


def run_on_spark(spark_session, definition, tmp_path, events=None):
    events = [] if events is None else events
    job_master = job_master_for(normalise_definition(definition), Spark(session=spark_session),
                                checkpoint_dir=str(tmp_path / "chk"), on_event=events.append)
    return job_master.run(), events


def test_bounded_pipeline_produces_the_expected_records(spark_session, tmp_path):
    outcome, events = run_on_spark(spark_session, simple_pipeline(count=200, expression="x * 2", parallelism=2),
                                   tmp_path)
    assert outcome.status == "FINISHED", outcome.failure_cause
    assert sorted(outcome.collected["out"]) == [2 * x for x in range(200)]
    statuses = [event["status"] for event in events if event["type"] == "status"]
    assert statuses == ["RUNNING", "FINISHED"]


def test_checkpoints_complete_while_a_rate_limited_source_runs(spark_session, tmp_path):
    events = []
    definition = simple_pipeline(count=300, rate=300, interval_ms=100, parallelism=2)
    outcome, _ = run_on_spark(spark_session, definition, tmp_path, events)
    assert outcome.status == "FINISHED", outcome.failure_cause
    completed = [e for e in events if e["type"] == "checkpoint" and e["event"] == "completed"]
    assert completed, "no checkpoint completed during a one-second run with a 100 ms interval"
    assert all(e["num_acknowledged_subtasks"] == e["num_subtasks"] for e in completed)
    assert max(e["num_subtasks"] for e in completed) == 2  # one chained vertex, p=2; later ones skip finished tasks
    latest = completed[-1]
    metadata = CheckpointStorage(str(tmp_path / "chk")).load_metadata(latest["external_path"])
    assert metadata is not None


def test_a_failing_record_fails_the_job_with_the_users_error(spark_session, tmp_path):
    definition = simple_pipeline(count=50, expression="10 // (x - 7)")
    definition["restart"] = {"strategy": "none"}
    outcome, events = run_on_spark(spark_session, definition, tmp_path)
    assert outcome.status == "FAILED"
    assert "division" in outcome.failure_cause and "double" in outcome.failure_cause


def test_cancel_stops_an_unbounded_job(spark_session, tmp_path):
    running = threading.Event()
    events = []

    def on_event(event):
        events.append(event)
        if event.get("status") == "RUNNING":
            running.set()

    job_master = job_master_for(normalise_definition(simple_pipeline(count=None, rate=100)),
                                Spark(session=spark_session), checkpoint_dir=str(tmp_path / "chk"),
                                on_event=on_event)
    outcome = {}
    thread = threading.Thread(target=lambda: outcome.setdefault("value", job_master.run()))
    thread.start()
    assert running.wait(120), "the job never reported RUNNING"
    job_master.cancel()
    thread.join(60)
    assert outcome["value"].status == "CANCELED"
    assert [e["status"] for e in events if e["type"] == "status"] == ["RUNNING", "CANCELED"]


def running_slot_cpus(spark_session, tmp_path, pin_slots: bool) -> dict:
    """Start an unbounded job of one region with two slots, read where they run once it is RUNNING, cancel it."""
    spec = definition_of(
        [node("gen", "source.datagen", count=None, rate=100), node("sum", "aggregate.reduce"),
         node("out", "sink.collect", max_records=10)],
        [edge("gen", "sum", "hash", "x % 10"), edge("sum", "out")], name="pinned", parallelism=2)
    running = threading.Event()
    deployer = SparkDeployer(spark_session=spark_session, pin_slots=pin_slots, cpu_lock_dir=str(tmp_path / "cpus"))
    job_master = JobMaster(normalise_definition(spec), deployer,
                           checkpoint_dir=str(tmp_path / f"chk-{pin_slots}"),
                           on_event=lambda event: event.get("status") == "RUNNING" and running.set())
    thread = threading.Thread(target=job_master.run)
    thread.start()
    try:
        assert running.wait(120), "the job never reported RUNNING"
        return deployer.slot_cpus()
    finally:
        job_master.cancel()
        thread.join(60)


def test_each_slot_runs_pinned_to_a_cpu_of_its_own(spark_session, tmp_path):
    # the job's own lock directory: another job on this machine holding CPUs would leave its slots unpinned
    allowed = os.sched_getaffinity(0)
    cpus = running_slot_cpus(spark_session, tmp_path, pin_slots=True)
    assert sorted(cpus) == [0, 1]
    if len(allowed) >= 2:
        assert len(set(cpus.values())) == 2 and set(cpus.values()) <= allowed
    else:
        assert set(cpus.values()) == {None}
    assert set(running_slot_cpus(spark_session, tmp_path, pin_slots=False).values()) == {None}


def committed_records(directory) -> list:
    """Every record in the committed part files of a two-phase-commit file sink."""
    records = []
    for part in sorted(directory.glob("part-*.jsonl")):
        records.extend(json.loads(line) for line in part.read_text().splitlines() if line)
    return records


def exactly_once_pipeline(output_dir, count: int, rate: float) -> dict:
    return definition_of(
        [node("gen", "source.datagen", count=count, rate=rate), node("sum", "aggregate.reduce", function="sum"),
         node("out", "sink.file", path=str(output_dir))],
        [edge("gen", "sum", "hash", "x % 7"), edge("sum", "out")], name="exactly-once", parallelism=1,
        checkpointing={"interval_ms": 150}, restart={"strategy": "fixed_delay", "attempts": 3, "delay_ms": 0})


def test_a_bounded_job_ends_without_waiting_out_the_checkpoint_interval(spark_session, tmp_path):
    """The checkpoint that commits the sink's last data comes once the source finished, not
    an hour later with the next periodic one."""
    definition = exactly_once_pipeline(tmp_path / "out", count=300, rate=0)
    definition.update(parallelism=2, checkpointing={"interval_ms": 3_600_000})
    job_master = job_master_for(normalise_definition(definition), Spark(session=spark_session),
                                checkpoint_dir=str(tmp_path / "chk"))
    outcome = job_master.run(timeout=120)
    assert outcome.status == "FINISHED", outcome.failure_cause
    assert sum(final_sums(committed_records(tmp_path / "out")).values()) == sum(range(300))


def test_killed_slot_process_restarts_from_the_checkpoint_exactly_once(spark_session, tmp_path):
    """SIGKILL of a slot's Spark Python worker: the job restarts and the committed output is exact."""
    count = 1500
    events = []
    second_checkpoint = threading.Event()

    def on_event(event):
        events.append(event)
        if event["type"] == "checkpoint" and event["event"] == "completed" and event["id"] >= 2:
            second_checkpoint.set()

    definition = normalise_definition(exactly_once_pipeline(tmp_path / "out", count, rate=1000))
    job_master = job_master_for(definition, Spark(session=spark_session), checkpoint_dir=str(tmp_path / "chk"),
                                on_event=on_event)
    outcome = {}
    thread = threading.Thread(target=lambda: outcome.setdefault("value", job_master.run()))
    thread.start()
    assert second_checkpoint.wait(120), "no second checkpoint completed"
    victim = job_master.deployer.slot_pids()[0]
    os.kill(victim, signal.SIGKILL)
    thread.join(180)

    assert outcome["value"].status == "FINISHED", outcome["value"].failure_cause
    statuses = [e["status"] for e in events if e["type"] == "status"]
    assert statuses == ["RUNNING", "RESTARTING", "RUNNING", "FINISHED"]
    expected = {}
    for x in range(count):
        expected[x % 7] = expected.get(x % 7, 0) + x
    output = committed_records(tmp_path / "out")
    finals = {}
    for key, total in output:
        finals[key] = max(finals.get(key, 0), total)
    assert finals == expected
    assert len(output) == count  # every running sum once: nothing lost, nothing doubled


def test_a_restart_waits_for_the_stopped_slots_not_for_the_failed_spark_job(spark_session, tmp_path, monkeypatch):
    """After a SIGKILL the region restarts once the stage's slots stopped, not once Spark
    ended the failed job (up to seconds later on a busy host). The first stage's driver
    thread is held after its Spark job failed until RESTARTING was emitted: were the
    restart waiting for that thread, RESTARTING would only come after the hold timed out.
    The output is still exact."""
    count = 4000
    restarting, second_checkpoint, held = threading.Event(), threading.Event(), []
    original_run_stage = SparkDeployer._run_stage

    def run_stage_then_hold(self, stage):
        original_run_stage(self, stage)
        if stage.attempt.number == 1:
            held.append(restarting.wait(timeout=20))

    monkeypatch.setattr(SparkDeployer, "_run_stage", run_stage_then_hold)

    def on_event(event):
        if event.get("status") == "RESTARTING":
            restarting.set()
        if event["type"] == "checkpoint" and event["event"] == "completed" and event["id"] >= 2:
            second_checkpoint.set()

    definition = {**exactly_once_pipeline(tmp_path / "out", count, rate=1000), "parallelism": 2}  # a survivor too
    job_master = job_master_for(normalise_definition(definition), Spark(session=spark_session),
                                checkpoint_dir=str(tmp_path / "chk"), on_event=on_event)
    outcome = {}
    thread = threading.Thread(target=lambda: outcome.setdefault("value", job_master.run()))
    thread.start()
    assert second_checkpoint.wait(120), "no second checkpoint completed"
    os.kill(job_master.deployer.slot_pids()[0], signal.SIGKILL)
    thread.join(180)

    assert outcome["value"].status == "FINISHED", outcome["value"].failure_cause
    assert held == [True], "the restart waited for the failed stage's Spark job"
    assert len(committed_records(tmp_path / "out")) == count


def test_stop_with_savepoint_then_restore_continues_exactly_once(spark_session, tmp_path):
    count = 1200
    definition = normalise_definition(exactly_once_pipeline(tmp_path / "out", count, rate=600))
    first_checkpoint = threading.Event()

    def on_event(event):
        if event["type"] == "checkpoint" and event["event"] == "completed":
            first_checkpoint.set()

    job_master = job_master_for(definition, Spark(session=spark_session), checkpoint_dir=str(tmp_path / "chk"),
                                on_event=on_event)
    outcome = {}
    thread = threading.Thread(target=lambda: outcome.setdefault("value", job_master.run()))
    thread.start()
    assert first_checkpoint.wait(120)
    location = job_master.stop_with_savepoint(drain=False).result(timeout=60)
    thread.join(60)
    assert outcome["value"].status == "FINISHED"
    stopped_early = committed_records(tmp_path / "out")
    assert 0 < len(stopped_early) < count, "the stop should come before the bounded source ends"

    restored = job_master_for(definition, Spark(session=spark_session), checkpoint_dir=str(tmp_path / "chk"),
                              on_event=lambda e: None, restore=location)
    assert restored.run().status == "FINISHED"
    output = committed_records(tmp_path / "out")
    assert len(output) == count
    assert sorted(total for key, total in output if key == 0)[-1] == sum(range(0, count, 7))


def test_savepoint_of_a_running_job_has_metadata(spark_session, tmp_path):
    running = threading.Event()
    job_master = job_master_for(normalise_definition(simple_pipeline(count=None, rate=100)),
                                Spark(session=spark_session), checkpoint_dir=str(tmp_path / "chk"),
                                on_event=lambda e: e.get("status") == "RUNNING" and running.set())
    thread = threading.Thread(target=job_master.run)
    thread.start()
    assert running.wait(120)
    target = tmp_path / "my-savepoints"
    location = job_master.trigger_savepoint(str(target)).result(timeout=60)
    job_master.cancel()
    thread.join(60)
    assert location.startswith(str(target))
    assert CheckpointStorage(str(tmp_path / "chk")).load_metadata(location)["kind"] == "savepoint"


def keyed_sum_pipeline(exchange: str, parallelism: int = 2) -> dict:
    """datagen -> hash(x % 5) -> running sum -> collect, with the hash exchange pipelined or blocking."""
    return definition_of(
        [node("gen", "source.datagen", count=500), node("sum", "aggregate.reduce", function="sum"),
         node("out", "sink.collect", max_records=1000)],
        [edge("gen", "sum", "hash", "x % 5", exchange=exchange), edge("sum", "out")],
        name=f"sum-{exchange}", parallelism=parallelism, checkpointing={"interval_ms": 200},
        restart={"strategy": "none"})


def final_sums(records) -> dict:
    finals = {}
    for key, total in records:
        finals[key] = max(finals.get(key, 0), total)
    return finals


def test_hash_exchange_between_slots_over_tcp(spark_session, tmp_path):
    outcome, events = run_on_spark(spark_session, keyed_sum_pipeline("pipelined"), tmp_path)
    assert outcome.status == "FINISHED", outcome.failure_cause
    expected = {key: sum(x for x in range(500) if x % 5 == key) for key in range(5)}
    assert final_sums(outcome.collected["out"]) == expected
    assert len(outcome.collected["out"]) == 500
    scheduled = [e for e in events if e["type"] == "region" and e["event"] == "scheduled"]
    assert len(scheduled) == 1, "an all-to-all pipelined edge makes one region"


def test_blocking_exchange_runs_region_by_region_with_the_same_result(spark_session, tmp_path):
    pipelined, _ = run_on_spark(spark_session, keyed_sum_pipeline("pipelined"), tmp_path / "a")
    blocking, events = run_on_spark(spark_session, keyed_sum_pipeline("blocking"), tmp_path / "b")
    assert blocking.status == "FINISHED", blocking.failure_cause
    assert final_sums(blocking.collected["out"]) == final_sums(pipelined.collected["out"])
    # The running sums in between depend on how the two producers' records interleave,
    # so compare how many each key emitted rather than the intermediate values.
    assert Counter(key for key, _ in blocking.collected["out"]) == \
        Counter(key for key, _ in pipelined.collected["out"])
    region_events = [(e["event"], e["region"]) for e in events if e["type"] == "region"]
    producers = [region for event, region in region_events if event == "scheduled"][:2]
    first_consumer = next(i for i, (event, region) in enumerate(region_events)
                          if event == "scheduled" and region not in producers)
    finished_before = {region for event, region in region_events[:first_consumer] if event == "finished"}
    assert set(producers) <= finished_before, f"consumers started before producers finished: {region_events}"
    assert not list((tmp_path / "b" / "chk" / "shuffle").glob("*/*")), "shuffle files outlived the run"


def test_finished_is_reported_when_the_subtasks_finished_and_run_waits_for_spark(spark_session, tmp_path,
                                                                                monkeypatch):
    """FINISHED follows the subtasks' reports, not Spark's completion of the barrier stage
    (tens of ms more); ``run`` still returns only after that Spark job ended. The stage's
    driver thread is held after its Spark job returned until FINISHED was emitted: were
    FINISHED waiting for that thread, it would only come after the hold timed out."""
    finished_emitted, stage_threads_ended = threading.Event(), []
    original_run_stage = SparkDeployer._run_stage

    def run_stage_then_hold(self, *args):
        original_run_stage(self, *args)
        stage_threads_ended.append(finished_emitted.wait(timeout=20))

    monkeypatch.setattr(SparkDeployer, "_run_stage", run_stage_then_hold)

    def on_event(event):
        if event.get("status") == "FINISHED":
            finished_emitted.set()

    job_master = job_master_for(normalise_definition(simple_pipeline(count=100, parallelism=2)),
                                Spark(session=spark_session), checkpoint_dir=str(tmp_path / "chk"),
                                on_event=on_event)
    outcome = job_master.run()
    assert outcome.status == "FINISHED", outcome.failure_cause
    assert stage_threads_ended and all(stage_threads_ended), \
        f"FINISHED waited for the Spark job, or run returned before it ended: {stage_threads_ended}"
    # this job's own Spark jobs ended (the session is shared: an earlier test's may still be ending)
    tracker = spark_session.sparkContext.statusTracker()
    group = job_master.deployer.job_group
    own = {job for number in range(20) for job in tracker.getJobIdsForGroup(f"{group}-s{number}")}
    assert own, "the job's Spark jobs are found by their group"
    assert not own & set(tracker.getActiveJobsIds())
