"""The in-process cluster: a whole job on threads, for fast tests and the studio's preview.

It runs exactly the task code that runs in Spark slots -- ``Slot``, ``StreamTask``, the
checkpoint coordinator, checkpoint storage -- with all channels in memory
(``LocalNetwork``). Slot i hosts subtask i of every vertex, as on Spark.

The JobMaster part (:class:`LocalJob`) drives one job: it starts the slots and the
coordinator, collects the subtasks' reports through a :class:`JobMasterGateway`, and on a
failure restarts the whole job from the latest completed checkpoint, as the restart
strategy allows (each restart is an *attempt*; reports from an earlier attempt are
ignored). Tests inject failures with a ``kill_hook`` (see ``engine.runtime.kill_hooks``).

Usage::

    result = LocalCluster().run(definition, timeout=30)
    result.status, result.collected["out"], result.checkpoints

    handle = LocalCluster().submit(definition, on_event=print)
    location = handle.trigger_savepoint().result(timeout=10)
    handle.cancel(); handle.wait()

Events passed to ``on_event`` (and kept in ``JobResult.events``): ``{"type": "status",
"status": "RUNNING" | "RESTARTING" | "FINISHED" | "FAILED" | "CANCELED", ...}``, the
coordinator's ``{"type": "checkpoint", "event": ...}`` events, ``{"type": "metrics",
"vertices": {vertex: sums}, "tasks": {"vertex#i": metrics}}`` about every second, and
``{"type": "task_failed", "task", "error", "attempt"}``.
"""
from __future__ import annotations

import logging
import tempfile
import threading
import time
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any, Callable

from engine.checkpoint.coordinator import CheckpointCoordinator, CheckpointException, describe_job_graph
from engine.checkpoint.storage import CheckpointStorage, load_metadata
from engine.runtime.gateway import TaskId, as_task_id, task_name
from engine.runtime.io.network import LocalNetwork
from engine.runtime.restart_strategy import create_restart_strategy
from engine.runtime.slot import Slot
from engine.runtime.stream_task import checkpointing_enabled

logger = logging.getLogger(__name__)

JOIN_TIMEOUT_S = 10.0


@dataclass
class JobResult:
    """How a job ended and what it produced."""

    status: str
    """FINISHED, FAILED or CANCELED."""
    collected: dict[str, list] = field(default_factory=dict)
    """Per collect sink node: the records of all its subtasks (last attempt), subtask order."""
    counts: dict[str, int] = field(default_factory=dict)
    """Per collect sink node: how many records reached it (last attempt)."""
    failure: str | None = None
    restarts: int = 0
    checkpoints: dict = field(default_factory=dict)
    """The coordinator's statistics overview (counts, summary, latest, history)."""
    completed_checkpoints: list[dict] = field(default_factory=list)
    latest_checkpoint: dict | None = None
    events: list[dict] = field(default_factory=list)
    duration_s: float = 0.0
    checkpoint_dir: str = ""


def slot_assignment(job_graph) -> list[list[TaskId]]:
    """Slot i runs subtask i of every vertex that has one (slot sharing)."""
    slots = max(vertex.parallelism for vertex in job_graph.vertices)
    return [[(vertex.id, i) for vertex in job_graph.vertices if i < vertex.parallelism] for i in range(slots)]


def prepare_definition(definition: dict) -> dict:
    """The normalised definition (defaults filled in) when the spec package is available."""
    try:
        from engine.spec.validation import normalise_definition
    except ImportError:  # the spec package is optional for the runtime
        return definition
    return normalise_definition(definition)


class _AttemptGateway:
    """The JobMasterGateway of one attempt: forwards to the job unless the attempt is over."""

    def __init__(self, job: "LocalJob", attempt: int):
        self._job = job
        self._attempt = attempt

    def _current(self) -> bool:
        return self._job.attempt == self._attempt

    def acknowledge_checkpoint(self, ack: dict) -> None:
        if self._current():
            self._job.coordinator.receive_acknowledge(ack)

    def decline_checkpoint(self, checkpoint_id: int, task, reason: str) -> None:
        if self._current():
            self._job.coordinator.receive_decline(checkpoint_id, task, reason)

    def report_metrics(self, task, metrics: dict) -> None:
        if self._current():
            self._job.on_metrics(as_task_id(task), metrics)

    def task_finished(self, task, result: dict) -> None:
        if self._current():
            self._job.on_task_finished(self._attempt, as_task_id(task), result)

    def task_failed(self, task, error: str) -> None:
        if self._current():
            self._job.on_failure(self._attempt, f"task {task_name(as_task_id(task))} failed: {error}",
                                 task=as_task_id(task))


