"""The JobMaster: the one driver of every job, wherever its slots run.

It drives the planner's pipelined-region scheduling strategy (a streaming job is simply
its set of regions), owns the checkpoint coordinator, the failover strategy
(``engine.plan.failover``) and the restart strategy, emits the job's events and metrics,
and ends with one :class:`JobResult`. Where a region's slots run is the *deployer's*
business (see ``engine.cluster.deployer``): threads in this process
(``engine.cluster.local``) or a Spark barrier stage (``engine.cluster.spark_deployer``).

Life of a job
    Regions whose blocking inputs are complete are deployed as :class:`RegionAttempt`
    objects (all at once for a streaming job: it has no blocking input). Once every slot of
    every deployed attempt runs, the job is RUNNING and checkpointing starts. A region
    whose subtasks all finished is done; the job is FINISHED when every subtask finished.

Failover (Flink's pipelined-region failover)
    A failed subtask fails its attempt. The failover strategy names the regions to
    restart: the failed one and every region that consumes its results. Only those are
    cancelled; the other regions keep running. After the restart strategy's delay the
    regions are scheduled again: in a job that takes checkpoints, restored from the latest
    completed checkpoint (a checkpointed job has no blocking exchange, so its regions share
    no data and each can rewind alone); in a job with blocking exchanges, from their
    blocking inputs. Events: ``{"type": "status", "status": "RESTARTING", "regions":
    ["r1"], "cause", ...}``, ``{"type": "region", "event": "canceled" | "scheduled" |
    "finished", "region": "r1"}``, then RUNNING again once the restarted slots run.

Events (``on_event``, and kept in ``JobResult.events``: all but the frequent checkpoint and metrics
events, of which the newest, ``engine.cluster.event_log``)
    ``status`` (RUNNING | RESTARTING | FINISHED | FAILED | CANCELED, with ``cause``),
    ``region``, ``checkpoint`` (the coordinator's), ``task_failed``, ``metrics`` about every
    second (``vertices``: per-vertex sums, ``tasks``, ``collected``: collect sinks' latest
    records), and ``finished`` with the collected records before the final status.

Threading model
    ``run`` owns the driver thread: it alone calls the scheduling strategy and the
    deployer's ``deploy``/``cancel``. Subtask reports (task threads in process, control
    reader threads on Spark), the deployer's slot reports and the coordinator's timer call
    in through methods that take ``self._lock`` and notify ``self._changed``; a report of
    an attempt that is no longer current is dropped. Events are emitted under
    ``self._emit_order``, so no metrics event follows the final status. Lock order: the
    coordinator's lock may be held while ``self._lock`` is taken (it triggers through
    ``_Participants``), never the other way round; ``_emit_order`` may be held while
    ``self._lock`` is taken (by ``_conclude``, or an event sink asking for slots), never the
    other way round, so no event is emitted under ``self._lock``.
"""
from __future__ import annotations

import logging
import os
import threading
import time
from collections import deque
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any, Callable

from engine.checkpoint.coordinator import CheckpointCoordinator, CheckpointException
from engine.checkpoint.metadata import foreign_id_ranges
from engine.checkpoint.signing import SnapshotRefused, SnapshotSigner
from engine.checkpoint.storage import CheckpointStorage, join, load_metadata
from engine.cluster.event_log import EventLog
from engine.cluster.operator_coordinators import OperatorCoordinators
from engine.cluster.restart_strategy import create_restart_strategy
from engine.cluster.shuffle import FileShuffleMaster
from engine.cluster.taps import TapRegistry, TapSink
from engine.plan.channels import output_channel_ids
from engine.plan.compiler import compile_job_graph
from engine.plan.execution_ids import ExecutionState, ExecutionVertexID, TaskId, as_task_id, task_name
from engine.plan.job_graph import build_job_graph
from engine.runtime.grants import GRANTS, Grants, snapshot_directories
from engine.runtime.kill_hooks import KillPlan
from engine.runtime.operators import awaits_final_checkpoint, plugins_used

logger = logging.getLogger(__name__)

EventSink = Callable[[dict[str, Any]], None]
METRICS_EVENT_INTERVAL_S = 1.0
CAPACITY_WAIT_S = 120.0
"""How long a region waits for the slots it needs before the job fails (a worker may come back)."""
NO_SAVEPOINTS = "this job takes no savepoints: it runs in batch mode or has blocking exchanges"


class RestoreRefused(Exception):
    """The job was asked to restore a snapshot that is refused: it ends FAILED before anything runs."""


@dataclass
class JobResult:
    """How a job ended and what it produced: the one result type of every deployment."""

    status: str
    """FINISHED, FAILED or CANCELED."""
    collected: dict[str, list] = field(default_factory=dict)
    """Per collect sink node: the records of all its subtasks, subtask order."""
    counts: dict[str, int] = field(default_factory=dict)
    """Per collect sink node: how many records reached it."""
    failure: str | None = None
    restarts: int = 0
    checkpoints: dict = field(default_factory=dict)
    """The coordinator's statistics overview (counts, summary, latest, history)."""
    completed_checkpoints: list[dict] = field(default_factory=list)
    latest_checkpoint: dict | None = None
    events: list[dict] = field(default_factory=list)
    duration_s: float = 0.0
    checkpoint_dir: str = ""

    @property
    def failure_cause(self) -> str | None:
        """The failure, by the name the studio's runs use."""
        return self.failure


