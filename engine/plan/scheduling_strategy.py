"""Region-by-region scheduling: start a region once the blocking data it reads is complete.

The strategy never looks at a producer/consumer pair. It keeps, per region, the number of
its inputs (consumed partition groups, see ``pipelined_regions``) that are not complete
yet. A finished blocking partition decrements the unfinished count of its group; when a
group reaches zero it decrements the count of each region that reads it; a region whose
count reaches zero is scheduled. Every partition and every group is therefore handled a
constant number of times: scheduling a whole job is O(vertices + groups), where the
per-pair approach of old Flink was O(n²) for one all-to-all edge (seed 002).

Order
    Regions that become ready at the same moment are scheduled in region index order: by
    their first vertex, job vertices in topological order, then subtask. Source regions
    (no blocking inputs) come first, at :meth:`start_scheduling`.

Threading model
    Not thread-safe: the JobMaster calls every method from its one scheduling thread. The
    ``schedule_region`` callback runs inside these calls; it may call back into the
    strategy (a region is marked scheduled before its callback runs).

Used by the JobMaster::

    strategy = PipelinedRegionSchedulingStrategy(graph, regions, schedule_region=submit_stage)
    strategy.start_scheduling()                       # submit_stage(region) per source region
    strategy.on_execution_state_change(ExecutionVertexID("map", 3), ExecutionState.FINISHED)
    strategy.restart_tasks(failover.tasks_to_restart(failed_vertex))
"""
from __future__ import annotations

from collections import deque
from operator import attrgetter
from typing import Callable, Iterable

from engine.plan.execution_graph import ExecutionGraph, IntermediateResult
from engine.plan.execution_ids import ExecutionState, ExecutionVertexID, ResultPartitionID
from engine.plan.pipelined_regions import CrossRegionInput, PipelinedRegions, SchedulingPipelinedRegion

ScheduleRegion = Callable[[SchedulingPipelinedRegion], None]
"""Called with each region the moment it becomes ready to run."""

_BY_INDEX = attrgetter("index")


