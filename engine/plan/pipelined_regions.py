"""Scheduling pipelined regions: the units that start together, fail together, restart together.

A pipelined region is a set of execution vertices connected by pipelined exchanges: they
must run at the same time, so the JobMaster starts each region as one gang-scheduled Spark
barrier stage (``region.vertices`` says which subtasks it runs). Blocking exchanges
between regions become dependencies: a region is started only after the blocking
partitions it reads are complete.

How the regions are computed in O(n) (seed 002)
    1. Logical regions on the JobGraph (``logical_regions``): union over pipelined edges,
       dependency cycles merged.
    2. A logical region with an all-to-all edge between two of its own vertices is one
       scheduling region, decided without looking at a single subtask pair.
    3. Any other logical region has only pointwise edges inside: its execution vertices are
       unioned over the pointwise pipelined groups (each group has one side of size one,
       so this is linear), and the regions that depend on each other in a cycle through
       its pointwise blocking groups are merged (iterative Tarjan).
    Regions of different logical regions never form a cycle, because logical regions
    don't.

Region inputs
    For each region, every blocking consumed partition group it reads is classified once:
    produced entirely outside the region (an *external* input: the region waits for the
    whole group), entirely inside (ignored), or partly inside (a :class:`CrossRegionInput`:
    the region waits only for the partitions produced outside it; this happens only for
    pointwise groups).

Used by the JobMaster::

    regions = compute_pipelined_regions(execution_graph)
    region = regions.region_of(ExecutionVertexID("map", 3))
    region.vertices            # {"source": range(0, 4), "map": range(0, 4)}
    list(region.execution_vertex_ids())
"""
from __future__ import annotations

from operator import attrgetter
from typing import Iterator, Sequence

from engine.plan.disjoint_sets import DisjointSets
from engine.plan.execution_graph import ExecutionGraph, IntermediateResult
from engine.plan.execution_ids import ExecutionVertexID, ResultPartitionID
from engine.plan.logical_regions import LogicalPipelinedRegion, compute_logical_regions
from engine.plan.partition_groups import ConsumedPartitionGroup
from engine.plan.strongly_connected import strongly_connected_components

SubtaskIndices = Sequence[int]
"""Subtask indices of one job vertex in a region, ascending: a ``range`` when contiguous."""

_BY_INDEX = attrgetter("index")


class CrossRegionInput:
    """A blocking group read by a region that itself produces some of the group's partitions.

    The region waits only for :attr:`external_partitions`, the partitions produced by other
    regions; waiting for its own would deadlock.
    """

    __slots__ = ("group", "region", "external_partitions")

    def __init__(
        self, group: ConsumedPartitionGroup, region: "SchedulingPipelinedRegion", external_partitions: frozenset[int]
    ) -> None:
        self.group = group
        self.region = region
        self.external_partitions = external_partitions

    def __repr__(self) -> str:
        external = sorted(self.external_partitions)
        return f"CrossRegionInput({self.group!r}, region {self.region.index}, external {external})"

    def partition_ids(self) -> Iterator[ResultPartitionID]:
        return (ResultPartitionID(self.group.result_id, index) for index in sorted(self.external_partitions))


class SchedulingPipelinedRegion:
    """Execution vertices that are scheduled, run and restarted together."""

    __slots__ = ("index", "vertices", "size", "blocking_input_groups", "cross_region_inputs")

    def __init__(self, index: int, vertices: dict[str, SubtaskIndices], size: int | None = None) -> None:
        self.index = index
        """Position in :attr:`PipelinedRegions.regions`: regions are ordered by their first
        vertex (job vertex in topological order, then subtask), which is the tie-break among
        regions that become ready at once."""
        self.vertices = vertices
        """Job vertex id → subtask indices in this region, job vertices in topological order."""
        self.size = sum(len(subtasks) for subtasks in vertices.values()) if size is None else size
        self.blocking_input_groups: tuple[ConsumedPartitionGroup, ...] = ()
        """Blocking groups read by this region and produced entirely by other regions."""
        self.cross_region_inputs: tuple[CrossRegionInput, ...] = ()

    def __repr__(self) -> str:
        parts = ", ".join(f"{vertex_id}{_describe_subtasks(subtasks)}" for vertex_id, subtasks in self.vertices.items())
        return f"SchedulingPipelinedRegion({self.index}: {parts})"

    @property
    def job_vertex_ids(self) -> tuple[str, ...]:
        return tuple(self.vertices)

    @property
    def number_of_inputs(self) -> int:
        return len(self.blocking_input_groups) + len(self.cross_region_inputs)

    def contains(self, vertex_id: ExecutionVertexID) -> bool:
        subtasks = self.vertices.get(vertex_id.job_vertex_id)
        return subtasks is not None and vertex_id.subtask_index in subtasks

    def execution_vertex_ids(self) -> Iterator[ExecutionVertexID]:
        """Yield the region's vertices: job vertices in topological order, subtasks ascending."""
        for job_vertex_id, subtasks in self.vertices.items():
            for subtask in subtasks:
                yield ExecutionVertexID(job_vertex_id, subtask)


