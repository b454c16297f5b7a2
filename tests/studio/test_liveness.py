"""Truthful status: runs whose driver stopped heart-beating are FAILED "driver lost", by whichever worker is up."""
import os
import subprocess
import sys
import threading
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from studio.models import Pipeline, PipelineVersion, Run
from studio.runs.events import set_status
from studio.runs import session
from studio.runs.liveness import SESSION_LOST, WAITS_FOR_SESSION, check_heartbeats
from studio.runs.placement import SESSION
from tests.conftest import ROOT, stop_process_tree
from tests.support import simple_pipeline, wait_until


def make_run(status: str, heartbeat_age_s: float | None, status_age_s: float = 3600, placement: str = "") -> Run:
    pipeline = Pipeline.objects.create(name="p")
    version = PipelineVersion.objects.create(pipeline=pipeline, number=1, definition=simple_pipeline())
    run = Run.objects.create(pipeline=pipeline, version=version, placement=placement, driver_token="old")
    set_status(run.id, status)
    old = timezone.now() - timedelta(seconds=status_age_s)
    history = [{**entry, "ts": int(old.timestamp() * 1000)} for entry in Run.objects.get(pk=run.id).status_history]
    heartbeat = None if heartbeat_age_s is None else timezone.now() - timedelta(seconds=heartbeat_age_s)
    Run.objects.filter(pk=run.id).update(status_history=history, heartbeat_at=heartbeat, created_at=old)
    return Run.objects.get(pk=run.id)


@pytest.mark.django_db
def test_runs_without_a_sign_of_life_are_marked_and_others_left_alone():
    silent = make_run("RUNNING", heartbeat_age_s=60)
    beating = make_run("RUNNING", heartbeat_age_s=1)
    canceling = make_run("CANCELING", heartbeat_age_s=60)
    never_started_driver = make_run("SCHEDULING", heartbeat_age_s=None)
    just_scheduled = make_run("SCHEDULING", heartbeat_age_s=None, status_age_s=2)
    never_launched = make_run("CREATED", heartbeat_age_s=None)
    finished = make_run("FINISHED", heartbeat_age_s=600)

    lost = check_heartbeats(timeout_s=15, launch_timeout_s=600)
    assert sorted(lost) == sorted([silent.id, canceling.id, never_started_driver.id, never_launched.id])
    states = {run.id: (run.status, run.failure_cause) for run in Run.objects.all()}
    assert states[silent.id] == ("FAILED", "driver lost")
    assert states[canceling.id] == ("CANCELED", "driver lost")
    assert states[never_started_driver.id] == ("FAILED", "driver lost: it did not start within 120 s")
    assert states[never_launched.id][0] == "FAILED" and "not launched" in states[never_launched.id][1]
    assert states[beating.id] == ("RUNNING", None) and states[just_scheduled.id] == ("SCHEDULING", None)
    assert states[finished.id] == ("FINISHED", None)
    assert check_heartbeats(timeout_s=15, launch_timeout_s=600) == []  # once


@pytest.mark.django_db
def test_a_driver_still_starting_gets_the_start_timeout_and_one_that_beat_the_heartbeat_timeout(settings):
    settings.DRIVER_START_TIMEOUT_S = 120
    importing = make_run("SCHEDULING", heartbeat_age_s=None, status_age_s=60)  # a slow machine's imports
    beat_then_stopped = make_run("SCHEDULING", heartbeat_age_s=60, status_age_s=60)
    never_started = make_run("SCHEDULING", heartbeat_age_s=None, status_age_s=121)

    assert sorted(check_heartbeats(timeout_s=15, launch_timeout_s=600)) == sorted([beat_then_stopped.id,
                                                                                  never_started.id])
    assert Run.objects.get(pk=importing.id).status == "SCHEDULING"
    assert Run.objects.get(pk=beat_then_stopped.id).failure_cause == "driver lost"
    assert Run.objects.get(pk=never_started.id).failure_cause == "driver lost: it did not start within 120 s"


