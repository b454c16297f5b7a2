"""Celery task of shadow runs: start a shadow's driver process and end it at the shadow's time cap.

The driver (``python -m studio.shadows.driver <id>``) hosts a Spark driver JVM, as a run's
does; this task waits for it and kills its whole process tree (Spark's included) once the
shadow's budget and the time a snapshot and a stop may take are spent, or once the shadow
was discarded, and marks a shadow that ended without saying so FAILED.
"""
from __future__ import annotations

import logging
import os
import subprocess
import sys

from celery import shared_task
from django.conf import settings
from django.utils import timezone

from studio.runs.tasks import kill_tree
from studio.shadows.driver import clean_up
from studio.shadows.models import ENDED, ShadowRun, ShadowStatus

logger = logging.getLogger(__name__)
GRACE_S = 300  # the savepoint it starts from, Spark's start, the stop's savepoint
CHECK_S = 1.0


@shared_task(name="studio.shadows.run_shadow", acks_late=False, bind=True, max_retries=50)
def run_shadow(self, shadow_id: int) -> None:
    shadow = ShadowRun.objects.filter(pk=shadow_id).first()
    if shadow is None:  # queued inside the shadow's transaction: its commit may be a moment away
        raise self.retry(countdown=0.1)
    if shadow.status != ShadowStatus.PENDING:
        return
    settings.RUN_LOG_DIR.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "PYTHONPATH": str(settings.BASE_DIR), "REDIS_URL": settings.REDIS_URL}
    with open(settings.RUN_LOG_DIR / f"shadow-{shadow_id}.log", "ab") as log:
        driver = subprocess.Popen([sys.executable, "-m", "studio.shadows.driver", str(shadow_id)],
                                  cwd=settings.BASE_DIR, env=env, stdout=log, stderr=subprocess.STDOUT)
    ShadowRun.objects.filter(pk=shadow_id).update(driver_pid=driver.pid)
    deadline = timezone.now() + timezone.timedelta(seconds=shadow.max_seconds + GRACE_S)
    while True:
        try:
            driver.wait(timeout=CHECK_S)
            break
        except subprocess.TimeoutExpired:
            pass
        current = ShadowRun.objects.filter(pk=shadow_id).values_list("status", flat=True).first()
        if current in (ShadowStatus.DISCARDED, None) or timezone.now() > deadline:
            logger.warning("shadow %s: ending its driver (pid %s): %s", shadow_id, driver.pid,
                           "discarded" if current != ShadowStatus.RUNNING else "over its time cap")
            kill_tree(driver.pid)
            driver.wait()
            clean_up(ShadowRun.objects.get(pk=shadow_id))
            break
    ShadowRun.objects.filter(pk=shadow_id).exclude(status__in=ENDED).update(
        status=ShadowStatus.FAILED, ended_at=timezone.now(),
        failure=f"the shadow's driver ended (code {driver.returncode}) without a result, past its time cap "
                f"of {shadow.max_seconds} s or by a failure (see its log)")
