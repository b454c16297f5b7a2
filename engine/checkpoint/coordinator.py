"""The checkpoint coordinator (JobMaster side): triggers checkpoints, collects acks, completes.

Life of a checkpoint::

    triggered ──ack from every subtask (or subtask finished)──► completed ──retention──► discarded
        │                                                         (_metadata written, tasks notified)
        └──decline / expiry / failover / subsumed──► failed (tasks notified: aborted)

Periodic triggering honours ``interval_ms``, ``min_pause_ms`` (time from the last
completion to the next trigger), ``max_concurrent`` (checkpoints in flight) and
``timeout_ms`` (expiry). Failures that are the job's fault (a decline with reason code
``failure``, an expiry) count towards ``tolerable_failures``; one more than tolerated
calls ``on_failure`` (the JobMaster then fails or restarts the job). Declines because a
newer checkpoint overtook an older one, a cancel marker, or a subtask not running are
not counted (as in Flink's CheckpointFailureManager). A completed checkpoint resets the
count and aborts older pending ones (subsumed).

Savepoints come on request (``trigger_savepoint``), ignore interval, pause and the
concurrency limit, go to their own directory, and are never subsumed or deleted.
``retained`` completed checkpoints are kept; older ones are deleted ("discarded").

Subtasks that finished take no part in later checkpoints: ``task_finished`` removes them
from pending checkpoints (they count as acknowledged without state) and from future
ones; ``_metadata`` lists them so a restore does not start them over.

Events: every transition calls ``on_event`` with ``{"type": "checkpoint", "event":
"triggered" | "acknowledged" | "completed" | "failed" | "discarded", **statistics}`` (see
``engine.checkpoint.statistics`` for the fields); an "acknowledged" event also carries
``"subtask"``, the acknowledging subtask's entry. Events are delivered in order, outside
the coordinator's lock.

Threading model: one timer thread (started by ``start``) triggers and expires; acks,
declines and task_finished arrive from task or control threads; savepoint requests from
any thread. All state is guarded by ``self._lock``; calls into slots only enqueue mails.
"""
from __future__ import annotations

import logging
import threading
import time
from collections import deque
from concurrent.futures import Future
from typing import Callable

from engine.checkpoint.metadata import build_metadata
from engine.checkpoint.statistics import CheckpointStats, CheckpointStatsTracker
from engine.checkpoint.storage import CheckpointStorage
from engine.runtime.gateway import TaskExecutorGateway, TaskId, as_task_id, task_name

logger = logging.getLogger(__name__)

COUNTED_DECLINE_CODES = ("failure",)
"""Decline reason codes (``"<code>: message"``) that count as checkpoint failures."""

CHECKPOINTING_DEFAULTS = {"interval_ms": 1000, "mode": "exactly_once", "timeout_ms": 600000, "min_pause_ms": 0,
                          "max_concurrent": 1, "tolerable_failures": 0, "retained": 3}


class CheckpointException(Exception):
    """A checkpoint or savepoint failed; the message says why."""


def _now_ms() -> int:
    return int(time.time() * 1000)


def describe_job_graph(job_graph) -> dict:
    """The per-vertex facts ``_metadata`` records: ``{vertex: {"parallelism", "max_parallelism", "operators"}}``."""
    return {vertex.id: {"parallelism": vertex.parallelism, "max_parallelism": vertex.max_parallelism,
                        "operators": [node["id"] for node in vertex.operators]}
            for vertex in job_graph.vertices}


class PendingCheckpoint:
    """A triggered checkpoint waiting for acknowledgements."""

    def __init__(self, checkpoint_id: int, kind: str, timestamp: int, location: str,
                 tasks: list[TaskId], deadline: float, future: Future | None):
        self.id = checkpoint_id
        self.kind = kind
        self.timestamp = timestamp
        self.location = location
        self.not_yet_acknowledged: set[TaskId] = set(tasks)
        self.handles: dict[TaskId, dict | None] = {}
        self.finished: set[TaskId] = set()
        self.deadline = deadline
        self.future = future
        self.stats = CheckpointStats(checkpoint_id, kind, timestamp, list(tasks), location)

    @property
    def is_savepoint(self) -> bool:
        return self.kind == "savepoint"

    @property
    def is_fully_acknowledged(self) -> bool:
        return not self.not_yet_acknowledged


