"""Session mode: many jobs in one shared Spark application, as Flink's session cluster runs many jobs.

A job in a driver of its own pays for a Python driver, a Spark JVM and the executors'
Python daemon (about 550 MB and seconds of start-up per run). A :class:`SessionCluster`
starts one Spark application once and runs every job it is given inside it: each job is
still the one JobMaster over the Spark deployer (:class:`SessionDeployer`), with its own
checkpoint storage, control channel, events and failover, and its barrier stages in a
Spark job group and FAIR scheduler pool of its own, so cancelling or failing over one job
touches no other job's stages.

The application's slots (its cores: ``local[N]``'s N, a standalone cluster's executor
cores) are handed out by a :class:`SlotPool`: a job takes the slots of a region when it
deploys it and gives them back when the region ends or is cancelled. A job whose region
does not fit waits, and says so (the JobMaster's ``region`` ``waiting`` event), without a
deadline (a session's slots come back as other jobs end); jobs wait in arrival order, so
a later job never takes the slots an earlier one waits for. A job that could never fit
(more slots at once than the whole application has) fails at once, naming the figures.

On a standalone (or other cluster) master with :class:`ElasticSettings`, the application is
elastic (``engine.cluster.elastic``): one core per executor, as many executors as the jobs
hold and wait for (within a minimum and a maximum), idle ones released after a grace
period; the pool's total is then the registered executors' slots, so a waiting job starts
once its executors are there. ``local[N]``'s cores are fixed for the application's life:
its pool's total stays N.

Thread-safety: the pool and the cluster's registry are under locks; each deployer is
called by its own JobMaster's driver thread, as any deployer is.
"""
from __future__ import annotations

import os
import threading
import time
import uuid
from typing import Callable

from engine.cluster.elastic import ELASTIC_CONF, ElasticExecutors, ElasticSettings, SparkExecutors
from engine.cluster.spark_deployer import EXECUTOR_WAIT_S, SparkDeployer
from engine.cluster.spark_daemon import SLOT_AUTOGROUP_VARIABLE, SLOT_NICE_VARIABLE
from engine.cluster.spark_session import create_spark_session, spark_master_for, start_python_workers

SESSION_APP_NAME = "pipeline-studio-session"
FAIR_SCHEDULING = {"spark.scheduler.mode": "FAIR"}


class SessionTooSmall(Exception):
    """A job needs more slots at once than the whole shared application offers."""


class SlotPool:
    """The slots of one shared application, taken and given back by its jobs, fairly.

    ``available_to(job)`` is what ``job`` may take now: the free slots less those every
    job queued before it waits for (first come, first served; a job not queued counts
    every queued job as before it)."""

    def __init__(self, total: Callable[[], int]):
        self._total = total
        self._lock = threading.Lock()
        self._held: dict[str, int] = {}  # guarded by: self._lock
        self._waiting: dict[str, int] = {}  # guarded by: self._lock; in arrival order

    @property
    def total(self) -> int:
        return self._total()

    def held_by(self, job: str) -> int:
        with self._lock:
            return self._held.get(job, 0)

    def available_to(self, job: str) -> int:
        with self._lock:
            free = self._total() - sum(self._held.values())
            ahead = 0
            for other, slots in self._waiting.items():
                if other == job:
                    break
                ahead += slots
            return max(0, free - ahead)

    def wait_for(self, job: str, slots: int) -> None:
        """Queue ``job`` for ``slots`` (kept at its place when it waits already)."""
        with self._lock:
            self._waiting[job] = slots

    def take(self, job: str, slots: int) -> None:
        with self._lock:
            self._waiting.pop(job, None)
            self._held[job] = self._held.get(job, 0) + slots

    def give_back(self, job: str, slots: int) -> None:
        with self._lock:
            left = self._held.get(job, 0) - slots
            if left > 0:
                self._held[job] = left
            else:
                self._held.pop(job, None)

    def demand(self) -> int:
        """Slots held and waited for: what an elastic session sizes its executors to."""
        with self._lock:
            return sum(self._held.values()) + sum(self._waiting.values())

    def leave(self, job: str) -> None:
        with self._lock:
            self._held.pop(job, None)
            self._waiting.pop(job, None)

    def usage(self) -> dict:
        """``{"slots", "used", "held": {job: n}, "waiting": {job: n}}``: what the studio shows."""
        with self._lock:
            return {"slots": self._total(), "used": sum(self._held.values()), "held": dict(self._held),
                    "waiting": dict(self._waiting)}


