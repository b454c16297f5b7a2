"""The JobMaster on Spark: the driver that runs each pipelined region as a barrier stage.

The planner (``engine.plan``) cuts the job into pipelined regions; each region runs as one
Spark barrier stage (``rdd.barrier().mapPartitions``), which starts all its slots together
or none, as a pipelined region needs. Slot ``i`` of a region hosts the ``i``-th subtask of
each of the region's job vertices (slot sharing). Independent regions run concurrently as
separate Spark jobs; a region that reads blocking results starts when the scheduling
strategy says its inputs are complete. Every slot connects back to this JobMaster over
the control channel (``engine.cluster.control``).

Recovery
    A job whose exchanges are all pipelined takes checkpoints; a failure restarts the whole
    job from the latest completed checkpoint (RESTARTING). A job with blocking exchanges
    (batch mode, or blocking edges) takes none: a failure restarts only the planner's
    failover set, the failed region and the consumers that must re-read its results, which
    re-run from their blocking inputs. Both obey the restart strategy; Spark's own task and
    stage retries are off.

Threading model
    ``run`` owns the driver thread and is the only caller of the planner's scheduling
    strategy. Stage threads (blocked in ``collect``), control reader threads and the
    coordinator's timer report through methods that take ``self._lock`` and notify
    ``self._changed``; messages from a stage that is no longer current are ignored.
"""
from __future__ import annotations

import logging
import threading
import time
import uuid
from collections import deque
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any, Callable

from engine.checkpoint.coordinator import CheckpointCoordinator, describe_job_graph
from engine.checkpoint.storage import CheckpointStorage, join
from engine.cluster.control import ControlServer, RemoteSlot
from engine.cluster.shuffle import FileShuffleMaster
from engine.cluster.spark_session import create_spark_session, spark_master_for
from engine.cluster.spark_slot import SlotPayload, region_slots, run_slot_partition
from engine.plan.compiler import compile_job_graph
from engine.plan.execution_ids import ExecutionState, ExecutionVertexID
from engine.plan.job_graph import build_job_graph
from engine.runtime.gateway import TaskId, as_task_id
from engine.runtime.restart_strategy import create_restart_strategy

logger = logging.getLogger(__name__)

EventSink = Callable[[dict[str, Any]], None]
REGISTRATION_TIMEOUT_S = 120
METRICS_EVENT_INTERVAL_S = 1.0
STAGE_STOP_TIMEOUT_S = 30
EXECUTOR_WAIT_S = 60


@dataclass
class JobOutcome:
    """How a job ended: status FINISHED | CANCELED | FAILED, and what its sinks collected."""

    status: str
    failure_cause: str | None = None
    collected: dict[str, list] = field(default_factory=dict)
    checkpoint_dir: str = ""


class _Stage:
    """One barrier stage: the slots of one region in one try, and what they reported."""

    def __init__(self, stage_id: int, region, slots_tasks: list[list[TaskId]]):
        self.id = stage_id
        self.region = region
        self.slots_tasks = slots_tasks
        self.tasks = {task for tasks in slots_tasks for task in tasks}
        self.registered: dict[int, RemoteSlot] = {}
        self.finished: set[TaskId] = set()
        self.failure: str | None = None
        self.done = False  # the stage's Spark job returned
        self.thread: threading.Thread | None = None

    @property
    def succeeded(self) -> bool:
        return self.failure is None and self.finished >= self.tasks

    @property
    def all_registered(self) -> bool:
        return len(self.registered) == len(self.slots_tasks)


