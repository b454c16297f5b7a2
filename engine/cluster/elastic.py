"""Elastic executors: a shared application on a Spark standalone master grows and shrinks with its jobs' slots.

A :class:`SessionCluster` on a standalone (or other cluster) master runs one core per
executor (``spark.executor.cores=1``), so one executor is one slot. :class:`ElasticExecutors`
looks every ``interval_s`` at the session's :class:`SlotPool` (the slots jobs hold, and
those they wait for) and at the executors Spark has registered, and asks the cluster
manager for as many executors as that demand, within ``[minimum, maximum]``:

- more demand than executors: it asks for the total (``requestTotalExecutors``); the
  master starts executors on the workers, and the pool's total follows the registered
  executors, so a waiting job (the JobMaster's ``waiting`` region event) starts its
  barrier stage only once Spark counts enough slots for the whole gang;
- less demand: an executor idle (running no task) for ``grace_s`` is killed, the longest
  idle first, down to the demand and never below ``minimum``. A busy executor is never
  killed: the kill is asked with ``force=false``, which Spark checks under its scheduler
  lock, so a slot launched on it meanwhile keeps it.

Spark's own dynamic allocation cannot do this: it refuses barrier stages
(``BarrierJobRunWithDynamicAllocationException``: "Barrier execution mode does not support
dynamic resource allocation"), and every region is one. So it stays off, and this class
drives the executor count itself (``tests/engine/cluster/test_elastic_standalone.py``
checks both).

``local[N]`` is not elastic: its N cores are threads of the driver's JVM, fixed for the
application's life. There the pool's total stays N and no :class:`ElasticExecutors` runs.

The decision is :func:`scale`, a pure function of demand, executors and their idle times.

Threading model: one daemon thread (``elastic-executors``) ticks; ``usage`` may be called
from any thread (it reads a snapshot under ``self._lock``).
"""
from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass

logger = logging.getLogger(__name__)

ELASTIC_CONF = {"spark.executor.cores": "1", "spark.dynamicAllocation.enabled": "false"}
"""The shared application's configuration when it is elastic: one slot per executor; Spark's
dynamic allocation off (it refuses barrier stages)."""


@dataclass(frozen=True)
class ElasticSettings:
    """How an elastic session sizes itself: between ``minimum`` and ``maximum`` executors (one slot
    each); an idle executor is released after ``grace_s``; the demand is looked at every ``interval_s``."""

    minimum: int = 1
    maximum: int = 64
    grace_s: float = 30.0
    interval_s: float = 0.5

    def __post_init__(self):
        if not 0 <= self.minimum <= self.maximum or self.maximum < 1:
            raise ValueError(f"elastic executors need 0 <= minimum <= maximum and maximum >= 1, "
                             f"got minimum {self.minimum} and maximum {self.maximum}")
        if self.grace_s < 0 or self.interval_s <= 0:
            raise ValueError(f"elastic executors need grace_s >= 0 and interval_s > 0, "
                             f"got {self.grace_s} and {self.interval_s}")


@dataclass(frozen=True)
class Scaling:
    """What to ask Spark for: ``total`` executors, and the idle ``kill``-ed ones gone."""

    total: int
    kill: tuple[str, ...] = ()


def scale(demand: int, idle_since: dict[str, float | None], *, minimum: int, maximum: int, grace_s: float,
          now: float) -> Scaling:
    """The executors the session should have for ``demand`` slots.

    ``idle_since``: every registered executor, with when it last became idle (None: it runs a
    task now). The target is the demand within ``[minimum, maximum]``; above it, executors idle
    for at least ``grace_s`` are killed, the longest idle first; a busy one never is. ``total``
    counts what stays (so the cluster manager starts none to replace the killed ones, and kills
    none it has started), never below the target.
    """
    target = min(maximum, max(minimum, demand))
    surplus = len(idle_since) - target
    if surplus <= 0:
        return Scaling(target)
    idle = sorted((since, executor) for executor, since in idle_since.items()
                  if since is not None and now - since >= grace_s)
    kill = tuple(sorted(executor for _, executor in idle[:surplus]))
    return Scaling(max(target, len(idle_since) - len(kill)), kill)


