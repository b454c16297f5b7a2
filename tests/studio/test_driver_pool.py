"""Warm drivers: a run takes a driver process that started its Spark session before the click.

Each run still has a driver (and Spark application) of its own; the worker starts a
replacement while the run goes on, and a warm driver whose worker went away exits.
"""
import os

import psutil
import pytest
from django.conf import settings

from studio.models import Pipeline, Run, RunEvent, RunStatus
from tests.support import simple_pipeline, wait_until

RUN_START_TIMEOUT = 240  # bounds a hang; Spark starts slowly on a loaded 2-core machine


def warm_drivers_of(worker_pid: int) -> list[psutil.Process]:
    """The worker's driver processes still waiting for a run: started ``--warm`` and still writing to a
    warm driver's log. A warm driver that was handed a run keeps its command line while its run (maybe an
    earlier test's) ends; its output then goes to the run's log."""
    return [process for process in psutil.Process(worker_pid).children() if is_a_waiting_warm_driver(process)]


def is_a_waiting_warm_driver(process: psutil.Process) -> bool:
    """False for a child that exits while it is looked at (an earlier test's driver ending with its run:
    its command line can no longer be read)."""
    try:
        return "--warm" in process.cmdline() and process.status() != psutil.STATUS_ZOMBIE \
            and writes_a_warm_log(process)
    except psutil.Error:
        return False


def writes_a_warm_log(process: psutil.Process) -> bool:
    try:
        return "warm-driver-" in os.readlink(f"/proc/{process.pid}/fd/1")
    except OSError:  # it exited
        return False


@pytest.mark.spark
@pytest.mark.django_db(transaction=True)
def test_a_run_takes_a_warm_driver_and_the_worker_starts_a_replacement(celery_worker_process, api):
    wait_until(lambda: warm_drivers_of(celery_worker_process.pid), 60, "the worker's warm driver to start")
    waiting = warm_drivers_of(celery_worker_process.pid)[0]
    pipeline = api.post("/api/pipelines", {"name": "warm", "definition": simple_pipeline(
        count=None, rate=100, interval_ms=500)}, format="json").json()
    run_id = api.post(f"/api/pipelines/{pipeline['id']}/runs", {}, format="json").json()["id"]
    wait_until(lambda: Run.objects.get(pk=run_id).status == "RUNNING", RUN_START_TIMEOUT, "the run to be RUNNING")

    assert Run.objects.get(pk=run_id).driver_pid == waiting.pid, "the run is driven by the driver that waited"
    [startup] = [event.data for event in RunEvent.objects.filter(run_id=run_id, type="startup")]
    assert startup["driver"] == "warm" and startup["spark"] in ("ready", "starting"), startup  # said on the run page
    log = (settings.RUN_LOG_DIR / f"run-{run_id}.log").read_text(errors="replace")
    assert "warm driver ready" in log, "the warm driver's log became the run's"
    wait_until(lambda: [p for p in warm_drivers_of(celery_worker_process.pid) if p.pid != waiting.pid], 60,
               "a replacement warm driver")
    assert api.post(f"/api/runs/{run_id}/cancel").status_code == 202
    wait_until(lambda: Run.objects.get(pk=run_id).status == "CANCELED", 60, "the run to be CANCELED")
    wait_until(lambda: not waiting.is_running() or waiting.status() == psutil.STATUS_ZOMBIE, 60,
               "the run's driver to exit with its run")


@pytest.mark.spark
def test_a_warm_driver_whose_worker_goes_away_exits_with_its_spark_session(tmp_path, settings):
    from studio.processes.driver_pool import DriverPool

    settings.RUN_LOG_DIR = tmp_path
    pool = DriverPool(1)
    pool.fill()
    driver = pool.take()
    pool.close()  # the replacement take() started is closed; this one's input ends as the worker exits
    process = psutil.Process(driver.process.pid)
    wait_until(lambda: "warm driver ready" in driver.log_path.read_text(errors="replace"), 120,
               "the warm driver's Spark session")
    spark = process.children(recursive=True)
    assert any("java" in child.name() for child in spark), "the Spark JVM is the warm driver's child"
    driver.process.stdin.close()
    assert driver.process.wait(60) == 0
    wait_until(lambda: not any(child.is_running() and child.status() != psutil.STATUS_ZOMBIE for child in spark),
               60, "its Spark JVM to exit")


