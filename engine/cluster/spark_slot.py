"""What runs inside one Spark barrier task: a slot of one pipelined region.

Slot ``i`` of a region hosts the ``i``-th subtask of each of the region's job vertices
(slot sharing), so a region needs as many slots as its largest vertex has subtasks there.
The function returned by ``run_slot_partition`` is shipped to the executors. It opens the
slot's network when a pipelined channel crosses slots (it listens at once), registers on
the JobMaster's control channel with that address, waits for every slot's address
(``peers``, sent once all slots registered), builds the engine's ``Slot`` with local
channels, TCP channels to the region's other slots and blocking partition files for
exchanges with other regions, and runs it until its subtasks end. A failure raises,
which fails the whole barrier stage: that is how the JobMaster learns of it even when the
process died with its control connection.
"""
from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from typing import Any, Iterator

from engine.plan.execution_ids import TaskId


REMOTE_CHANNEL_CAPACITY = 32
"""Buffers in flight per channel between slot processes. A credit needs the receiving
process's GIL to travel back, which may take a switch interval (5 ms); 8 buffers drained
before it arrived and stalled the sender (1.9 M records/s at parallelism 2), 32 keep it
busy (2.4 M/s) at a bounded cost of 32 buffers per remote channel."""


class SlotFailure(RuntimeError):
    """A subtask of this slot failed; the message is the user's error."""


@dataclass(frozen=True)
class SlotPayload:
    """Everything a stage's slots need, pickled with the Spark job: plain data only."""

    definition: dict[str, Any]
    slots_tasks: list[list[TaskId]]
    control_address: tuple[str, int]
    config: dict[str, Any]
    """The slot configuration (``engine.cluster.job_master.task_config``)."""
    restore: dict | None = None
    stage_id: int = 1
    blocking_edges: list[str] = field(default_factory=list)
    shuffle_dir: str = ""
    pin_cpu: bool = True
    cpu_lock_dir: str | None = None
    """Where slots on a host hold their CPUs (None: ``cpu_pinning.default_lock_dir()``)."""
    planned_kills: list[dict] = field(default_factory=list)
    """The kills of the job's ``KillPlan`` armed in this stage (``engine.runtime.kill_hooks``)."""
    crash: str = "exit"
    """How a planned kill crashes the slot: ``exit`` (SIGKILL of its Python worker) or ``raise``."""
    kill_record_dir: str | None = None
    """Where a planned kill is written down before it crashes the slot."""


def run_slot_partition(payload: SlotPayload):
    """Return the ``mapPartitions`` function of the barrier stage for ``payload``."""

    def run(_partition: Iterator[int]) -> Iterator[dict]:
        from pyspark import BarrierTaskContext

        context = BarrierTaskContext.get()
        yield run_slot(payload, context.partitionId(), context)

    return run


def run_slot(payload: SlotPayload, slot_index: int, barrier_context=None) -> dict:
    """Run slot ``slot_index`` to its end; raise ``SlotFailure`` when a subtask failed."""
    from engine.cluster.cpu_pinning import pinned_to_a_free_cpu

    # pinned before any thread starts: the network's and the subtasks' threads inherit the CPU
    with pinned_to_a_free_cpu(payload.cpu_lock_dir) if payload.pin_cpu else contextlib.nullcontext() as cpu:
        return _run_pinned_slot(payload, slot_index, barrier_context, cpu)