class SessionCluster:
    """One Spark application that many jobs share; see the module docstring.

    ``session``: an existing SparkSession to share (tests share their process's); otherwise
    one is started on ``master`` (``local[slots]`` when None) with FAIR scheduling, and its
    executors' Python daemon is started before the cluster is handed out: a run's barrier
    stage then forks a worker from it, where the first jobs of a cold session
    waited for the daemon to import the engine (12 s for eight runs at once, at a load of 17
    on 2 cores; 1.5-2.3 s once it ran)."""

    def __init__(self, slots: int, master: str | None = None, session=None, elastic: ElasticSettings | None = None,
                 slot_nice: int = 0, slot_autogroup_nice: int = 0):
        """``elastic``: size the executors to the jobs' slots (a cluster master only; ``local[N]`` is fixed);
        its ``maximum`` is the most slots the session offers. ``slot_nice``: the niceness the slots' processes
        run at (``engine.cluster.spark_daemon``): above 0, the processes beside them on the machine (the
        studio's web server, the session's driver) come first when the CPU is short. ``slot_autogroup_nice``:
        above 0, where Linux groups the CPU by session (autogroup), the slots' daemon starts a session of its own
        at that autogroup niceness (``engine.cluster.autogroup``): the slots then weigh that against every other
        session, the driver's (its JobMasters, heartbeats, new runs' starts) and the web server's included, where
        ``slot_nice`` orders them against their own session's processes only."""
        master = spark_master_for(slots, master) if session is None else session.sparkContext.master
        if master.startswith("local"):
            elastic = None
        self.elastic: ElasticExecutors | None = None
        self.pool = SlotPool(self._slots)
        started = session is None
        if started:
            conf = dict(FAIR_SCHEDULING)
            if slot_nice:
                conf[f"spark.executorEnv.{SLOT_NICE_VARIABLE}"] = str(int(slot_nice))
            if slot_autogroup_nice:
                conf[f"spark.executorEnv.{SLOT_AUTOGROUP_VARIABLE}"] = str(int(slot_autogroup_nice))
            if elastic is not None:
                conf.update({**ELASTIC_CONF, "spark.cores.max": str(elastic.maximum)})
            session = create_spark_session(SESSION_APP_NAME, master, conf)
        self.session = session
        if elastic is not None:
            self.elastic = ElasticExecutors(SparkExecutors(session.sparkContext), self.pool.demand, elastic)
            self.elastic.start()
            self._wait_for_minimum()
        if started and self.pool.total:
            start_python_workers(session, min(self.pool.total, os.cpu_count() or 1))

    def _slots(self) -> int:
        return self.elastic.slots if self.elastic is not None else self.session.sparkContext.defaultParallelism

    def _wait_for_minimum(self, timeout: float = EXECUTOR_WAIT_S) -> None:
        """Wait a while for the minimum of executors (the master starts them as the application registers)."""
        deadline = time.monotonic() + timeout
        while self.pool.total < self.elastic.settings.minimum and time.monotonic() < deadline:
            time.sleep(self.elastic.settings.interval_s)

    @property
    def max_slots(self) -> int:
        """The most slots the session can offer: an elastic one's maximum of executors, else its slots."""
        return self.elastic.settings.maximum if self.elastic is not None else self.pool.total

    @property
    def application_id(self) -> str:
        return self.session.sparkContext.applicationId

    def deployer(self, job: str, *, advertised_host: str | None = None) -> "SessionDeployer":
        """The deployer of job ``job`` (a name unique in this session: the studio's run)."""
        return SessionDeployer(self, job, advertised_host=advertised_host)

    def usage(self) -> dict:
        """Slots of the application, in use, per job held and waited for; an elastic session's executors
        (registered, asked for, its minimum and maximum)."""
        usage = self.pool.usage()
        if self.elastic is not None:
            usage.update(self.elastic.usage())
        return usage

    def stop(self) -> None:
        if self.elastic is not None:
            self.elastic.stop()
        self.session.stop()


class SessionDeployer(SparkDeployer):
    """The Spark deployer of one job in a :class:`SessionCluster`: its slots from the shared pool,
    its stages in a job group and scheduler pool named after the job."""

    def __init__(self, cluster: SessionCluster, job: str, *, advertised_host: str | None = None):
        super().__init__(spark_session=cluster.session, advertised_host=advertised_host, pin_slots=False)
        self.job = job
        self._pool = cluster.pool
        self._max_slots = lambda: cluster.max_slots
        self._elastic = cluster.elastic is not None
        self.job_group = f"{job}-{uuid.uuid4().hex[:8]}"
        self.scheduler_pool = job

    def open(self, job_master) -> None:
        needed, total = job_master.slots_needed_at_once(), self._max_slots()
        if needed > total:
            raise SessionTooSmall(f"the job needs {needed} slots at once, but the shared session offers {total}: "
                                  "lower the parallelism or run it isolated, in a driver of its own")
        super().open(job_master)

    def _await_executors(self, needed: int) -> None:
        if not self._elastic:  # an elastic session's pool says when its executors are there: the job waits in it
            super()._await_executors(needed)

    def capacity(self) -> int | None:
        return self._pool.held_by(self.job) + self._pool.available_to(self.job)

    def wait_for_slots(self, slots: int) -> None:
        self._pool.wait_for(self.job, slots)

    def deploy(self, attempt) -> None:
        self._pool.take(self.job, len(attempt.slots_tasks))
        super().deploy(attempt)

    def cancel(self, attempts: list) -> None:
        try:
            super().cancel(attempts)
        finally:
            self._pool.give_back(self.job, sum(len(attempt.slots_tasks) for attempt in attempts))

    def release(self, attempt) -> None:
        super().release(attempt)
        self._pool.give_back(self.job, len(attempt.slots_tasks))

    def close(self) -> None:
        try:
            super().close()
        finally:
            self._pool.leave(self.job)
