"""A studio restart must not leave runs stuck in RUNNING when their driver is gone."""
import subprocess
import sys

import pytest
from django.core.management import call_command

from studio.models import Pipeline, PipelineVersion, Run
from studio.runs.events import set_status
from tests.support import simple_pipeline

pytestmark = pytest.mark.django_db


def make_run(status: str, driver_pid: int | None) -> Run:
    pipeline = Pipeline.objects.create(name="p")
    version = PipelineVersion.objects.create(pipeline=pipeline, number=1, definition=simple_pipeline())
    run = Run.objects.create(pipeline=pipeline, version=version, driver_pid=driver_pid)
    set_status(run.id, status)
    return run


def dead_pid() -> int:
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


def test_running_run_without_driver_is_marked_failed_driver_lost():
    run = make_run("RUNNING", dead_pid())
    call_command("recover_runs")
    run.refresh_from_db()
    assert (run.status, run.failure_cause) == ("FAILED", "driver lost")


def test_canceling_run_without_driver_ends_canceled_and_finished_runs_are_untouched():
    canceling = make_run("CANCELING", dead_pid())
    finished = make_run("FINISHED", dead_pid())
    call_command("recover_runs")
    canceling.refresh_from_db()
    finished.refresh_from_db()
    assert canceling.status == "CANCELED"
    assert (finished.status, finished.failure_cause) == ("FINISHED", None)


@pytest.mark.parametrize("module", ["studio.runs.driver", "studio.runner"])  # the driver's name, and its former one
def test_run_with_a_live_driver_is_left_alone(module):
    run = make_run("RUNNING", None)
    driver = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", module, str(run.id)])
    try:
        Run.objects.filter(pk=run.pk).update(driver_pid=driver.pid)
        call_command("recover_runs")
        run.refresh_from_db()
        assert run.status == "RUNNING"
    finally:
        driver.kill()
        driver.wait()