class PipelinedRegionSchedulingStrategy:
    """Schedules pipelined regions as their blocking inputs complete; see the module docstring."""

    def __init__(self, graph: ExecutionGraph, regions: PipelinedRegions, schedule_region: ScheduleRegion) -> None:
        self._graph = graph
        self._regions = regions
        self._schedule_region = schedule_region
        self._scheduled = bytearray(len(regions))
        self._cross_unfinished: dict[CrossRegionInput, int] = {}
        self._unfinished_inputs = [self._count_unfinished_inputs(region) for region in regions]

    def start_scheduling(self) -> None:
        """Schedule every region that waits for nothing: the source regions."""
        self._maybe_schedule_regions(region for region in self._regions if self.are_region_inputs_consumable(region))

    def on_execution_state_change(self, vertex_id: ExecutionVertexID, state: ExecutionState) -> None:
        """React to a subtask's new state; only FINISHED completes blocking partitions."""
        if state is not ExecutionState.FINISHED:
            return
        job_vertex_id, subtask = vertex_id
        ready: list[SchedulingPipelinedRegion] = []
        for result in self._graph.job_vertices[job_vertex_id].blocking_outputs:
            ready += self._partition_finished(result, subtask)
        if ready:
            self._maybe_schedule_regions(ready)

    def on_partition_finished(self, partition: ResultPartitionID) -> None:
        """React to one blocking partition becoming complete (its producer may still run)."""
        result = self._graph.result(partition.result_id)
        if result.is_blocking:
            self._maybe_schedule_regions(self._partition_finished(result, partition.partition_index))

    def restart_tasks(self, vertices: Iterable[ExecutionVertexID]) -> None:
        """Schedule the regions of these vertices again once their inputs allow it.

        The caller passes whole failover sets (see ``failover``): the partitions the
        restarted regions produced become unfinished again, so their consumers must be
        restarted with them.
        """
        regions = sorted({self._regions.region_of(vertex): None for vertex in vertices}, key=_BY_INDEX)
        for region in regions:
            self._scheduled[region.index] = 0
        for region in regions:
            for vertex_id, subtasks in region.vertices.items():
                for result in self._graph.job_vertex(vertex_id).blocking_outputs:
                    for subtask in subtasks:
                        self._partition_unfinished(result, subtask)
        self._maybe_schedule_regions(regions)

    def is_scheduled(self, region: SchedulingPipelinedRegion) -> bool:
        return bool(self._scheduled[region.index])

    def are_region_inputs_consumable(self, region: SchedulingPipelinedRegion) -> bool:
        """Return whether every blocking partition the region reads from other regions is complete."""
        return self._unfinished_inputs[region.index] == 0

    def _maybe_schedule_regions(self, regions: Iterable[SchedulingPipelinedRegion]) -> None:
        scheduled, unfinished_inputs = self._scheduled, self._unfinished_inputs
        for region in sorted(dict.fromkeys(regions), key=_BY_INDEX):
            if scheduled[region.index] or unfinished_inputs[region.index]:
                continue
            scheduled[region.index] = 1
            self._schedule_region(region)

    def _partition_finished(self, result: IntermediateResult, partition: int) -> list[SchedulingPipelinedRegion]:
        """Count a finished partition; return the regions whose last missing input it was."""
        group = result.mark_partition_finished(partition)
        if group is None:
            return []
        ready = []
        if group.are_all_partitions_finished():
            unfinished_inputs = self._unfinished_inputs
            for region in self._regions.external_consumer_regions(group):
                unfinished_inputs[region.index] -= 1
                if unfinished_inputs[region.index] == 0:
                    ready.append(region)
        for cross in self._regions.cross_region_inputs_of(group):
            if partition in cross.external_partitions:
                self._cross_unfinished[cross] -= 1
                if self._cross_unfinished[cross] == 0:
                    self._unfinished_inputs[cross.region.index] -= 1
                    if self._unfinished_inputs[cross.region.index] == 0:
                        ready.append(cross.region)
        return ready

    def _partition_unfinished(self, result: IntermediateResult, partition: int) -> None:
        group = result.mark_partition_unfinished(partition)
        if group is None:
            return
        if group.number_of_unfinished_partitions == 1:
            for region in self._regions.external_consumer_regions(group):
                self._unfinished_inputs[region.index] += 1
        for cross in self._regions.cross_region_inputs_of(group):
            if partition in cross.external_partitions:
                if self._cross_unfinished[cross] == 0:
                    self._unfinished_inputs[cross.region.index] += 1
                self._cross_unfinished[cross] += 1

    def _count_unfinished_inputs(self, region: SchedulingPipelinedRegion) -> int:
        unfinished = 0
        for group in region.blocking_input_groups:
            if not group.are_all_partitions_finished():
                unfinished += 1
        for cross in region.cross_region_inputs:
            result = self._graph.result(cross.group.result_id)
            missing = sum(1 for partition in cross.external_partitions if not result.is_partition_finished(partition))
            self._cross_unfinished[cross] = missing
            unfinished += missing > 0
        return unfinished


def schedule_order(graph: ExecutionGraph, regions: PipelinedRegions) -> list[SchedulingPipelinedRegion]:
    """Return the order in which the strategy schedules the regions if each runs to the end in turn.

    Simulates a run: regions finish first-scheduled first, their vertices in
    :meth:`SchedulingPipelinedRegion.execution_vertex_ids` order. The simulation starts
    from, and leaves behind, a graph with no finished partition, so never run it on a graph
    a live strategy drives. Raises RuntimeError if some region could never be scheduled
    (which would be a bug in the region computation: region dependencies are acyclic).
    """
    order: list[SchedulingPipelinedRegion] = []
    to_finish: deque[SchedulingPipelinedRegion] = deque()

    def schedule_region(region: SchedulingPipelinedRegion) -> None:
        order.append(region)
        to_finish.append(region)

    graph.reset_partition_states()
    strategy = PipelinedRegionSchedulingStrategy(graph, regions, schedule_region)
    try:
        strategy.start_scheduling()
        while to_finish:
            _finish_region(graph, strategy, to_finish.popleft())
    finally:
        graph.reset_partition_states()
    if len(order) != len(regions):
        stuck = [region.index for region in regions if not strategy.is_scheduled(region)]
        raise RuntimeError(f"regions {stuck[:10]} can never be scheduled: their inputs never complete")
    return order


def _finish_region(
    graph: ExecutionGraph, strategy: PipelinedRegionSchedulingStrategy, region: SchedulingPipelinedRegion
) -> None:
    finished = ExecutionState.FINISHED
    for vertex_id, subtasks in region.vertices.items():
        if not graph.job_vertices[vertex_id].blocking_outputs:
            continue  # finishing it completes no partition, so it cannot change any decision
        for subtask in subtasks:
            strategy.on_execution_state_change(ExecutionVertexID(vertex_id, subtask), finished)