class PipelinedRegions:
    """All scheduling regions of an ExecutionGraph, with the lookups scheduling needs."""

    def __init__(self, graph: ExecutionGraph, regions: list[SchedulingPipelinedRegion]) -> None:
        self.graph = graph
        self.regions: tuple[SchedulingPipelinedRegion, ...] = tuple(regions)
        self._by_job_vertex = _region_lookup(graph, self.regions)
        self._external_consumers: dict[ConsumedPartitionGroup, tuple[SchedulingPipelinedRegion, ...]] = {}
        self._cross_inputs: dict[ConsumedPartitionGroup, tuple[CrossRegionInput, ...]] = {}
        self._classify_blocking_inputs()

    def __len__(self) -> int:
        return len(self.regions)

    def __iter__(self) -> Iterator[SchedulingPipelinedRegion]:
        return iter(self.regions)

    def __repr__(self) -> str:
        return f"PipelinedRegions({len(self.regions)} regions)"

    def region_of(self, vertex_id: ExecutionVertexID) -> SchedulingPipelinedRegion:
        """Return the region of a subtask; KeyError for an unknown job vertex, IndexError for a bad index."""
        job_vertex_id, subtask = vertex_id
        entry = self._by_job_vertex[job_vertex_id]
        if not 0 <= subtask < self.graph.job_vertex(job_vertex_id).parallelism:
            raise IndexError(f"{vertex_id} is not a subtask of the graph")
        if isinstance(entry, SchedulingPipelinedRegion):
            return entry
        return entry[subtask]

    def regions_of(self, job_vertex_id: str, subtasks: SubtaskIndices) -> list[SchedulingPipelinedRegion]:
        """Return the distinct regions holding these subtasks of a job vertex, by index."""
        entry = self._by_job_vertex[job_vertex_id]
        if isinstance(entry, SchedulingPipelinedRegion):
            return [entry] if len(subtasks) else []
        if isinstance(subtasks, range) and subtasks.step == 1:
            found = entry[subtasks.start:subtasks.stop]
        else:
            found = [entry[subtask] for subtask in subtasks]
        return sorted(dict.fromkeys(found), key=_BY_INDEX)

    def external_consumer_regions(self, group: ConsumedPartitionGroup) -> tuple[SchedulingPipelinedRegion, ...]:
        """Return the regions that read ``group`` and produce none of it, by index."""
        return self._external_consumers.get(group, ())

    def cross_region_inputs_of(self, group: ConsumedPartitionGroup) -> tuple[CrossRegionInput, ...]:
        return self._cross_inputs.get(group, ())

    def consumer_regions(self, group: ConsumedPartitionGroup) -> list[SchedulingPipelinedRegion]:
        """Return the regions that wait for (part of) ``group``, by index."""
        regions = list(self.external_consumer_regions(group))
        regions.extend(cross.region for cross in self.cross_region_inputs_of(group))
        return sorted(regions, key=_BY_INDEX)

    def producer_regions(self, group: ConsumedPartitionGroup) -> list[SchedulingPipelinedRegion]:
        """Return the regions producing the partitions of ``group``, by index."""
        result = self.graph.result(group.result_id)
        return self.regions_of(result.producer_vertex_id, group.partition_indices)

    def dependencies_of(self, region: SchedulingPipelinedRegion) -> list[SchedulingPipelinedRegion]:
        """Return the regions whose blocking output ``region`` waits for, by index.

        The answer itself can hold many regions (an all-to-all edge after a pointwise split);
        the scheduler never needs it, it counts groups instead.
        """
        found: dict[SchedulingPipelinedRegion, None] = {}
        for group in region.blocking_input_groups:
            found.update(dict.fromkeys(self.producer_regions(group)))
        for cross in region.cross_region_inputs:
            producer = self.graph.result(cross.group.result_id).producer_vertex_id
            found.update(dict.fromkeys(self.regions_of(producer, sorted(cross.external_partitions))))
        return sorted(found, key=_BY_INDEX)

    def _classify_blocking_inputs(self) -> None:
        """Sort every blocking group into external, internal or cross-region per consumer region."""
        more_external: dict[SchedulingPipelinedRegion, list[ConsumedPartitionGroup]] = {}
        cross: dict[SchedulingPipelinedRegion, list[CrossRegionInput]] = {}
        for result in self.graph.results.values():
            if not result.is_blocking:
                continue
            for group in result.consumed_groups:
                self._classify_group(result, group, more_external, cross)
        for region, groups in more_external.items():
            region.blocking_input_groups = tuple(groups)
        for region, inputs in cross.items():
            region.cross_region_inputs = tuple(inputs)

    def _classify_group(
        self,
        result: IntermediateResult,
        group: ConsumedPartitionGroup,
        more_external: dict[SchedulingPipelinedRegion, list[ConsumedPartitionGroup]],
        cross: dict[SchedulingPipelinedRegion, list[CrossRegionInput]],
    ) -> None:
        producers = set(self.regions_of(result.producer_vertex_id, group.partition_indices))
        consumers = self.regions_of(result.consumer_vertex_id, result.consumer_group_of(group).subtasks)
        only_this_group = (group,)  # shared by every region that reads no other group
        external_consumers = []
        cross_inputs = []
        for region in consumers:
            if region not in producers:
                external_consumers.append(region)
                if not region.blocking_input_groups:
                    region.blocking_input_groups = only_this_group
                else:
                    groups = more_external.get(region)
                    if groups is None:
                        groups = more_external[region] = list(region.blocking_input_groups)
                    groups.append(group)
            elif len(producers) > 1:
                cross_input = self._cross_region_input(result, group, region)
                cross_inputs.append(cross_input)
                cross.setdefault(region, []).append(cross_input)
        if external_consumers:
            self._external_consumers[group] = tuple(external_consumers)
        if cross_inputs:
            self._cross_inputs[group] = tuple(cross_inputs)

    def _cross_region_input(
        self, result: IntermediateResult, group: ConsumedPartitionGroup, region: SchedulingPipelinedRegion
    ) -> CrossRegionInput:
        producer = result.producer_vertex_id
        external_partitions = frozenset(
            partition
            for partition in group.partition_indices
            if self.region_of(ExecutionVertexID(producer, partition)) is not region
        )
        return CrossRegionInput(group, region, external_partitions)


