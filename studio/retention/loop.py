"""The retention pass and the thread that runs it in every Celery worker.

A pass (:func:`retain_once`): fold the histories of the runs that have not ended, and of the
ended ones not folded since they ended (``studio.runs.history``), measure the disk use of the
runs going on; every ``FILES_EVERY`` passes, sweep files (``studio.retention.files``).
Several workers passing at once is harmless: folding takes its rows under the database's
locks in small transactions, and a file already deleted is simply not there.
"""
from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field

from django.conf import settings
from django.db import close_old_connections
from django.db.models import F, Q
from django.utils import timezone

from studio.models import TERMINAL_STATUSES, Run, now_ms
from studio.retention import files
from studio.runs.history import fold_run

logger = logging.getLogger(__name__)

FILES_EVERY = 10
RUNS_PER_PASS = 200


@dataclass
class Pass:
    """What one pass did."""

    runs: int = 0
    checkpoints: int = 0
    events: int = 0
    files: dict = field(default_factory=dict)


def runs_to_fold():
    """Runs whose history may have grown since it was last folded: not ended, or ended after that."""
    return (Run.objects.filter(~Q(status__in=TERMINAL_STATUSES) | Q(history__isnull=True)
                               | Q(history__folded_at__isnull=True) | Q(history__folded_at__lt=F("ended_at")))
            .order_by("id").values_list("id", flat=True))


def retain_once(with_files: bool = True) -> Pass:
    """One retention pass (see the module doc)."""
    done = Pass()
    now = now_ms()
    for run_id in list(runs_to_fold()[:RUNS_PER_PASS]):
        folded = fold_run(run_id, now)
        done.runs += 1
        done.checkpoints += folded.checkpoints
        done.events += folded.events
    files.measure_active()
    if with_files:
        moment = timezone.now()
        done.files = {"checkpoints": files.sweep_ended_checkpoints(moment), "logs": files.sweep_logs(moment),
                      "orphans": files.sweep_orphans(moment)}
    return done


class RetentionLoop:
    """A daemon thread running :func:`retain_once` every ``interval`` seconds (files every ``FILES_EVERY``-th)."""

    def __init__(self, interval: float | None = None):
        self.interval = settings.RETENTION_INTERVAL_S if interval is None else interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="retention", daemon=True)
        self.passes = 0

    def start(self) -> "RetentionLoop":
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=30)

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            started = time.monotonic()
            try:
                close_old_connections()
                done = retain_once(with_files=self.passes % FILES_EVERY == 0)
                logger.info("retention pass: %s runs, %s checkpoints and %s events folded, files %s (%.2f s)",
                            done.runs, done.checkpoints, done.events, done.files, time.monotonic() - started)
            except Exception:
                logger.exception("retention pass failed")
            self.passes += 1
