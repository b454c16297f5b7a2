"""Celery tasks: launch a run's driver process and watch it until it exits.

The driver is a separate process (``python -m studio.runs.driver <run id>``) because it hosts
a Spark driver JVM; this task waits for it so that a driver that dies without reporting
an end is noticed and its run marked FAILED instead of staying RUNNING forever. It takes a
warm driver (``studio.processes.driver_pool``) when the worker has one ready, else starts one.
A run placed in the shared session (``studio.runs.placement``) has no process of its own:
the task hands it, with its fencing token, to the session driver (``studio.runs.session``)
and returns; the heartbeat check (``studio.runs.liveness``) notices a session that died
and the next session driver takes the run back.

Fencing: the task gives the driver its token (``STUDIO_DRIVER_TOKEN``, also written to
the run). While it waits it checks, every ``FENCE_CHECK_INTERVAL_S``, that the run still
holds that token; once the studio declared the driver lost (``studio.runs.liveness``: a new
token), the task kills the driver's whole process tree, its Spark JVM and slots included,
SIGKILL, which also ends a stopped (SIGSTOP) process.
"""
from __future__ import annotations

import logging
import os
import secrets
import subprocess
import sys

import psutil
import redis
from celery import shared_task
from django.conf import settings
from django.db import transaction

from engine.api import ValidationError, normalise_definition, plan_pipeline
from studio.models import TERMINAL_STATUSES, Run, RunStatus
from studio.processes.driver_pool import driver_pool
from studio.runs import session
from studio.runs.admission import why_not_admitted
from studio.run_values import planned_definition, uses_secrets
from studio.runs.events import set_status
from studio.runs.placement import OWN_DRIVER, Placement, place

logger = logging.getLogger(__name__)
FENCE_CHECK_INTERVAL_S = 1.0


# named as before the move into studio.runs: a queued launch names its task
@shared_task(name="studio.tasks.launch_run", acks_late=False, bind=True, max_retries=50)
def launch_run(self, run_id: int) -> None:
    claimed = claim(run_id)
    if claimed is None:  # queued inside the run's transaction: its commit may be a moment away
        raise self.retry(countdown=0.1)
    if not claimed:
        return
    run = Run.objects.select_related("version").get(pk=run_id)
    try:
        definition = normalise_definition({**planned_definition(run), "mode": run.mode})
        run.plan = plan_pipeline(definition)
    except ValidationError as error:
        set_status(run_id, RunStatus.FAILED, cause=f"invalid definition: {error}")
        return
    run.save(update_fields=["plan"])
    placement = place(run, definition)
    if placement.in_session and _hand_to_session(run, placement):
        return
    if not placement.in_session:
        Run.objects.filter(pk=run_id).update(placement=placement.where, placement_reason=placement.reason)
    exit_code = _run_driver(run)
    run = Run.objects.filter(pk=run_id).first()
    if run is not None and not run.is_terminal:
        set_status(run_id, RunStatus.FAILED,
                   cause=f"driver process exited with code {exit_code} without reporting an end")


def claim(run_id: int) -> bool | None:
    """Move the run from CREATED to SCHEDULING, in one transaction: True for the one launch that did.

    Every launch claims here, a Celery worker's and the session driver's alike, so this is where a queued
    run's owner is checked again (``studio.runs.admission``): one who lost access to the pipeline, the
    environment, a secret or a location it needs meanwhile gets the run FAILED, naming why, not started.

    Two launches of one run may meet (Celery delivers a task at least once; a launch queued in a
    transaction that rolled back waits for a row whose id SQLite gives out again): the run's row
    is locked while it is read and moved on, so only one of them starts a driver; a second one
    would fence the first and kill it. False: another launch has it, or it was cancelled
    meanwhile (then it ends CANCELED here), or refused at launch (FAILED). None: no such row (yet)."""
    with transaction.atomic():
        run = Run.objects.select_for_update().filter(pk=run_id).first()
        if run is None:
            return None
        if run.status == RunStatus.CANCELING:
            set_status(run_id, RunStatus.CANCELED)
        if run.status != RunStatus.CREATED:
            return False
        refused = why_not_admitted(run)
        if refused is not None:
            logger.warning("run %s refused at launch: %s", run_id, refused)
            set_status(run_id, RunStatus.FAILED, cause=refused)
            return False
        set_status(run_id, RunStatus.SCHEDULING)
        return True


def _hand_to_session(run: Run, placement: Placement) -> bool:
    """Give the run to the session driver; False (placed in a driver of its own instead) when Redis refuses."""
    token = secrets.token_hex(16)
    if not Run.objects.filter(pk=run.id).exclude(status__in=TERMINAL_STATUSES).update(
            driver_token=token, placement=placement.where, placement_reason=placement.reason):
        return True  # it ended meanwhile (cancelled, say): nothing to hand over
    try:
        session.hand_over(run.id, token)
    except redis.RedisError as error:
        logger.warning("run %s: the session driver could not be reached (%s); starting a driver of its own",
                       run.id, error)
        Run.objects.filter(pk=run.id).update(placement=OWN_DRIVER,
                                             placement_reason="the session driver could not be reached")
        return False
    return True


def _run_driver(run: Run) -> int:
    settings.RUN_LOG_DIR.mkdir(parents=True, exist_ok=True)
    log_path = settings.RUN_LOG_DIR / f"run-{run.id}.log"
    token = secrets.token_hex(16)
    if not Run.objects.filter(pk=run.id).exclude(status__in=TERMINAL_STATUSES).update(driver_token=token):
        return 0  # it ended meanwhile (declared lost, say): no driver to start
    # a run with secrets gets a driver of its own: its output, the Spark processes' it starts included, is
    # masked from the start (studio.secret_masking); a warm driver's Spark processes were started before
    warm = None if uses_secrets(run) else driver_pool().take()
    if warm is not None:  # a driver that started already (studio.processes.driver_pool): the run starts in about a second
        driver = warm.hand_over(run.id, token, log_path)
    else:
        env = {**os.environ, "PYTHONPATH": str(settings.BASE_DIR), "REDIS_URL": settings.REDIS_URL,
               "STUDIO_DRIVER_TOKEN": token}
        with open(log_path, "ab") as log:
            driver = subprocess.Popen([sys.executable, "-m", "studio.runs.driver", str(run.id)],
                                      cwd=settings.BASE_DIR, env=env, stdout=log, stderr=subprocess.STDOUT)
    Run.objects.filter(pk=run.id).update(driver_pid=driver.pid)
    return _wait_unless_fenced(driver, run.id, token)


def _wait_unless_fenced(driver: subprocess.Popen, run_id: int, token: str) -> int:
    """Wait for the driver; kill its process tree as soon as the run no longer holds its token."""
    while True:
        try:
            return driver.wait(timeout=FENCE_CHECK_INTERVAL_S)
        except subprocess.TimeoutExpired:
            pass
        if not Run.objects.filter(pk=run_id, driver_token=token).exists():
            logger.warning("run %s: its driver (pid %s) was fenced; killing it and its Spark processes",
                           run_id, driver.pid)
            kill_tree(driver.pid)
            return driver.wait()


def kill_tree(pid: int) -> None:
    """SIGKILL a process and every descendant (children first found, so none is orphaned unseen)."""
    try:
        root = psutil.Process(pid)
        processes = [*root.children(recursive=True), root]
    except psutil.NoSuchProcess:
        return
    for process in processes:
        try:
            process.kill()
        except psutil.NoSuchProcess:
            pass
    psutil.wait_procs(processes, timeout=10)
