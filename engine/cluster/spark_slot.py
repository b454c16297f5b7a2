"""What runs inside one Spark barrier task: a slot of the pipeline.

Slot ``i`` hosts subtask ``i`` of every job vertex with parallelism above ``i`` (slot
sharing), so the number of slots is the largest parallelism. The function returned by
``run_slot_partition`` is shipped to the executors; it connects to the JobMaster's
control channel, builds the engine's ``Slot`` and runs it until its subtasks end. A
failure raises, which fails the whole barrier stage, which is how the JobMaster learns of
it even when the control connection died with the process.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterator

from engine.runtime.gateway import TaskId


class SlotFailure(RuntimeError):
    """A subtask of this slot failed; the message is the user's error."""


@dataclass(frozen=True)
class SlotPayload:
    """Everything a slot needs, pickled with the Spark job: plain data only."""

    definition: dict[str, Any]
    slots_tasks: list[list[TaskId]]
    control_address: tuple[str, int]
    checkpoint_dir: str
    restore: dict | None = None
    attempt: int = 1


def slot_tasks(job_graph) -> list[list[TaskId]]:
    """Assign subtasks to slots: slot i runs subtask i of each vertex that has one."""
    slot_count = max(vertex.parallelism for vertex in job_graph.vertices)
    return [[(vertex.id, index) for vertex in job_graph.vertices if index < vertex.parallelism]
            for index in range(slot_count)]


def run_slot_partition(payload: SlotPayload):
    """Return the ``mapPartitions`` function of the barrier stage for ``payload``."""

    def run(_partition: Iterator[int]) -> Iterator[dict]:
        from pyspark import BarrierTaskContext

        context = BarrierTaskContext.get()
        yield run_slot(payload, context.partitionId(), context)

    return run


def run_slot(payload: SlotPayload, slot_index: int, barrier_context=None) -> dict:
    """Run slot ``slot_index`` to its end; raise ``SlotFailure`` when a subtask failed."""
    from engine.cluster.control import ControlClient
    from engine.plan.job_graph import build_job_graph
    from engine.runtime.slot import Slot

    job_graph = build_job_graph(payload.definition)
    tasks = [tuple(task) for task in payload.slots_tasks[slot_index]]
    network = _network_for(job_graph, payload.slots_tasks, slot_index, barrier_context)
    control = ControlClient(tuple(payload.control_address), slot_index, tasks, payload.attempt)
    config = {"checkpoint_storage": payload.checkpoint_dir,
              "checkpointing": payload.definition.get("checkpointing", {}),
              "max_parallelism": payload.definition.get("max_parallelism", 128),
              "mode": payload.definition.get("mode", "streaming")}
    slot = Slot(job_graph, tasks, control, network, config, restore=payload.restore)
    control.attach(slot)
    try:
        slot.start()
        slot.join()
        failure = slot.failure()
    finally:
        network.close()
        control.close()
    if failure:
        raise SlotFailure(failure)
    return {"slot": slot_index, "tasks": [list(task) for task in tasks]}


def _network_for(job_graph, slots_tasks, slot_index: int, barrier_context):
    """Local channels within the slot; TCP channels to other slots when edges cross them."""
    from engine.runtime.io.network import LocalNetwork

    if not _crosses_slots(job_graph, slots_tasks):
        return LocalNetwork()
    from engine.runtime.io.tcp_channel import TcpNetwork

    return TcpNetwork.for_barrier_task(slots_tasks, slot_index, barrier_context)


def _crosses_slots(job_graph, slots_tasks) -> bool:
    """True when some edge connects subtasks placed in different slots."""
    from engine.runtime.io.network import output_channel_ids

    slot_of = {tuple(task): index for index, tasks in enumerate(slots_tasks) for task in tasks}
    for edge in job_graph.edges:
        producers = job_graph.vertex(edge.source).parallelism
        consumers = job_graph.vertex(edge.target).parallelism
        for producer in range(producers):
            for channel in output_channel_ids(edge, producer, producers, consumers):
                if slot_of[channel.producer] != slot_of[channel.consumer]:
                    return True
    return False
