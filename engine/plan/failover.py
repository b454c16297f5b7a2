"""Failover sets: which regions restart when one subtask fails.

A failed subtask takes down its whole pipelined region (its pipelined partners cannot
continue without it). Whatever the region produced is produced again after the restart,
so every region that consumes its results must read them again and restarts too, and so
on downstream. If a partition a restarting region needs is no longer available (its file
is lost), the region that produced it restarts as well.

The walk visits each consumer vertex group and each consumed partition group at most
once, never a producer/consumer pair, so one failover costs O(vertices + groups) even
across all-to-all edges.

Used by the JobMaster::

    failover = RestartPipelinedRegionFailoverStrategy(graph, regions)
    regions_to_cancel = failover.regions_to_restart(ExecutionVertexID("map", 3))
    strategy.restart_tasks(failover.tasks_to_restart(ExecutionVertexID("map", 3)))
"""
from __future__ import annotations

from collections import deque
from operator import attrgetter
from typing import Callable, Iterator

from engine.plan.execution_graph import ExecutionGraph
from engine.plan.execution_ids import ExecutionVertexID, ResultPartitionID
from engine.plan.pipelined_regions import PipelinedRegions, SchedulingPipelinedRegion

PartitionAvailability = Callable[[ResultPartitionID], bool]
"""Says whether a finished blocking partition can still be read (its file still exists)."""

_BY_INDEX = attrgetter("index")


class RestartPipelinedRegionFailoverStrategy:
    """Computes failover sets over regions and groups; see the module docstring."""

    def __init__(self, graph: ExecutionGraph, regions: PipelinedRegions) -> None:
        self._graph = graph
        self._regions = regions

    def regions_to_restart(
        self, failed: ExecutionVertexID, is_partition_available: PartitionAvailability | None = None
    ) -> list[SchedulingPipelinedRegion]:
        """Return the regions to restart for a failed subtask, by region index.

        ``is_partition_available`` defaults to "every finished partition is still there".
        """
        walk = _FailoverWalk(self._graph, self._regions, is_partition_available)
        return walk.run(self._regions.region_of(failed))

    def tasks_to_restart(
        self, failed: ExecutionVertexID, is_partition_available: PartitionAvailability | None = None
    ) -> Iterator[ExecutionVertexID]:
        """Yield the subtasks of :meth:`regions_to_restart`."""
        for region in self.regions_to_restart(failed, is_partition_available):
            yield from region.execution_vertex_ids()


class _FailoverWalk:
    """One breadth-first walk from a failed region over consumer (and lost producer) regions."""

    def __init__(
        self, graph: ExecutionGraph, regions: PipelinedRegions, is_partition_available: PartitionAvailability | None
    ) -> None:
        self._graph = graph
        self._regions = regions
        self._is_partition_available = is_partition_available
        self._visited_regions: set[int] = set()
        self._visited_consumer_groups: set[tuple[str, int]] = set()
        self._visited_consumed_groups: set[tuple[str, int]] = set()
        self._to_visit: deque[SchedulingPipelinedRegion] = deque()

    def run(self, failed_region: SchedulingPipelinedRegion) -> list[SchedulingPipelinedRegion]:
        restart = []
        self._visit(failed_region)
        while self._to_visit:
            region = self._to_visit.popleft()
            restart.append(region)
            if self._is_partition_available is not None:
                self._visit_producers_of_lost_inputs(region)
            self._visit_consumers(region)
        return sorted(restart, key=_BY_INDEX)

    def _visit(self, region: SchedulingPipelinedRegion) -> None:
        if region.index not in self._visited_regions:
            self._visited_regions.add(region.index)
            self._to_visit.append(region)

    def _visit_consumers(self, region: SchedulingPipelinedRegion) -> None:
        for vertex_id, subtasks in region.vertices.items():
            for result in self._graph.job_vertex(vertex_id).outputs:
                for group_index in result.groups_of_partitions(subtasks):
                    key = (result.id, group_index)
                    if key in self._visited_consumer_groups:
                        continue
                    self._visited_consumer_groups.add(key)
                    consumers = result.consumer_groups[group_index]
                    for consumer_region in self._regions.regions_of(consumers.job_vertex_id, consumers.subtasks):
                        self._visit(consumer_region)

    def _visit_producers_of_lost_inputs(self, region: SchedulingPipelinedRegion) -> None:
        for group in region.blocking_input_groups:
            key = (group.result_id, group.index)
            if key not in self._visited_consumed_groups:
                self._visited_consumed_groups.add(key)
                self._visit_producers_if_lost(group.result_id, group.partition_indices)
        for cross in region.cross_region_inputs:
            self._visit_producers_if_lost(cross.group.result_id, sorted(cross.external_partitions))

    def _visit_producers_if_lost(self, result_id: str, partitions) -> None:
        producer = self._graph.result(result_id).producer_vertex_id
        for partition in partitions:
            if not self._is_partition_available(ResultPartitionID(result_id, partition)):
                self._visit(self._regions.region_of(ExecutionVertexID(producer, partition)))
