"""The JobMaster on Spark: the driver that runs a pipeline as a barrier stage.

A run's slots are the partitions of one barrier stage (``rdd.barrier().mapPartitions``):
Spark starts all of them together or none, which is what a pipelined region needs. Slot
``i`` hosts subtask ``i`` of every job vertex whose parallelism exceeds ``i`` (slot
sharing). Each slot connects back to this JobMaster over the control channel
(``engine.cluster.control``); the checkpoint coordinator talks to the slots through it.

Life cycle of ``run()``: each *attempt* starts the barrier stage in a thread (it blocks in
``collect``), waits until every slot registered, resumes checkpointing and reports
RUNNING, then waits for the first of: every task finished, a task or the stage failed,
``cancel()``, or a completed stop-with-savepoint. A failure restarts the job from the
latest completed checkpoint while the restart strategy allows (RESTARTING), else the
job ends FAILED. Spark's own task and stage retries are off: recovery is ours.

Threading model: ``run`` owns the driver thread; control reader threads, the coordinator's
timer and the stage thread report through the methods below, which take ``self._lock``.
Messages of an earlier attempt (a slot still shutting down) are ignored.
"""
from __future__ import annotations

import logging
import threading
import time
import uuid
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any, Callable

from engine.checkpoint.coordinator import CheckpointCoordinator, describe_job_graph
from engine.checkpoint.storage import CheckpointStorage
from engine.cluster.control import ControlServer, RemoteSlot
from engine.cluster.spark_session import create_spark_session, spark_master_for
from engine.cluster.spark_slot import SlotPayload, run_slot_partition, slot_tasks
from engine.plan.job_graph import build_job_graph
from engine.runtime.gateway import TaskId, as_task_id
from engine.runtime.restart_strategy import create_restart_strategy

logger = logging.getLogger(__name__)

EventSink = Callable[[dict[str, Any]], None]
REGISTRATION_TIMEOUT_S = 120
METRICS_EVENT_INTERVAL_S = 1.0
STAGE_STOP_TIMEOUT_S = 30


@dataclass
class JobOutcome:
    """How a job ended: status FINISHED | CANCELED | FAILED, and what its sinks collected."""

    status: str
    failure_cause: str | None = None
    collected: dict[str, list] = field(default_factory=dict)
    checkpoint_dir: str = ""


class _Attempt:
    """One execution of the job's barrier stage; its slots, finished tasks and failure."""

    def __init__(self, number: int, slot_count: int):
        self.number = number
        self.slot_count = slot_count
        self.registered: dict[int, RemoteSlot] = {}
        self.finished: set[TaskId] = set()
        self.failure: str | None = None
        self.stage_done = False


