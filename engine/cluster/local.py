"""The in-process cluster: a whole job on threads, for fast tests and the studio's preview.

It runs exactly the task code that runs in Spark slots -- ``Slot``, ``StreamTask``, the
checkpoint coordinator, checkpoint storage -- with all channels in memory
(``LocalNetwork``). Slot i hosts subtask i of every vertex, as on Spark.

The JobMaster part (:class:`LocalJob`) drives one job: it starts the slots and the
coordinator, collects the subtasks' reports through a :class:`JobMasterGateway`, and on a
failure restarts the whole job from the latest completed checkpoint, as the restart
strategy allows (each restart is an *attempt*; reports from an earlier attempt are
ignored). Tests inject failures with a ``kill_hook`` (see ``engine.runtime.kill_hooks``).

Region by region (batch mode, or any blocking exchange), as on Spark: the planner's
pipelined regions run one after another as their blocking inputs complete (the scheduling
strategy decides), blocking exchanges go through partition files
(``engine.cluster.shuffle``), no checkpoints are taken, and a failure restarts only the
failover set -- the failed region and the regions consuming its results -- which re-read
their blocking inputs. ``{"type": "region", "event": "scheduled" | "finished" |
"canceled", "region": "r<i>"}`` events tell which region ran when.

Usage::

    result = LocalCluster().run(definition, timeout=30)
    result.status, result.collected["out"], result.checkpoints

    handle = LocalCluster().submit(definition, on_event=print)
    location = handle.trigger_savepoint().result(timeout=10)
    handle.cancel(); handle.wait()

    location = handle.stop_with_savepoint(drain=False).result(timeout=10)
    handle.wait().status                           # FINISHED; restore=location continues

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
from collections import deque
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any, Callable

from engine.checkpoint.coordinator import CheckpointCoordinator, CheckpointException, describe_job_graph
from engine.checkpoint.storage import CheckpointStorage, join, load_metadata
from engine.runtime.gateway import TaskId, as_task_id, task_name
from engine.runtime.io.network import LocalNetwork, output_channel_ids
from engine.runtime.restart_strategy import create_restart_strategy
from engine.runtime.slot import Slot
from engine.runtime.stream_task import checkpointing_enabled, has_blocking_exchanges

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


class _RegionAttempt:
    """One run of one pipelined region (region mode): its slots and what its subtasks reported."""

    def __init__(self, number: int, region, slots_tasks: list[list[TaskId]]):
        self.number = number
        self.region = region
        self.slots_tasks = slots_tasks
        self.tasks = {task for tasks in slots_tasks for task in tasks}
        self.finished: set[TaskId] = set()
        self.failure: str | None = None
        self.failed_task: TaskId | None = None
        self.slots: list[Slot] = []
        self.networks: list = []

    @property
    def succeeded(self) -> bool:
        return self.failure is None and self.finished >= self.tasks


class _RegionGateway:
    """The JobMasterGateway of one region attempt: forwards while that attempt is current."""

    def __init__(self, job: "LocalJob", attempt: _RegionAttempt):
        self._job = job
        self._attempt = attempt

    def _current(self) -> bool:
        return self._job._region_attempts.get(self._attempt.region.index) is self._attempt

    def acknowledge_checkpoint(self, ack: dict) -> None:
        pass  # region mode takes no checkpoints

    def decline_checkpoint(self, checkpoint_id: int, task, reason: str) -> None:
        pass

    def report_metrics(self, task, metrics: dict) -> None:
        if self._current():
            self._job.on_metrics(as_task_id(task), metrics)

    def task_finished(self, task, result: dict) -> None:
        self._job.on_region_task_finished(self._attempt, as_task_id(task), result)

    def task_failed(self, task, error: str) -> None:
        self._job.on_region_task_failed(self._attempt, as_task_id(task), error)


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
        self.region_mode = has_blocking_exchanges(self.job_graph)
        """Whether regions run one by one (batch mode, blocking exchanges): no checkpoints then."""
        self._region_attempts: dict[int, _RegionAttempt] = {}  # guarded by: self._lock; current per region
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
        periodic = checkpointing_enabled(self._config()) and not self.region_mode
        self.coordinator = CheckpointCoordinator(
            checkpointing if periodic else {**checkpointing, "interval_ms": 0},
            self.storage, [], self.all_tasks, self._emit, vertices=describe_job_graph(self.job_graph),
            on_failure=lambda message: self.on_failure(self.attempt, f"checkpointing failed: {message}"),
            restored_from=self.restore_metadata)
        self.done = threading.Event()
        self.result: JobResult | None = None

    def _config(self) -> dict:
        return {"checkpoint_storage": self.checkpoint_dir,
                "checkpointing": self.definition.get("checkpointing") or {},
                "max_parallelism": self.definition.get("max_parallelism", 128),
                "mode": self.definition.get("mode", "streaming"),
                "debloat": self.definition.get("debloat") or {}, **self.extra_config}

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
        if self.region_mode:
            return self._run_regions(timeout)
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
                ended = self._wait_to_restart(strategy, failure)
                if ended is not None:
                    status = ended
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

    # -- region mode (batch, blocking exchanges) ------------------------------------------------
    def _run_regions(self, timeout: float | None) -> JobResult:
        """Run the regions as the scheduling strategy releases them; fail over region by region."""
        from engine.cluster.shuffle import FileShuffleMaster
        from engine.plan.compiler import compile_job_graph

        started = time.monotonic()
        deadline = None if timeout is None else started + timeout
        restart_strategy = create_restart_strategy(self.definition.get("restart"))
        plan = compile_job_graph(self.job_graph)
        shuffle = FileShuffleMaster.for_new_run(self.extra_config.get("shuffle_dir") or join(self.checkpoint_dir,
                                                                                              "shuffle"))
        ready: deque = deque()
        plan.execution_graph.reset_partition_states()
        scheduling = plan.scheduling_strategy(ready.append)
        status, failure = "FAILED", None
        self._set_status("RUNNING", restored_from=None)
        try:
            scheduling.start_scheduling()
            while True:
                while ready:
                    self._launch_region(ready.popleft(), shuffle)
                outcome, attempt = self._wait_for_regions(deadline)
                if outcome in ("canceled", "timeout"):
                    status = "CANCELED"
                    failure = f"the job did not finish within {timeout} s" if outcome == "timeout" else None
                    break
                if outcome == "finished":
                    status = "FINISHED"
                    break
                if outcome == "region_finished":
                    self._region_finished(attempt, scheduling)
                    continue
                failure = attempt.failure
                to_restart = self._stop_failover_set(plan, attempt, shuffle)
                ended = self._wait_to_restart(restart_strategy, failure)
                if ended is not None:
                    status = ended
                    break
                self.restarts += 1
                failure = None
                scheduling.restart_tasks(to_restart)
                self._set_status("RUNNING", restored_from=None)
        finally:
            self.coordinator.shutdown()
            with self._lock:
                attempts = list(self._region_attempts.values())
                self._region_attempts.clear()
            self._stop_region_attempts(attempts)
            shuffle.cleanup()
        self._set_status(status, **({"cause": failure} if failure and status != "FINISHED" else {}))
        self.result = self._result(status, failure if status != "FINISHED" else None, time.monotonic() - started)
        self.done.set()
        return self.result

    def _launch_region(self, region, shuffle) -> None:
        from engine.cluster.shuffle import ShuffleNetwork
        from engine.cluster.spark_slot import region_slots

        slots_tasks = region_slots(region)
        with self._lock:
            self.attempt += 1
            attempt = _RegionAttempt(self.attempt, region, slots_tasks)
            self._region_attempts[region.index] = attempt
        blocking = {edge.id for edge in self.job_graph.edges if edge.is_blocking}
        attempt.networks = [ShuffleNetwork(network, shuffle, blocking)
                            for network in self._create_networks(slots_tasks)]
        gateway = _RegionGateway(self, attempt)
        config = {**self._config(), "checkpointing_enabled": False}
        attempt.slots = [Slot(self.job_graph, tasks, gateway, network, config, kill_hook=self.kill_hook)
                         for tasks, network in zip(slots_tasks, attempt.networks)]
        self._emit({"type": "region", "event": "scheduled", "region": f"r{region.index}",
                    "vertices": {vertex: list(subtasks) for vertex, subtasks in region.vertices.items()}})
        for slot in attempt.slots:
            slot.start()

    def on_region_task_finished(self, attempt: _RegionAttempt, task: TaskId, result: dict) -> None:
        with self._lock:
            if self._region_attempts.get(attempt.region.index) is not attempt:
                return
            attempt.finished.add(task)
            self._results[task] = result
            self._changed.notify_all()

    def on_region_task_failed(self, attempt: _RegionAttempt, task: TaskId, error: str) -> None:
        with self._lock:
            if self._region_attempts.get(attempt.region.index) is not attempt or attempt.failure is not None:
                return
            attempt.failure = f"task {task_name(task)} failed: {error}"
            attempt.failed_task = task
            self._changed.notify_all()
        self._emit({"type": "task_failed", "task": task_name(task), "error": attempt.failure,
                    "attempt": attempt.number})

    def _wait_for_regions(self, deadline: float | None) -> tuple[str, _RegionAttempt | None]:
        with self._lock:
            while True:
                if self._canceled:
                    return "canceled", None
                attempts = list(self._region_attempts.values())
                failed = next((a for a in attempts if a.failure is not None), None)
                if failed is not None:
                    return "failed", failed
                done = next((a for a in attempts if a.succeeded), None)
                if done is not None:
                    return "region_finished", done
                if not attempts and len(self._finished) >= len(self.all_tasks):
                    return "finished", None
                if not attempts:  # nothing runs and nothing is ready: cannot happen with a valid plan
                    return "failed", self._stuck_attempt()
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    return "timeout", None
                self._changed.wait(min(1.0, remaining) if remaining is not None else 1.0)

    def _stuck_attempt(self) -> _RegionAttempt:
        attempt = _RegionAttempt(-1, None, [])
        attempt.failure = "no region can run: their blocking inputs never complete"
        return attempt

    def _region_finished(self, attempt: _RegionAttempt, scheduling) -> None:
        from engine.plan.execution_ids import ExecutionState, ExecutionVertexID

        with self._lock:
            del self._region_attempts[attempt.region.index]
            self._finished |= attempt.tasks
        self._stop_region_attempts([attempt])
        self._emit({"type": "region", "event": "finished", "region": f"r{attempt.region.index}"})
        for vertex, index in sorted(attempt.tasks):
            scheduling.on_execution_state_change(ExecutionVertexID(vertex, index), ExecutionState.FINISHED)

    def _stop_failover_set(self, plan, failed: _RegionAttempt, shuffle) -> list:
        """Cancel the regions that must run again, forget their results and partitions."""
        from engine.plan.execution_ids import ExecutionVertexID

        if failed.region is None:
            raise RuntimeError(failed.failure)
        vertex, index = failed.failed_task or min(failed.tasks)
        to_restart = list(plan.failover_strategy().tasks_to_restart(ExecutionVertexID(vertex, index)))
        regions = {plan.regions.region_of(task).index for task in to_restart}
        with self._lock:
            stopping = [a for i, a in self._region_attempts.items() if i in regions]
            for attempt in stopping:
                del self._region_attempts[attempt.region.index]
        self._stop_region_attempts(stopping)
        for attempt in stopping:
            self._emit({"type": "region", "event": "canceled", "region": f"r{attempt.region.index}"})
        restarted = {(task.job_vertex_id, task.subtask_index) for task in to_restart}
        with self._lock:
            self._finished -= restarted
            for task in restarted:
                self._results.pop(task, None)
        shuffle.release_partitions_of(self._blocking_outputs(restarted))
        return to_restart

    def _blocking_outputs(self, tasks: set[TaskId]) -> list:
        channels = []
        for vertex, index in sorted(tasks):
            producers = self.job_graph.vertex(vertex).parallelism
            for edge in self.job_graph.outputs_of(vertex):
                if edge.is_blocking:
                    consumers = self.job_graph.vertex(edge.target).parallelism
                    channels.extend(output_channel_ids(edge, index, producers, consumers))
        return channels

    def _stop_region_attempts(self, attempts: list[_RegionAttempt]) -> None:
        for attempt in attempts:
            for slot in attempt.slots:
                slot.cancel()
        for attempt in attempts:
            for slot in attempt.slots:
                if not slot.join(JOIN_TIMEOUT_S):
                    logger.warning("a slot of region r%s did not stop within %s s", attempt.region.index,
                                   JOIN_TIMEOUT_S)
            for network in {id(network): network for network in attempt.networks}.values():
                network.close()

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

    def _wait_to_restart(self, strategy, failure: str | None) -> str | None:
        """Ask the restart strategy after a failure; announce RESTARTING and wait its delay.

        Returns the job's final status instead when it ends here: FAILED when the strategy
        gives up, CANCELED when the job is canceled during the delay; None to restart.
        """
        delay = strategy.on_failure()
        if delay is None:
            return "FAILED"
        self._set_status("RESTARTING", cause=failure, delay_ms=int(delay * 1000))
        return "CANCELED" if self._sleep_unless_canceled(delay) else None

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
        if self.job.region_mode:
            return _failed_future(_NO_SAVEPOINTS)
        return self.job.coordinator.trigger_savepoint(target)

    def stop_with_savepoint(self, drain: bool = False, target: str | None = None) -> Future:
        """Take a savepoint and end the job with it (it ends FINISHED); the future yields its location.

        Without drain the sources stop right after the savepoint's barrier and the job ends
        once it completed: restoring from it continues where the job stopped, nothing lost,
        nothing doubled. With drain the sources first emit the maximum watermark and
        EndOfData, so every window fires and every operator finishes before the savepoint.
        If the savepoint fails, a job stopped without drain goes on; one being drained
        fails over from its latest checkpoint (its sources had already ended their input).
        """
        if self.job.region_mode:
            return _failed_future(_NO_SAVEPOINTS)
        return self.job.coordinator.trigger_savepoint(target, stop=True, drain=drain)

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


_NO_SAVEPOINTS = "this job takes no savepoints: it runs in batch mode or has blocking exchanges"


def _failed_future(message: str) -> Future:
    future: Future = Future()
    future.set_exception(CheckpointException(message))
    return future


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
