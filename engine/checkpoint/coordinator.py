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

Checkpoints after tasks finished (seed 002, FLIP-147)
    Subtasks that finished take no part in later checkpoints: ``task_finished`` removes
    them from pending checkpoints (they count as acknowledged without state) and from
    future ones. A checkpoint is triggered on the *sources of the moment*: running
    subtasks none of whose upstream subtasks still runs -- the real sources, and for
    instance a two-phase-commit sink whose bounded input is done and that waits for a
    checkpoint to commit its last data. No barrier can reach those; every other subtask
    gets its barriers from them. The trigger options carry them as ``"trigger_tasks"``
    (``"vertex#i"`` names; a slot hands the trigger to those only). When a subtask
    finishes while a checkpoint is pending, the subtasks that became sources of the
    moment through it are triggered for that checkpoint too. (The topology comes from
    ``JobGraph.describe``'s ``inputs``; without it every subtask is triggered and each
    decides, which is what sources and subtasks with finished input do.)

    Once every source vertex finished while a vertex that waits for a final checkpoint runs
    (``"awaits_final_checkpoint"`` in the topology: two-phase-commit sinks), the next
    checkpoint is triggered at once rather than after the interval (again at once if one
    was pending then): it is the one that lets those sinks commit their last data and the
    job end. A job without such a sink ends without it, as before.

    ``_metadata`` lists, per vertex, the subtasks that had finished without acknowledging
    (before the trigger, or before reaching the barrier); a vertex whose subtasks all
    finished is skipped on restore. A subtask that acknowledged and finished afterwards is
    not listed: its state is in the checkpoint, and its later output is not in its
    consumers' snapshots, so it must run again from that state.

Stop with savepoint
    ``trigger_savepoint(target, stop=True, drain=...)`` triggers a *synchronous*
    savepoint (statistics ``checkpoint_type`` "SYNC_SAVEPOINT") with options ``"stop":
    true, "drain": bool``; the sources end the job around it (``engine.runtime.stream_task``).
    Only one stop is in flight at a time, and periodic checkpoints wait while it is
    pending; if it fails they go on (and so does the job), once it completed they stay off
    (the job ends; a restart after a failure while ending resumes them).

