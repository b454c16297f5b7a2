"""Names that live outside the code and must survive a move: the modules that deployments and
scripts start with ``python -m``, and the Celery task names that queued messages carry."""
import os
import subprocess
import sys

import pytest
from django.db import connection

from studio.models import Pipeline, PipelineVersion, Run
from studio.runs.events import set_status
from tests.conftest import ROOT
from tests.support import simple_pipeline


def test_celery_task_names_are_the_ones_queued_messages_carry():
    from studio.alerts.tasks import deliver_webhook
    from studio.runs.tasks import launch_run

    assert launch_run.name == "studio.tasks.launch_run"
    assert deliver_webhook.name == "studio.alerts.tasks.deliver_webhook"


@pytest.mark.parametrize("module", ["studio.processes.supervisor", "studio.launcher"])
def test_the_supervisor_starts_under_its_name_and_its_former_one(module):
    done = subprocess.run([sys.executable, "-m", module, "--help"], cwd=ROOT, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert "make up" in done.stdout and "--advertised-url" in done.stdout


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("module", ["studio.runs.driver", "studio.runner"])
def test_the_driver_starts_under_its_name_and_its_former_one(module, studio_data_dir):
    """A driver started by hand for a run that already ended has nothing to do, and says so."""
    pipeline = Pipeline.objects.create(name="p")
    version = PipelineVersion.objects.create(pipeline=pipeline, number=1, definition=simple_pipeline())
    run = Run.objects.create(pipeline=pipeline, version=version)
    set_status(run.id, "CANCELED")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "STUDIO_DATA_DIR": str(studio_data_dir),
           "DATABASE_URL": f"sqlite:///{connection.settings_dict['NAME']}"}
    env.pop("STUDIO_DRIVER_TOKEN", None)
    done = subprocess.run([sys.executable, "-m", module, str(run.id)], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    assert f"run {run.id} ended or moved on before its driver started" in done.stderr