class LocalJob:
    """The JobMaster of one job in the in-process cluster; ``run`` is its driver loop."""

    def __init__(self, definition: dict, *, checkpoint_dir: str, restore: str | dict | None = None,
                 on_event: Callable[[dict], None] | None = None, kill_hook=None, config: dict | None = None):
        self.definition = prepare_definition(definition)
        from engine.plan.job_graph import build_job_graph

        self.job_graph = build_job_graph(self.definition)
        self.checkpoint_dir = checkpoint_dir
        self.storage = CheckpointStorage(checkpoint_dir)
        self.restore_metadata = load_metadata(restore) if isinstance(restore, str) else restore
        self.on_event_callback = on_event
        self.kill_hook = kill_hook
        self.extra_config = dict(config or {})
        self.all_tasks = [task for slot in slot_assignment(self.job_graph) for task in slot]
        self.attempt = 0
        self.restarts = 0
        self._lock = threading.RLock()  # re-entrant: coordinator callbacks may run while it is held
        self._changed = threading.Condition(self._lock)
        self._finished: set[TaskId] = set()  # guarded by: self._lock
        self._results: dict[TaskId, dict] = {}  # guarded by: self._lock
        self._metrics: dict[TaskId, dict] = {}  # guarded by: self._lock
        self._failure: str | None = None  # guarded by: self._lock
        self._canceled = False  # guarded by: self._lock
        self._last_metrics_event = 0.0
        self.events: list[dict] = []
        self.status = "CREATED"
        self.slots: list[Slot] = []
        self.networks: list = []
        checkpointing = self.definition.get("checkpointing") or {}
        self.coordinator = CheckpointCoordinator(
            checkpointing if checkpointing_enabled(self._config()) else {**checkpointing, "interval_ms": 0},
            self.storage, [], self.all_tasks, self._emit, vertices=describe_job_graph(self.job_graph),
            on_failure=lambda message: self.on_failure(self.attempt, f"checkpointing failed: {message}"),
            restored_from=self.restore_metadata)
        self.done = threading.Event()
        self.result: JobResult | None = None

    def _config(self) -> dict:
        return {"checkpoint_storage": self.checkpoint_dir,
                "checkpointing": self.definition.get("checkpointing") or {},
                "max_parallelism": self.definition.get("max_parallelism", 128),
                "mode": self.definition.get("mode", "streaming"), **self.extra_config}

    # -- reports from the subtasks (any thread) --------------------------------------------------
    def on_task_finished(self, attempt: int, task: TaskId, result: dict) -> None:
        with self._lock:  # so that a report of an ended attempt never reaches the coordinator of the next
            if attempt != self.attempt:
                return
            self.coordinator.task_finished(task)
            self._finished.add(task)
            self._results[task] = result
            self._changed.notify_all()

    def on_failure(self, attempt: int, message: str, task: TaskId | None = None) -> None:
        with self._lock:
            if attempt != self.attempt or self._failure is not None:
                return
            self._failure = message
            self._changed.notify_all()
        self._emit({"type": "task_failed", "task": task_name(task) if task else None, "error": message,
                    "attempt": attempt})

    def on_metrics(self, task: TaskId, metrics: dict) -> None:
        with self._lock:
            self._metrics[task] = metrics
            now = time.monotonic()
            if now - self._last_metrics_event < 1.0:
                return
            self._last_metrics_event = now
            event = {"type": "metrics", "vertices": _sum_by_vertex(self._metrics),
                     "tasks": {task_name(t): dict(m) for t, m in self._metrics.items()}}
        self._emit(event)

    def _emit(self, event: dict) -> None:
        self.events.append(event)
        if self.on_event_callback is not None:
            try:
                self.on_event_callback(event)
            except Exception:
                logger.exception("event handler failed")

    def _set_status(self, status: str, **extra: Any) -> None:
        self.status = status
        self._emit({"type": "status", "status": status, "attempt": self.attempt, **extra})

    # -- driver ---------------------------------------------------------------------------------
    def cancel(self) -> None:
        with self._lock:
            self._canceled = True
            self._changed.notify_all()

    def run(self, timeout: float | None = None) -> JobResult:
        started = time.monotonic()
        deadline = None if timeout is None else started + timeout
        strategy = create_restart_strategy(self.definition.get("restart"))
        restore = self.restore_metadata
        status, failure = "FAILED", None
        try:
            while True:
                self._start_attempt(restore)
                outcome = self._wait_for_attempt(deadline)
                if outcome == "finished":
                    status = "FINISHED"
                    break
                self.coordinator.pause("job canceled" if outcome != "failed" else "job failover")
                self._stop_slots()
                if outcome == "canceled":
                    status = "CANCELED"
                    break
                if outcome == "timeout":
                    status, failure = "CANCELED", f"the job did not finish within {timeout} s"
                    break
                failure = self._failure
                delay = strategy.on_failure()
                if delay is None:
                    status = "FAILED"
                    break
                self._set_status("RESTARTING", cause=failure, delay_ms=int(delay * 1000))
                if self._sleep_unless_canceled(delay):
                    status = "CANCELED"
                    break
                restore = self.coordinator.latest_completed() or self.restore_metadata
                self.restarts += 1
        finally:
            self.coordinator.shutdown()
            self._stop_slots()  # finished subtasks just get joined, which releases their threads
            self._close_networks()
        self._set_status(status, **({"cause": failure} if failure and status != "FINISHED" else {}))
        self.result = self._result(status, failure if status != "FINISHED" else None, time.monotonic() - started)
        self.done.set()
        return self.result

    def _start_attempt(self, restore: dict | None) -> None:
        with self._lock:
            self.attempt += 1
            self._finished.clear()
            self._results.clear()
            self._metrics.clear()
            self._failure = None
        assignment = slot_assignment(self.job_graph)
        self._close_networks()
        self.networks = self._create_networks(assignment)
        gateway = _AttemptGateway(self, self.attempt)
        self.slots = [Slot(self.job_graph, tasks, gateway, network, self._config(), restore=restore,
                           kill_hook=self.kill_hook)
                      for tasks, network in zip(assignment, self.networks)]
        # before the slots start: a subtask restored as finished reports so at once, and
        # resume() must not forget that
        self.coordinator.resume(self.slots, self.all_tasks)
        for slot in self.slots:
            slot.start()
        self.coordinator.start()
        self._set_status("RUNNING", restored_from=(restore or {}).get("location"))

    def _create_networks(self, assignment: list[list[TaskId]]) -> list:
        """One network per slot: a shared in-memory one, or (``network: "tcp"``) one TcpNetwork
        per slot as separate processes would have, connected over loopback."""
        capacity = int(self.extra_config.get("channel_capacity", 8))
        if self.extra_config.get("network") != "tcp":
            return [LocalNetwork(capacity)] * len(assignment)
        from engine.runtime.io.tcp_channel import TcpNetwork

        networks = [TcpNetwork(index, assignment, bind_host="127.0.0.1", capacity=capacity)
                    for index in range(len(assignment))]
        peers = [network.peer_info() for network in networks]
        for network in networks:
            network.set_peers(peers)
        return networks

    def _close_networks(self) -> None:
        for network in {id(network): network for network in self.networks}.values():
            network.close()

    def _wait_for_attempt(self, deadline: float | None) -> str:
        with self._lock:
            while True:
                if self._canceled:
                    return "canceled"
                if self._failure is not None:
                    return "failed"
                if len(self._finished) >= len(self.all_tasks):
                    return "finished"
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    return "timeout"
                self._changed.wait(min(1.0, remaining) if remaining is not None else 1.0)

    def _stop_slots(self) -> None:
        for slot in self.slots:
            slot.cancel()
        for slot in self.slots:
            if not slot.join(JOIN_TIMEOUT_S):
                logger.warning("a slot did not stop within %s s", JOIN_TIMEOUT_S)

    def _sleep_unless_canceled(self, delay: float) -> bool:
        deadline = time.monotonic() + delay
        with self._lock:
            while not self._canceled:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                self._changed.wait(remaining)
            return True

    def _result(self, status: str, failure: str | None, duration: float) -> JobResult:
        with self._lock:
            results = dict(self._results)
        collected: dict[str, list] = {}
        counts: dict[str, int] = {}
        for task in sorted(results):
            for node_id, records in (results[task].get("collected") or {}).items():
                collected.setdefault(node_id, []).extend(records)
            for node_id, count in (results[task].get("counts") or {}).items():
                counts[node_id] = counts.get(node_id, 0) + count
        return JobResult(status=status, collected=collected, counts=counts, failure=failure,
                         restarts=self.restarts, checkpoints=self.coordinator.stats.snapshot(),
                         completed_checkpoints=self.coordinator.completed_checkpoints(),
                         latest_checkpoint=self.coordinator.latest_completed(), events=list(self.events),
                         duration_s=duration, checkpoint_dir=self.checkpoint_dir)