class CheckpointCoordinator:
    """Triggers checkpoints on the slots, collects acknowledgements, writes ``_metadata``."""

    def __init__(self, checkpointing: dict, storage: CheckpointStorage, slots: list[TaskExecutorGateway],
                 tasks_to_ack: list[TaskId], on_event: Callable[[dict], None] | None = None, *,
                 vertices: dict | None = None, on_failure: Callable[[str], None] | None = None,
                 first_checkpoint_id: int = 1, restored_from: dict | None = None):
        self.settings = {**CHECKPOINTING_DEFAULTS, **(checkpointing or {})}
        self.storage = storage
        self._slots = list(slots)
        self._all_tasks = [as_task_id(task) for task in tasks_to_ack]
        self._on_event = on_event
        self._on_failure = on_failure
        self._vertices = dict(vertices or {})
        self._lock = threading.Lock()
        self._wakeup = threading.Condition(self._lock)
        self._pending: dict[int, PendingCheckpoint] = {}  # guarded by: self._lock
        self._completed: deque[dict] = deque()  # guarded by: self._lock; retained checkpoints, oldest first
        self._latest: dict | None = restored_from  # guarded by: self._lock; newest completed, savepoints too
        self._finished: set[TaskId] = set()  # guarded by: self._lock
        self._next_id = max(first_checkpoint_id, int((restored_from or {}).get("checkpoint_id", 0)) + 1)
        self._consecutive_failures = 0
        self._last_completion = 0.0  # monotonic
        self._next_trigger = None  # monotonic; None: periodic triggering off
        self._paused = False
        self._shutdown = False
        self._thread: threading.Thread | None = None
        self._events: deque[dict] = deque()  # guarded by: self._lock
        self._event_delivery = threading.Lock()  # held while delivering events, in order
        self.stats = CheckpointStatsTracker()
        if restored_from is not None:
            self.stats.restored(int(restored_from.get("checkpoint_id", 0)), restored_from.get("location", ""),
                                _now_ms())

    # -- configuration ----------------------------------------------------------------------------
    @property
    def interval_s(self) -> float | None:
        interval = self.settings.get("interval_ms")
        if not interval or self.settings.get("enabled") is False:
            return None
        return interval / 1000.0

    # -- life cycle ------------------------------------------------------------------------------
    def start(self) -> None:
        """Start periodic triggering (if an interval is set) and expiry checks."""
        with self._lock:
            if self._thread is not None:
                return
            if self.interval_s is not None:
                self._next_trigger = time.monotonic() + self.interval_s
            self._thread = threading.Thread(target=self._run, name="checkpoint-coordinator", daemon=True)
            self._thread.start()

    def shutdown(self) -> None:
        """Stop triggering; fail what is pending ("job ended")."""
        with self._lock:
            self._shutdown = True
            self._fail_all_pending_locked("the job ended before the checkpoint completed", counted=False)
            self._wakeup.notify_all()
        self._deliver_events()

    def pause(self, reason: str = "job failover") -> None:
        """Stop triggering and fail pending checkpoints (a failover is under way)."""
        with self._lock:
            self._paused = True
            self._fail_all_pending_locked(reason, counted=False)
        self._deliver_events()

    def resume(self, slots: list[TaskExecutorGateway], tasks_to_ack: list[TaskId] | None = None) -> None:
        """Trigger on ``slots`` from now on (the restarted job's), starting one interval later."""
        with self._lock:
            self._slots = list(slots)
            if tasks_to_ack is not None:
                self._all_tasks = [as_task_id(task) for task in tasks_to_ack]
            self._finished.clear()
            self._paused = False
            if self.interval_s is not None:
                self._next_trigger = time.monotonic() + self.interval_s
            self._wakeup.notify_all()

    # -- triggering ----------------------------------------------------------------------------
    def trigger_checkpoint(self) -> Future:
        """Trigger a checkpoint now (ignores interval and pause); the future yields its location."""
        future: Future = Future()
        with self._lock:
            self._trigger_locked("checkpoint", None, future)
        self._deliver_events()
        return future

    def trigger_savepoint(self, target: str | None = None) -> Future:
        """Trigger a savepoint into ``target`` (a directory URL) or the default savepoint directory.

        Returns a ``concurrent.futures.Future`` whose result is the savepoint's location (a
        directory with ``_metadata``), or which fails with :class:`CheckpointException`.
        """
        future: Future = Future()
        with self._lock:
            self._trigger_locked("savepoint", target, future)
        self._deliver_events()
        return future

    def _trigger_locked(self, kind: str, target: str | None, future: Future | None) -> None:
        if self._shutdown or self._paused:
            if future is not None:
                future.set_exception(CheckpointException(
                    "the job is not running" if self._shutdown else "the job is restarting"))
            return
        tasks = [task for task in self._all_tasks if task not in self._finished]
        if not tasks:
            if future is not None:
                future.set_exception(CheckpointException("every task already finished"))
            return
        checkpoint_id = self._next_id
        self._next_id += 1
        timestamp = _now_ms()
        location = self.storage.location_for(checkpoint_id, kind, target)
        deadline = time.monotonic() + self.settings["timeout_ms"] / 1000.0
        pending = PendingCheckpoint(checkpoint_id, kind, timestamp, location, tasks, deadline, future)
        self._pending[checkpoint_id] = pending
        self.stats.triggered(pending.stats)
        self._event_locked("triggered", pending)
        options = {"kind": kind, "target": target, "location": location}
        for slot in self._slots:
            try:
                slot.trigger_checkpoint(checkpoint_id, timestamp, options)
            except Exception as error:  # a slot that went away: the checkpoint will fail
                logger.warning("could not trigger checkpoint %s on a slot: %s", checkpoint_id, error)

    def _run(self) -> None:
        while True:
            with self._lock:
                if self._shutdown:
                    return
                now = time.monotonic()
                self._expire_locked(now)
                if self._should_trigger_locked(now):
                    self._trigger_locked("checkpoint", None, None)
                    self._next_trigger = time.monotonic() + self.interval_s
                self._wakeup.wait(self._sleep_time_locked(time.monotonic()))
            self._deliver_events()

    def _should_trigger_locked(self, now: float) -> bool:
        if self._paused or self._next_trigger is None or now < self._next_trigger:
            return False
        periodic = [p for p in self._pending.values() if not p.is_savepoint]
        if len(periodic) >= int(self.settings["max_concurrent"]):
            return False
        min_pause = self.settings["min_pause_ms"] / 1000.0
        if min_pause and now < self._last_completion + min_pause:
            self._next_trigger = self._last_completion + min_pause
            return False
        return True

    def _sleep_time_locked(self, now: float) -> float:
        wake = [p.deadline for p in self._pending.values()]
        if self._next_trigger is not None and not self._paused:
            wake.append(self._next_trigger)
        if not wake:
            return 1.0
        return min(1.0, max(0.001, min(wake) - now))

    def _expire_locked(self, now: float) -> None:
        for pending in [p for p in self._pending.values() if p.deadline <= now]:
            self._fail_locked(pending, "Checkpoint expired before completing.", counted=True)

    # -- acknowledgements ---------------------------------------------------------------------------
    def receive_acknowledge(self, ack: dict) -> None:
        """A subtask finished its part of a checkpoint (any thread)."""
        task = as_task_id(ack["task"])
        with self._lock:
            pending = self._pending.get(int(ack["checkpoint_id"]))
            if pending is None or task not in pending.not_yet_acknowledged:
                return  # late, duplicate, or from a previous attempt
            pending.not_yet_acknowledged.discard(task)
            pending.handles[task] = ack.get("state")
            subtask = pending.stats.acknowledge(task, ack.get("metrics") or {})
            self._event_locked("acknowledged", pending, subtask=subtask)
            if pending.is_fully_acknowledged:
                self._complete_locked(pending)
        self._deliver_events()

    def receive_decline(self, checkpoint_id: int, task, reason: str) -> None:
        """A subtask cannot take part in a checkpoint (any thread)."""
        with self._lock:
            pending = self._pending.get(int(checkpoint_id))
            if pending is not None:
                code = str(reason).split(":", 1)[0].strip()
                message = f"declined by {task_name(as_task_id(task))}: {reason}"
                self._fail_locked(pending, message, counted=code in COUNTED_DECLINE_CODES)
        self._deliver_events()

    def task_finished(self, task) -> None:
        """A subtask finished for good: it takes no part in later checkpoints (any thread)."""
        task = as_task_id(task)
        with self._lock:
            self._finished.add(task)
            for pending in list(self._pending.values()):
                if task in pending.not_yet_acknowledged:
                    pending.not_yet_acknowledged.discard(task)
                    pending.finished.add(task)
                    pending.stats.task_finished(task)
                    if pending.is_fully_acknowledged:
                        self._complete_locked(pending)
        self._deliver_events()

    # -- completion and failure ---------------------------------------------------------------------
    def _complete_locked(self, pending: PendingCheckpoint) -> None:
        metadata = self._metadata_locked(pending)
        try:
            self.storage.write_metadata(pending.location, metadata)
        except Exception as error:
            self._fail_locked(pending, f"could not write the checkpoint metadata: {error}", counted=True)
            return
        metadata["location"] = pending.location
        del self._pending[pending.id]
        pending.stats.complete(metadata["completed_timestamp"])
        self.stats.completed(pending.stats)
        self._consecutive_failures = 0
        self._last_completion = time.monotonic()
        if self._latest is None or pending.id > int(self._latest.get("checkpoint_id", 0)):
            self._latest = metadata
        self._event_locked("completed", pending)
        for slot in self._slots:
            try:
                slot.notify_checkpoint_complete(pending.id)
            except Exception as error:
                logger.warning("could not notify a slot of checkpoint %s: %s", pending.id, error)
        if pending.future is not None and not pending.future.done():
            pending.future.set_result(pending.location)
        if not pending.is_savepoint:
            for older in [p for p in self._pending.values() if p.id < pending.id and not p.is_savepoint]:
                self._fail_locked(older, f"Checkpoint subsumed by checkpoint {pending.id}.", counted=False)
            self._completed.append({**metadata, "_stats": pending.stats})
            self._discard_beyond_retained_locked()

    def _discard_beyond_retained_locked(self) -> None:
        retained = max(1, int(self.settings.get("retained", 1)))
        while len(self._completed) > retained:
            oldest = self._completed.popleft()
            stats = oldest.get("_stats")
            try:
                self.storage.discard(oldest["location"])
            except Exception as error:
                logger.warning("could not delete checkpoint %s: %s", oldest["checkpoint_id"], error)
            if stats is not None:
                stats.discarded = True
                self._events.append({"type": "checkpoint", "event": "discarded", **stats.to_dict()})

    def _fail_locked(self, pending: PendingCheckpoint, message: str, *, counted: bool) -> None:
        if self._pending.pop(pending.id, None) is None:
            return
        pending.stats.fail(message, _now_ms())
        self.stats.failed(pending.stats)
        self._event_locked("failed", pending)
        for slot in self._slots:
            try:
                slot.notify_checkpoint_aborted(pending.id)
            except Exception:
                pass
        if pending.future is not None and not pending.future.done():
            pending.future.set_exception(CheckpointException(message))
        try:
            self.storage.discard(pending.location)
        except Exception as error:
            logger.debug("could not delete failed checkpoint %s: %s", pending.id, error)
        if counted and not pending.is_savepoint:
            self._consecutive_failures += 1
            tolerable = int(self.settings.get("tolerable_failures", 0))
            if self._consecutive_failures > tolerable and self._on_failure is not None:
                failures = self._consecutive_failures
                self._consecutive_failures = 0
                self._events.append({"type": "checkpoint_failure_limit",
                                     "message": f"{failures} consecutive checkpoint failures exceed "
                                                f"the {tolerable} tolerated; last: {message}"})

    def _fail_all_pending_locked(self, message: str, counted: bool) -> None:
        for pending in list(self._pending.values()):
            self._fail_locked(pending, message, counted=counted)

    def _metadata_locked(self, pending: PendingCheckpoint) -> dict:
        return build_metadata(checkpoint_id=pending.id, kind=pending.kind, trigger_timestamp=pending.timestamp,
                              completed_timestamp=_now_ms(), tasks=self._all_tasks, vertices=self._vertices,
                              finished=self._finished | pending.finished, handles=pending.handles)

    # -- queries --------------------------------------------------------------------------------
    def latest_completed(self) -> dict | None:
        """The metadata of the newest completed checkpoint or savepoint (for restore), or None."""
        with self._lock:
            return None if self._latest is None else {k: v for k, v in self._latest.items() if k != "_stats"}

    def completed_checkpoints(self) -> list[dict]:
        """The retained completed checkpoints' metadata, oldest first."""
        with self._lock:
            return [{k: v for k, v in entry.items() if k != "_stats"} for entry in self._completed]

    @property
    def pending_ids(self) -> list[int]:
        with self._lock:
            return sorted(self._pending)

    # -- events -----------------------------------------------------------------------------------
    def _event_locked(self, event: str, pending: PendingCheckpoint, **extra) -> None:
        self._events.append({"type": "checkpoint", "event": event, **pending.stats.to_dict(), **extra})

    def _deliver_events(self) -> None:
        with self._event_delivery:
            while True:
                with self._lock:
                    if not self._events:
                        return
                    event = self._events.popleft()
                if event["type"] == "checkpoint_failure_limit":
                    if self._on_failure is not None:
                        self._on_failure(event["message"])
                    continue
                if self._on_event is not None:
                    try:
                        self._on_event(event)
                    except Exception:
                        logger.exception("checkpoint event handler failed")
