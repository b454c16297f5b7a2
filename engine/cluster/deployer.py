"""The deployer: where and how a region attempt's slots run, below the one JobMaster.

The JobMaster (``engine.cluster.job_master``) decides *what* runs and when; a deployer
only starts, stops and counts slots. Two implementations:

- ``engine.cluster.local.ThreadDeployer``: every slot a set of threads in this process,
  channels in memory (or over loopback TCP);
- ``engine.cluster.spark_deployer.SparkDeployer``: every region attempt one Spark
  barrier stage, its slots reporting over the control channel.

Contract
    ``open(job_master)`` once before the first deploy (start a control server, a
    session). ``capacity()``: the slots the cluster offers now, None for "as many as
    asked". ``deploy(attempt)`` starts the slots of a :class:`RegionAttempt` and returns at
    once; the deployer then calls ``job_master.on_slot_running(attempt, index, slot)`` for
    each slot that takes commands (a ``TaskExecutorGateway``), hands the attempt's subtasks
    ``job_master.gateway_for(attempt)`` for their reports, and calls
    ``job_master.on_attempt_failed(attempt, message)`` when the attempt dies in a way no
    subtask could report (a lost process, a failed stage). ``cancel(attempts)`` stops them
    and returns once they stopped (bounded); ``release(attempt)`` lets go of one whose
    subtasks all finished; ``close()`` once the job ended. ``wait_for_slots(slots)``: the
    job waits for ``slots`` more than ``capacity()`` left it (a deployer that shares its
    slots among jobs queues it, so later jobs do not overtake it; the others ignore it).

Threading model: ``open``, ``deploy``, ``cancel``, ``release`` and ``close`` are called by
the JobMaster's driver thread only; ``capacity`` too. Callbacks into the JobMaster may
come from any of the deployer's threads.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from engine.cluster.job_master import JobMaster, RegionAttempt


class Deployer(Protocol):
    """Starts, stops and counts the slots of region attempts; see the module docstring."""

    def open(self, job_master: "JobMaster") -> None: ...

    def capacity(self) -> int | None: ...

    def wait_for_slots(self, slots: int) -> None: ...

    def deploy(self, attempt: "RegionAttempt") -> None: ...

    def cancel(self, attempts: list["RegionAttempt"]) -> None: ...

    def release(self, attempt: "RegionAttempt") -> None: ...

    def close(self) -> None: ...
