"""The savepoint scheduler: triggers due schedules' savepoints and deletes what their retention drops.

Where it runs: every Celery worker starts a :class:`ScheduleLoop` thread when it is ready
(``start_in_worker``, connected by the app), beside the heartbeat monitor, so ``make up`` runs
it with no command of its own. Several workers may tick at once: a due moment is *claimed* by moving the
schedule's ``next_due_at`` on with a conditional update (only the update that still sees
the old value wins), so each moment triggers once.

A due moment that passed while no worker ran is taken once, not once per missed moment,
and the next one is computed from now.

A schedule runs as its author, with the permissions the author has at each due moment: while
the author may not run the pipeline (a share revoked by any path, raw SQL included; the
account deactivated or deleted), a due moment takes no savepoint, retention deletes nothing,
and ``last_error`` says why. Given the permission back, the schedule goes on.
"""
from __future__ import annotations

import logging
import threading
from datetime import datetime

import redis
from django.conf import settings
from django.db import close_old_connections, transaction
from django.utils import timezone

from engine.api import discard_checkpoint
from studio.access import RUN, why_owner_may_not
from studio.models import TERMINAL_STATUSES, Checkpoint, SavepointRequest, SavepointStatus, SavepointTrigger
from studio.runs.control import RunStateConflict, trigger_savepoint
from studio.runs.events import record_discarded
from studio.schedules.models import SavepointSchedule

logger = logging.getLogger(__name__)


def run_due_schedules(now: datetime | None = None) -> list[SavepointRequest]:
    """Trigger a savepoint of every target run of every due schedule; return the requests made."""
    now = now or timezone.now()
    requests = []
    due = SavepointSchedule.objects.filter(enabled=True, next_due_at__lte=now)
    for schedule in due.select_related("created_by", "pipeline", "run__pipeline"):
        if not _claim(schedule, now):
            continue  # another worker took this moment
        reason = suspension(schedule)
        if reason is not None:
            SavepointSchedule.objects.filter(pk=schedule.pk).update(last_error=reason)
            continue
        errors = []
        for run in schedule.target_runs():
            try:
                requests.append(trigger_savepoint(run, schedule.created_by, trigger=SavepointTrigger.SCHEDULED,
                                                  schedule=schedule))
            except (RunStateConflict, redis.RedisError) as error:
                errors.append(f"run {run.id}: {error or type(error).__name__}")
        SavepointSchedule.objects.filter(pk=schedule.pk).update(last_error="; ".join(errors))
    return requests


def _claim(schedule: SavepointSchedule, now: datetime) -> bool:
    return bool(SavepointSchedule.objects.filter(pk=schedule.pk, next_due_at=schedule.next_due_at).update(
        next_due_at=schedule.next_after(now), last_triggered_at=now))


def prune_savepoints(schedule: SavepointSchedule) -> list[int]:
    """Delete the completed savepoints of ``schedule`` beyond its newest ``retain``: files and rows.

    A savepoint a run that has not ended restored from is kept (its files are that run's
    state); it goes at a later sweep. Returns the deleted checkpoint row ids.
    """
    completed = (SavepointRequest.objects.filter(schedule=schedule, status=SavepointStatus.COMPLETED)
                 .select_related("checkpoint").order_by("-triggered_at", "-id"))
    deleted = []
    for request in completed[schedule.retain:]:
        checkpoint = request.checkpoint
        if checkpoint is not None and checkpoint.restored_runs.exclude(status__in=TERMINAL_STATUSES).exists():
            continue
        location = (checkpoint.external_path if checkpoint else "") or request.location
        if location:
            discard_checkpoint(location)
        if checkpoint is not None:
            record_discarded(checkpoint, f"deleted by the retention of schedule {schedule.pk} "
                                         f"(it keeps {schedule.retain})")
        with transaction.atomic():
            if checkpoint is not None:
                deleted.append(checkpoint.pk)
                Checkpoint.objects.filter(pk=checkpoint.pk).delete()
            SavepointRequest.objects.filter(pk=request.pk).delete()
    return deleted


def prune_all() -> list[int]:
    """Retention of every schedule that may act: a suspended one deletes nothing either."""
    deleted = []
    for schedule in SavepointSchedule.objects.select_related("created_by", "pipeline", "run__pipeline"):
        if suspension(schedule) is None:
            deleted.extend(prune_savepoints(schedule))
    return deleted


def suspension(schedule: SavepointSchedule) -> str | None:
    """Why ``schedule`` may not act now (it runs as its author, who may no longer run its pipeline), or None."""
    reason = why_owner_may_not(schedule.created_by, RUN, schedule.owning_pipeline)
    return None if reason is None else f"suspended: the schedule runs as its author, and {reason}"


def tick(now: datetime | None = None) -> None:
    """One round: trigger what is due, then apply retention."""
    run_due_schedules(now)
    prune_all()


class ScheduleLoop:
    """A daemon thread calling :func:`tick` every ``interval`` seconds."""

    def __init__(self, interval: float | None = None):
        self.interval = settings.SCHEDULE_CHECK_INTERVAL_S if interval is None else interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="savepoint-scheduler", daemon=True)

    def start(self) -> "ScheduleLoop":
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                close_old_connections()
                tick()
            except Exception:
                logger.exception("savepoint schedule tick failed")


_loops: list[ScheduleLoop] = []


def start_in_worker(**_) -> None:
    """A Celery worker is ready (``worker_ready``): it runs the scheduler until it shuts down."""
    _loops.append(ScheduleLoop().start())


def stop_in_worker(**_) -> None:
    """The worker shuts down (``worker_shutdown``)."""
    while _loops:
        _loops.pop().stop()