class RegionAttempt:
    """One deployment of one pipelined region: its slots and what its subtasks reported.

    ``number`` is unique within the job (a Spark deployer names its barrier stage by it).
    Fields below ``slots`` are guarded by the JobMaster's lock.
    """

    def __init__(self, number: int, region, slots_tasks: list[list[TaskId]], restore: dict | None,
                 planned_kills: list[dict] | None = None):
        self.number = number
        self.region = region
        self.name = f"r{region.index}"
        self.slots_tasks = slots_tasks
        self.tasks = frozenset(task for tasks in slots_tasks for task in tasks)
        self.restore = restore
        self.planned_kills = [kill for kill in planned_kills or () if tuple(kill["task"]) in self.tasks]
        """The kills of the job's :class:`KillPlan` armed in this attempt's slots (its subtasks', of its
        job attempt), as data the deployer hands to the slots."""
        self.deployment: Any = None
        """What the deployer keeps about it (threads and networks; a Spark stage)."""
        self.slots: dict[int, Any] = {}
        """Running slots by index: each a ``TaskExecutorGateway``."""
        self.finished: set[TaskId] = set()
        self.failure: str | None = None
        self.failed_task: TaskId | None = None

    @property
    def is_running(self) -> bool:
        return len(self.slots) == len(self.slots_tasks)

    @property
    def succeeded(self) -> bool:
        return self.failure is None and self.finished >= self.tasks

    def __repr__(self) -> str:
        return f"RegionAttempt({self.number}, {self.name})"


def region_slots(region) -> list[list[TaskId]]:
    """Assign a region's subtasks to slots: slot i runs the i-th subtask of each vertex."""
    subtasks = {vertex: list(indices) for vertex, indices in region.vertices.items()}
    slot_count = max(len(indices) for indices in subtasks.values())
    return [[ExecutionVertexID(vertex, indices[slot]) for vertex, indices in subtasks.items() if slot < len(indices)]
            for slot in range(slot_count)]


def slots_needed_at_once(plan) -> int:
    """Slots of the regions that start together (the source regions), or of the largest region."""
    regions = plan.regions
    largest = max(len(region_slots(region)) for region in regions)
    return max(largest, sum(len(region_slots(region)) for region in regions if not region.number_of_inputs))


def task_config(definition: dict, job_graph, checkpoint_dir: str, extra: dict | None = None,
                grants: Grants | None = None) -> dict:
    """The configuration every slot of the job gets (plain data: it travels to Spark executors).

    ``latency_interval_ms``: the definition's ``latency_tracking.interval_ms`` when it says one,
    else the deployment's (``extra``; the studio's runs default to one), else 0 (off)."""
    config = {"checkpoint_storage": checkpoint_dir, "checkpointing": definition.get("checkpointing") or {},
              "checkpointing_enabled": job_graph.takes_checkpoints,
              "max_parallelism": definition.get("max_parallelism", 128), "mode": job_graph.mode,
              "debloat": definition.get("debloat") or {}, **(extra or {})}
    config.pop(GRANTS, None)  # only the client's grants, never a deployment's setting
    latency_interval = (definition.get("latency_tracking") or {}).get("interval_ms")
    if latency_interval is not None:
        config["latency_interval_ms"] = latency_interval
    plugins = plugins_used(definition)
    if plugins:
        config["operator_plugins"] = plugins
    if grants is not None:
        config[GRANTS] = grants.to_config()
    return config


class AttemptGateway:
    """The ``JobMasterGateway`` of one region attempt's subtasks: forwards while it is current."""

    def __init__(self, job_master: "JobMaster", attempt: RegionAttempt):
        self._job_master = job_master
        self._attempt = attempt

    def acknowledge_checkpoint(self, ack: dict) -> None:
        if self._job_master.is_current(self._attempt):
            self._job_master.coordinator.receive_acknowledge(ack)

    def decline_checkpoint(self, checkpoint_id: int, task, reason: str) -> None:
        if self._job_master.is_current(self._attempt):
            self._job_master.coordinator.receive_decline(checkpoint_id, as_task_id(task), reason)

    def report_metrics(self, task, metrics: dict) -> None:
        if self._job_master.is_current(self._attempt):
            self._job_master.on_metrics(as_task_id(task), metrics)

    def task_finished(self, task, result: dict) -> None:
        self._job_master.on_task_finished(self._attempt, as_task_id(task), result)

    def task_failed(self, task, error: str) -> None:
        self._job_master.on_task_failed(self._attempt, as_task_id(task), error)

    def report_tap(self, tap_id: str, task, sample: dict) -> None:
        self._job_master.taps.deliver(tap_id, task_name(as_task_id(task)), sample)

    def send_operator_event(self, task, node_id: str, event: dict) -> None:
        self._job_master.operator_coordinators.handle_event(
            as_task_id(task), node_id, event, lambda: self._job_master.is_current(self._attempt))


