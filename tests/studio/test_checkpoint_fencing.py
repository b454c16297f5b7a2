"""Fencing at the moment of use: a driver fenced while it stalled completes no checkpoint when it wakes.

The run's driver stalls (its heartbeat confirms nothing, its reports wait); meanwhile the studio fences it
and the driver that takes the run over chooses the checkpoint it goes on from. The old driver's job,
awake before its heartbeat or a refused report tells it, must not complete another checkpoint: its sink
would commit records the new driver commits again. The job here runs in process (the engine's in-process
deployment in place of Spark), everything else as a driver runs it; the stall is a clock that does not see
the heartbeat confirm and a gate on the reports, nothing is timed.
"""
from __future__ import annotations

import threading
from collections import Counter

import pytest

from engine.api import InProcess, latest_checkpoint
from studio.models import Pipeline, PipelineVersion, Run
from tests.support import assert_exactly_once, wait_until

COUNT = 2000
RUN_START_TIMEOUT = 240  # bounds a hang; Spark starts slowly on a loaded 2-core machine


class Clock:
    """A monotonic clock that moves only when the test says: the stall is its jump."""

    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Gate:
    """Holds the driver's reports (the event writer's stores) while closed, as a stalled process does."""

    def __init__(self, record_events):
        self._record_events = record_events
        self.open = threading.Event()
        self.open.set()

    def __call__(self, batch):
        self.open.wait(120)
        return self._record_events(batch)


@pytest.fixture
def stalled_driver(monkeypatch):
    """The driver process's parts a stall holds: its heartbeat (a clock of the test's, no beat but when woken)
    and its reports; and its job in process."""
    import engine.api
    from studio.runs import events, fencing, heartbeats

    clock = Clock()
    monkeypatch.setattr(heartbeats, "_heartbeats", heartbeats.Heartbeats(interval_s=3600, clock=clock))
    gate = Gate(events.record_events)
    monkeypatch.setattr(events, "record_events", gate)
    monkeypatch.setattr(engine.api, "Spark", lambda master=None, session=None, config=None: InProcess(config or {}))
    answers: list[bool] = []
    asked = fencing.CompletionGuard.__call__
    monkeypatch.setattr(fencing.CompletionGuard, "__call__", lambda guard: answers.append(asked(guard)) or answers[-1])
    return clock, gate, answers


def committed(output) -> Counter:
    return Counter(int(line) for part in output.glob("part-*.jsonl") for line in part.read_text().splitlines() if line)


@pytest.mark.django_db(transaction=True)
def test_a_driver_fenced_while_it_stalled_completes_no_checkpoint_and_the_run_commits_every_record_once(
        stalled_driver, user, granted_tmp_path, monkeypatch, settings):
    from studio.runs import driver as run_drivers
    from studio.runs.driver import JobReference, run_driver
    from studio.runs.fencing import CONFIRM_WINDOW_S

    clock, gate, answers = stalled_driver
    output = granted_tmp_path / "out"
    definition = {"format": 1, "name": "fenced", "mode": "streaming", "parallelism": 1,
                  "checkpointing": {"interval_ms": 30, "retained": 100},
                  "nodes": [{"id": "gen", "type": "source.datagen", "params": {"count": COUNT, "rate": 1000}},
                            {"id": "out", "type": "sink.file", "params": {"path": str(output)}}],
                  "edges": [{"id": "e1", "from": "gen", "to": "out"}]}
    pipeline = Pipeline.objects.create(name="fenced", owner=user)
    version = PipelineVersion.objects.create(pipeline=pipeline, number=1, definition=definition, created_by=user)
    run = Run.objects.create(pipeline=pipeline, version=version, created_by=user, status="SCHEDULING",
                             driver_token="first")
    checkpoints = f"{settings.CHECKPOINT_ROOT}/run-{run.id}"
    old_job = JobReference()
    old = threading.Thread(target=run_driver, args=(run.id, "first"), kwargs={"job": old_job}, daemon=True)
    old.start()
    wait_until(lambda: latest_checkpoint(checkpoints), 60, "a completed checkpoint of the first driver")

    gate.open.clear()  # the driver's process stalls: no report leaves it, its heartbeat confirms nothing
    Run.objects.filter(pk=run.id).update(driver_token="second")  # the studio fences it, another driver takes over
    clock.now += CONFIRM_WINDOW_S  # ... as long after its last confirmation as any take-over waits
    job_master = old_job._job_master.job_master  # the handle submit gave the driver
    flipped = len(answers)
    # the guard asked after the stall began (under the coordinator's lock, so a checkpoint completing as it
    # began has ended, completed or not): the take-over chooses now
    wait_until(lambda: len(answers) > flipped or job_master.status == "CANCELED", 60,
               "the guard to be asked after the stall began")
    chosen = latest_checkpoint(checkpoints)  # what the driver taking over goes on from
    chose = len(answers)
    # (or, refused, to be cancelled: the refusal woke its heartbeat, which found it fenced)
    wait_until(lambda: len(answers) > chose or job_master.status == "CANCELED", 60,
               "the stalled job to try checkpointing after the take-over chose")
    gate.open.set()  # awake: its heartbeat and its refused reports tell it it was fenced
    old.join(120)
    assert not old.is_alive() and job_master.status == "CANCELED", "the fenced job ended"
    assert False in answers, "the guard said no once the hold went unconfirmed for the window"
    assert latest_checkpoint(checkpoints)["checkpoint_id"] == chosen["checkpoint_id"], \
        "no checkpoint of the fenced job completed after the take-over chose"

    monkeypatch.setattr(run_drivers, "_resumed_snapshot", lambda run, directory: _verified(run, chosen))
    assert run_driver(run.id, "second", resume_cause="the driver was lost") == 0
    run.refresh_from_db()
    assert run.status == "FINISHED", run.failure_cause
    assert any(entry.get("cause") == f"the driver was lost: going on from checkpoint {chosen['checkpoint_id']}"
               for entry in run.status_history), run.status_history
    assert_exactly_once(committed(output), Counter(range(COUNT)), "the fenced driver and the one that took over")


