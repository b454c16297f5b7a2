"""Spark barrier stages as the deployer of the one JobMaster.

Each region attempt runs as one Spark barrier stage (``rdd.barrier().mapPartitions``),
which starts all its slots together or none, as a pipelined region needs. Slot ``i`` of a
region hosts the ``i``-th subtask of each of the region's job vertices (slot sharing).
Independent regions run concurrently as separate Spark jobs, each in its own job group
so that cancelling one leaves the others alone. Every slot connects back to the driver's
control channel (``engine.cluster.control``) and registers with the address of its
network; once all slots of a stage registered, the deployer sends each of them every
slot's address (``peers``), so the slots connect to each other without Spark's
``allGather`` (whose task side polls once a second).

Spark's own task and stage retries are off (``spark_session``): a failed slot fails its
barrier stage, and the JobMaster's failover, not Spark, restarts the region.

The one JobMaster runs over it as over the threads' deployer (``engine.api.job_master_for``
with a ``Spark`` deployment builds it)::

    result = JobMaster(definition, SparkDeployer(spark_session=session), checkpoint_dir=url).run()
    result.status, result.failure, result.collected

Threading model
    The JobMaster's driver thread calls ``deploy``/``cancel``/``release``/``close``; one
    thread per stage blocks in Spark's ``collect``; control reader threads report slots
    registering and disconnecting. The stages by number are guarded by ``self._lock``.
"""
from __future__ import annotations

import logging
import os
import threading
import time
import uuid
from dataclasses import replace

from engine.cluster.addresses import control_endpoint
from engine.cluster.control import ControlServer, RemoteSlot
from engine.cluster.job_master import JobMaster, RegionAttempt
from engine.cluster.spark_session import create_spark_session, spark_master_for
from engine.cluster.spark_slot import SlotPayload, run_slot_partition

logger = logging.getLogger(__name__)

STAGE_STOP_TIMEOUT_S = 30
REPORTS_TIMEOUT_S = 10
EXECUTOR_WAIT_S = 60

class _Stage:
    """The Spark side of one region attempt: its slots as they register, its stage thread."""

    def __init__(self, attempt: RegionAttempt):
        self.attempt = attempt
        self.registered: dict[int, RemoteSlot] = {}
        self.disconnected = threading.Semaphore(0)
        """Released once per slot whose control connection ended: every report of it was dispatched."""
        self.lost: set[int] = set()
        """Slots whose control connection ended (guarded by the deployer's lock): their subtasks stopped."""
        self.thread: threading.Thread | None = None
        self.cancelled = False