def _run_pinned_slot(payload: SlotPayload, slot_index: int, barrier_context, cpu: int | None) -> dict:
    from engine.cluster.control import ControlClient
    from engine.plan.job_graph import build_job_graph
    from engine.runtime.kill_hooks import planned_hook
    from engine.runtime.operators import register_plugins
    from engine.runtime.slot import Slot

    register_plugins(payload.config.get("operator_plugins"))
    job_graph = build_job_graph(payload.definition, chain_fan_out=payload.config.get("chain_fan_out", True))
    tasks = [tuple(task) for task in payload.slots_tasks[slot_index]]
    tcp = _tcp_network(job_graph, payload, slot_index, barrier_context)
    control = ControlClient(tuple(payload.control_address), slot_index, tasks, payload.stage_id, cpu=cpu,
                            peer=tcp.peer_info() if tcp is not None else None)
    try:
        peers = control.wait_for_peers()
        if peers is None:  # cancelled (or the JobMaster went away) before the region started
            return {"slot": slot_index, "tasks": [list(task) for task in tasks], "cpu": cpu}
        if tcp is not None:
            tcp.set_peers(peers)
        network = _with_shuffle(tcp, payload)
        kill_hook = planned_hook(payload.planned_kills, crash=payload.crash, record_dir=payload.kill_record_dir)
        slot = Slot(job_graph, tasks, control, network, payload.config, restore=payload.restore, kill_hook=kill_hook)
        control.attach(slot)
        slot.start()
        slot.join()
        failure = slot.failure()
    finally:
        if tcp is not None:
            tcp.close()
        control.close()
    if failure:
        raise SlotFailure(failure)
    return {"slot": slot_index, "tasks": [list(task) for task in tasks], "cpu": cpu}


def _tcp_network(job_graph, payload: SlotPayload, slot_index: int, barrier_context):
    """The slot's TCP network (listening already) when a pipelined edge crosses slots, else None."""
    if not _crosses_slots(job_graph, payload.slots_tasks, set(payload.blocking_edges)):
        return None
    from engine.cluster.addresses import data_endpoint
    from engine.runtime.io.tcp_channel import TcpNetwork

    endpoint = data_endpoint()  # this worker host's settings
    return TcpNetwork(slot_index, payload.slots_tasks, bind_host=endpoint.bind_host,
                      advertised_host=endpoint.advertised_host or _advertised_host(barrier_context, slot_index),
                      ports=endpoint.ports, capacity=REMOTE_CHANNEL_CAPACITY)


def _with_shuffle(tcp, payload: SlotPayload):
    """Local channels within the slot, TCP to the region's other slots, files across regions."""
    from engine.cluster.shuffle import FileShuffleMaster, ShuffleNetwork
    from engine.runtime.io.network import LocalNetwork

    inner = tcp if tcp is not None else LocalNetwork()
    if not payload.blocking_edges:
        return inner
    return ShuffleNetwork(inner, FileShuffleMaster(payload.shuffle_dir), set(payload.blocking_edges))


def _advertised_host(barrier_context, slot_index: int) -> str:
    """This executor's host as the other slots can reach it (from Spark's task infos), when
    the worker host does not set ``ENGINE_DATA_ADVERTISED_HOST``."""
    import socket

    try:
        address = barrier_context.getTaskInfos()[slot_index].address
        host = address.rsplit(":", 1)[0]
        if host:
            return host
    except Exception:  # no task infos: fall back to name resolution
        pass
    try:
        return socket.gethostbyname(socket.gethostname())
    except OSError:
        return "127.0.0.1"


def _crosses_slots(job_graph, slots_tasks, blocking_edges: set[str]) -> bool:
    """True when a pipelined edge connects subtasks of this stage placed in different slots."""
    from engine.plan.channels import output_channel_ids

    slot_of = {tuple(task): index for index, tasks in enumerate(slots_tasks) for task in tasks}
    for edge in job_graph.edges:
        if edge.id in blocking_edges:
            continue
        producers = job_graph.vertex(edge.source).parallelism
        consumers = job_graph.vertex(edge.target).parallelism
        for producer in range(producers):
            if (edge.source, producer) not in slot_of:
                continue
            for channel in output_channel_ids(edge, producer, producers, consumers):
                if slot_of.get(channel.consumer, slot_of[channel.producer]) != slot_of[channel.producer]:
                    return True
    return False