class SparkJobMaster:
    """Runs one normalised pipeline definition on Spark; ``cancel`` and savepoints are thread-safe.

    ``on_event`` receives plain dicts with a ``type``: ``status`` (``{"status", "cause"}``),
    ``region`` (``{"event": "scheduled"|"finished"|"canceled", "region", "vertices"}``),
    ``checkpoint`` (the coordinator's events), ``metrics`` (per-vertex sums about every
    second) and ``finished`` (the collected records).
    """

    def __init__(self, definition: dict[str, Any], *, checkpoint_dir: str, on_event: EventSink,
                 spark_master: str | None = None, spark_session=None, restore: str | None = None,
                 advertised_host: str = "127.0.0.1", shuffle_root: str | None = None, pin_slots: bool = True):
        self.definition = definition
        self._pin_slots = pin_slots
        self.checkpoint_dir = checkpoint_dir
        self._on_event = on_event
        self._spark_master = spark_master
        self._session = spark_session
        self._restore = restore
        self._advertised_host = advertised_host
        self.job_graph = build_job_graph(definition)
        self.plan = compile_job_graph(self.job_graph)
        self._blocking_edges = {edge.id for edge in self.job_graph.edges if edge.is_blocking}
        self._all_tasks = {(vertex.id, index) for vertex in self.job_graph.vertices
                           for index in range(vertex.parallelism)}
        self.checkpointed = (definition.get("mode") != "batch" and not self._blocking_edges
                             and definition.get("checkpointing", {}).get("enabled") is not False)
        self._shuffle = FileShuffleMaster.for_new_run(shuffle_root or join(checkpoint_dir, "shuffle"))
        self._restart_strategy = create_restart_strategy(definition.get("restart"))
        self._lock = threading.Lock()  # guards: the stages, the flags and the dicts below
        self._changed = threading.Condition(self._lock)
        self._stages: dict[int, _Stage] = {}  # the current stage of each running region, by stage id
        self._ending_stages: list[_Stage] = []  # driver thread only: finished regions Spark still completes
        self._next_stage_id = 1
        self._ready_regions: deque = deque()  # driver thread only: filled by the strategy
        self._finished_tasks: set[TaskId] = set()
        self._failure: str | None = None  # the failure being handled
        self._collected: dict[TaskId, dict[str, list]] = {}  # per subtask: its collect sinks' records
        self._metrics: dict[TaskId, dict] = {}
        self._last_metrics_event = 0.0
        self._emit_order = threading.Lock()  # held while an event is built and emitted, so
        # a metrics event built before the final one can never be delivered after it
        self._concluded = False
        self._cancelled = False
        self._coordinator: CheckpointCoordinator | None = None
        self._running_reported = False
        self.job_group = f"pipeline-{uuid.uuid4().hex[:12]}"

    # -- public control ----------------------------------------------------------------

    def run(self) -> JobOutcome:
        session = self._session or create_spark_session(
            self.definition.get("name", "pipeline"), spark_master_for(self._slots_needed_at_once(), self._spark_master))
        server = ControlServer(self._gateway_for, self._slot_registered, self._slot_disconnected)
        restore = self._load_metadata(self._restore) if self._restore else None
        if self.checkpointed:
            self._coordinator = self._create_coordinator(restore)
        capacity = _cluster_capacity(session.sparkContext, self._slots_needed_at_once())
        capacity_problem = self._capacity_problem(capacity)
        if capacity_problem:
            self._failure = capacity_problem
            server.close()
            return self._conclude("failed")
        try:
            return self._conclude(self._schedule_until_done(session, server.port, restore))
        finally:
            self._wait_for_ending_stages()
            if self._coordinator:
                self._coordinator.shutdown()
            server.close()
            self._shuffle.cleanup()

    def cancel(self) -> None:
        """Stop the job: cancel every slot; ``run`` then returns CANCELED."""
        with self._lock:
            if self._cancelled:
                return
            self._cancelled = True
            slots = self._registered_slots()
            self._changed.notify_all()
        for slot in slots:
            slot.cancel()

    def trigger_savepoint(self, target_directory: str | None = None) -> Future:
        """Take a savepoint; the future's result is its location, its exception the cause."""
        if self._coordinator is None:
            return _failed_future("this job takes no savepoints: it runs in batch mode or has blocking exchanges"
                                  if not self.checkpointed else "the job is not running")
        return self._coordinator.trigger_savepoint(target_directory)

    def stop_with_savepoint(self, drain: bool = False, target_directory: str | None = None) -> Future:
        """Take a synchronous savepoint and end the job with it (FINISHED); restoring continues from it.

        The coordinator triggers the sources with ``{"kind": "savepoint", "stop": true,
        "drain": drain}`` and the slots end the job around it (``engine.runtime.stream_task``):
        without drain the sources stop right after the savepoint's barrier and end once it
        completed (sinks commit it first); with drain they first emit the maximum watermark
        and EndOfData, so every window fires before the savepoint. The stages then finish
        by themselves. If the savepoint fails, a job stopped without drain goes on.
        """
        if self._coordinator is None:
            return self.trigger_savepoint(target_directory)  # fails with the reason
        return self._coordinator.trigger_savepoint(target_directory, stop=True, drain=drain)

    def slot_pids(self) -> dict[int, int]:
        """The process id of each registered slot, by slot index of its region (tests, tools)."""
        with self._lock:
            return {index: slot.pid for stage in self._stages.values() for index, slot in stage.registered.items()}

    def slot_cpus(self) -> dict[int, int | None]:
        """The CPU each registered slot is pinned to (None: not pinned), by slot index of its region."""
        with self._lock:
            return {index: slot.cpu for stage in self._stages.values() for index, slot in stage.registered.items()}

    # -- scheduling loop (driver thread) ---------------------------------------------------

    def _schedule_until_done(self, session, control_port: int, restore: dict | None) -> str:
        """Launch regions as they become ready until the job ends; return how it ended."""
        strategy = self._new_strategy()
        strategy.start_scheduling()
        while True:
            self._launch_ready_regions(session, control_port, restore)
            outcome = self._wait_for_change()
            if outcome == "canceled":
                self._stop_all_stages(session)
                return outcome
            if outcome == "failed":
                restore = self._recover(session)
                if restore is False:
                    return "failed"
                if self.checkpointed:
                    strategy = self._new_strategy()
                    strategy.start_scheduling()
                continue
            self._maybe_report_running()
            for stage in self._take_succeeded_stages():
                self._emit({"type": "region", "event": "finished", "region": f"r{stage.region.index}"})
                for vertex, index in sorted(stage.tasks):
                    strategy.on_execution_state_change(ExecutionVertexID(vertex, index), ExecutionState.FINISHED)
            with self._lock:
                if self._finished_tasks >= self._all_tasks and not self._stages:
                    return "finished"

    def _new_strategy(self):
        self.plan.execution_graph.reset_partition_states()
        self._strategy = self.plan.scheduling_strategy(self._ready_regions.append)
        return self._strategy

    def _wait_for_change(self) -> str | None:
        """Block until something needs the driver: returns canceled|failed|None."""
        with self._lock:
            while True:
                if self._cancelled:
                    return "canceled"
                failed = next((stage for stage in self._stages.values() if stage.failure), None)
                if failed is not None:
                    self._failure = failed.failure
                    return "failed"
                if self._ready_regions or self._running_to_report_locked() or \
                        any(stage.succeeded for stage in self._stages.values()):
                    return None
                self._changed.wait(1.0)

    def _running_to_report_locked(self) -> bool:
        """Every launched stage's slots registered and RUNNING was not reported yet."""
        return (not self._running_reported and bool(self._stages)
                and all(stage.all_registered for stage in self._stages.values()))

    def _maybe_report_running(self) -> None:
        """Report RUNNING once all slots registered, before any of their regions' ends;
        checkpointing starts then. Runs on the driver thread, outside the lock."""
        with self._lock:
            if not self._running_to_report_locked():
                return
            self._running_reported = True
            slots = self._registered_slots()
            tasks = sorted(task for stage in self._stages.values() for task in stage.tasks)
        if self._coordinator:  # subtasks that finished already (fast bounded sources) stay finished
            self._coordinator.resume(slots, tasks, forget_finished=False)
        self._emit({"type": "status", "status": "RUNNING"})

    def _take_succeeded_stages(self) -> list[_Stage]:
        """The stages whose every subtask reported finished: their region is done.

        Spark still completes the barrier stage afterwards (the Python workers return,
        the scheduler ends the job: 30-170 ms with busy CPUs); nothing of the job's
        output depends on that, as a subtask reports finished only after its data was
        sent and its sinks committed. So the region's end, and the job's FINISHED, are
        reported now, as Flink's JobMaster does when every execution reached FINISHED,
        and ``run`` waits for those Spark jobs before it returns (``_ending_stages``).
        """
        with self._lock:
            succeeded = [stage for stage in self._stages.values() if stage.succeeded]
            for stage in succeeded:
                del self._stages[stage.id]
                self._finished_tasks |= stage.tasks
        self._ending_stages.extend(succeeded)
        return succeeded

    def _wait_for_ending_stages(self) -> None:
        """Wait until Spark completed the barrier stages of the regions that finished."""
        for stage in self._ending_stages:
            if stage.thread:
                stage.thread.join(STAGE_STOP_TIMEOUT_S)
        self._ending_stages.clear()

    def _launch_ready_regions(self, session, control_port: int, restore: dict | None) -> None:
        """Submit the ready regions whose slots the cluster can offer now; keep the rest queued."""
        capacity = session.sparkContext.defaultParallelism
        while self._ready_regions:
            region = self._ready_regions[0]
            slots_tasks = region_slots(region)
            with self._lock:
                in_use = sum(len(stage.slots_tasks) for stage in self._stages.values())
                if len(slots_tasks) > capacity:
                    self._failure = (f"region r{region.index} needs {len(slots_tasks)} slots at once, but the "
                                     f"Spark cluster offers {capacity}: lower the parallelism or add cores")
                    self._fail_new_stage(region, slots_tasks, self._failure)
                    return
                if in_use and len(slots_tasks) > capacity - in_use:
                    return  # waits for a running region to finish
                stage = _Stage(self._next_stage_id, region, slots_tasks)
                self._next_stage_id += 1
                self._stages[stage.id] = stage
            self._ready_regions.popleft()
            self._emit({"type": "region", "event": "scheduled", "region": f"r{region.index}",
                        "vertices": {vertex: list(subtasks) for vertex, subtasks in region.vertices.items()}})
            stage.thread = threading.Thread(target=self._run_stage, args=(session, control_port, restore, stage),
                                            name=f"barrier-stage-{stage.id}", daemon=True)
            stage.thread.start()

    def _fail_new_stage(self, region, slots_tasks, message: str) -> None:
        stage = _Stage(self._next_stage_id, region, slots_tasks)
        self._next_stage_id += 1
        stage.failure = message
        stage.done = True
        self._stages[stage.id] = stage
        self._ready_regions.clear()
        self._restart_strategy = create_restart_strategy({"strategy": "none"})  # no retry fixes capacity

    def _run_stage(self, session, control_port: int, restore: dict | None, stage: _Stage) -> None:
        payload = SlotPayload(definition=self.definition, slots_tasks=stage.slots_tasks,
                              control_address=(self._advertised_host, control_port),
                              checkpoint_dir=self.checkpoint_dir, restore=restore, stage_id=stage.id,
                              blocking_edges=sorted(self._blocking_edges), shuffle_dir=self._shuffle.directory,
                              pin_cpu=self._pin_slots)
        context = session.sparkContext
        try:
            context.setJobGroup(self._job_group_of(stage), f"{self.definition.get('name')} r{stage.region.index}",
                                interruptOnCancel=True)
            slot_count = len(stage.slots_tasks)
            context.parallelize(range(slot_count), slot_count).barrier() \
                .mapPartitions(run_slot_partition(payload)).collect()
        except Exception as error:  # a failed slot fails the whole barrier stage
            self._fail_stage(stage, _stage_failure_message(error))
        finally:
            with self._lock:
                stage.done = True
                if stage.failure is None and not stage.succeeded and not self._cancelled:
                    stage.failure = "the barrier stage ended before every task of its region finished"
                self._changed.notify_all()

    def _job_group_of(self, stage: _Stage) -> str:
        return f"{self.job_group}-s{stage.id}"

    # -- failures ---------------------------------------------------------------------

    def _recover(self, session):
        """Restart after a failure: the whole job from a checkpoint, or the failover set.

        Returns the restore metadata for the next stages (None: start fresh), or False when
        the restart strategy gives up or the job was cancelled meanwhile.
        """
        cause = self._failure
        if self.checkpointed:
            self._stop_all_stages(session)
        else:
            self._stop_failover_set(session)
        delay = self._restart_strategy.on_failure()
        if delay is None:
            return False
        self._emit({"type": "status", "status": "RESTARTING", "cause": cause,
                    "restart_strategy": self._restart_strategy.describe()})
        with self._lock:
            self._failure = None
            self._running_reported = False
            if self._changed.wait_for(lambda: self._cancelled, timeout=delay):
                return False
        if not self.checkpointed:
            return None
        latest = self._coordinator.latest_completed() if self._coordinator else None
        return latest or (self._load_metadata(self._restore) if self._restore else None)

    def _stop_all_stages(self, session) -> None:
        if self._coordinator:
            self._coordinator.pause()
        with self._lock:
            stages = list(self._stages.values())
        self._cancel_stages(session, stages)
        with self._lock:
            for stage in stages:
                self._stages.pop(stage.id, None)
            self._ready_regions.clear()
        if self._coordinator:  # no report of these stages gets through any more; the next run starts afresh
            self._coordinator.forget_finished()

    def _stop_failover_set(self, session) -> None:
        """Cancel the regions the planner says must restart, and forget their results."""
        with self._lock:
            failed = next(stage for stage in self._stages.values() if stage.failure)
        failover = self.plan.failover_strategy()
        vertex, index = min(failed.tasks)
        to_restart = set(failover.tasks_to_restart(ExecutionVertexID(vertex, index)))
        with self._lock:
            stages = [stage for stage in self._stages.values()
                      if any(ExecutionVertexID(*task) in to_restart for task in stage.tasks)]
        self._cancel_stages(session, stages)
        with self._lock:
            for stage in stages:
                self._stages.pop(stage.id, None)
            restarted_tasks = {(v.job_vertex_id, v.subtask_index) for v in to_restart}
            self._finished_tasks -= restarted_tasks
            for task in restarted_tasks:
                self._collected.pop(task, None)
        self._strategy.restart_tasks(to_restart)

    def _cancel_stages(self, session, stages: list[_Stage]) -> None:
        for stage in stages:
            for slot in list(stage.registered.values()):
                slot.cancel()
            session.sparkContext.cancelJobGroup(self._job_group_of(stage))
            self._emit({"type": "region", "event": "canceled", "region": f"r{stage.region.index}"})
        for stage in stages:
            if stage.thread:
                stage.thread.join(STAGE_STOP_TIMEOUT_S)

    def _fail_stage(self, stage: _Stage, message: str) -> None:
        with self._lock:
            if stage.failure is None and not self._cancelled:
                stage.failure = message
            self._changed.notify_all()

    def _checkpointing_failed(self, message: str) -> None:
        with self._lock:
            stage = next(iter(self._stages.values()), None)
        if stage is not None:
            self._fail_stage(stage, message)

    def _conclude(self, result: str) -> JobOutcome:
        status = {"finished": "FINISHED", "canceled": "CANCELED"}.get(result, "FAILED")
        cause = (self._failure or "the job failed") if status == "FAILED" else None
        with self._emit_order:
            self._concluded = True
            with self._lock:
                collected = self._collected_by_node()
            if collected:
                self._emit({"type": "finished", "collected": collected})
            self._emit({"type": "status", "status": status, **({"cause": cause} if cause else {})})
        return JobOutcome(status, cause, collected, self.checkpoint_dir)

    # -- set-up helpers ---------------------------------------------------------------------

    def _capacity_problem(self, capacity: int) -> str | None:
        """Why the cluster cannot run this job at all, checked before Spark could hang on it."""
        needed = self._slots_needed_at_once()
        if self.checkpointed and needed > capacity:
            return (f"the pipeline needs {needed} slots at once (its regions run together), but the Spark "
                    f"cluster offers {capacity}: lower the parallelism or add cores")
        return None

    def _slots_needed_at_once(self) -> int:
        """Slots of the regions that start together (the source regions) for local[N]."""
        sources = [region for region in self.plan.regions if not region.number_of_inputs]
        largest = max(len(region_slots(region)) for region in self.plan.regions)
        return max(largest, sum(len(region_slots(region)) for region in sources))

    def _create_coordinator(self, restore: dict | None) -> CheckpointCoordinator:
        coordinator = CheckpointCoordinator(
            self.definition.get("checkpointing", {}), CheckpointStorage(self.checkpoint_dir), [],
            sorted(self._all_tasks), lambda event: self._emit({"type": "checkpoint", **event}),
            vertices=describe_job_graph(self.job_graph), on_failure=self._checkpointing_failed,
            restored_from=restore)
        coordinator.pause()
        coordinator.start()
        return coordinator

    def _load_metadata(self, location: str) -> dict:
        return CheckpointStorage(self.checkpoint_dir).load_metadata(location)

    def _registered_slots(self) -> list[RemoteSlot]:
        """Every registered slot of the current stages (caller holds the lock)."""
        return [slot for stage in self._stages.values() for slot in stage.registered.values()]

    # -- control channel callbacks --------------------------------------------------------

    def _gateway_for(self, stage_id: int) -> "_StageGateway":
        return _StageGateway(self, stage_id)

    def _current_stage(self, stage_id: int) -> _Stage | None:
        return self._stages.get(stage_id)

    def _slot_registered(self, slot: RemoteSlot) -> None:
        with self._lock:
            stage = self._stages.get(slot.stage_id)
            if stage is None:
                slot.cancel()  # a straggler of a stage that was cancelled
                return
            stage.registered[slot.slot_index] = slot
            self._changed.notify_all()

    def _slot_disconnected(self, slot: RemoteSlot) -> None:
        with self._lock:
            stage = self._stages.get(slot.stage_id)
            if stage is None:
                return
            slot_done = all(task in stage.finished for task in stage.slots_tasks[slot.slot_index])
            if not slot_done and stage.failure is None and not self._cancelled:
                stage.failure = f"slot {slot.slot_index} of region r{stage.region.index} lost its connection"
            self._changed.notify_all()

    def _acknowledge_checkpoint(self, ack: dict) -> None:
        if self._coordinator:
            self._coordinator.receive_acknowledge(ack)

    def _decline_checkpoint(self, checkpoint_id: int, task, reason: str) -> None:
        if self._coordinator:
            self._coordinator.receive_decline(checkpoint_id, as_task_id(task), reason)

    def _report_metrics(self, task, metrics: dict) -> None:
        with self._emit_order:
            with self._lock:
                task = as_task_id(task)
                self._metrics[task] = metrics
                if metrics.get("collected"):
                    self._collected[task] = metrics["collected"]
                now = time.monotonic()
                if self._concluded or now - self._last_metrics_event < METRICS_EVENT_INTERVAL_S:
                    return
                self._last_metrics_event = now
                event = {"type": "metrics", "vertices": _sum_by_vertex(self._metrics),
                         "collected": self._collected_by_node()}
            self._emit(event)

    def _task_finished(self, stage: _Stage, task, result: dict) -> None:
        task = as_task_id(task)
        if self._coordinator:
            self._coordinator.task_finished(task)
        with self._lock:
            stage.finished.add(task)
            if result.get("collected"):
                self._collected[task] = result["collected"]
            self._changed.notify_all()

    def _task_failed(self, stage: _Stage, task, error: str) -> None:
        vertex, index = as_task_id(task)
        summary, _, details = error.partition("\n")
        if details:
            logger.info("task %s#%s failed: %s\n%s", vertex, index, summary, details)
        self._fail_stage(stage, f"task {vertex}#{index} failed: {summary}")

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