@pytest.mark.django_db(transaction=True)
def test_a_run_of_a_lost_session_driver_waits_for_the_session_to_take_it_back_and_is_not_failed():
    session.withdraw()
    client = session._client()
    client.delete(session.launches_key())
    running = make_run("RUNNING", heartbeat_age_s=60, placement=SESSION)
    canceling = make_run("CANCELING", heartbeat_age_s=60, placement=SESSION)

    assert sorted(check_heartbeats(timeout_s=15, launch_timeout_s=600)) == sorted([running.id, canceling.id])
    run = Run.objects.get(pk=running.id)
    assert (run.status, run.status_history[-1]["cause"]) == ("RESTARTING", WAITS_FOR_SESSION)
    assert run.driver_token != "old", "the lost session driver is fenced"
    assert session.take_launch(client, 1) == (running.id, run.driver_token, SESSION_LOST, False), "handed to the session"
    assert Run.objects.get(pk=canceling.id).status == "CANCELED", "a run being cancelled is not taken back"
    assert check_heartbeats(timeout_s=15, launch_timeout_s=600) == [], "it waits, once marked"

    in_an_hour = timezone.now() + timedelta(seconds=3600)
    assert check_heartbeats(now=in_an_hour, timeout_s=15, launch_timeout_s=600) == [running.id]
    run = Run.objects.get(pk=running.id)
    assert (run.status, run.failure_cause) == (
        "FAILED", f"{SESSION_LOST} and no session driver took the run back within 600 s")


@pytest.mark.django_db(transaction=True)
def test_a_run_the_serving_session_driver_lists_is_alive_whatever_its_heartbeat():
    driven = make_run("RUNNING", heartbeat_age_s=60, placement=SESSION)
    dropped = make_run("RUNNING", heartbeat_age_s=60, placement=SESSION)
    own = make_run("RUNNING", heartbeat_age_s=60)
    session.announce({"slots": 4, "run_ids": [driven.id, own.id]})  # a busy session driver's heartbeats lag
    try:
        assert sorted(check_heartbeats(timeout_s=15, launch_timeout_s=600)) == sorted([dropped.id, own.id])
    finally:
        session.withdraw()
    assert Run.objects.get(pk=driven.id).status == "RUNNING"
    assert Run.objects.get(pk=own.id).status == "FAILED", "a driver of its own is not vouched for by the session"


@pytest.mark.django_db(transaction=True)
def test_a_freshly_started_worker_marks_runs_whose_driver_died_while_it_was_away():
    from django.db import connection

    lost = make_run("RUNNING", heartbeat_age_s=3600)
    alive = make_run("RUNNING", heartbeat_age_s=0)
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{connection.settings_dict['NAME']}", "PYTHONPATH": str(ROOT),
           "STUDIO_HEARTBEAT_TIMEOUT": "30", "STUDIO_HEARTBEAT_CHECK_INTERVAL": "0.5"}
    worker = subprocess.Popen(  # its own queue: it takes no launch task meant for other tests' worker
        [sys.executable, "-m", "celery", "-A", "studio", "worker", "--pool", "threads", "--concurrency", "1",
         "-Q", "liveness-test", "--loglevel", "WARNING", "--without-gossip", "--without-mingle",
         "--without-heartbeat"], cwd=ROOT, env=env)
    try:
        # a Celery worker's start (Django, the app, its first check) took over 60 s on a 2-core machine at load
        # 30; a worker that exits fails the wait at once. The live run beats meanwhile, as its driver would:
        # a start slower than the 30 s timeout once found it silent too
        def marked() -> bool:
            Run.objects.filter(pk=alive.id).update(heartbeat_at=timezone.now())
            return worker.poll() is not None or Run.objects.get(pk=lost.id).status == "FAILED"

        wait_until(marked, 180, "the worker to mark the lost run")
        assert worker.poll() is None, "the worker exited"
        assert Run.objects.get(pk=lost.id).failure_cause == "driver lost"
        assert Run.objects.get(pk=alive.id).status == "RUNNING"
    finally:
        stop_process_tree(worker.pid)


