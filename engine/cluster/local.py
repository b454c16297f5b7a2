"""The in-process cluster: a whole job on threads, for fast tests and the studio's preview.

:class:`ThreadDeployer` runs each region attempt's slots as threads of this process --
exactly the task code that runs in Spark slots (``Slot``, ``StreamTask``) -- with channels
in memory (``LocalNetwork``), or over loopback TCP (``config={"network": "tcp"}``), one
network per slot as separate processes would have. Blocking exchanges go through
partition files (``engine.cluster.shuffle``). The one JobMaster
(``engine.cluster.job_master``) drives it: scheduling, checkpoints, failover, events.
Tests inject failures with a ``kill_hook`` (see ``engine.runtime.kill_hooks``).

:class:`LocalCluster` is the set-up most tests use::

    result = LocalCluster().run(definition, timeout=30)
    result.status, result.collected["out"], result.checkpoints

    handle = LocalCluster().submit(definition, on_event=print)
    location = handle.trigger_savepoint().result(timeout=10)
    handle.cancel(); handle.wait()

    location = handle.stop_with_savepoint(drain=False).result(timeout=10)
    handle.wait().status                           # FINISHED; restore=location continues
"""
from __future__ import annotations

import logging
import tempfile
from typing import Callable

from engine.checkpoint.coordinator import CheckpointException
from engine.cluster.cpu_pinning import HeldCpu, hold_a_free_cpu
from engine.cluster.job_master import JobHandle, JobMaster, JobResult, RegionAttempt
from engine.cluster.shuffle import ShuffleNetwork
from engine.plan.execution_ids import TaskId
from engine.runtime.io.network import LocalNetwork
from engine.runtime.kill_hooks import either, planned_hook
from engine.runtime.slot import Slot

logger = logging.getLogger(__name__)

JOIN_TIMEOUT_S = 10.0


class ThreadDeployer:
    """Deploys region attempts as slots on threads of this process (a ``Deployer``).

    ``config``: ``channel_capacity`` (buffers per channel, default 8), ``network: "tcp"``,
    ``pin_cpu`` (default True: the job's task threads keep to one CPU no slot on this host
    holds, see ``engine.cluster.cpu_pinning``) and ``cpu_lock_dir``.
    """

    def __init__(self, config: dict | None = None, kill_hook=None):
        self.config = dict(config or {})
        self.kill_hook = kill_hook
        self.networks: list = []
        """Every network this deployer created (tests look at their channels afterwards)."""
        self._job_master: JobMaster | None = None
        self._cpu: HeldCpu | None = None

    def open(self, job_master: JobMaster) -> None:
        self._job_master = job_master
        if self.config.get("pin_cpu", True) and self._cpu is None:
            self._cpu = hold_a_free_cpu(self.config.get("cpu_lock_dir"))

    def capacity(self) -> int | None:
        return None

    def wait_for_slots(self, slots: int) -> None:
        pass  # never waits: ``capacity`` is unbounded

    def deploy(self, attempt: RegionAttempt) -> None:
        job_master = self._job_master
        networks = self._create_networks(attempt.slots_tasks)
        self.networks.extend(networks)
        if job_master.shuffle is not None:
            blocking = {edge.id for edge in job_master.job_graph.edges if edge.is_blocking}
            networks = [ShuffleNetwork(network, job_master.shuffle, blocking) for network in networks]
        gateway = job_master.gateway_for(attempt)
        cpu = self._cpu.cpu if self._cpu is not None else None
        kill_hook = either(self.kill_hook, self._planned_hook(attempt))
        slots = [Slot(job_master.job_graph, tasks, gateway, network, job_master.config, restore=attempt.restore,
                      kill_hook=kill_hook, cpu=cpu)
                 for tasks, network in zip(attempt.slots_tasks, networks)]
        attempt.deployment = (slots, networks)
        for index, slot in enumerate(slots):
            job_master.on_slot_running(attempt, index, slot)
        for slot in slots:
            slot.start()

    def _planned_hook(self, attempt: RegionAttempt):
        """The attempt's planned kills; here a kill raises in the subtask (this process is the test's own)."""
        plan = self._job_master.kill_plan
        if not attempt.planned_kills:
            return None
        return planned_hook(attempt.planned_kills, crash="raise", record_dir=plan.record_dir)

    def cancel(self, attempts: list[RegionAttempt]) -> None:
        for attempt in attempts:
            for slot in attempt.deployment[0]:
                slot.cancel()
        for attempt in attempts:
            self.release(attempt)

    def release(self, attempt: RegionAttempt) -> None:
        slots, networks = attempt.deployment
        for slot in slots:
            if not slot.join(JOIN_TIMEOUT_S):
                logger.warning("a slot of %s did not stop within %s s", attempt.name, JOIN_TIMEOUT_S)
        for network in {id(network): network for network in networks}.values():
            network.close()

    def close(self) -> None:
        if self._cpu is not None:
            self._cpu.release()
            self._cpu = None

    def _create_networks(self, assignment: list[list[TaskId]]) -> list:
        """One network per slot: a shared in-memory one, or (``network: "tcp"``) one TcpNetwork
        per slot as separate processes would have, connected over loopback."""
        capacity = int(self.config.get("channel_capacity", 8))
        if self.config.get("network") != "tcp":
            return [LocalNetwork(capacity)] * len(assignment)
        from engine.runtime.io.tcp_channel import TcpNetwork

        networks = [TcpNetwork(index, assignment, bind_host="127.0.0.1", capacity=capacity)
                    for index in range(len(assignment))]
        peers = [network.peer_info() for network in networks]
        for network in networks:
            network.set_peers(peers)
        return networks


