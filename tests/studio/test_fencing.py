"""Fencing: a driver declared lost is killed with its Spark processes, and nothing it reports counts.

Before: a SIGSTOPped driver was declared FAILED while its Spark JVM and slots ran on;
resumed, it published CANCELED, so REST said FAILED and the WebSocket said CANCELED.
The heartbeat check is run by the test "as if" the timeout had passed (``now`` later),
so the tests need not wait 15 s of real silence.
"""
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from datetime import timedelta

import psutil
import pytest
from asgiref.sync import async_to_sync
from channels.testing import WebsocketCommunicator
from django.db import connection
from django.utils import timezone

from studio.asgi import application
from studio.models import Pipeline, PipelineVersion, Run, RunEvent
from studio.runs.events import DriverFenced, record_event, set_status
from studio.runs.liveness import check_heartbeats
from tests.conftest import ROOT, stop_process_tree
from tests.support import simple_pipeline, wait_until, ws_headers

RUN_START_TIMEOUT = 240  # bounds a hang; Spark starts slowly on a loaded 2-core machine


def declare_lost_now() -> list[int]:
    """The heartbeat check as it will run once the timeout passed."""
    return check_heartbeats(now=timezone.now() + timedelta(seconds=120))


def stored_statuses(run_id: int) -> list[str]:
    return [event.data["status"] for event in RunEvent.objects.filter(run_id=run_id, type="status").order_by("seq")]


def streamed_statuses(run_id: int, token: str) -> list[str]:
    """What a browser connecting now is told, from the first event on."""
    return async_to_sync(_streamed_statuses)(run_id, token, RunEvent.objects.filter(run_id=run_id).count())


async def _streamed_statuses(run_id: int, token: str, count: int) -> list[str]:
    communicator = WebsocketCommunicator(application, f"/ws/runs/{run_id}/", headers=ws_headers(token))
    assert (await communicator.connect(timeout=10))[0]
    events = [json.loads(await communicator.receive_from(timeout=10)) for _ in range(count)]
    await communicator.disconnect()
    return [event["data"]["status"] for event in events if event["type"] == "status"]


@pytest.mark.django_db(transaction=True)
def test_a_fenced_drivers_reports_are_refused_and_rest_and_websocket_agree(api, user):
    pipeline = Pipeline.objects.create(name="p", owner=user)
    version = PipelineVersion.objects.create(pipeline=pipeline, number=1, definition=simple_pipeline())
    run = Run.objects.create(pipeline=pipeline, version=version, driver_token="the-drivers")
    for status in ("CREATED", "SCHEDULING", "RUNNING"):
        set_status(run.id, status, driver_token="the-drivers")
    Run.objects.filter(pk=run.id).update(heartbeat_at=timezone.now())

    assert declare_lost_now() == [run.id]
    with pytest.raises(DriverFenced):
        set_status(run.id, "CANCELED", driver_token="the-drivers")  # the old driver wakes up
    with pytest.raises(DriverFenced):
        record_event(run.id, "checkpoint", {"event": "completed", "id": 7}, driver_token="the-drivers")

    assert api.get(f"/api/runs/{run.id}").json()["status"] == "FAILED"
    assert stored_statuses(run.id) == ["CREATED", "SCHEDULING", "RUNNING", "FAILED"]
    assert streamed_statuses(run.id, api.token_key) == stored_statuses(run.id)
    assert not run.checkpoints.exists()


@pytest.mark.spark
@pytest.mark.django_db(transaction=True)
def test_a_stopped_driver_declared_lost_is_killed_with_its_spark_processes(celery_worker_process, api):
    pipeline = api.post("/api/pipelines", {"name": "stopped", "definition": simple_pipeline(
        count=None, rate=200, interval_ms=300)}, format="json").json()
    run_id = api.post(f"/api/pipelines/{pipeline['id']}/runs", {}, format="json").json()["id"]
    wait_until(lambda: Run.objects.get(pk=run_id).status == "RUNNING", RUN_START_TIMEOUT, "the run to be RUNNING")
    driver = psutil.Process(Run.objects.get(pk=run_id).driver_pid)
    spark = driver.children(recursive=True)
    assert any("java" in process.name() for process in spark)  # the Spark JVM is the driver's child

    # hung: no heartbeat, no reports, no reaction to a cancel command
    stop_outside_a_write(driver, connection.settings_dict["NAME"])
    assert declare_lost_now() == [run_id]
    wait_until(lambda: not any(process.is_running() and process.status() != psutil.STATUS_ZOMBIE
                               for process in [driver, *spark]), 60, "the driver and its Spark processes to be gone")
    run = Run.objects.get(pk=run_id)
    assert (run.status, run.failure_cause) == ("FAILED", "driver lost")
    assert stored_statuses(run_id)[-1] == "FAILED"