Fencing: the completion guard
    A job's driver may be fenced (another driver took the job over and chose the checkpoint it
    goes on from) without knowing it yet. ``may_complete_checkpoint`` (a callable without
    arguments; None: always yes) is asked right before a checkpoint's ``_metadata`` is written
    and again right after, before any participant is told it completed: when it says no, the
    checkpoint fails ("declined by the completion guard") and its location is deleted, so no
    ``_metadata`` of it stays and no sink commits it. Every checkpoint and savepoint completes
    through this one path. Asked twice because a process may stall between asking and writing:
    a checkpoint whose sinks commit had its ``_metadata`` written while the guard still said yes.
    Its refusals are not counted as failures and the job goes on: the guard cannot tell "fenced"
    from "not confirmed yet" (a slow heartbeat), its owner can, and stops the job when fenced.
    It is called under the coordinator's lock: it must answer at once (no I/O).

    The job that took over goes on in the same checkpoint directory while the fenced one may still
    run: the fenced job deletes the location of each checkpoint it fails, and its subtasks' state
    writes may come late. So the two never share a checkpoint id:

    - the guard gates triggers too: before an id is taken, and again once the checkpoint's
      directory was made and before any trigger is sent (a no skips the trigger, not counted;
      a savepoint or an explicit trigger fails with the guard's reason). The directory stays:
      by then it may be the other job's.
    - a checkpoint's directory is made as it is triggered (``CheckpointStorage.claim``), so every
      id the fenced job can still write to or delete is on disk by the time its guard says no;
    - a coordinator numbers its checkpoints after every ``chk-<id>`` present when it is made
      (``CheckpointStorage.highest_checkpoint_id``), completed or not, not only after the
      checkpoint it restored: ids after a restore may skip some.

    A fenced job discards only checkpoints it completed itself (``retained``), and only as one
    more completes, which it cannot once its guard says no. State files have random names, so
    even an id the fenced job failed and deleted before the take-over looked, and which the new
    job then uses, gets no file of the fenced job in place of one of its own. The ids a job
    skipped go into each checkpoint it completes (``foreign_ids``, with those its restored one
    skipped): what the fenced job's sinks pre-committed under them, even after this job's recovery
    ran, is rolled back by every later restore (``engine.runtime.operators.two_phase_commit``).

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
from typing import Callable, Protocol

from engine.checkpoint.metadata import build_metadata, foreign_id_ranges
from engine.checkpoint.statistics import CheckpointStats, CheckpointStatsTracker
from engine.checkpoint.storage import CheckpointStorage
from engine.plan.connection_patterns import pointwise_consumers, pointwise_producers
from engine.plan.execution_ids import TaskId, as_task_id, task_name

logger = logging.getLogger(__name__)

GUARD_REFUSED = ("declined by the completion guard: the job's driver has not confirmed in time that the job is "
                 "still its own (fencing)")
"""Why a checkpoint failed when ``may_complete_checkpoint`` said no."""

COUNTED_DECLINE_CODES = ("failure",)
"""Decline reason codes (``"<code>: message"``) that count as checkpoint failures."""

CHECKPOINTING_DEFAULTS = {"interval_ms": 1000, "mode": "exactly_once", "timeout_ms": 600000, "min_pause_ms": 0,
                          "max_concurrent": 1, "tolerable_failures": 0, "retained": 3}


class CheckpointParticipants(Protocol):
    """What the coordinator tells the slots (a ``CheckpointParticipants`` of
    ``engine.runtime.gateway`` is one); calls only enqueue mails, they never block."""

    def trigger_checkpoint(self, checkpoint_id: int, timestamp_ms: int, options: dict) -> None: ...

    def notify_checkpoint_complete(self, checkpoint_id: int) -> None: ...

    def notify_checkpoint_aborted(self, checkpoint_id: int) -> None: ...


class CheckpointException(Exception):
    """A checkpoint or savepoint failed; the message says why."""


def _now_ms() -> int:
    return int(time.time() * 1000)


class TaskTopology:
    """Which subtasks feed which, from ``JobGraph.describe``: for "sources of the moment".

    Kept per vertex and pattern (never per pair of subtasks), so an all-to-all edge between
    n and m subtasks costs O(1) per question, not O(n·m) memory.
    """

    def __init__(self, vertices: dict):
        self._parallelism = {vertex: int(facts.get("parallelism", 1)) for vertex, facts in vertices.items()}
        self._inputs = {vertex: [(entry["source"], entry.get("pattern", "ALL_TO_ALL"))
                                 for entry in facts.get("inputs", ())]
                        for vertex, facts in vertices.items()}
        self._outputs: dict[str, list[tuple[str, str]]] = {vertex: [] for vertex in vertices}
        for vertex, inputs in self._inputs.items():
            for source, pattern in inputs:
                self._outputs.setdefault(source, []).append((vertex, pattern))
        self.known = all("inputs" in facts for facts in vertices.values()) and bool(vertices)
        self._awaiting = {vertex for vertex, facts in vertices.items() if facts.get("awaits_final_checkpoint", True)}
        """Vertices whose subtasks wait for a checkpoint at the end of their input (two-phase-commit
        sinks); every vertex when the describer does not say."""

    def producers(self, task: TaskId) -> list[TaskId]:
        """The upstream subtasks of ``task`` over pointwise edges (all-to-all ones: by count)."""
        vertex, index = task
        found: list[TaskId] = []
        for source, pattern in self._inputs.get(vertex, ()):
            if pattern == "POINTWISE":
                indexes = pointwise_producers(index, self._parallelism[source], self._parallelism[vertex])
                found.extend((source, i) for i in indexes)
        return found

    def all_to_all_sources(self, vertex: str) -> list[str]:
        return [source for source, pattern in self._inputs.get(vertex, ()) if pattern != "POINTWISE"]

    def consumers_to_check(self, task: TaskId, vertex_complete: bool) -> list[TaskId]:
        """The downstream subtasks that ``task`` finishing may have made sources of the moment.

        Over an all-to-all edge that is every consumer, but only once the producer's whole
        vertex finished (before, each consumer still has a running producer): so n finishing
        producers cost O(n + m) checks for m consumers, not O(n·m).
        """
        vertex, index = task
        found: list[TaskId] = []
        for target, pattern in self._outputs.get(vertex, ()):
            if pattern == "POINTWISE":
                found.extend((target, i) for i in pointwise_consumers(index, self._parallelism[vertex],
                                                                      self._parallelism[target]))
            elif vertex_complete:
                found.extend((target, i) for i in range(self._parallelism[target]))
        return found

    def is_vertex_finished(self, vertex: str, finished_per_vertex: dict) -> bool:
        return finished_per_vertex.get(vertex, 0) >= self._parallelism.get(vertex, 1)

    def awaiting_a_final_checkpoint(self, finished_per_vertex: dict) -> bool:
        """Whether every source vertex (one without inputs) finished while a vertex that waits
        for a final checkpoint still runs: no record can enter the job any more, and the job
        cannot end without one more checkpoint. O(vertices), asked only when a vertex finished."""
        running = [vertex for vertex in self._parallelism if not self.is_vertex_finished(vertex, finished_per_vertex)]
        return (all(self._inputs.get(vertex) for vertex in running)
                and any(vertex in self._awaiting for vertex in running))

    def upstream_finished(self, task: TaskId, finished: set, finished_per_vertex: dict) -> bool:
        """Whether every subtask feeding ``task`` finished (true for sources)."""
        for source in self.all_to_all_sources(task[0]):
            if finished_per_vertex.get(source, 0) < self._parallelism[source]:
                return False
        return all(producer in finished for producer in self.producers(task))


class PendingCheckpoint:
    """A triggered checkpoint waiting for acknowledgements."""

    def __init__(self, checkpoint_id: int, kind: str, timestamp: int, location: str,
                 tasks: list[TaskId], deadline: float, future: Future | None, *,
                 finished_before: set[TaskId] | None = None, options: dict | None = None):
        self.id = checkpoint_id
        self.kind = kind
        self.timestamp = timestamp
        self.location = location
        self.options = dict(options or {})
        """The trigger options without ``trigger_tasks`` (kind, target, location, stop, drain)."""
        self.not_yet_acknowledged: set[TaskId] = set(tasks)
        self.handles: dict[TaskId, dict | None] = {}
        self.finished: set[TaskId] = set()
        """Subtasks that finished after the trigger without acknowledging."""
        self.finished_before: set[TaskId] = set(finished_before or ())
        """Subtasks that had finished when it was triggered."""
        self.triggered: set[TaskId] = set()
        """Subtasks the trigger went to (the sources of the moment), when the topology is known."""
        self.coordinator_states: dict = {}
        """Operator coordinators' snapshots, by node id, taken as the trigger was sent."""
        self.deadline = deadline
        self.future = future
        self.stats = CheckpointStats(checkpoint_id, kind, timestamp, list(tasks), location,
                                     synchronous=bool(self.options.get("stop")))

    @property
    def is_stop(self) -> bool:
        return bool(self.options.get("stop"))

    @property
    def is_savepoint(self) -> bool:
        return self.kind == "savepoint"

    @property
    def is_fully_acknowledged(self) -> bool:
        return not self.not_yet_acknowledged


class CheckpointCoordinator:
    """Triggers checkpoints on the slots, collects acknowledgements, writes ``_metadata``."""

    def __init__(self, checkpointing: dict, storage: CheckpointStorage, slots: list[CheckpointParticipants],
                 tasks_to_ack: list[TaskId], on_event: Callable[[dict], None] | None = None, *,
                 vertices: dict | None = None, on_failure: Callable[[str], None] | None = None,
                 first_checkpoint_id: int = 1, restored_from: dict | None = None,
                 operator_coordinators=None, may_complete_checkpoint: Callable[[], bool] | None = None):
        self.settings = {**CHECKPOINTING_DEFAULTS, **(checkpointing or {})}
        self.storage = storage
        self._slots = list(slots)
        self._all_tasks = [as_task_id(task) for task in tasks_to_ack]
        self._on_event = on_event
        self._on_failure = on_failure
        self._operator_coordinators = operator_coordinators
        self._may_complete_checkpoint = may_complete_checkpoint
        """The completion guard (see "Fencing" above); None: every checkpoint may complete."""
        """``engine.cluster.operator_coordinators``: snapshotted as a checkpoint's triggers are sent."""
        self._vertices = dict(vertices or {})
        self._topology = TaskTopology(self._vertices)
        self._lock = threading.Lock()
        self._wakeup = threading.Condition(self._lock)
        self._pending: dict[int, PendingCheckpoint] = {}  # guarded by: self._lock
        self._completed: deque[dict] = deque()  # guarded by: self._lock; retained checkpoints, oldest first
        self._latest: dict | None = restored_from  # guarded by: self._lock; newest completed, savepoints too
        self._finished: set[TaskId] = set()  # guarded by: self._lock
        self._finished_per_vertex: dict[str, int] = {}  # guarded by: self._lock
        self._stop_pending: int | None = None  # guarded by: self._lock; the stop-with-savepoint in flight
        # after every chk-<id> present, completed or not: a fenced job may still write to or delete those
        restored_id = int((restored_from or {}).get("checkpoint_id", 0))
        self._next_id = max(first_checkpoint_id, restored_id + 1, storage.highest_checkpoint_id() + 1)
        self._foreign_ids = foreign_id_ranges(restored_from)
        """Ids below this job's first that are not of its history (``engine.checkpoint.metadata``): the
        restored checkpoint's, and those this job skipped, which a fenced or dead job may have taken."""
        if self._next_id > restored_id + 1:
            self._foreign_ids.append([restored_id + 1, self._next_id - 1])
        self._consecutive_failures = 0
        self._last_completion = 0.0  # monotonic
        self._next_trigger = None  # monotonic; None: periodic triggering off
        self._drained_from: int | None = None  # guarded by: self._lock; first checkpoint id after the input ended
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

    def forget_finished(self, tasks=None) -> None:
        """Forget which subtasks (``tasks``; None: all) finished: they run again (a failover
        restarts them).

        Call it once no report of the old attempt can arrive any more and before the new
        attempt's subtasks run: a subtask of the new attempt may finish at once (a vertex
        restored as finished) and must not be forgotten.
        """
        with self._lock:
            self._drained_from = None
            if tasks is None:
                self._finished.clear()
                self._finished_per_vertex.clear()
                return
            for task in tasks:
                task = as_task_id(task)
                if task in self._finished:
                    self._finished.discard(task)
                    self._finished_per_vertex[task[0]] -= 1

    def resume(self, slots: list[CheckpointParticipants] | None = None, tasks_to_ack: list[TaskId] | None = None, *,
               forget_finished: bool = True) -> None:
        """Trigger again from now on, starting one interval later; on ``slots`` when given.

        ``forget_finished=True`` (the default) also forgets which subtasks finished, which
        is right when the new attempt's subtasks have not started yet. A JobMaster that
        resumes only once the new subtasks run passes False and calls ``forget_finished``
        (for the restarted subtasks) before starting them.
        """
        if forget_finished:
            self.forget_finished()
        with self._lock:
            if slots is not None:
                self._slots = list(slots)
            if tasks_to_ack is not None:
                self._all_tasks = [as_task_id(task) for task in tasks_to_ack]
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

    def trigger_savepoint(self, target: str | None = None, *, stop: bool = False, drain: bool = False) -> Future:
        """Trigger a savepoint into ``target`` (a directory URL) or the default savepoint directory.

        Returns a ``concurrent.futures.Future`` whose result is the savepoint's location (a
        directory with ``_metadata``), or which fails with :class:`CheckpointException`.
        ``stop=True`` makes it the savepoint of a stop-with-savepoint (``drain``: end the
        input first); the subtasks then end the job around it (see the module docstring).
        """
        future: Future = Future()
        with self._lock:
            if stop and self._stop_pending is not None:
                future.set_exception(CheckpointException(
                    f"a stop with savepoint is in progress already (savepoint {self._stop_pending})"))
            else:
                extra = {"stop": True, "drain": bool(drain)} if stop else {}
                self._trigger_locked("savepoint", target, future, extra)
        self._deliver_events()
        return future

    def _trigger_locked(self, kind: str, target: str | None, future: Future | None,
                        extra_options: dict | None = None) -> None:
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
        if not self._may_complete_locked():  # see "Fencing": a job that may be fenced takes no new id
            if future is not None:
                future.set_exception(CheckpointException(GUARD_REFUSED))
            return
        checkpoint_id = self._next_id
        self._next_id += 1
        location = self.storage.location_for(checkpoint_id, kind, target)
        if kind == "checkpoint":
            try:
                self.storage.claim(location)
            except Exception as error:
                self._claim_failed_locked(checkpoint_id, location, future, error)
                return
            if not self._may_complete_locked():  # the claim outlasted the guard's yes: the directory stays
                if future is not None:
                    future.set_exception(CheckpointException(GUARD_REFUSED))
                return
        timestamp = _now_ms()
        deadline = time.monotonic() + self.settings["timeout_ms"] / 1000.0
        options = {"kind": kind, "target": target, "location": location, **self._alignment_options(kind),
                   **(extra_options or {})}
        pending = PendingCheckpoint(checkpoint_id, kind, timestamp, location, tasks, deadline, future,
                                    finished_before=set(self._finished), options=options)
        self._pending[checkpoint_id] = pending
        if pending.is_stop:
            self._stop_pending = checkpoint_id
        self.stats.triggered(pending.stats)
        self._event_locked("triggered", pending)
        targets = None
        if self._topology.known:
            targets = [task for task in tasks
                       if self._topology.upstream_finished(task, self._finished, self._finished_per_vertex)]
        if self._operator_coordinators:
            pending.coordinator_states = self._operator_coordinators.checkpoint(
                checkpoint_id, lambda: self._send_trigger_locked(pending, targets))
        else:
            self._send_trigger_locked(pending, targets)

    def _claim_failed_locked(self, checkpoint_id: int, location: str, future: Future | None,
                             error: Exception) -> None:
        """A checkpoint whose directory could not be made fails, counted, with no trigger sent; its location
        is not deleted (it is not known to be this job's)."""
        message = f"could not make the checkpoint directory: {error}"
        pending = PendingCheckpoint(checkpoint_id, "checkpoint", _now_ms(), location, [], time.monotonic(), future)
        self._pending[checkpoint_id] = pending
        self.stats.triggered(pending.stats)
        self._event_locked("triggered", pending)
        self._fail_locked(pending, message, counted=True, discard=False)

    def _alignment_options(self, kind: str) -> dict:
        """Checkpoints go unaligned when configured (right away, or after ``aligned_timeout_ms``);
        savepoints are always aligned (as in Flink: they must be restorable anywhere)."""
        if kind != "checkpoint" or not self.settings.get("unaligned"):
            return {}
        timeout = int(self.settings.get("aligned_timeout_ms") or 0)
        return {"aligned_timeout_ms": timeout} if timeout > 0 else {"unaligned": True}

    def _send_trigger_locked(self, pending: PendingCheckpoint, targets: list[TaskId] | None) -> None:
        """Trigger ``pending`` on ``targets`` (None: on every subtask, each deciding for itself)."""
        options = dict(pending.options)
        if targets is not None:
            if not targets:
                return
            pending.triggered.update(targets)
            options["trigger_tasks"] = sorted(task_name(task) for task in targets)
        for slot in self._slots:
            try:
                slot.trigger_checkpoint(pending.id, pending.timestamp, options)
            except Exception as error:  # a slot that went away: the checkpoint will fail
                logger.warning("could not trigger checkpoint %s on a slot: %s", pending.id, error)

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
        if self._stop_pending is not None:
            return False  # the stop's savepoint goes first; if it fails, periodic checkpoints resume
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
            # a checkpoint past its timeout is expired, whether or not the timer thread got to it first:
            # an acknowledgement arriving late must not complete it
            self._expire_locked(time.monotonic())
            pending = self._pending.get(int(ack["checkpoint_id"]))
            if pending is None or task not in pending.not_yet_acknowledged:
                return  # late, duplicate, expired, or from a previous attempt
            pending.not_yet_acknowledged.discard(task)
            pending.handles[task] = ack.get("state")
            subtask = pending.stats.acknowledge(task, ack.get("metrics") or {})
            if pending.stats.acknowledged_event_due():
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
        """A subtask finished for good: it takes no part in later checkpoints (any thread).

        Its consumers may have become sources of the moment: they are triggered for the
        checkpoints still pending.
        """
        task = as_task_id(task)
        with self._lock:
            if task not in self._finished:
                self._finished.add(task)
                self._finished_per_vertex[task[0]] = self._finished_per_vertex.get(task[0], 0) + 1
            for pending in list(self._pending.values()):
                if task in pending.not_yet_acknowledged:
                    pending.not_yet_acknowledged.discard(task)
                    pending.finished.add(task)
                    pending.stats.task_finished(task)
                    if pending.is_fully_acknowledged:
                        self._complete_locked(pending)
                        continue
                if self._topology.known and pending.id in self._pending:
                    self._trigger_new_sources_locked(pending, task)
            self._note_input_drained_locked(task)
        self._deliver_events()

    def _note_input_drained_locked(self, finished: TaskId) -> None:
        """Trigger the next checkpoint now once no record can enter the job any more and a
        two-phase-commit sink waits for one.

        What still runs then drains what is in flight, and the sink waits for a checkpoint
        to commit its last data: the job cannot end before. Waiting
        out the interval added up to ``interval_ms`` to every bounded job's end (Flink waits
        for the next periodic one); nothing is gained by waiting, since no further input can
        come. The checkpoint's barriers follow the last records (a subtask triggered before
        its input ended holds the trigger until it ended), so it covers all of them.
        """
        topology = self._topology
        if self._drained_from is not None or not topology.known:
            return
        if not topology.is_vertex_finished(finished[0], self._finished_per_vertex):
            return  # the question changes only when a whole vertex finished
        if topology.awaiting_a_final_checkpoint(self._finished_per_vertex):
            self._drained_from = self._next_id
            self._checkpoint_soon_locked()

    def _checkpoint_soon_locked(self) -> None:
        """Move the next periodic trigger to now (min pause, concurrency and stops still apply)."""
        if self._next_trigger is not None and not self._paused:
            self._next_trigger = min(self._next_trigger, time.monotonic())
            self._wakeup.notify_all()

    def _trigger_new_sources_locked(self, pending: PendingCheckpoint, finished: TaskId) -> None:
        topology = self._topology
        complete = topology.is_vertex_finished(finished[0], self._finished_per_vertex)
        targets = [consumer for consumer in topology.consumers_to_check(finished, complete)
                   if consumer in pending.not_yet_acknowledged and consumer not in pending.triggered
                   and topology.upstream_finished(consumer, self._finished, self._finished_per_vertex)]
        self._send_trigger_locked(pending, targets)

    # -- completion and failure ---------------------------------------------------------------------
    def _complete_locked(self, pending: PendingCheckpoint) -> None:
        if not self._may_complete_locked():
            self._fail_locked(pending, GUARD_REFUSED, counted=False)
            return
        metadata = self._metadata_locked(pending)
        try:
            self.storage.write_metadata(pending.location, metadata)
        except Exception as error:
            self._fail_locked(pending, f"could not write the checkpoint metadata: {error}", counted=True)
            return
        if not self._may_complete_locked():  # the write outlasted the guard's yes: deleted, nobody notified
            self._fail_locked(pending, GUARD_REFUSED, counted=False)
            return
        metadata["location"] = pending.location
        del self._pending[pending.id]
        if self._stop_pending == pending.id:
            self._stop_pending = None
            self._next_trigger = None  # the job ends around this savepoint: no checkpoint follows it
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
            if self._drained_from is not None and pending.id < self._drained_from:
                self._checkpoint_soon_locked()  # triggered before the input ended: the last data needs the next one

    def _may_complete_locked(self) -> bool:
        """Ask the completion guard (before a checkpoint takes an id or completes, see "Fencing"), at the
        moment of use; a guard that raises says no."""
        if self._may_complete_checkpoint is None:
            return True
        try:
            return bool(self._may_complete_checkpoint())
        except Exception:
            logger.exception("the completion guard failed; the checkpoint does not complete")
            return False

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

    def _fail_locked(self, pending: PendingCheckpoint, message: str, *, counted: bool, discard: bool = True) -> None:
        if self._pending.pop(pending.id, None) is None:
            return
        if self._stop_pending == pending.id:
            self._stop_pending = None
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
            if discard:
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
                              finished=pending.finished_before | pending.finished, handles=pending.handles,
                              coordinators=pending.coordinator_states, foreign_ids=self._foreign_ids)

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
        rows = event != "acknowledged" or pending.stats.live_rows
        self._events.append({"type": "checkpoint", "event": event, **pending.stats.to_dict(with_subtasks=rows),
                             **extra})

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