def prepare_definition(definition: dict) -> dict:
    """The normalised definition (defaults filled in)."""
    from engine.spec.validation import normalise_definition

    return normalise_definition(definition)


class LocalCluster:
    """Runs jobs in this process: every slot a set of threads, every channel a local queue.

    ``config`` is merged into every slot's configuration (``batch_size``,
    ``channel_capacity``, ...). ``checkpoint_dir`` defaults to a fresh temporary directory
    per job.
    """

    def __init__(self, checkpoint_dir: str | None = None, config: dict | None = None):
        self.checkpoint_dir = checkpoint_dir
        self.config = dict(config or {})

    def job_master(self, definition: dict, *, restore: str | dict | None = None,
                   on_event: Callable[[dict], None] | None = None, kill_hook=None,
                   checkpoint_dir: str | None = None) -> JobMaster:
        directory = checkpoint_dir or self.checkpoint_dir or tempfile.mkdtemp(prefix="checkpoints-")
        return JobMaster(prepare_definition(definition), ThreadDeployer(self.config, kill_hook),
                         checkpoint_dir=directory, restore=restore, on_event=on_event, config=self.config,
                         shuffle_root=self.config.get("shuffle_dir"))

    def submit(self, definition: dict, *, restore: str | dict | None = None,
               on_event: Callable[[dict], None] | None = None, kill_hook=None, timeout: float | None = None,
               checkpoint_dir: str | None = None) -> JobHandle:
        return self.job_master(definition, restore=restore, on_event=on_event, kill_hook=kill_hook,
                               checkpoint_dir=checkpoint_dir).start(timeout)

    def run(self, definition: dict, *, restore: str | dict | None = None,
            on_event: Callable[[dict], None] | None = None, kill_hook=None, timeout: float | None = None,
            checkpoint_dir: str | None = None) -> JobResult:
        """Run a job to its end in the calling thread; a timeout cancels it (status CANCELED)."""
        return self.job_master(definition, restore=restore, on_event=on_event, kill_hook=kill_hook,
                               checkpoint_dir=checkpoint_dir).run(timeout)


__all__ = ["CheckpointException", "JobHandle", "JobResult", "LocalCluster", "ThreadDeployer"]