class SparkJobMaster:
    """Runs one normalised pipeline definition on Spark; ``cancel`` and savepoints are thread-safe.

    ``on_event`` receives plain dicts with a ``type``: ``status`` (``{"status", "cause"}``),
    ``checkpoint`` (the coordinator's events), ``metrics`` (per-vertex sums about every
    second) and ``finished`` (the collected records).
    """

    def __init__(self, definition: dict[str, Any], *, checkpoint_dir: str, on_event: EventSink,
                 spark_master: str | None = None, spark_session=None, restore: str | None = None,
                 advertised_host: str = "127.0.0.1"):
        self.definition = definition
        self.checkpoint_dir = checkpoint_dir
        self._on_event = on_event
        self._spark_master = spark_master
        self._session = spark_session
        self._restore = restore
        self._advertised_host = advertised_host
        self.job_graph = build_job_graph(definition)
        self.slots_tasks: list[list[TaskId]] = slot_tasks(self.job_graph)
        self._all_tasks = sorted({task for tasks in self.slots_tasks for task in tasks})
        self._restart_strategy = create_restart_strategy(definition.get("restart"))
        self._lock = threading.Lock()  # guards: the attempt, the flags and the dicts below
        self._changed = threading.Condition(self._lock)
        self._attempt = _Attempt(0, len(self.slots_tasks))
        self._collected: dict[TaskId, dict[str, list]] = {}  # per subtask: its collect sinks' records
        self._metrics: dict[TaskId, dict] = {}
        self._last_metrics_event = 0.0
        self._cancelled = False
        self._stopped_with_savepoint = False
        self._coordinator: CheckpointCoordinator | None = None
        self.job_group = f"pipeline-{uuid.uuid4().hex[:12]}"

    # -- driving the job -------------------------------------------------------------

    def run(self) -> JobOutcome:
        session = self._session or create_spark_session(
            self.definition.get("name", "pipeline"), spark_master_for(len(self.slots_tasks), self._spark_master))
        server = ControlServer(self._gateway_for, self._slot_registered, self._slot_disconnected)
        restore = self._load_metadata(self._restore) if self._restore else None
        self._coordinator = self._create_coordinator(restore)
        try:
            while True:
                result = self._run_attempt(session, server.port, restore)
                if result != "failed" or not self._may_restart():
                    return self._conclude(result)
                restore = self._coordinator.latest_completed() if self._coordinator else None
                restore = restore or (self._load_metadata(self._restore) if self._restore else None)
        finally:
            if self._coordinator:
                self._coordinator.shutdown()
            server.close()

    def cancel(self) -> None:
        """Stop the job: cancel the slots; ``run`` then returns CANCELED."""
        with self._lock:
            if self._cancelled:
                return
            self._cancelled = True
            slots = list(self._attempt.registered.values())
            self._changed.notify_all()
        for slot in slots:
            slot.cancel()

    def trigger_savepoint(self, target_directory: str | None = None) -> Future:
        """Take a savepoint; the future's result is its location, its exception the cause."""
        if self._coordinator is None:
            return _failed_future("the job takes no savepoints: it is not running, or runs in batch mode")
        return self._coordinator.trigger_savepoint(target_directory)

    def stop_with_savepoint(self, drain: bool = False, target_directory: str | None = None) -> Future:
        """Take a savepoint, then stop the job, which ends FINISHED; restoring continues from it.

        Without drain the sources stop right after the savepoint: records behind its barrier
        are in the savepoint's state or not yet emitted, and two-phase-commit sinks only
        commit what a completed checkpoint covers, so a restore loses and doubles nothing.
        """
        if drain:
            return _failed_future("stop with drain is not supported yet: stop without drain instead")
        savepoint = self.trigger_savepoint(target_directory)
        savepoint.add_done_callback(self._stop_after_savepoint)
        return savepoint

    def _stop_after_savepoint(self, savepoint: Future) -> None:
        if savepoint.exception() is not None:
            return  # the job goes on, as Flink's does when the savepoint fails
        with self._lock:
            self._stopped_with_savepoint = True
            slots = list(self._attempt.registered.values())
            self._changed.notify_all()
        for slot in slots:
            slot.cancel()

    def _run_attempt(self, session, control_port: int, restore: dict | None) -> str:
        """Run the barrier stage once; return finished | failed | canceled | stopped."""
        with self._lock:
            self._attempt = attempt = _Attempt(self._attempt.number + 1, len(self.slots_tasks))
        stage = threading.Thread(target=self._run_stage, args=(session, control_port, restore, attempt),
                                 name=f"barrier-stage-{attempt.number}", daemon=True)
        stage.start()
        if self._wait_for(attempt, lambda: len(attempt.registered) == attempt.slot_count, REGISTRATION_TIMEOUT_S):
            if self._coordinator:
                self._coordinator.resume(list(attempt.registered.values()), self._all_tasks)
            self._emit({"type": "status", "status": "RUNNING", "attempt": attempt.number})
            self._wait_for(attempt, lambda: attempt.finished >= set(self._all_tasks), None)
        result = self._attempt_result(attempt)
        if result != "finished":
            self._stop_stage(session, attempt)
        stage.join(timeout=STAGE_STOP_TIMEOUT_S)
        return result

    def _attempt_result(self, attempt: _Attempt) -> str:
        with self._lock:
            if self._cancelled:
                return "canceled"
            if self._stopped_with_savepoint:
                return "stopped"
            if attempt.failure is None and attempt.finished >= set(self._all_tasks):
                return "finished"
            if attempt.failure is None:
                attempt.failure = "the barrier stage ended before every task finished"
            return "failed"

    def _stop_stage(self, session, attempt: _Attempt) -> None:
        if self._coordinator:
            self._coordinator.pause()
        for slot in list(attempt.registered.values()):
            slot.cancel()
        session.sparkContext.cancelJobGroup(self.job_group)

    def _may_restart(self) -> bool:
        """Apply the restart strategy after a failed attempt; wait its delay unless cancelled."""
        cause = self._attempt.failure
        delay = self._restart_strategy.on_failure()
        if delay is None:
            return False
        self._emit({"type": "status", "status": "RESTARTING", "cause": cause,
                    "restart_strategy": self._restart_strategy.describe()})
        with self._lock:
            self._changed.wait_for(lambda: self._cancelled, timeout=delay)
            return not self._cancelled

    def _wait_for(self, attempt: _Attempt, condition: Callable[[], bool], timeout: float | None) -> bool:
        """Wait until ``condition`` holds; False when the attempt failed or ended, or on cancel."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._lock:
            while not condition():
                if attempt.failure or attempt.stage_done or self._cancelled or self._stopped_with_savepoint:
                    return False
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    attempt.failure = (f"only {len(attempt.registered)} of {attempt.slot_count} slots started "
                                       f"within {timeout}s: does the cluster offer {attempt.slot_count} cores?")
                    return False
                self._changed.wait(remaining if remaining is not None else 1.0)
            return True

    def _conclude(self, result: str) -> JobOutcome:
        status = {"finished": "FINISHED", "stopped": "FINISHED", "canceled": "CANCELED"}.get(result, "FAILED")
        cause = self._attempt.failure if status == "FAILED" else None
        with self._lock:
            collected = self._collected_by_node()
        if collected:
            self._emit({"type": "finished", "collected": collected})
        self._emit({"type": "status", "status": status, **({"cause": cause} if cause else {})})
        return JobOutcome(status, cause, collected, self.checkpoint_dir)

    def _run_stage(self, session, control_port: int, restore: dict | None, attempt: _Attempt) -> None:
        payload = SlotPayload(definition=self.definition, slots_tasks=self.slots_tasks,
                              control_address=(self._advertised_host, control_port),
                              checkpoint_dir=self.checkpoint_dir, restore=restore, attempt=attempt.number)
        context = session.sparkContext
        try:
            context.setJobGroup(self.job_group, f"pipeline {self.definition.get('name')}", interruptOnCancel=True)
            slot_count = len(self.slots_tasks)
            rdd = context.parallelize(range(slot_count), slot_count).barrier()
            rdd.mapPartitions(run_slot_partition(payload)).collect()
        except Exception as error:  # a failed slot fails the whole barrier stage
            self._fail(attempt, _stage_failure_message(error))
        finally:
            with self._lock:
                attempt.stage_done = True
                self._changed.notify_all()

    def _create_coordinator(self, restore: dict | None) -> CheckpointCoordinator | None:
        checkpointing = self.definition.get("checkpointing", {})
        if self.definition.get("mode") == "batch" or checkpointing.get("enabled") is False:
            return None
        coordinator = CheckpointCoordinator(
            checkpointing, CheckpointStorage(self.checkpoint_dir), [], self._all_tasks,
            lambda event: self._emit({"type": "checkpoint", **event}),
            vertices=describe_job_graph(self.job_graph), on_failure=self._checkpointing_failed,
            restored_from=restore)
        coordinator.pause()
        coordinator.start()
        return coordinator

    def _load_metadata(self, location: str) -> dict:
        return CheckpointStorage(self.checkpoint_dir).load_metadata(location)

    def _checkpointing_failed(self, message: str) -> None:
        self._fail(self._attempt, message)

    def _fail(self, attempt: _Attempt, message: str) -> None:
        with self._lock:
            if attempt.failure is None and not self._cancelled and not self._stopped_with_savepoint:
                attempt.failure = message
            self._changed.notify_all()

    # -- control channel callbacks ---------------------------------------------------

    def _gateway_for(self, attempt_number: int) -> "_AttemptGateway":
        return _AttemptGateway(self, attempt_number)

    def _slot_registered(self, slot: RemoteSlot) -> None:
        with self._lock:
            if slot.attempt != self._attempt.number:
                slot.cancel()  # a straggler of an earlier attempt
                return
            self._attempt.registered[slot.slot_index] = slot
            self._changed.notify_all()

    def _slot_disconnected(self, slot: RemoteSlot) -> None:
        with self._lock:
            attempt = self._attempt
            if slot.attempt != attempt.number:
                return
            slot_done = all(task in attempt.finished for task in self.slots_tasks[slot.slot_index])
            if not slot_done and attempt.failure is None and not self._cancelled:
                attempt.failure = f"slot {slot.slot_index} lost its connection to the JobMaster"
            self._changed.notify_all()

    def slot_pids(self) -> dict[int, int]:
        """The process id of each registered slot of the current attempt (for tests and tools)."""
        with self._lock:
            return {index: slot.pid for index, slot in self._attempt.registered.items()}

    def _is_current(self, attempt_number: int) -> bool:
        return attempt_number == self._attempt.number

    def _acknowledge_checkpoint(self, ack: dict) -> None:
        if self._coordinator:
            self._coordinator.receive_acknowledge(ack)

    def _decline_checkpoint(self, checkpoint_id: int, task, reason: str) -> None:
        if self._coordinator:
            self._coordinator.receive_decline(checkpoint_id, as_task_id(task), reason)

    def _report_metrics(self, task, metrics: dict) -> None:
        with self._lock:
            task = as_task_id(task)
            self._metrics[task] = metrics
            if metrics.get("collected"):
                self._collected[task] = metrics["collected"]
            now = time.monotonic()
            if now - self._last_metrics_event < METRICS_EVENT_INTERVAL_S:
                return
            self._last_metrics_event = now
            event = {"type": "metrics", "vertices": _sum_by_vertex(self._metrics),
                     "collected": self._collected_by_node()}
        self._emit(event)

    def _task_finished(self, task, result: dict) -> None:
        task = as_task_id(task)
        if self._coordinator:
            self._coordinator.task_finished(task)
        with self._lock:
            self._attempt.finished.add(task)
            if result.get("collected"):
                self._collected[task] = result["collected"]
            self._changed.notify_all()

    def _task_failed(self, task, error: str) -> None:
        vertex, index = as_task_id(task)
        summary, _, details = error.partition("\n")
        if details:
            logger.info("task %s#%s failed: %s\n%s", vertex, index, summary, details)
        self._fail(self._attempt, f"task {vertex}#{index} failed: {summary}")

    def _collected_by_node(self) -> dict[str, list]:
        """Each collect sink's records over its subtasks, in subtask order (caller holds the lock)."""
        by_node: dict[str, list] = {}
        for task in sorted(self._collected):
            for node_id, records in self._collected[task].items():
                by_node.setdefault(node_id, []).extend(records)
        return by_node

    def _emit(self, event: dict[str, Any]) -> None:
        try:
            self._on_event(event)
        except Exception:
            logger.exception("event sink failed for %s", event.get("type"))