@pytest.fixture(scope="module")
def shared_session_cluster():
    """A session of the test process's one Spark application (shared with every Spark test of the process)."""
    from engine.api import SessionCluster
    from engine.cluster.spark_session import create_spark_session

    return SessionCluster(slots=4, session=create_spark_session("studio-tests", "local[4]"))


@pytest.mark.spark
@pytest.mark.timeout(900)
@pytest.mark.django_db(transaction=True)
def test_a_session_driver_whose_lease_went_unrenewed_completes_no_checkpoint_after_the_next_holder_took_the_run(
        stalled_driver, shared_session_cluster, user, granted_tmp_path, monkeypatch, settings):
    """In the shared session, on Spark: the session driver's lease keeper stalls (its renewals wait, as in a
    process stopped past the lease's life), the lease goes to the next session driver, which fences the run and
    chooses its checkpoint. The old driver's heartbeat still counts its token as confirmed (nothing fenced it when
    it last beat): only its lease, unrenewed for the window, keeps its job from completing a checkpoint. Woken,
    it finds its lease lost and ends; the run, resumed by the next driver from its choice, commits every record
    once."""
    from concurrent.futures import Future

    from studio.runs import driver as run_drivers
    from studio.runs import session
    from studio.runs.driver import run_driver
    from studio.runs.fencing import CONFIRM_WINDOW_S
    from studio.runs.placement import SESSION
    from studio.runs.session_driver import TAKEN_BACK, SessionDriver

    _, gate, answers = stalled_driver  # the heartbeat's clock stays: its token counts as confirmed throughout
    output = granted_tmp_path / "out"
    definition = {"format": 1, "name": "fenced-in-session", "mode": "streaming", "parallelism": 1,
                  "checkpointing": {"interval_ms": 200, "retained": 100},
                  "nodes": [{"id": "gen", "type": "source.datagen", "params": {"count": COUNT, "rate": 200}},
                            {"id": "out", "type": "sink.file", "params": {"path": str(output)}}],
                  "edges": [{"id": "e1", "from": "gen", "to": "out"}]}
    pipeline = Pipeline.objects.create(name="fenced-in-session", owner=user)
    version = PipelineVersion.objects.create(pipeline=pipeline, number=1, definition=definition, created_by=user)
    run = Run.objects.create(pipeline=pipeline, version=version, created_by=user, status="SCHEDULING",
                             driver_token="launched", placement=SESSION)
    checkpoints = f"{settings.CHECKPOINT_ROOT}/run-{run.id}"
    cluster = Future()
    cluster.set_result(shared_session_cluster)
    lease_clock = Clock()
    session.withdraw()
    old = SessionDriver(cluster)
    old.clock = lease_clock
    served: list = []
    threading.Thread(target=lambda: served.append(old.serve()), daemon=True, name="old-session-driver").start()
    wait_until(lambda: latest_checkpoint(checkpoints), RUN_START_TIMEOUT, "a completed checkpoint of the run")
    job_master = old._runs[run.id][0].job._job_master.job_master

    renewals = Gate(old.lease.renew)
    renewals.open.clear()
    old.lease.renew = renewals  # its lease keeper stalls ...
    gate.open.clear()  # ... and so do its reports
    lease_clock.now += CONFIRM_WINDOW_S  # no renewal for the window (the lease expires 30 s after the last)
    session.withdraw()  # ... and expired: the next session driver takes it, and the run back
    following = session.SessionLease({"driver": "the-next", "pid": 1, "host": "elsewhere"})
    assert following.take() is None and following.predecessor_may_commit_s == 0
    try:
        Run.objects.filter(pk=run.id).update(driver_token="the-next's")
        flipped = len(answers)
        wait_until(lambda: len(answers) > flipped or job_master.status == "CANCELED", 120,
                   "the guard to be asked after the stall began")
        chosen = latest_checkpoint(checkpoints)
        chose = len(answers)
        wait_until(lambda: len(answers) > chose or job_master.status == "CANCELED", 120,
                   "the stalled job to try checkpointing after the next driver chose")
        renewals.open.set()  # awake: its lease keeper finds the lease another's, and it stops its jobs
        gate.open.set()
        wait_until(lambda: served, 120, "the old session driver to end")
        assert served == [1] and job_master.status == "CANCELED", "it lost its lease and ended its job"
        assert False in answers, "its job's guard said no: the lease, not the token, went unconfirmed"
        assert latest_checkpoint(checkpoints)["checkpoint_id"] == chosen["checkpoint_id"], \
            "no checkpoint of the old driver's job completed after the next one chose"

        monkeypatch.setattr(run_drivers, "_resumed_snapshot", lambda run, directory: _verified(run, chosen))
        assert run_driver(run.id, "the-next's", session_cluster=cluster, resume_cause=TAKEN_BACK,
                          lease_confirmed=lambda: True) == 0
    finally:
        following.release()
        session.withdraw()
    run.refresh_from_db()
    assert run.status == "FINISHED", run.failure_cause
    assert_exactly_once(committed(output), Counter(range(COUNT)), "the old session driver and the next one")


def _verified(run, metadata: dict) -> dict:
    from studio.runs.snapshots import verified_snapshot

    return verified_snapshot(run.created_by, metadata["location"])
