"""Keeping run status truthful when drivers die: the heartbeat check and its monitor thread.

A run's driver writes ``Run.heartbeat_at`` every 2 s. A run that has not ended and shows
no sign of life (heartbeat or status change) for ``settings.HEARTBEAT_TIMEOUT_S`` is
FAILED with cause "driver lost" (CANCELED when it was being cancelled anyway). A driver
process beats from when it has imported Django and the engine, which took longer than that
timeout on a busy machine: a run SCHEDULING whose driver has not beaten yet gets
``settings.DRIVER_START_TIMEOUT_S`` (the launching worker fails it at once if its driver
exits before that). A run still CREATED after ``settings.LAUNCH_TIMEOUT_S`` never reached a worker (the queue was
lost, say with a Redis restart) and is FAILED too.

Where the check runs: every Celery worker starts a :class:`HeartbeatMonitor` thread when
it is ready (``studio.celery``) and checks once at once, so a worker restart finds the
runs whose drivers died while it was away; while any worker is up, the check runs every
``settings.HEARTBEAT_CHECK_INTERVAL_S``. It uses only the database, never process ids, so it
holds when drivers run on other machines; several workers checking at once is harmless
(``mark_lost`` re-checks under the row lock).

A run of the shared session (``studio.runs.placement``) that the serving session driver
lists in its presence (``studio.runs.session``: one Redis write every 2 s for all its runs)
is alive, whatever its heartbeat: with 32 runs at a load of 35 their heartbeats, one UPDATE
per run every 2 s from one process, reached SQLite more than 15 s apart, and runs of a live
session were taken for lost and restarted. Its absence from the presence is evidence only when the
presence could be read and was announced after the run's last sign of life (``vouched_for``): a presence
Redis did not answer for, or one announced before the run was claimed (a session driver busy starting a
hundred runs announced less often than every 10 s), took every run of a serving driver for lost.
A run of the session is not failed when its driver is lost: its driver is the session driver, which ``make up``'s supervisor starts again, and
which takes every unfinished run of the session back from its latest checkpoint. The check
fences it (a new token), makes it RESTARTING with cause :data:`SESSION_LOST` (the run page
says it waits) and hands it to the session again (a session driver that serves resumes it
at once; one that starts later claims it). It waits so up to ``settings.LAUNCH_TIMEOUT_S``,
as a launch does, and is FAILED after that (no session driver came back).

Fencing: declaring a driver lost gives the run a new driver token in the same
transaction, so nothing the old driver reports is accepted any more
(``studio.runs.events``), and no checkpoint of its job completes any more: a driver is declared
lost no sooner than ``studio.runs.fencing.CONFIRM_WINDOW_S`` after its last heartbeat
(:func:`lost_after_s`). The worker that launched it kills it, its Spark JVM and
slots included (``studio.runs.tasks``); a driver elsewhere that is still alive finds its
heartbeat refused and cancels its job (``studio.runs.driver``), and it is sent a cancel too.
"""
from __future__ import annotations

import logging
import threading
import secrets
from datetime import datetime, timedelta, timezone as dt_timezone

import redis
from django.conf import settings
from django.db import close_old_connections, transaction
from django.utils import timezone

from studio.models import TERMINAL_STATUSES, Run, RunStatus
from studio.runs import session
from studio.runs.commands import send_command
from studio.runs.events import set_status
from studio.runs.fencing import CONFIRM_WINDOW_S
from studio.runs.placement import SESSION

logger = logging.getLogger(__name__)

DRIVER_LOST = "driver lost"
SESSION_LOST = "the session driver was lost"
WAITS_FOR_SESSION = f"{SESSION_LOST}: the run goes on from its latest checkpoint once a session driver takes it back"


def lost_after_s(timeout_s: float) -> float:
    """How long a driver must be silent to be declared lost: the heartbeat timeout, but never less than
    ``CONFIRM_WINDOW_S``. Its job completes a checkpoint only within that window of its last confirmed
    heartbeat (``studio.runs.fencing``), so once fenced here it completes none any more: whatever takes the
    run over (a restart, the session driver taking it back) chooses a checkpoint the old job cannot follow."""
    return max(timeout_s, CONFIRM_WINDOW_S)


def last_sign_of_life(run: Run) -> datetime:
    """The latest of the driver's heartbeat and the run's last status change."""
    moments = [run.created_at]
    if run.heartbeat_at:
        moments.append(run.heartbeat_at)
    if run.status_history:
        moments.append(datetime.fromtimestamp(run.status_history[-1]["ts"] / 1000, tz=dt_timezone.utc))
    return max(moments)


def waits_for_session(run: Run) -> bool:
    """Whether ``run`` waits for a session driver to take it back (its session driver was lost)."""
    return (run.placement == SESSION and run.status == RunStatus.RESTARTING and bool(run.status_history)
            and run.status_history[-1].get("cause") == WAITS_FOR_SESSION)


def is_lost(run: Run, now: datetime, timeout_s: float, launch_timeout_s: float) -> bool:
    if run.status in TERMINAL_STATUSES:
        return False
    if run.status == RunStatus.CREATED or waits_for_session(run):
        return now - last_sign_of_life(run) > timedelta(seconds=launch_timeout_s)
    if driver_is_starting(run):
        return now - last_sign_of_life(run) > timedelta(seconds=max(timeout_s, settings.DRIVER_START_TIMEOUT_S))
    return now - last_sign_of_life(run) > timedelta(seconds=timeout_s)