@pytest.mark.spark
@pytest.mark.django_db(transaction=True)
def test_a_resumed_driver_that_was_declared_lost_publishes_nothing_and_stops(api, monkeypatch, studio_data_dir):
    """A driver out of the launching worker's reach (started by hand here): fencing alone must hold."""
    from studio.runs.tasks import launch_run

    monkeypatch.setattr(launch_run, "delay", lambda run_id: None)  # this test starts the driver itself
    pipeline = api.post("/api/pipelines", {"name": "resumed", "definition": simple_pipeline(
        count=None, rate=200, interval_ms=300)}, format="json").json()
    run_id = api.post(f"/api/pipelines/{pipeline['id']}/runs", {}, format="json").json()["id"]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "STUDIO_DATA_DIR": str(studio_data_dir),
           "DATABASE_URL": f"sqlite:///{connection.settings_dict['NAME']}"}
    env.pop("STUDIO_DRIVER_TOKEN", None)
    log = open(studio_data_dir / f"fencing-driver-{run_id}.log", "wb")
    driver = subprocess.Popen([sys.executable, "-m", "studio.runs.driver", str(run_id)], cwd=ROOT, env=env, stdout=log,
                              stderr=subprocess.STDOUT)
    try:
        wait_until(lambda: Run.objects.get(pk=run_id).status == "RUNNING", RUN_START_TIMEOUT, "the run to be RUNNING")
        wait_until(lambda: run_checkpoints(run_id) >= 1, 60, "a completed checkpoint")
        # a driver started for the run, not a warm one: it said so first, for the run page
        assert [event.data for event in RunEvent.objects.filter(run_id=run_id, type="startup")] == [
            {"driver": "cold", "spark": "starting"}]
        stop_outside_a_write(driver, connection.settings_dict["NAME"])
        assert declare_lost_now() == [run_id]
        events_when_lost = RunEvent.objects.filter(run_id=run_id).count()
        driver.send_signal(signal.SIGCONT)  # it wakes up, its job still running

        assert driver.wait(120) == 0  # refused, it cancels its job and exits
        assert RunEvent.objects.filter(run_id=run_id).count() == events_when_lost
        assert Run.objects.get(pk=run_id).status == "FAILED"
        assert stored_statuses(run_id)[-1] == "FAILED"
        assert streamed_statuses(run_id, api.token_key) == stored_statuses(run_id)
    finally:
        stop_process_tree(driver.pid)
        log.close()


def stop_outside_a_write(driver: subprocess.Popen | psutil.Process, database: str) -> None:
    """SIGSTOP the driver at a moment it holds no SQLite write lock.

    Stopped inside a write (it records an event per checkpoint), it would hold the whole
    database for everyone until resumed -- SQLite's one writer, not what fencing is about --
    and the heartbeat check would wait out its lock timeout. So: stop, try a write without
    waiting, and let it go on to stop again when the write lock was held.
    """
    for _ in range(200):
        driver.send_signal(signal.SIGSTOP)
        probe = sqlite3.connect(database, timeout=0, isolation_level=None)
        try:
            probe.execute("BEGIN IMMEDIATE")
            probe.execute("ROLLBACK")
            return
        except sqlite3.OperationalError:
            driver.send_signal(signal.SIGCONT)
            time.sleep(0.01)
        finally:
            probe.close()
    raise AssertionError("the driver held the database's write lock at every stop")


def run_checkpoints(run_id: int) -> int:
    return Run.objects.get(pk=run_id).checkpoints.filter(status="COMPLETED").count()
