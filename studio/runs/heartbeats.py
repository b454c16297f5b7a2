"""The heartbeats of every run a driver process drives: one UPDATE for all of them every interval.

A run's driver writes ``Run.heartbeat_at`` every ``HEARTBEAT_INTERVAL_S`` so the studio can tell
a lost driver from a quiet one (``studio.runs.liveness``), and learns from the same write whether
the run is still its own: once the studio ended it or gave it another driver (a new fencing
token), the write finds no row and the driver cancels the run's job, so the database and the
engine never disagree for long.

A session driver drives many runs: one thread and one UPDATE per run every 2 s was a hundred
threads and fifty writes a second for a hundred runs. :class:`Heartbeats` beats for every run
it was given in one UPDATE (each run with its own token) and one SELECT of those still held,
on one thread; a driver of its own has one run in it.

Threading model: ``add`` and ``remove`` from any thread (the runs under the lock); ``beat`` on
the beating thread (or a test's).
"""
from __future__ import annotations

import logging
import threading
from typing import Callable

logger = logging.getLogger(__name__)

HEARTBEAT_INTERVAL_S = 2.0


class Heartbeats:
    """Beats for the runs added to it; calls a run's ``on_lost`` once the run is no longer its driver's."""

    def __init__(self, interval_s: float | None = None):
        self.interval_s = interval_s
        self._lock = threading.Lock()
        self._runs: dict[tuple[int, str], Callable[[], None]] = {}  # guarded by: self._lock; by (run, token)
        self._thread: threading.Thread | None = None  # guarded by: self._lock

    def add(self, run_id: int, token: str, on_lost: Callable[[], None]) -> None:
        """Beat for ``run_id`` held with ``token`` from now on; ``on_lost`` (once) when it is not held any more.
        Each token of a run is beaten for on its own: a run handed back to the session driver that still drives
        it has two driver threads a while, the fenced one and the later one, whichever added itself last."""
        with self._lock:
            self._runs[(run_id, token)] = on_lost
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._beat_forever, name="heartbeats", daemon=True)
                self._thread.start()

    def remove(self, run_id: int, token: str) -> None:
        with self._lock:
            self._runs.pop((run_id, token), None)

    def beat(self) -> list[int]:
        """One heartbeat for every run: the ids of those found no longer held (their ``on_lost`` called)."""
        from django.db.models import Q
        from django.utils import timezone

        from studio.models import TERMINAL_STATUSES, Run

        with self._lock:
            runs = dict(self._runs)
        if not runs:
            return []
        held = Q()
        for run_id, token in runs:
            held |= Q(pk=run_id, driver_token=token)
        live = Run.objects.filter(held).exclude(status__in=TERMINAL_STATUSES)
        live.beat(timezone.now())  # no change token moves: no cached answer shows a heartbeat
        alive = set(live.values_list("id", "driver_token"))
        lost = []
        for (run_id, token), on_lost in runs.items():
            if (run_id, token) in alive:
                continue
            with self._lock:
                if self._runs.pop((run_id, token), None) is None:
                    continue  # removed meanwhile: its job ended
            # the studio ended the run (declared this driver lost and fenced it, or deleted the run):
            # the engine must not go on with a job the database says is over
            logger.warning("run %s ended in the studio while its job still ran; cancelling the job", run_id)
            lost.append(run_id)
            try:
                on_lost()
            except Exception:
                logger.exception("cancelling the job of run %s failed", run_id)
        return lost

    def _beat_forever(self) -> None:
        from django.db import close_old_connections

        while True:
            threading.Event().wait(self.interval_s if self.interval_s is not None else HEARTBEAT_INTERVAL_S)
            try:
                self.beat()
            except Exception:
                logger.warning("heartbeat failed", exc_info=True)
                close_old_connections()


_heartbeats: Heartbeats | None = None
_heartbeats_lock = threading.Lock()


def heartbeats() -> Heartbeats:
    """This process's heartbeats (created when first asked for)."""
    global _heartbeats
    with _heartbeats_lock:
        if _heartbeats is None:
            _heartbeats = Heartbeats()
        return _heartbeats