class JobMaster:
    """Drives one job on a deployer; ``run`` in one thread, the rest from any thread."""

    def __init__(self, definition: dict, deployer, *, checkpoint_dir: str, restore: str | dict | None = None,
                 on_event: EventSink | None = None, config: dict | None = None, shuffle_root: str | None = None,
                 capacity_wait_s: float = CAPACITY_WAIT_S, grants: Grants | None = None,
                 signer: SnapshotSigner | None = None, kill_plan: KillPlan | None = None,
                 may_complete_checkpoint: Callable[[], bool] | None = None):
        self.definition = definition
        self.may_complete_checkpoint = may_complete_checkpoint
        """Asked right before (and after) each checkpoint's ``_metadata`` is written: the driver's fencing
        (``engine.checkpoint.coordinator``, "Fencing"); None: always yes."""
        self.kill_plan = kill_plan
        """Crashes planned ahead (``engine.runtime.kill_hooks``): each region attempt arms the kills of
        the job's attempt it belongs to (``restarts`` when it is deployed)."""
        self.capacity_wait_s = capacity_wait_s
        self.deployer = deployer
        self.job_graph = build_job_graph(definition, chain_fan_out=(config or {}).get("chain_fan_out", True))
        self.plan = compile_job_graph(self.job_graph)
        self.checkpoint_dir = checkpoint_dir
        self.config = task_config(definition, self.job_graph, checkpoint_dir, config, grants)
        self.signer = signer  # driver side only: the key never goes into ``config``
        self.refused_restore: str | None = None
        """Why the snapshot to restore was refused: the job fails with it before anything runs."""
        self.initial_restore = self._verified_restore(restore)
        self.all_tasks = [ExecutionVertexID(vertex.id, index) for vertex in self.job_graph.vertices
                          for index in range(vertex.parallelism)]
        self.shuffle = FileShuffleMaster.for_new_run(shuffle_root or join(checkpoint_dir, "shuffle")) \
            if self.job_graph.has_blocking_exchanges else None
        self.restart_strategy = create_restart_strategy(definition.get("restart"))
        self._on_event = on_event
        self._lock = threading.RLock()  # re-entrant: coordinator callbacks may run while it is held
        self._changed = threading.Condition(self._lock)
        self._attempts: dict[int, RegionAttempt] = {}  # guarded by: self._lock; current attempt per region
        self._ready: deque = deque()  # driver thread only: regions the strategy released
        self._finished: set[TaskId] = set()  # guarded by: self._lock; finished for good
        self._results: dict[TaskId, dict] = {}  # guarded by: self._lock
        self._metrics: dict[TaskId, dict] = {}  # guarded by: self._lock
        self._cancelled = False  # guarded by: self._lock
        self._checkpointing_failure: str | None = None  # guarded by: self._lock
        self._running_reported = False  # driver thread only
        self._ran = False  # guarded by: self._lock; RUNNING was reported once
        self._deferred: list[tuple[Callable[[], Future], Future]] = []  # guarded by: self._lock
        self._restore = self.initial_restore  # driver thread only: what the next attempts restore
        self._next_attempt = 1
        self._capacity_wait_since: float | None = None
        self._emit_order = threading.Lock()  # held while an event is built and emitted
        self._concluded = False
        self._last_metrics_event = 0.0
        self.restarts = 0
        self.events = EventLog()
        self.status = "CREATED"
        self.result: JobResult | None = None
        self.done = threading.Event()
        self.operator_coordinators = OperatorCoordinators(self.job_graph, self.initial_restore, self.slot_of,
                                                          self.config)
        self.coordinator = self._create_coordinator()
        self._strategy = None
        self.taps = TapRegistry(definition, self.job_graph)

    def _create_coordinator(self) -> CheckpointCoordinator:
        section = dict(self.job_graph.checkpointing)
        if not self.job_graph.takes_checkpoints:
            section["interval_ms"] = 0  # savepoints only (if any)
        coordinator = CheckpointCoordinator(
            section, CheckpointStorage(self.checkpoint_dir, signer=self.signer, allowed=self._snapshot_directories()),
            [_Participants(self)], self.all_tasks, self._emit,
            vertices=self._described_vertices(), on_failure=self._on_checkpointing_failure,
            restored_from=self.initial_restore, operator_coordinators=self.operator_coordinators,
            may_complete_checkpoint=self.may_complete_checkpoint)
        coordinator.pause("the job is not running yet")
        return coordinator

    def _snapshot_directories(self):
        """With grants: where snapshot files may be written (the job's checkpoint directory, granted targets)."""
        grants = Grants.of(self.config)
        return snapshot_directories(grants, self.checkpoint_dir) if grants is not None else None

    def _verified_restore(self, restore: str | dict | None) -> dict | None:
        """The metadata to restore from, loaded (and, with a signer, verified); a refused snapshot
        leaves none and sets ``refused_restore``, so the job fails naming it instead of starting."""
        try:
            if isinstance(restore, str):
                metadata = load_metadata(restore, self.signer)
            elif restore is not None and self.signer is not None:
                metadata = self.signer.verify(restore)
            else:
                metadata = restore
            try:
                foreign_id_ranges(metadata)
            except ValueError as error:
                raise SnapshotRefused((metadata or {}).get("location") or "?", f"its {error}") from None
            return metadata
        except SnapshotRefused as refused:
            self.refused_restore = str(refused)
            return None

    def _described_vertices(self) -> dict:
        """``JobGraph.describe`` plus, per vertex, whether it waits for a final checkpoint
        (the coordinator hurries that one once every source finished)."""
        described = self.job_graph.describe()
        for vertex in self.job_graph.vertices:
            described[vertex.id]["awaits_final_checkpoint"] = any(
                awaits_final_checkpoint(node) for node in vertex.operators)
        return described

    # -- public control (any thread) ---------------------------------------------------------
    def start(self, timeout: float | None = None) -> "JobHandle":
        """Run the job in a background thread; return its handle."""
        thread = threading.Thread(target=self.run, args=(timeout,), name="job-master", daemon=True)
        thread.start()
        return JobHandle(self)

    def cancel(self) -> None:
        """Stop the job: every slot is cancelled; ``run`` then ends CANCELED."""
        with self._lock:
            self._cancelled = True
            self._changed.notify_all()

    def trigger_savepoint(self, target: str | None = None) -> Future:
        """A savepoint now; the future's result is its location (a directory with ``_metadata``)."""
        if not self.job_graph.takes_savepoints:
            return _failed_future(NO_SAVEPOINTS)
        refused = self._refused_target(target)
        if refused:
            return _failed_future(refused)
        return self._once_running(lambda: self.coordinator.trigger_savepoint(target))

    def _refused_target(self, target: str | None) -> str | None:
        """Why a job with grants may not write a savepoint into local ``target`` now (links resolved), or None."""
        grants = Grants.of(self.config)
        if grants is None or not target or "://" in target:
            return None
        if not grants.may_write(os.path.realpath(target)):
            return (f"the savepoint target {target} is, or is reached through, a link to a directory outside the "
                    "locations granted to the run")
        return None

    def stop_with_savepoint(self, drain: bool = False, target: str | None = None) -> Future:
        """Take a savepoint and end the job with it (it ends FINISHED); the future yields its location.

        Without drain the sources stop right after the savepoint's barrier and the job ends
        once it completed: restoring from it continues where the job stopped. With drain the
        sources first emit the maximum watermark and EndOfData, so every window fires and
        every operator finishes before the savepoint. If the savepoint fails, a job stopped
        without drain goes on; one being drained fails over from its latest checkpoint.
        """
        if not self.job_graph.takes_savepoints:
            return _failed_future(NO_SAVEPOINTS)
        refused = self._refused_target(target)
        if refused:
            return _failed_future(refused)
        return self._once_running(lambda: self.coordinator.trigger_savepoint(target, stop=True, drain=drain))

    def trigger_checkpoint(self) -> Future:
        if not self.job_graph.takes_savepoints:
            return _failed_future(NO_SAVEPOINTS)
        return self._once_running(self.coordinator.trigger_checkpoint)

    def _once_running(self, trigger: Callable[[], Future]) -> Future:
        """Trigger now, or -- before the job first ran -- as soon as it runs."""
        with self._lock:
            if not self._ran and not self._concluded:
                future: Future = Future()
                self._deferred.append((trigger, future))
                return future
        return trigger()

    def open_tap(self, edge_id: str, sink: TapSink, limits: dict | None = None, tap_id: str | None = None) -> str:
        """Sample the records on ``edge_id`` into ``sink`` (``engine.cluster.taps``); returns the tap's id."""
        tap = self.taps.open(edge_id, sink, limits, tap_id)
        for slot in self.slots_of_current_attempts():
            slot.open_tap(tap.tap_id, tap.node_id, tap.subtask_limits)
        return tap.tap_id

    def close_tap(self, tap_id: str) -> None:
        if self.taps.close(tap_id) is not None:
            for slot in self.slots_of_current_attempts():
                slot.close_tap(tap_id)

    def metrics(self) -> dict:
        """The latest metrics of every subtask, by ``"vertex#i"``."""
        with self._lock:
            return {task_name(task): dict(values) for task, values in self._metrics.items()}

    def running_slots(self) -> dict[TaskId, Any]:
        """The running slot of every subtask of the current attempts (tests, tools)."""
        with self._lock:
            return {task: slot for attempt in self._attempts.values() for index, slot in attempt.slots.items()
                    for task in attempt.slots_tasks[index]}

    def is_current(self, attempt: RegionAttempt) -> bool:
        with self._lock:
            return self._attempts.get(attempt.region.index) is attempt

    def is_finished(self, attempt: RegionAttempt, tasks=None) -> bool:
        """Whether every subtask of ``attempt`` (or ``tasks`` of it) reported finished."""
        wanted = attempt.tasks if tasks is None else {as_task_id(task) for task in tasks}
        with self._lock:
            return wanted <= attempt.finished

    def slots_needed_at_once(self) -> int:
        """Slots of the regions that start together (the source regions), or of the largest."""
        return slots_needed_at_once(self.plan)

    def slot_of(self, task: TaskId):
        """The running slot of subtask ``task`` in its region's current attempt, or None."""
        with self._lock:
            for attempt in self._attempts.values():
                for index, tasks in enumerate(attempt.slots_tasks):
                    if task in tasks:
                        return attempt.slots.get(index)
        return None

    def slots_of_current_attempts(self) -> list:
        with self._lock:
            return [slot for attempt in self._attempts.values() for slot in attempt.slots.values()]

    # -- reports (any thread) ----------------------------------------------------------------
    def gateway_for(self, attempt: RegionAttempt) -> AttemptGateway:
        return AttemptGateway(self, attempt)

    def on_slot_running(self, attempt: RegionAttempt, index: int, slot) -> None:
        """The deployer started slot ``index`` of ``attempt``: it takes commands now."""
        with self._lock:
            if self._attempts.get(attempt.region.index) is not attempt:
                stale = True
            else:
                stale = False
                attempt.slots[index] = slot
                self._changed.notify_all()
        if stale:
            slot.cancel()  # a straggler of an attempt that was cancelled
        else:
            self.operator_coordinators.slot_running(slot, attempt.slots_tasks[index])
            self.taps.open_on(slot)

    def on_attempt_failed(self, attempt: RegionAttempt, message: str, task: TaskId | None = None) -> None:
        """The attempt cannot go on (a subtask failed, a slot was lost, its stage failed)."""
        with self._lock:
            if self._attempts.get(attempt.region.index) is not attempt or attempt.failure is not None \
                    or attempt.succeeded or self._cancelled:
                return
            attempt.failure = message
            attempt.failed_task = task
            self._changed.notify_all()
        self._emit({"type": "task_failed", "task": task_name(task) if task else None, "region": attempt.name,
                    "error": message, "attempt": attempt.number})

    def on_task_finished(self, attempt: RegionAttempt, task: TaskId, result: dict) -> None:
        with self._lock:
            if self._attempts.get(attempt.region.index) is not attempt:
                return
            attempt.finished.add(task)
            self._results[task] = result
            self._changed.notify_all()
        # Outside the lock: the coordinator delivers events from inside this call. An attempt
        # stops being current before its slots are cancelled and its subtasks forgotten
        # (``_failover``), so a report that passed the check above precedes that forgetting.
        self.coordinator.task_finished(task)

    def on_task_failed(self, attempt: RegionAttempt, task: TaskId, error: str) -> None:
        summary, _, details = error.partition("\n")
        if details:
            logger.info("task %s failed: %s\n%s", task_name(task), summary, details)
        # an operator's failure names its operator and subtask already; the task is named after the chain's head
        named = error if error.startswith("operator '") else f"task {task_name(task)} failed: {error}"
        self.on_attempt_failed(attempt, named, task)

    def on_metrics(self, task: TaskId, metrics: dict) -> None:
        with self._lock:
            self._metrics[task] = metrics
            now = time.monotonic()
            if now - self._last_metrics_event < METRICS_EVENT_INTERVAL_S:
                return
            self._last_metrics_event = now
            event = self._metrics_event_locked()
        # outside the JobMaster's lock: a checkpoint holds the coordinators' lock while it sends triggers
        event["enumerators"] = self.operator_coordinators.lag()
        alignment = self.operator_coordinators.alignment_figures()
        if alignment:
            event["watermark_alignment"] = alignment
        with self._emit_order:
            if not self._concluded:  # never after the final status
                self._emit_locked(event)

    def _metrics_event_locked(self, with_collected: bool = True) -> dict:
        """The ``metrics`` event: per-vertex sums, every subtask's report, what collect sinks hold."""
        return {"type": "metrics", "vertices": _sum_by_vertex(self._metrics),
                "tasks": {task_name(t): {k: v for k, v in m.items() if k not in ("collected", "counts")}
                          for t, m in self._metrics.items()},
                "collected": self._collected_locked()[0] if with_collected else {}}

    def _on_checkpointing_failure(self, message: str) -> None:
        with self._lock:
            if self._checkpointing_failure is None:
                self._checkpointing_failure = f"checkpointing failed: {message}"
            self._changed.notify_all()

    # -- the driver ---------------------------------------------------------------------------
    def run(self, timeout: float | None = None) -> JobResult:
        """Run the job to its end in the calling thread; a timeout cancels it (status CANCELED)."""
        started = time.monotonic()
        deadline = None if timeout is None else started + timeout
        status, failure = "FAILED", None
        try:
            if self.refused_restore is not None:
                raise RestoreRefused(self.refused_restore)
            self.deployer.open(self)
            self.coordinator.start()
            self.plan.execution_graph.reset_partition_states()
            self._strategy = self.plan.scheduling_strategy(self._ready.append)
            self._strategy.start_scheduling()
            status, failure = self._drive(deadline, timeout)
        except RestoreRefused as refused:
            status, failure = "FAILED", str(refused)
        except Exception as error:  # a deployer that cannot start, a bug: the job fails, loudly
            logger.exception("the JobMaster of %s failed", self.definition.get("name"))
            status, failure = "FAILED", str(error) or type(error).__name__
        finally:
            self.coordinator.shutdown()
            with self._lock:
                attempts = list(self._attempts.values())
                self._attempts.clear()
            self._cancel_attempts(attempts, emit=False)
        # The job's end is reported now; Spark may still be completing the stages of finished
        # regions (tens of ms on busy CPUs), which nothing of the output depends on. ``run``
        # returns, and ``done`` is set, only once the deployer let go of everything.
        result = self._conclude(status, failure, time.monotonic() - started)
        with self._lock:
            deferred, self._deferred = self._deferred, []
        for _, future in deferred:
            future.set_exception(CheckpointException(f"the job ended ({status}) before it ran"))
        try:
            self.deployer.close()
            if self.shuffle is not None:
                self.shuffle.cleanup()
        finally:
            self.done.set()
        return result

    def _drive(self, deadline: float | None, timeout: float | None) -> tuple[str, str | None]:
        while True:
            problem = self._deploy_ready_regions()
            if problem:
                return "FAILED", problem
            change, attempt = self._wait_for_change(deadline)
            if change == "canceled":
                return "CANCELED", None
            if change == "timeout":
                return "CANCELED", f"the job did not finish within {timeout} s"
            if change == "failed":
                ended = self._failover(attempt)
                if ended is not None:
                    return ended
                continue
            self._maybe_report_running()
            for done in self._take_succeeded_attempts():
                self._region_finished(done)
            with self._lock:
                if not self._attempts and not self._ready:
                    if len(self._finished) >= len(self.all_tasks):
                        return "FINISHED", None
                    return "FAILED", "no region can run: their blocking inputs never complete"

    def _deploy_ready_regions(self) -> str | None:
        """Deploy the ready regions the deployer has room for; keep the rest queued.

        Returns why the job cannot run, when a region waited longer than ``capacity_wait_s``
        for slots the cluster does not offer."""
        while self._ready:
            region = self._ready[0]
            slots_tasks = region_slots(region)
            capacity = self.deployer.capacity()
            with self._lock:
                in_use = sum(len(attempt.slots_tasks) for attempt in self._attempts.values())
            if capacity is not None and len(slots_tasks) > capacity - in_use:
                if len(slots_tasks) <= capacity and in_use:
                    return None  # a running region ends first
                return self._wait_for_capacity(region, len(slots_tasks), capacity)
            self._capacity_wait_since = None
            self._ready.popleft()
            with self._lock:
                attempt = RegionAttempt(self._next_attempt, region, slots_tasks, self._restore,
                                        self.kill_plan.for_attempt(self.restarts) if self.kill_plan else None)
                self._next_attempt += 1
                self._attempts[region.index] = attempt
            self._emit({"type": "region", "event": "scheduled", "region": attempt.name,
                        "vertices": {vertex: list(subtasks) for vertex, subtasks in region.vertices.items()}})
            self.deployer.deploy(attempt)
        return None

    def _wait_for_capacity(self, region, needed: int, capacity: int) -> str | None:
        self.deployer.wait_for_slots(needed)
        now = time.monotonic()
        if self._capacity_wait_since is None:
            self._capacity_wait_since = now
            self._emit({"type": "region", "event": "waiting", "region": f"r{region.index}", "slots": needed,
                        "capacity": capacity})
        if now - self._capacity_wait_since < self.capacity_wait_s:
            return None
        return (f"region r{region.index} needs {needed} slots at once, but the cluster offers {capacity}: "
                f"lower the parallelism or add cores")

    def _wait_for_change(self, deadline: float | None) -> tuple[str | None, RegionAttempt | None]:
        """Block until something needs the driver: canceled | timeout | failed | None."""
        with self._lock:
            while True:
                if self._cancelled:
                    return "canceled", None
                if self._checkpointing_failure is not None:
                    return "failed", None
                failed = next((a for a in self._attempts.values() if a.failure is not None), None)
                if failed is not None:
                    return "failed", failed
                if self._running_to_report_locked() or any(a.succeeded for a in self._attempts.values()):
                    return None, None
                if not self._attempts and not self._ready:
                    return None, None
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    return "timeout", None
                if self._ready and self._capacity_wait_since is not None:
                    self._changed.wait(0.5)  # capacity may come back: look again soon
                    return None, None
                self._changed.wait(min(1.0, remaining) if remaining is not None else 1.0)

    def _running_to_report_locked(self) -> bool:
        return (not self._running_reported and bool(self._attempts)
                and all(attempt.is_running for attempt in self._attempts.values()))

    def _maybe_report_running(self) -> None:
        """RUNNING once every slot of every deployed attempt runs; checkpointing (re)starts then."""
        with self._lock:
            if not self._running_to_report_locked():
                return
            self._running_reported = True
        self.coordinator.resume(forget_finished=False)
        self._set_status("RUNNING", restored_from=(self._restore or {}).get("location"))
        with self._lock:
            self._ran = True
            deferred, self._deferred = self._deferred, []
        for trigger, future in deferred:
            _chain(trigger(), future)

    def _take_succeeded_attempts(self) -> list[RegionAttempt]:
        with self._lock:
            succeeded = [attempt for attempt in self._attempts.values() if attempt.succeeded]
            for attempt in succeeded:
                del self._attempts[attempt.region.index]
                self._finished |= attempt.tasks
        return succeeded

    def _region_finished(self, attempt: RegionAttempt) -> None:
        """Every subtask of the region finished: release the slots, tell the strategy."""
        self.deployer.release(attempt)
        self._emit({"type": "region", "event": "finished", "region": attempt.name})
        for task in sorted(attempt.tasks):
            self._strategy.on_execution_state_change(ExecutionVertexID(*task), ExecutionState.FINISHED)

    # -- failover ----------------------------------------------------------------------------
    def _failover(self, failed: RegionAttempt | None) -> tuple[str, str | None] | None:
        """Restart the failover set of ``failed`` (None: every region, a checkpointing failure).

        Returns the job's end when the restart strategy gives up or the job is cancelled
        during the delay; None once the regions are scheduled again."""
        with self._lock:
            if failed is None:
                cause, self._checkpointing_failure = self._checkpointing_failure, None
                regions = list(self.plan.regions)
            else:
                cause = failed.failure
                task = failed.failed_task or min(failed.tasks)
                regions = self.plan.failover_strategy().regions_to_restart(ExecutionVertexID(*task))
            indexes = {region.index for region in regions}
            stopping = [attempt for index, attempt in self._attempts.items() if index in indexes]
            for attempt in stopping:
                del self._attempts[attempt.region.index]
            waiting = [region for region in self._ready if region.index not in indexes]
            self._ready.clear()  # in place: the strategy appends to this very deque
            self._ready.extend(waiting)
            restarted = {vertex for region in regions for vertex in region.execution_vertex_ids()}
            self._finished -= restarted
            for task in restarted:
                self._results.pop(task, None)
                self._metrics.pop(task, None)
            self._running_reported = False
        self.coordinator.pause("region failover")
        self._cancel_attempts(stopping, emit=True)
        self.coordinator.forget_finished(restarted)
        if self.shuffle is not None:
            self.shuffle.release_partitions_of(self._blocking_outputs(restarted))
        delay = self.restart_strategy.on_failure()
        if delay is None:
            return "FAILED", cause
        self.restarts += 1
        self._set_status("RESTARTING", cause=cause, regions=sorted((f"r{i}" for i in indexes), key=_region_order),
                         delay_ms=int(delay * 1000), restart_strategy=self.restart_strategy.describe())
        if self._sleep_unless_cancelled(delay):
            return "CANCELED", None
        if self.job_graph.takes_savepoints:
            self._restore = self.coordinator.latest_completed() or self.initial_restore
        else:
            self._restore = None  # regions re-read their blocking inputs
        self.operator_coordinators.subtasks_reset(restarted, self._restore)
        self._strategy.restart_tasks(sorted(restarted))
        return None

    def _cancel_attempts(self, attempts: list[RegionAttempt], *, emit: bool) -> None:
        if not attempts:
            return
        self.deployer.cancel(attempts)
        if emit:
            for attempt in attempts:
                self._emit({"type": "region", "event": "canceled", "region": attempt.name})

    def _blocking_outputs(self, tasks) -> list:
        channels = []
        for vertex, index in sorted(tasks):
            producers = self.job_graph.vertex(vertex).parallelism
            for edge in self.job_graph.outputs_of(vertex):
                if edge.is_blocking:
                    consumers = self.job_graph.vertex(edge.target).parallelism
                    channels.extend(output_channel_ids(edge, index, producers, consumers))
        return channels

    def _sleep_unless_cancelled(self, delay: float) -> bool:
        deadline = time.monotonic() + delay
        with self._lock:
            while not self._cancelled:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                self._changed.wait(remaining)
            return True

    # -- the end -----------------------------------------------------------------------------
    def _conclude(self, status: str, failure: str | None, duration: float) -> JobResult:
        with self._emit_order:
            self._concluded = True
            with self._lock:
                collected, counts = self._collected_locked()
                # the subtasks' last reports, which the throttle may have held back (``finished`` carries the records)
                final_metrics = self._metrics_event_locked(with_collected=False) if self._metrics else None
            if final_metrics is not None:
                self._emit_locked(final_metrics)
            if collected:
                self._emit_locked({"type": "finished", "collected": collected})
            self.status = status
            extra = {"cause": failure} if failure and status != "FINISHED" else {}
            self._emit_locked({"type": "status", "status": status, **extra})
        self.result = JobResult(
            status=status, collected=collected, counts=counts, failure=failure if status != "FINISHED" else None,
            restarts=self.restarts, checkpoints=self.coordinator.stats.snapshot(),
            completed_checkpoints=self.coordinator.completed_checkpoints(),
            latest_checkpoint=self.coordinator.latest_completed(), events=list(self.events),
            duration_s=duration, checkpoint_dir=self.checkpoint_dir)
        return self.result

    def _collected_locked(self) -> tuple[dict[str, list], dict[str, int]]:
        """Collect sinks' records and counts by node, subtask order: from the final result of a
        finished subtask, from the latest metrics of one still running."""
        collected: dict[str, list] = {}
        counts: dict[str, int] = {}
        for task in sorted(set(self._results) | set(self._metrics)):
            source = self._results.get(task) or self._metrics.get(task) or {}
            for node_id, records in (source.get("collected") or {}).items():
                collected.setdefault(node_id, []).extend(records)
            for node_id, count in (source.get("counts") or {}).items():
                counts[node_id] = counts.get(node_id, 0) + count
        return collected, counts

    # -- events --------------------------------------------------------------------------------
    def _set_status(self, status: str, **extra: Any) -> None:
        self.status = status
        self._emit({"type": "status", "status": status, **extra})

    def _emit(self, event: dict) -> None:
        with self._emit_order:
            self._emit_locked(event)

    def _emit_locked(self, event: dict) -> None:
        self.events.append(event)
        if self._on_event is not None:
            try:
                self._on_event(event)
            except Exception:
                logger.exception("event sink failed for %s", event.get("type"))


