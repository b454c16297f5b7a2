"""Celery tasks: launch a run's driver process and watch it until it exits.

The driver is a separate process (``python -m studio.runner <run id>``) because it hosts
a Spark driver JVM; this task waits for it so that a driver that dies without reporting
an end is noticed and its run marked FAILED instead of staying RUNNING forever.
"""
from __future__ import annotations

import logging
import os
import subprocess
import sys

from celery import shared_task
from django.conf import settings

from engine.plan.plan_summary import plan_pipeline
from engine.spec import ValidationError, normalise_definition
from studio.models import Run, RunStatus
from studio.realtime.events import set_status

logger = logging.getLogger(__name__)


@shared_task(acks_late=False)
def launch_run(run_id: int) -> None:
    run = Run.objects.select_related("version").filter(pk=run_id).first()
    if run is None:
        return
    if run.status != RunStatus.CREATED:
        if run.status == RunStatus.CANCELING:
            set_status(run_id, RunStatus.CANCELED)
        return
    set_status(run_id, RunStatus.SCHEDULING)
    try:
        definition = normalise_definition({**run.version.definition, "mode": run.mode})
        run.plan = plan_pipeline(definition)
    except ValidationError as error:
        set_status(run_id, RunStatus.FAILED, cause=f"invalid definition: {error}")
        return
    run.save(update_fields=["plan"])
    exit_code = _run_driver(run)
    run = Run.objects.filter(pk=run_id).first()
    if run is not None and not run.is_terminal:
        set_status(run_id, RunStatus.FAILED,
                   cause=f"driver process exited with code {exit_code} without reporting an end")


def _run_driver(run: Run) -> int:
    settings.RUN_LOG_DIR.mkdir(parents=True, exist_ok=True)
    log_path = settings.RUN_LOG_DIR / f"run-{run.id}.log"
    env = {**os.environ, "PYTHONPATH": str(settings.BASE_DIR), "REDIS_URL": settings.REDIS_URL}
    with open(log_path, "ab") as log:
        driver = subprocess.Popen([sys.executable, "-m", "studio.runner", str(run.id)],
                                  cwd=settings.BASE_DIR, env=env, stdout=log, stderr=subprocess.STDOUT)
        Run.objects.filter(pk=run.id).update(driver_pid=driver.pid)
        return driver.wait()