def compute_pipelined_regions(graph: ExecutionGraph) -> PipelinedRegions:
    """Compute the scheduling regions of an ExecutionGraph in O(vertices + groups)."""
    members: list[dict[str, SubtaskIndices]] = []
    for logical in compute_logical_regions(graph.job_graph):
        if logical.has_intra_region_all_to_all_edge:
            members.append(
                {vertex_id: range(graph.job_vertex(vertex_id).parallelism) for vertex_id in logical.job_vertex_ids}
            )
        else:
            members.extend(_split_pointwise_region(graph, logical))
    members.sort(key=_first_vertex_key(graph))
    regions = [
        SchedulingPipelinedRegion(index, vertices, _size(vertices)) for index, vertices in enumerate(members)
    ]
    return PipelinedRegions(graph, regions)


def _size(vertices: dict[str, SubtaskIndices]) -> int:
    if len(vertices) == 1:
        for subtasks in vertices.values():
            return len(subtasks)
    return sum(map(len, vertices.values()))


def _first_vertex_key(graph: ExecutionGraph):
    """Order regions by their first vertex: job vertex position, then subtask.

    The key is one integer (position · stride + subtask) rather than a tuple, which keeps
    sorting a million regions free of a million short-lived tuples.
    """
    stride = max((vertex.parallelism for vertex in graph.job_vertices.values()), default=1)
    offset = {vertex_id: position * stride for position, vertex_id in enumerate(graph.job_vertices)}

    def key(vertices: dict[str, SubtaskIndices]) -> int:
        for vertex_id, subtasks in vertices.items():
            return offset[vertex_id] + subtasks[0]
        raise ValueError("a region cannot be empty")

    return key


def _split_pointwise_region(graph: ExecutionGraph, logical: LogicalPipelinedRegion) -> list[dict[str, SubtaskIndices]]:
    """Split a logical region without inner all-to-all edges into its scheduling regions."""
    if len(logical.job_vertex_ids) == 1 and not logical.intra_region_edges:
        vertex_id = logical.job_vertex_ids[0]
        parallelism = graph.job_vertex(vertex_id).parallelism
        return [{vertex_id: range(subtask, subtask + 1)} for subtask in range(parallelism)]
    offsets: dict[str, int] = {}
    total = 0
    for vertex_id in logical.job_vertex_ids:
        offsets[vertex_id] = total
        total += graph.job_vertex(vertex_id).parallelism
    results = [graph.result(edge.id) for edge in logical.intra_region_edges]
    sets = DisjointSets(total)
    for result in results:
        if not result.is_blocking:
            _union_pointwise_groups(sets, result, offsets)
    set_of, count = sets.set_numbers()
    region_of_set = _merge_sets_on_cycles(set_of, count, [result for result in results if result.is_blocking], offsets)
    return _collect_members(graph, logical, offsets, set_of, region_of_set)


