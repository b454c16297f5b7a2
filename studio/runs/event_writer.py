"""One writer of run events per driver process: what its runs report, stored many at a time (group commit).

A driver stored each event of its run in a transaction of its own (``record_event``): lock the
run, read its last sequence number, insert, update its rows. A session driver with a hundred
runs checkpointing every second made about six such transactions per run and second from one
process, more than SQLite (or the process's one interpreter lock) keeps up with: heartbeats and
status changes queued behind them for seconds. The :class:`EventWriter` takes the events of
every run the process drives on one queue and its thread stores whatever waits there in one
``studio.runs.events.record_events`` call (one transaction) as soon as the one before it
committed: an event alone is stored at once, as before; under load the batches grow instead of
the queue.

Lingering: an event nobody waits for (``submit``: metrics, a checkpoint's progress) waits up to
``LINGER_S`` for others to join its batch; one somebody waits for (``record``, ``set_status``: a
status, a run's ``startup``) is stored at once, with whatever waits before it. A session of many runs
made a batch of a few events a moment, each paying the batch's fixed statements (locking the runs,
their last sequence numbers, the checkpoint rows, touching the runs' change tokens): most of the
session driver's CPU with twenty runs (py-spy --gil); a few hundred milliseconds more before a
metrics event reaches the run page is not seen on a page that shows one a second.

Hurry: with a hundred runs the writer fell behind them (a backlog of thousands of metrics and checkpoint
events on two busy cores), and a run starting meanwhile waited behind it for its ``startup`` and its
RUNNING (42 s and 95 s with 100 runs running). An event somebody waits for takes its own run's queued
events, and those of any other run with such an event, ahead of the others' backlog.

Order: a run's events are stored in the order they were given (one queue, batches in
order). ``submit`` returns a future of the stored event, which raises
``studio.runs.events.DriverFenced`` when the run no longer listens to the driver's token;
``record`` waits for it. A batch the database refuses is tried again (``ATTEMPTS``, its
transaction rolled back each time), then each of its futures fails with the error.

Threading model: any thread may ``submit`` or ``record`` (never the writer's own thread,
which would wait for itself); the queue is guarded by the writer's lock; the writer thread
owns its database connection.
"""
from __future__ import annotations

import logging
import threading
import time
from concurrent.futures import Future
from typing import Any

logger = logging.getLogger(__name__)

MAX_BATCH = 500
"""Events stored in one transaction at most."""
ATTEMPTS = 3
LINGER_S = 0.2
"""How long an event nobody waits for waits for others to join its batch (see the module docstring)."""
RETRY_PAUSE_S = 0.2


class EventWriter:
    """Stores the run events of this process's drivers, in batches; see the module docstring."""

    def __init__(self, name: str = "event-writer", linger_s: float | None = None):
        self._name = name
        self.linger_s = LINGER_S if linger_s is None else linger_s
        self._lock = threading.Lock()
        self._waiting = threading.Condition(self._lock)
        self._queue: list[tuple[tuple[int, str, dict[str, Any], str | None], Future]] = []  # guarded by: self._lock
        self._urgent = 0  # guarded by: self._lock; events in the queue somebody waits for
        self._thread: threading.Thread | None = None  # guarded by: self._lock
        self.batches = 0
        """Transactions committed so far (tests, benchmarks); written by the writer thread only."""

    def submit(self, run_id: int, event_type: str, data: dict[str, Any], driver_token: str | None = None,
               waited_for: bool = False) -> Future:
        """Queue one event of run ``run_id``; the future's result is the event as stored. ``waited_for``: the
        caller waits for it (it is stored at once, not after ``LINGER_S``)."""
        stored: Future = Future()
        stored.waited_for = waited_for
        with self._lock:
            self._queue.append(((run_id, event_type, data, driver_token), stored))
            self._urgent += waited_for
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._write_forever, name=self._name, daemon=True)
                self._thread.start()
            self._waiting.notify()
        return stored

    def record(self, run_id: int, event_type: str, data: dict[str, Any], driver_token: str | None = None) -> dict:
        """Store one event and wait for it (after every event queued before it); raises ``DriverFenced``."""
        return self.submit(run_id, event_type, data, driver_token, waited_for=True).result()

    def set_status(self, run_id: int, status: str, cause: str | None = None, driver_token: str | None = None,
                   details: dict[str, Any] | None = None) -> dict:
        """``studio.runs.events.set_status`` through this writer (in order with the run's other events)."""
        data = {**(details or {}), "status": status}
        if cause:
            data["cause"] = cause
        return self.record(run_id, "status", data, driver_token)

    def _write_forever(self) -> None:
        while True:
            with self._lock:
                while not self._queue:
                    self._waiting.wait()
                until = time.monotonic() + self.linger_s
                while not self._urgent and len(self._queue) < MAX_BATCH and (left := until - time.monotonic()) > 0:
                    self._waiting.wait(left)
                batch = self._take_batch_locked()
                self._urgent = sum(1 for _, stored in self._queue if stored.waited_for)
            self._write(batch)

    def _take_batch_locked(self) -> list:
        """The next batch: with an event somebody waits for queued, the queued events of its run (and of any other
        run with one) first, the others left in the queue in their order; else the oldest ``MAX_BATCH``. A run's
        events always leave in the order they came (a batch takes the oldest of each run it takes)."""
        if self._urgent:
            hurried = {item[0] for item, stored in self._queue if stored.waited_for}
            taken = [entry for entry in self._queue if entry[0][0] in hurried][:MAX_BATCH]
            chosen = {id(entry) for entry in taken}
            self._queue[:] = [entry for entry in self._queue if id(entry) not in chosen]
            return taken
        batch, self._queue[:MAX_BATCH] = self._queue[:MAX_BATCH], []
        return batch

    def _write(self, batch: list) -> None:
        from django.db import close_old_connections

        from studio.runs.events import record_events

        for attempt in range(1, ATTEMPTS + 1):
            try:
                outcomes = record_events([item for item, _ in batch])
                break
            except Exception as error:  # the database refused the transaction: nothing of it was stored
                close_old_connections()
                if attempt == ATTEMPTS:
                    logger.warning("could not store %s run events: %s", len(batch), error)
                    for _, stored in batch:
                        stored.set_exception(error)
                    return
                time.sleep(RETRY_PAUSE_S * attempt)
        self.batches += 1
        for (_, stored), outcome in zip(batch, outcomes):
            if isinstance(outcome, Exception):
                stored.set_exception(outcome)
            else:
                stored.set_result(outcome)


_writer: EventWriter | None = None
_writer_lock = threading.Lock()


def event_writer() -> EventWriter:
    """This process's writer (created when first asked for)."""
    global _writer
    with _writer_lock:
        if _writer is None:
            _writer = EventWriter()
        return _writer