@pytest.mark.django_db
def test_one_beat_for_every_run_of_a_driver_and_a_run_ended_in_the_studio_has_its_job_cancelled():
    from studio.runs.heartbeats import Heartbeats

    first, second = make_run("RUNNING", heartbeat_age_s=60), make_run("RUNNING", heartbeat_age_s=60)
    cancelled = []
    beats = Heartbeats()
    beats.add(first.id, first.driver_token, lambda: cancelled.append(first.id))
    beats.add(second.id, second.driver_token, lambda: cancelled.append(second.id))
    with CaptureQueriesContext(connection) as queries:
        assert beats.beat() == []
    writes = [query["sql"] for query in queries if query["sql"].startswith("UPDATE")]
    assert len(writes) == 1, writes  # the runs' heartbeats, one UPDATE; no change token (no answer shows a beat)
    assert all(Run.objects.get(pk=run.id).heartbeat_at > run.heartbeat_at for run in (first, second))
    set_status(first.id, "FAILED", cause="driver lost")  # say the studio gave up on the first
    assert beats.beat() == [first.id]
    assert cancelled == [first.id]
    assert beats.beat() == [] and cancelled == [first.id], "once"
    beats.remove(second.id, second.driver_token)
    Run.objects.filter(pk=second.id).update(driver_token="another driver")
    assert beats.beat() == [] and cancelled == [first.id], "a run removed is no longer beaten for"


@pytest.mark.django_db(transaction=True)
def test_session_runs_are_not_judged_lost_when_the_presence_cannot_be_read(settings):
    silent = make_run("SCHEDULING", heartbeat_age_s=60, placement=SESSION)
    own = make_run("RUNNING", heartbeat_age_s=60)
    settings.REDIS_URL = "redis://127.0.0.1:1/0"  # nothing listens there: the presence cannot be read
    assert check_heartbeats(timeout_s=15, launch_timeout_s=600) == [own.id], "a driver of its own is judged"
    run = Run.objects.get(pk=silent.id)
    assert (run.status, run.driver_token) == ("SCHEDULING", "old"), "not fenced on an unread presence"


@pytest.mark.django_db(transaction=True)
def test_a_session_run_claimed_after_the_last_announcement_is_not_judged_by_its_absence_from_it():
    import time

    claimed_later = make_run("SCHEDULING", heartbeat_age_s=20, status_age_s=20, placement=SESSION)
    dropped = make_run("RUNNING", heartbeat_age_s=60, placement=SESSION)
    # a session driver busy starting runs announced 40 s ago (its presence lasts 30 s after each announcement)
    session.announce({"slots": 4, "run_ids": [], "at": time.time() - 40})
    try:
        assert check_heartbeats(timeout_s=15, launch_timeout_s=600) == [dropped.id]
        assert Run.objects.get(pk=claimed_later.id).status == "SCHEDULING"
        session.announce({"slots": 4, "run_ids": [], "at": time.time()})  # it serves and does not list it
        assert check_heartbeats(timeout_s=15, launch_timeout_s=600) == [claimed_later.id]
    finally:
        session.withdraw()
        session._client().delete(session.launches_key())


@pytest.mark.django_db
def test_a_run_handed_back_to_the_driver_that_drives_it_is_beaten_for_under_its_new_token_whoever_added_last():
    from studio.runs.heartbeats import Heartbeats

    run = make_run("SCHEDULING", heartbeat_age_s=60, placement=SESSION)
    Run.objects.filter(pk=run.id).update(driver_token="new")  # fenced by the heartbeat check, handed back
    cancelled = []
    beats = Heartbeats()
    beats.add(run.id, "new", lambda: cancelled.append("new"))  # the later driver thread
    beats.add(run.id, "old", lambda: cancelled.append("old"))  # the fenced one, slower to get there
    assert beats.beat() == [run.id] and cancelled == ["old"], "the fenced thread's job is cancelled"
    before = Run.objects.get(pk=run.id).heartbeat_at
    assert beats.beat() == [] and cancelled == ["old"]
    assert Run.objects.get(pk=run.id).heartbeat_at > before, "the later thread's heartbeats go on"
    beats.remove(run.id, "old")
    beats.remove(run.id, "new")
    assert beats.beat() == []