def _union_pointwise_groups(sets: DisjointSets, result: IntermediateResult, offsets: dict[str, int]) -> None:
    producer_offset = offsets[result.producer_vertex_id]
    consumer_offset = offsets[result.consumer_vertex_id]
    for group, consumers in zip(result.consumed_groups, result.consumer_groups):
        anchor = producer_offset + group.partition_indices[0]
        sets.union_all([anchor, *(producer_offset + partition for partition in group.partition_indices[1:])])
        sets.union_all([anchor, *(consumer_offset + subtask for subtask in consumers.subtasks)])


def _merge_sets_on_cycles(
    set_of: list[int], count: int, blocking_results: list[IntermediateResult], offsets: dict[str, int]
) -> list[int]:
    """Map each pipelined set to its region after merging sets on blocking dependency cycles."""
    if not blocking_results:
        return list(range(count))
    successors: list[list[int]] = [[] for _ in range(count)]
    for result in blocking_results:
        producer_offset = offsets[result.producer_vertex_id]
        consumer_offset = offsets[result.consumer_vertex_id]
        for group, consumers in zip(result.consumed_groups, result.consumer_groups):
            producer_sets = {set_of[producer_offset + partition] for partition in group.partition_indices}
            consumer_sets = {set_of[consumer_offset + subtask] for subtask in consumers.subtasks}
            for producer_set in producer_sets:
                successors[producer_set].extend(
                    consumer_set for consumer_set in consumer_sets if consumer_set != producer_set
                )
    region_of_set = [0] * count
    for number, component in enumerate(strongly_connected_components(successors)):
        for member in component:
            region_of_set[member] = number
    return region_of_set


def _collect_members(
    graph: ExecutionGraph,
    logical: LogicalPipelinedRegion,
    offsets: dict[str, int],
    set_of: list[int],
    region_of_set: list[int],
) -> list[dict[str, SubtaskIndices]]:
    members: dict[int, dict[str, list[int]]] = {}
    for vertex_id in logical.job_vertex_ids:
        offset = offsets[vertex_id]
        for subtask in range(graph.job_vertex(vertex_id).parallelism):
            region = region_of_set[set_of[offset + subtask]]
            vertices = members.get(region)
            if vertices is None:
                vertices = members[region] = {}
            subtasks = vertices.get(vertex_id)
            if subtasks is None:
                vertices[vertex_id] = [subtask]
            else:
                subtasks.append(subtask)
    return [
        {vertex_id: _compact(subtasks) for vertex_id, subtasks in vertices.items()}
        for vertices in members.values()
    ]


def _compact(subtasks: list[int]) -> SubtaskIndices:
    """Return ascending subtask indices as a range when contiguous, else as a tuple."""
    first, last = subtasks[0], subtasks[-1]
    if last - first + 1 == len(subtasks):
        return range(first, last + 1)
    return tuple(subtasks)


def _region_lookup(
    graph: ExecutionGraph, regions: Sequence[SchedulingPipelinedRegion]
) -> dict[str, SchedulingPipelinedRegion | list[SchedulingPipelinedRegion]]:
    """Map each job vertex to its one region, or to a per-subtask list when it is split."""
    parallelism = {vertex_id: vertex.parallelism for vertex_id, vertex in graph.job_vertices.items()}
    lookup: dict[str, SchedulingPipelinedRegion | list] = {}
    for region in regions:
        for vertex_id, subtasks in region.vertices.items():
            if len(subtasks) == parallelism[vertex_id]:
                lookup[vertex_id] = region
                continue
            per_subtask = lookup.get(vertex_id)
            if per_subtask is None:
                per_subtask = lookup[vertex_id] = [None] * parallelism[vertex_id]
            if len(subtasks) == 1:
                per_subtask[subtasks[0]] = region
            elif isinstance(subtasks, range):
                per_subtask[subtasks.start:subtasks.stop] = [region] * len(subtasks)
            else:
                for subtask in subtasks:
                    per_subtask[subtask] = region
    return lookup


def _describe_subtasks(subtasks: SubtaskIndices) -> str:
    if isinstance(subtasks, range) and len(subtasks) > 1:
        return f"[{subtasks.start}..{subtasks.stop - 1}]"
    return "[" + ",".join(str(subtask) for subtask in subtasks) + "]"