def _sum_by_vertex(metrics: dict[TaskId, dict]) -> dict[str, dict[str, float]]:
    vertices: dict[str, dict[str, float]] = {}
    for (vertex, _), values in metrics.items():
        totals = vertices.setdefault(vertex, {})
        for name, value in values.items():
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                totals[name] = totals.get(name, 0) + value
    return vertices


class JobHandle:
    """A job running in the background: savepoints, cancel, wait."""

    def __init__(self, job: LocalJob, thread: threading.Thread):
        self.job = job
        self._thread = thread

    @property
    def status(self) -> str:
        return self.job.status

    @property
    def events(self) -> list[dict]:
        return self.job.events

    def trigger_savepoint(self, target: str | None = None) -> Future:
        """A savepoint now; the future's result is its location (a directory with ``_metadata``)."""
        return self.job.coordinator.trigger_savepoint(target)

    def trigger_checkpoint(self) -> Future:
        return self.job.coordinator.trigger_checkpoint()

    def cancel(self) -> None:
        self.job.cancel()

    def wait(self, timeout: float | None = None) -> JobResult:
        if not self.job.done.wait(timeout):
            raise TimeoutError(f"the job did not end within {timeout} s")
        return self.job.result

    def metrics(self) -> dict:
        with self.job._lock:
            return {task_name(task): dict(values) for task, values in self.job._metrics.items()}