class _StageGateway:
    """The ``JobMasterGateway`` of one stage's slots: drops what arrives once it is not current."""

    def __init__(self, job_master: SparkJobMaster, stage_id: int):
        self._job_master = job_master
        self._stage_id = stage_id

    def _stage(self) -> _Stage | None:
        return self._job_master._current_stage(self._stage_id)

    def acknowledge_checkpoint(self, ack: dict) -> None:
        if self._stage():
            self._job_master._acknowledge_checkpoint(ack)

    def decline_checkpoint(self, checkpoint_id: int, task, reason: str) -> None:
        if self._stage():
            self._job_master._decline_checkpoint(checkpoint_id, task, reason)

    def report_metrics(self, task, metrics: dict) -> None:
        if self._stage():
            self._job_master._report_metrics(task, metrics)

    def task_finished(self, task, result: dict) -> None:
        stage = self._stage()
        if stage:
            self._job_master._task_finished(stage, task, result)

    def task_failed(self, task, error: str) -> None:
        stage = self._stage()
        if stage:
            self._job_master._task_failed(stage, task, error)


def _cluster_capacity(context, needed: int, timeout: float = EXECUTOR_WAIT_S) -> int:
    """The slots the cluster offers, waiting a while for executors still registering.

    ``local[N]`` offers N at once; on a standalone cluster the executors register after the
    session started, and judging capacity before they did would fail a job that fits.
    """
    deadline = time.monotonic() + timeout
    capacity = context.defaultParallelism
    while capacity < needed and not context.master.startswith("local") and time.monotonic() < deadline:
        time.sleep(0.5)
        capacity = context.defaultParallelism
    return capacity


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