class SparkExecutors:
    """The executors of one Spark application, through the driver's JVM (py4j): registered, busy, asked for."""

    def __init__(self, context):
        self._context = context
        self._jvm = context._jvm
        self._sc = context._jsc.sc()

    def active(self) -> list[str]:
        """Registered executors not being removed (the driver is not one)."""
        backend = self._sc.schedulerBackend()
        listed = str(backend.getExecutorIds().mkString(","))
        return sorted(executor for executor in listed.split(",") if executor and backend.isExecutorActive(executor))

    def busy(self, executor: str) -> bool:
        return bool(self._sc.taskScheduler().isExecutorBusy(executor))

    def slots(self) -> int:
        """How many tasks the registered executors run at once: what Spark checks a barrier stage against."""
        profile = self._sc.resourceProfileManager().defaultResourceProfile()
        return int(self._sc.maxNumConcurrentTasks(profile))

    def request_total(self, total: int) -> None:
        no_locality = self._jvm.org.apache.spark.api.python.PythonUtils.toScalaMap(self._jvm.java.util.HashMap())
        self._sc.requestTotalExecutors(total, 0, no_locality)

    def kill_idle(self, executors: tuple[str, ...]) -> list[str]:
        """Kill ``executors`` unless busy (Spark checks under its scheduler lock); the target is left as
        asked by :meth:`request_total`. The ones killed."""
        ids = self._jvm.java.util.ArrayList()
        for executor in executors:
            ids.add(executor)
        seq = self._jvm.org.apache.spark.api.python.PythonUtils.toSeq(ids)
        # adjustTargetNumExecutors=false, countFailures=false, force=false: a busy executor is left alone
        killed = self._sc.schedulerBackend().killExecutors(seq, False, False, False)
        return [executor for executor in str(killed.mkString(",")).split(",") if executor]


class ElasticExecutors:
    """Sizes a shared application's executors to its pool's demand; see the module docstring."""

    def __init__(self, executors, demand, settings: ElasticSettings, clock=time.monotonic):
        """``executors``: a :class:`SparkExecutors` (or a stand-in with its methods); ``demand``: the slots
        held and waited for now (``SlotPool.demand``)."""
        self.settings = settings
        self._executors = executors
        self._demand = demand
        self._clock = clock
        self._lock = threading.Lock()
        self._idle_since: dict[str, float | None] = {}  # ticking thread only
        self._asked: int | None = None  # ticking thread only
        self._usage = {"executors": 0, "executors_target": settings.minimum, "slots": 0}  # guarded by: self._lock
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self.tick()
        self._thread = threading.Thread(target=self._loop, name="elastic-executors", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stopping.set()
        if self._thread is not None:
            self._thread.join(10)

    @property
    def slots(self) -> int:
        """The slots of the registered executors at the last tick, as Spark counts them for a barrier stage
        (executors being removed do not count): the pool's total."""
        with self._lock:
            return self._usage["slots"]

    def usage(self) -> dict:
        """``executors`` registered, ``executors_target`` asked for, ``executors_min``/``executors_max``."""
        with self._lock:
            return {"executors": self._usage["executors"], "executors_target": self._usage["executors_target"],
                    "executors_min": self.settings.minimum, "executors_max": self.settings.maximum}

    def tick(self) -> Scaling:
        """Look at the demand and the executors once; ask Spark for what :func:`scale` says."""
        now = self._clock()
        active = self._executors.active()
        idle_since = {}
        for executor in active:
            if self._executors.busy(executor):
                idle_since[executor] = None
            else:
                since = self._idle_since.get(executor)
                idle_since[executor] = now if since is None else since
        self._idle_since = idle_since
        settings = self.settings
        scaling = scale(self._demand(), idle_since, minimum=settings.minimum, maximum=settings.maximum,
                        grace_s=settings.grace_s, now=now)
        if scaling.total != self._asked:
            self._executors.request_total(scaling.total)
            self._asked = scaling.total
            logger.info("elastic session: asking for %s executors (%s registered)", scaling.total, len(active))
        killed = self._executors.kill_idle(scaling.kill) if scaling.kill else []
        for executor in killed:
            self._idle_since.pop(executor, None)
        if killed:
            logger.info("elastic session: released idle executors %s", ", ".join(killed))
        slots = self._executors.slots()  # after the kills: executors being removed no longer count
        with self._lock:
            self._usage = {"executors": len(active) - len(killed), "executors_target": scaling.total, "slots": slots}
        return scaling

    def _loop(self) -> None:
        while not self._stopping.wait(self.settings.interval_s):
            try:
                self.tick()
            except Exception:  # the application stopping, py4j gone: the next tick tells
                if self._stopping.is_set():
                    return
                logger.warning("elastic session: could not size the executors", exc_info=True)