class SparkDeployer:
    """Deploys region attempts as Spark barrier stages (a ``Deployer``)."""

    def __init__(self, *, spark_master: str | None = None, spark_session=None, advertised_host: str | None = None,
                 pin_slots: bool = True, cpu_lock_dir: str | None = None):
        self._spark_master = spark_master
        self._session = spark_session
        self._advertised_host = advertised_host
        self._pin_slots = pin_slots
        self._cpu_lock_dir = cpu_lock_dir
        self.job_group = f"pipeline-{uuid.uuid4().hex[:12]}"
        self.scheduler_pool: str | None = None
        """The FAIR scheduler pool of the job's stages (None: the application's default pool)."""
        self._job_master: JobMaster | None = None
        self._server: ControlServer | None = None
        self._lock = threading.Lock()
        self._slots_changed = threading.Condition(self._lock)  # a slot disconnected, or a stage thread ended
        self._stages: dict[int, _Stage] = {}  # guarded by: self._lock; by attempt number, until released
        self._every_stage: dict[int, _Stage] = {}  # guarded by: self._lock; by attempt number, all of the job
        self._ending: list[_Stage] = []  # driver thread only: finished or cancelled stages Spark still completes

    # -- Deployer ------------------------------------------------------------------------------
    def open(self, job_master: JobMaster) -> None:
        self._job_master = job_master
        needed = job_master.slots_needed_at_once()
        if self._session is None:
            self._session = create_spark_session(job_master.definition.get("name", "pipeline"),
                                                 spark_master_for(needed, self._spark_master))
        endpoint = control_endpoint()
        # The driver host's ENGINE_CONTROL_ADVERTISED_HOST wins: the operator who set it knows
        # the network, and callers (the studio's runner) pass the one-machine default.
        if self._advertised_host and not os.environ.get("ENGINE_CONTROL_ADVERTISED_HOST"):
            endpoint = replace(endpoint, advertised_host=self._advertised_host)
        self._server = ControlServer(self._gateway_for, self._slot_registered, self._slot_disconnected, endpoint)
        self._await_executors(needed)

    def _await_executors(self, needed: int) -> None:
        _wait_for_executors(self._session.sparkContext, needed)

    def capacity(self) -> int | None:
        return self._session.sparkContext.defaultParallelism

    def wait_for_slots(self, slots: int) -> None:
        pass  # the application is the job's own: nobody else to queue behind

    def deploy(self, attempt: RegionAttempt) -> None:
        stage = _Stage(attempt)
        attempt.deployment = stage
        with self._lock:
            self._stages[attempt.number] = stage
            self._every_stage[attempt.number] = stage
        stage.thread = threading.Thread(target=self._stage_thread, args=(stage,),
                                        name=f"barrier-stage-{attempt.number}", daemon=True)
        stage.thread.start()

    def cancel(self, attempts: list[RegionAttempt]) -> None:
        stages = [attempt.deployment for attempt in attempts]
        context = self._session.sparkContext
        for stage in stages:
            with self._lock:
                stage.cancelled = True
                slots = list(stage.registered.values())
            for slot in slots:
                slot.cancel()
            context.cancelJobGroup(self._job_group_of(stage.attempt))
        for stage in stages:
            self._wait_until_slots_stopped(stage)
            with self._lock:
                self._stages.pop(stage.attempt.number, None)
            self._ending.append(stage)

    def _wait_until_slots_stopped(self, stage: _Stage) -> None:
        """Return once every slot that registered has disconnected (its subtasks stopped) or
        the stage ended, bounded by ``STAGE_STOP_TIMEOUT_S``.

        Not until Spark ended the job: its failure reaches ``collect`` up to a second after
        the slots stopped on a busy host, and the restarted region need not wait for that
        (Spark starts the next barrier stage once the cores are free). Slots that had not
        registered yet are refused when they do, before they run anything (``cancelled``);
        ``close`` waits for the stage thread.
        """
        with self._lock:
            self._slots_changed.wait_for(lambda: stage.lost >= set(stage.registered) or not stage.thread.is_alive(),
                                         STAGE_STOP_TIMEOUT_S)

    def release(self, attempt: RegionAttempt) -> None:
        """The region finished (every subtask reported so); Spark still completes the stage
        (the Python workers return, the scheduler ends the job): ``close`` waits for that."""
        with self._lock:
            self._stages.pop(attempt.number, None)
        self._ending.append(attempt.deployment)

    def close(self) -> None:
        for stage in self._ending:
            stage.thread.join(STAGE_STOP_TIMEOUT_S)
        self._ending.clear()
        if self._server is not None:
            self._server.close()

    # -- the stage thread ----------------------------------------------------------------------
    def _run_stage(self, stage: _Stage) -> None:
        job_master, attempt = self._job_master, stage.attempt
        payload = SlotPayload(definition=job_master.definition, slots_tasks=[list(map(tuple, tasks))
                                                                              for tasks in attempt.slots_tasks],
                              control_address=self._server.advertised_address,
                              config=job_master.config, restore=attempt.restore, stage_id=attempt.number,
                              blocking_edges=sorted(edge.id for edge in job_master.job_graph.edges
                                                    if edge.is_blocking),
                              shuffle_dir=job_master.shuffle.directory if job_master.shuffle else "",
                              pin_cpu=self._pin_slots, cpu_lock_dir=self._cpu_lock_dir,
                              planned_kills=attempt.planned_kills,
                              crash=job_master.kill_plan.crash if job_master.kill_plan else "exit",
                              kill_record_dir=job_master.kill_plan.record_dir if job_master.kill_plan else None)
        context = self._session.sparkContext
        try:
            if self.scheduler_pool is not None:  # a thread-local property, as the job group is
                context.setLocalProperty("spark.scheduler.pool", self.scheduler_pool)
            context.setJobGroup(self._job_group_of(attempt), f"{job_master.definition.get('name')} {attempt.name}",
                                interruptOnCancel=True)
            slot_count = len(attempt.slots_tasks)
            context.parallelize(range(slot_count), slot_count).barrier() \
                .mapPartitions(run_slot_partition(payload)).collect()
        except Exception as error:  # a failed slot fails the whole barrier stage
            if not stage.cancelled:
                job_master.on_attempt_failed(attempt, _stage_failure_message(error))
            return
        # The slots sent their reports before they returned, but the control readers may
        # still be dispatching them: a slot's connection ends after its last report.
        deadline = time.monotonic() + REPORTS_TIMEOUT_S
        for _ in attempt.slots_tasks:
            if not stage.disconnected.acquire(timeout=max(0.0, deadline - time.monotonic())):
                break
        if not stage.cancelled and not job_master.is_finished(attempt):
            job_master.on_attempt_failed(attempt, "the barrier stage ended before every task of its region finished")

    def _stage_thread(self, stage: _Stage) -> None:
        try:
            self._run_stage(stage)
        finally:
            with self._lock:
                self._slots_changed.notify_all()

    def _job_group_of(self, attempt: RegionAttempt) -> str:
        return f"{self.job_group}-s{attempt.number}"

    # -- control channel callbacks ---------------------------------------------------------
    def _stage(self, stage_id: int) -> _Stage | None:
        with self._lock:
            return self._stages.get(stage_id)

    def _gateway_for(self, stage_id: int):
        stage = self._stage(stage_id)
        if stage is None:
            return _DroppingGateway()
        return self._job_master.gateway_for(stage.attempt)

    def _slot_registered(self, slot: RemoteSlot) -> None:
        with self._lock:
            stage = self._stages.get(slot.stage_id)
            if stage is not None and not stage.cancelled:
                stage.registered[slot.slot_index] = slot
                complete = len(stage.registered) == len(stage.attempt.slots_tasks)
                peers = [stage.registered[index].peer for index in sorted(stage.registered)] if complete else None
        if stage is None or stage.cancelled:
            slot.cancel()  # a straggler of a stage that was cancelled
            return
        if peers is not None:  # every slot listens now: tell each where the others are
            for registered in list(stage.registered.values()):
                registered.send_peers(peers)
        self._job_master.on_slot_running(stage.attempt, slot.slot_index, slot)

    def _slot_disconnected(self, slot: RemoteSlot) -> None:
        with self._lock:
            stage = self._every_stage.get(slot.stage_id)
            current = slot.stage_id in self._stages
            if stage is not None:
                stage.lost.add(slot.slot_index)
                self._slots_changed.notify_all()
        if stage is None:
            return
        stage.disconnected.release()
        if not current or stage.cancelled:
            return
        attempt = stage.attempt
        if not self._job_master.is_finished(attempt, attempt.slots_tasks[slot.slot_index]):
            self._job_master.on_attempt_failed(
                attempt, f"slot {slot.slot_index} of region {attempt.name} lost its connection")

    # -- tools ---------------------------------------------------------------------------------
    def registered_slots(self) -> list[RemoteSlot]:
        with self._lock:
            return [slot for stage in self._stages.values() for slot in stage.registered.values()]

    def slot_pids(self) -> dict[int, int]:
        """The process id of each registered slot, by slot index of its region (tests, tools)."""
        return {slot.slot_index: slot.pid for slot in self.registered_slots()}

    def slot_cpus(self) -> dict[int, int | None]:
        """The CPU each registered slot is pinned to (None: not pinned), by slot index of its region."""
        return {slot.slot_index: slot.cpu for slot in self.registered_slots()}


class _DroppingGateway:
    """The gateway of a stage that is gone: its slots' reports are dropped."""

    def __getattr__(self, name: str):
        return lambda *args, **kwargs: None


def _wait_for_executors(context, needed: int, timeout: float = EXECUTOR_WAIT_S) -> None:
    """Wait a while for executors still registering (a standalone cluster's come after the
    session started); ``local[N]`` offers its N slots at once."""
    deadline = time.monotonic() + timeout
    while context.defaultParallelism < needed and not context.master.startswith("local") \
            and time.monotonic() < deadline:
        time.sleep(0.5)


def _stage_failure_message(error: Exception) -> str:
    """The user's error from a Spark failure, without the JVM's stack traces."""
    text = str(error)
    for marker in ("SlotFailure: ", "RuntimeError: "):
        if marker in text:
            return text.split(marker, 1)[1].splitlines()[0].strip()
    first_line = text.strip().splitlines()[0][:500] if text.strip() else type(error).__name__
    return f"the barrier stage failed: {first_line}"