def driver_is_starting(run: Run) -> bool:
    """Whether ``run`` was launched and its driver has not beaten yet (it is still importing)."""
    return run.status == RunStatus.SCHEDULING and run.heartbeat_at is None


def check_heartbeats(now: datetime | None = None, timeout_s: float | None = None,
                     launch_timeout_s: float | None = None) -> list[int]:
    """Mark every run without a sign of life as lost; return their ids."""
    now = now or timezone.now()
    timeout_s = lost_after_s(settings.HEARTBEAT_TIMEOUT_S if timeout_s is None else timeout_s)
    launch_timeout_s = settings.LAUNCH_TIMEOUT_S if launch_timeout_s is None else launch_timeout_s
    lost = []
    try:
        serving = session.read_presence()
    except redis.RedisError:
        serving = UNKNOWN
        logger.info("the session driver's presence could not be read: its runs are not judged this round")
    for run in Run.objects.exclude(status__in=TERMINAL_STATUSES).only(
            "id", "status", "created_at", "heartbeat_at", "status_history", "placement"):
        if run.placement == SESSION and vouched_for(run, serving):
            continue
        if is_lost(run, now, timeout_s, launch_timeout_s) and mark_lost(run.id, now, timeout_s, launch_timeout_s):
            lost.append(run.id)
    return lost


UNKNOWN = object()
"""The session driver's presence when it could not be read (Redis away)."""


def vouched_for(run: Run, serving) -> bool:
    """Whether the session driver's presence ``serving`` (its announcement, None when none serves, or
    :data:`UNKNOWN`) keeps ``run`` of the session from being judged by its heartbeat now: it lists the run,
    or it says nothing either way. Unread, or announced no later than the run's last sign of life (a driver
    busy starting a hundred runs announced less often than every 10 s, and ``run_ids`` are those it drove
    then), it says nothing: the absence of evidence is no loss. A serving driver that announces after the
    run's last sign of life without it, or none serving (its presence withdrawn or expired), is evidence."""
    if serving is UNKNOWN:
        return True
    if serving is None:
        return False
    if run.id in set(serving.get("run_ids") or ()):
        return True
    at = serving.get("at")  # None: an announcement that does not say when (taken as current)
    return at is not None and at <= last_sign_of_life(run).timestamp()


def mark_lost(run_id: int, now: datetime, timeout_s: float, launch_timeout_s: float) -> bool:
    with transaction.atomic():
        run = Run.objects.select_for_update().filter(pk=run_id).first()
        if run is None or not is_lost(run, now, timeout_s, launch_timeout_s):
            return False  # it ended or beat meanwhile
        if run.placement == SESSION and run.status != RunStatus.CANCELING and not waits_for_session(run) \
                and run.status != RunStatus.CREATED:
            token = secrets.token_hex(16)
            Run.objects.filter(pk=run.id).update(driver_token=token)
            set_status(run.id, RunStatus.RESTARTING, cause=WAITS_FOR_SESSION)
            transaction.on_commit(lambda: _hand_back(run.id, token))
            logger.warning("run %s: %s; it waits for a session driver to take it back", run_id, SESSION_LOST)
            return True
        if run.status == RunStatus.CREATED:
            cause = f"the run was not launched within {launch_timeout_s:.0f} s (is a Celery worker running?)"
        elif waits_for_session(run):
            cause = f"{SESSION_LOST} and no session driver took the run back within {launch_timeout_s:.0f} s"
        elif driver_is_starting(run):
            cause = f"{DRIVER_LOST}: it did not start within {max(timeout_s, settings.DRIVER_START_TIMEOUT_S):.0f} s"
        else:
            cause = DRIVER_LOST
        status = RunStatus.CANCELED if run.status == RunStatus.CANCELING else RunStatus.FAILED
        Run.objects.filter(pk=run.id).update(driver_token=fenced_token())
        set_status(run.id, status, cause=cause)
    logger.warning("run %s: %s; marked %s", run_id, cause, status)
    try:  # a driver that is only slow, not gone, stops its job instead of running on unseen
        send_command(run, {"command": "cancel"})
    except Exception:
        logger.info("could not send cancel to the lost driver of run %s", run_id, exc_info=True)
    return True


def _hand_back(run_id: int, token: str) -> None:
    """Hand a run whose session driver was lost to the session again, to go on from its latest checkpoint."""
    try:
        session.hand_over(run_id, token, resume_cause=SESSION_LOST)
    except Exception:  # Redis away: the next session driver claims the run as it starts
        logger.info("could not hand run %s back to the session", run_id, exc_info=True)


def fenced_token() -> str:
    """A driver token no driver holds: the run listens to none of its drivers any more."""
    return f"fenced-{secrets.token_hex(8)}"


class HeartbeatMonitor:
    """A daemon thread running ``check_heartbeats`` now and then every ``interval`` seconds."""

    def __init__(self, interval: float | None = None):
        self.interval = settings.HEARTBEAT_CHECK_INTERVAL_S if interval is None else interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="heartbeat-monitor", daemon=True)

    def start(self) -> "HeartbeatMonitor":
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def _run(self) -> None:
        while True:
            try:
                close_old_connections()
                check_heartbeats()
            except Exception:
                logger.exception("heartbeat check failed")
            if self._stop.wait(self.interval):
                return