class _Participants:
    """The coordinator's ``CheckpointParticipants``: every running slot of the current attempts."""

    def __init__(self, job_master: JobMaster):
        self._job_master = job_master

    def trigger_checkpoint(self, checkpoint_id: int, timestamp_ms: int, options: dict) -> None:
        for slot in self._job_master.slots_of_current_attempts():
            slot.trigger_checkpoint(checkpoint_id, timestamp_ms, options)

    def notify_checkpoint_complete(self, checkpoint_id: int) -> None:
        self._job_master.operator_coordinators.checkpoint_complete(checkpoint_id)
        for slot in self._job_master.slots_of_current_attempts():
            slot.notify_checkpoint_complete(checkpoint_id)

    def notify_checkpoint_aborted(self, checkpoint_id: int) -> None:
        for slot in self._job_master.slots_of_current_attempts():
            slot.notify_checkpoint_aborted(checkpoint_id)


class JobHandle:
    """A job running in the background: events, status, savepoints, stop, cancel, wait."""

    def __init__(self, job_master: JobMaster):
        self.job_master = job_master

    @property
    def job(self) -> JobMaster:
        """The job's JobMaster (the name the in-process handle used)."""
        return self.job_master

    @property
    def status(self) -> str:
        return self.job_master.status

    @property
    def events(self) -> EventLog:
        return self.job_master.events

    @property
    def result(self) -> JobResult | None:
        return self.job_master.result

    def trigger_savepoint(self, target: str | None = None) -> Future:
        return self.job_master.trigger_savepoint(target)

    def stop_with_savepoint(self, drain: bool = False, target: str | None = None) -> Future:
        return self.job_master.stop_with_savepoint(drain, target)

    def trigger_checkpoint(self) -> Future:
        return self.job_master.trigger_checkpoint()

    def cancel(self) -> None:
        self.job_master.cancel()

    def metrics(self) -> dict:
        return self.job_master.metrics()

    def open_tap(self, edge_id: str, sink, limits: dict | None = None, tap_id: str | None = None) -> str:
        """Sample the records on ``edge_id`` live into ``sink`` (never blocking the job); returns the tap id."""
        return self.job_master.open_tap(edge_id, sink, limits, tap_id)

    def close_tap(self, tap_id: str) -> None:
        self.job_master.close_tap(tap_id)

    def wait(self, timeout: float | None = None) -> JobResult:
        """The result once the job ended; TimeoutError after ``timeout`` seconds.

        Waits in steps of a second, so signal handlers of the main thread still run."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while not self.job_master.done.wait(1.0):
            if deadline is not None and time.monotonic() >= deadline:
                raise TimeoutError(f"the job did not end within {timeout} s")
        return self.job_master.result


def _region_order(name: str) -> int:
    return int(name[1:])


def _chain(source: Future, target: Future) -> None:
    """Complete ``target`` as ``source`` completes."""
    def copy(done: Future) -> None:
        error = done.exception()
        if error is None:
            target.set_result(done.result())
        else:
            target.set_exception(error)

    source.add_done_callback(copy)


def _failed_future(message: str) -> Future:
    future: Future = Future()
    future.set_exception(CheckpointException(message))
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