class LocalCluster:
    """Runs jobs in this process: every slot a set of threads, every channel a local queue.

    ``config`` is merged into every slot's configuration (``batch_size``,
    ``channel_capacity``, ...). ``checkpoint_dir`` defaults to a fresh temporary directory
    per job.
    """

    def __init__(self, checkpoint_dir: str | None = None, config: dict | None = None):
        self.checkpoint_dir = checkpoint_dir
        self.config = dict(config or {})

    def submit(self, definition: dict, *, restore: str | dict | None = None,
               on_event: Callable[[dict], None] | None = None, kill_hook=None, timeout: float | None = None,
               checkpoint_dir: str | None = None) -> JobHandle:
        directory = checkpoint_dir or self.checkpoint_dir or tempfile.mkdtemp(prefix="checkpoints-")
        job = LocalJob(definition, checkpoint_dir=directory, restore=restore, on_event=on_event,
                       kill_hook=kill_hook, config=self.config)
        thread = threading.Thread(target=job.run, args=(timeout,), name="local-job-master", daemon=True)
        thread.start()
        return JobHandle(job, thread)

    def run(self, definition: dict, *, restore: str | dict | None = None,
            on_event: Callable[[dict], None] | None = None, kill_hook=None, timeout: float | None = None,
            checkpoint_dir: str | None = None) -> JobResult:
        """Run a job to its end in the calling thread; a timeout cancels it (status CANCELED)."""
        directory = checkpoint_dir or self.checkpoint_dir or tempfile.mkdtemp(prefix="checkpoints-")
        job = LocalJob(definition, checkpoint_dir=directory, restore=restore, on_event=on_event,
                       kill_hook=kill_hook, config=self.config)
        return job.run(timeout)


__all__ = ["CheckpointException", "JobHandle", "JobResult", "LocalCluster", "LocalJob", "slot_assignment"]
