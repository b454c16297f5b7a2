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

Each beat also confirms the hold of each run's driver: the monotonic time the beat was sent is kept for
every run still held (``confirmed_within``), which is what a driver's job asks before it completes a
checkpoint (``studio.runs.fencing``); ``wake`` makes the beating thread beat at once.

Threading model: ``add``, ``remove``, ``confirmed_within`` and ``wake`` from any thread (the runs and
their confirmations under the lock); ``beat`` on the beating thread (or a test's).
"""
from __future__ import annotations

import logging
import threading
import time
from typing import Callable

logger = logging.getLogger(__name__)

HEARTBEAT_INTERVAL_S = 2.0


class Heartbeats:
    """Beats for the runs added to it; calls a run's ``on_lost`` once the run is no longer its driver's."""

    def __init__(self, interval_s: float | None = None, clock: Callable[[], float] = time.monotonic):
        self.interval_s = interval_s
        self.clock = clock
        """The monotonic clock confirmations are taken and judged by (a test's may be its own)."""
        self._lock = threading.Lock()
        self._runs: dict[tuple[int, str], Callable[[], None]] = {}  # guarded by: self._lock; by (run, token)
        self._confirmed: dict[tuple[int, str], float] = {}  # guarded by: self._lock; by (run, token): when
        self._thread: threading.Thread | None = None  # guarded by: self._lock
        self._wake = threading.Event()

    def add(self, run_id: int, token: str, on_lost: Callable[[], None], confirmed_at: float | None = None) -> None:
        """Beat for ``run_id`` held with ``token`` from now on; ``on_lost`` (once) when it is not held any more.
        ``confirmed_at``: when (``clock``) the caller last found the run held with ``token`` (its claim's
        UPDATE, taken before it was sent); None: not confirmed before the first beat.
        Each token of a run is beaten for on its own: a run handed back to the session driver that still drives
        it has two driver threads a while, the fenced one and the later one, whichever added itself last."""
        with self._lock:
            self._runs[(run_id, token)] = on_lost
            if confirmed_at is not None:
                self._confirmed[(run_id, token)] = confirmed_at
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._beat_forever, name="heartbeats", daemon=True)
                self._thread.start()

    def remove(self, run_id: int, token: str) -> None:
        with self._lock:
            self._runs.pop((run_id, token), None)
            self._confirmed.pop((run_id, token), None)

    def confirmed_within(self, run_id: int, token: str, window_s: float) -> bool:
        """Whether ``run_id`` was found held with ``token`` less than ``window_s`` ago (never once found lost)."""
        with self._lock:
            confirmed = self._confirmed.get((run_id, token))
        return confirmed is not None and self.clock() - confirmed < window_s

    def wake(self) -> None:
        """Beat now rather than at the end of the interval (a driver's job wants to know whether it is fenced)."""
        self._wake.set()

    def beat(self) -> list[int]:
        """One heartbeat for every run: the ids of those found no longer held (their ``on_lost`` called)."""
        from django.db.models import Q
        from django.utils import timezone

        from studio.models import TERMINAL_STATUSES, Run

        with self._lock:
            runs = dict(self._runs)
        if not runs:
            return []
        sent = self.clock()  # before the UPDATE: a hold found is confirmed as of then, never later
        held = Q()
        for run_id, token in runs:
            held |= Q(pk=run_id, driver_token=token)
        live = Run.objects.filter(held).exclude(status__in=TERMINAL_STATUSES)
        live.beat(timezone.now())  # no change token moves: no cached answer shows a heartbeat
        alive = set(live.values_list("id", "driver_token"))
        with self._lock:
            for key in alive:
                if key in self._runs:
                    self._confirmed[key] = max(sent, self._confirmed.get(key, sent))
        lost = []
        for (run_id, token), on_lost in runs.items():
            if (run_id, token) in alive:
                continue
            with self._lock:
                self._confirmed.pop((run_id, token), None)
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
            self._wake.wait(self.interval_s if self.interval_s is not None else HEARTBEAT_INTERVAL_S)
            self._wake.clear()
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