def test_a_dead_warm_driver_is_not_handed_a_run(tmp_path, settings):
    import subprocess
    import sys

    from studio.processes.driver_pool import DriverPool, WarmDriver

    settings.RUN_LOG_DIR = tmp_path
    pool = DriverPool(0)  # starts no replacements
    dead = subprocess.Popen([sys.executable, "-c", "pass"], stdin=subprocess.PIPE)
    dead.wait()
    pool._ready.append(WarmDriver(dead, tmp_path / "warm-driver-dead.log"))
    assert pool.take() is None, "a launch then starts a cold driver"


@pytest.mark.django_db
def test_a_run_cancelled_while_its_driver_started_ends_canceled_without_a_job(user):
    from studio.runs.driver import run_driver

    pipeline = Pipeline.objects.create(name="p", owner=user)
    version = pipeline.versions.create(number=1, definition=simple_pipeline(count=None, rate=10), created_by=user)
    run = Run.objects.create(pipeline=pipeline, version=version, created_by=user, status=RunStatus.CANCELING,
                             driver_token="the-token")
    assert run_driver(run.id, "the-token") == 0
    run.refresh_from_db()
    assert run.status == RunStatus.CANCELED
    assert not run.checkpoints.exists()


@pytest.mark.django_db(transaction=True)  # two launches on two connections, as two worker threads run them
def test_two_launches_of_one_run_start_one_driver(user, monkeypatch):
    """Celery may deliver a launch twice, and a launch queued in a transaction that rolled back waits
    for a row whose id SQLite gives out again: the second launch of a run must not start a driver
    (it would fence the first one and kill it)."""
    import threading

    from django.db import connections

    import studio.runs.tasks as tasks

    pipeline = Pipeline.objects.create(name="p", owner=user)
    version = pipeline.versions.create(number=1, definition=simple_pipeline(count=None, rate=10), created_by=user)
    run = Run.objects.create(pipeline=pipeline, version=version, created_by=user)
    both_checked, drivers = threading.Barrier(2), []
    real_set_status = tasks.set_status

    def set_status_when_both_checked(run_id, status, *args, **kwargs):
        if status == RunStatus.SCHEDULING:
            try:  # unguarded, both launches would be here at once; guarded, the second waits for the row
                both_checked.wait(timeout=2)
            except threading.BrokenBarrierError:
                pass
        return real_set_status(run_id, status, *args, **kwargs)

    monkeypatch.setattr(tasks, "set_status", set_status_when_both_checked)
    monkeypatch.setattr(tasks, "_run_driver", lambda run: drivers.append(run.id) or 0)

    def launch():
        try:
            tasks.launch_run.run(run.id)
        finally:
            connections.close_all()

    launches = [threading.Thread(target=launch) for _ in range(2)]
    for thread in launches:
        thread.start()
    for thread in launches:
        thread.join(60)
    assert drivers == [run.id], "one driver for the run"
    assert list(RunEvent.objects.filter(run=run, type="status").values_list("data__status", flat=True)) == [
        "SCHEDULING", "FAILED"]  # FAILED: the stand-in driver exits without reporting an end


def test_the_warm_session_serves_a_job_that_fits_and_makes_room_for_one_that_does_not():
    from engine.api import session_for

    class Session:
        """The two things ``session_for`` asks of a Spark session."""

        class sparkContext:  # noqa: N801 - as pyspark names it
            defaultParallelism = 4

        stopped = False

        def stop(self):
            self.stopped = True

    warm = Session()
    assert session_for(warm, 4, None) is warm and not warm.stopped
    assert session_for(warm, 5, None) is None and warm.stopped, "a process has one Spark session: stop it first"


@pytest.mark.parametrize("master, warm", [("", 1), ("local[4]", 1), ("spark://master:7077", 0)])
def test_no_warm_driver_holds_a_cluster_masters_cores_by_default(master, warm):
    """On a cluster master an idle warm driver's application would hold the cores it was given (the elastic
    session and other runs' applications wait for them); ``local[N]`` cores are the driver's own."""
    import subprocess
    import sys

    env = {key: value for key, value in os.environ.items() if key != "STUDIO_WARM_DRIVERS"}
    env.update(SPARK_MASTER=master, DJANGO_SETTINGS_MODULE="studio.settings")
    printed = subprocess.run([sys.executable, "-c", "from django.conf import settings; print(settings.WARM_DRIVERS)"],
                             env=env, capture_output=True, text=True, check=True).stdout
    assert int(printed) == warm