class _AttemptGateway:
    """The ``JobMasterGateway`` of one attempt's slots: drops what arrives after a restart."""

    def __init__(self, job_master: SparkJobMaster, attempt: int):
        self._job_master = job_master
        self._attempt = attempt

    def acknowledge_checkpoint(self, ack: dict) -> None:
        if self._job_master._is_current(self._attempt):
            self._job_master._acknowledge_checkpoint(ack)

    def decline_checkpoint(self, checkpoint_id: int, task, reason: str) -> None:
        if self._job_master._is_current(self._attempt):
            self._job_master._decline_checkpoint(checkpoint_id, task, reason)

    def report_metrics(self, task, metrics: dict) -> None:
        if self._job_master._is_current(self._attempt):
            self._job_master._report_metrics(task, metrics)

    def task_finished(self, task, result: dict) -> None:
        if self._job_master._is_current(self._attempt):
            self._job_master._task_finished(task, result)

    def task_failed(self, task, error: str) -> None:
        if self._job_master._is_current(self._attempt):
            self._job_master._task_failed(task, error)


def _failed_future(message: str) -> Future:
    future: Future = Future()
    future.set_exception(RuntimeError(message))
    return future


def _sum_by_vertex(metrics: dict[TaskId, dict]) -> dict[str, dict[str, float]]:
    """Per-vertex totals of the subtasks' latest numeric metrics."""
    vertices: dict[str, dict[str, float]] = {}
    for (vertex, _), values in metrics.items():
        totals = vertices.setdefault(vertex, {})
        for name, value in values.items():
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                totals[name] = totals.get(name, 0) + value
    return vertices


def _stage_failure_message(error: Exception) -> str:
    """The user's error from a Spark failure, without the JVM's stack traces."""
    text = str(error)
    for marker in ("SlotFailure: ", "RuntimeError: "):
        if marker in text:
            return text.split(marker, 1)[1].splitlines()[0].strip()
    first_line = text.strip().splitlines()[0][:500] if text.strip() else type(error).__name__
    return f"the barrier stage failed: {first_line}"
