"""The run's core announces its events; the features subscribe (``studio.runs.signals``).

A receiver hears each stored event once it committed, with the run's pipeline and whether the
status changed; one that raises is logged and loses nothing: the event stays stored and the
receivers after it still hear it. The receivers the studio wires in at start-up are there.
"""
import logging
import subprocess
import sys

import pytest

from studio.models import Pipeline, PipelineVersion, Run, RunEvent
from studio.runs.commands import driver_command, register_driver_command
from studio.runs.events import record_event, set_status
from studio.runs.signals import run_event_recorded
from tests.conftest import ROOT
from tests.support import simple_pipeline

pytestmark = pytest.mark.django_db(transaction=True)  # receivers hear events after their commit


@pytest.fixture
def run():
    pipeline = Pipeline.objects.create(name="p")
    version = PipelineVersion.objects.create(pipeline=pipeline, number=1, definition=simple_pipeline())
    return Run.objects.create(pipeline=pipeline, version=version)


@pytest.fixture
def heard():
    """Connects a failing receiver, then a listening one; yields what the listening one heard."""
    heard = []

    def failing(sender, **kwargs):
        raise RuntimeError("a listener broke")

    def listening(sender, **kwargs):
        heard.append(kwargs)

    run_event_recorded.connect(failing, dispatch_uid="test.failing")
    run_event_recorded.connect(listening, dispatch_uid="test.listening")
    yield heard
    run_event_recorded.disconnect(dispatch_uid="test.failing")
    run_event_recorded.disconnect(dispatch_uid="test.listening")


def test_receivers_hear_each_stored_event_and_a_failing_one_breaks_nothing(run, heard, caplog):
    with caplog.at_level(logging.ERROR, logger="django.dispatch"):
        set_status(run.id, "RUNNING")
        record_event(run.id, "metrics", {"vertices": {}})

    assert [(h["run_id"], h["pipeline_id"], h["event"]["type"], h["status_changed"]) for h in heard] == [
        (run.id, run.pipeline_id, "status", True), (run.id, run.pipeline_id, "metrics", False)]
    assert [h["event"]["seq"] for h in heard] == list(
        RunEvent.objects.filter(run=run).order_by("seq").values_list("seq", flat=True))
    assert Run.objects.get(pk=run.id).status == "RUNNING"
    failures = [record for record in caplog.records if "a listener broke" in str(record.exc_info)]
    assert len(failures) == 2 and "failing" in failures[0].getMessage()  # logged, with its traceback


def test_an_event_rolled_back_is_never_announced(run, heard):
    from django.db import transaction

    with pytest.raises(ZeroDivisionError), transaction.atomic():
        record_event(run.id, "metrics", {"vertices": {}})
        1 / 0
    assert heard == [] and not RunEvent.objects.filter(run=run).exists()


def test_the_studio_wires_its_receivers_and_the_taps_driver_commands_at_start_up():
    receivers = {getattr(receiver(), "__module__", None) for _, receiver, *_ in run_event_recorded.receivers}
    assert {"studio.realtime.pipeline_runs", "studio.alerts.evaluation", "studio.runs.rescale"} <= receivers
    assert driver_command("tap_open").__module__ == driver_command("tap_close").__module__ == "studio.taps.relay"
    assert driver_command("no such command") is None


def test_a_feature_cannot_take_over_a_command_the_driver_executes_itself():
    with pytest.raises(ValueError, match="'cancel' is a command the driver executes itself"):
        register_driver_command("cancel", lambda command, run_id, job_master: None)


def test_setting_django_up_imports_no_engine():
    """Every process of the studio sets Django up (web and Celery workers, each run's driver, manage.py),
    and every app's ready() runs in each: receivers and commands are wired without importing what they use
    (the engine brings pyspark and pyarrow, seconds on a busy machine, paid before a driver's first beat)."""
    code = ("import os, sys, django; os.environ['DJANGO_SETTINGS_MODULE'] = 'studio.settings'; django.setup(); "
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'engine', 'pyspark', 'pyarrow'}))")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip().splitlines()[-1] == "[]"
