"""The ExecutionGraph: the JobGraph expanded to subtasks, connected through groups.

Every job vertex becomes ``parallelism`` execution vertices (one per subtask). Every job
edge becomes an :class:`IntermediateResult` with one partition per producer subtask, and
its connections are kept only as ConsumedPartitionGroups / ConsumerVertexGroups laid out
by a ``ConnectionPattern``. No object exists per producer/consumer pair, so an all-to-all
edge between n and m subtasks costs O(n + m) memory and every query below costs O(1) or
O(size of the answer), never O(n·m).

State kept here
    Whether each partition has finished (one byte per partition) and, derived from it,
    each consumed group's count of unfinished partitions. The scheduling strategy updates
    this state; :meth:`ExecutionGraph.reset_partition_states` clears it. One strategy
    drives one graph.

Used by the JobMaster::

    graph = build_execution_graph(job_graph)
    graph.consumed_partition_groups(ExecutionVertexID("map", 3))   # what subtask 3 reads
    graph.produced_partitions(ExecutionVertexID("map", 3))        # what it writes
"""
from __future__ import annotations

from typing import Iterator, Sequence

from engine.plan.connection_patterns import ConnectionPattern, connection_pattern
from engine.plan.execution_ids import ExecutionVertexID, ResultPartitionID
from engine.plan.job_graph import JobEdge, JobGraph, JobVertex, ResultPartitionType
from engine.plan.partition_groups import ConsumedPartitionGroup, ConsumerVertexGroup


class IntermediateResult:
    """The output of one job edge: one partition per producer subtask, cut into groups."""

    __slots__ = ("edge", "pattern", "consumed_groups", "consumer_groups", "_finished")

    def __init__(self, edge: JobEdge, producers: int, consumers: int) -> None:
        self.edge = edge
        self.pattern: ConnectionPattern = connection_pattern(edge.distribution, producers, consumers)
        result_type = edge.result_type
        self.consumed_groups = tuple(
            ConsumedPartitionGroup(edge.id, group, self.pattern.partitions_of_group(group), result_type)
            for group in range(self.pattern.group_count)
        )
        self.consumer_groups = tuple(
            ConsumerVertexGroup(
                edge.id, group, edge.target, self.pattern.consumers_of_group(group), result_type
            )
            for group in range(self.pattern.group_count)
        )
        self._finished = bytearray(producers)

    def __repr__(self) -> str:
        return (
            f"IntermediateResult({self.id!r}: {self.producer_vertex_id}[{self.pattern.producers}] -> "
            f"{self.consumer_vertex_id}[{self.pattern.consumers}], {self.edge.distribution.value}, "
            f"{self.result_type.value}, {self.pattern.group_count} groups)"
        )

    @property
    def id(self) -> str:
        return self.edge.id

    @property
    def producer_vertex_id(self) -> str:
        return self.edge.source

    @property
    def consumer_vertex_id(self) -> str:
        return self.edge.target

    @property
    def result_type(self) -> ResultPartitionType:
        return self.edge.result_type

    @property
    def is_blocking(self) -> bool:
        return self.edge.result_type is ResultPartitionType.BLOCKING

    @property
    def number_of_partitions(self) -> int:
        return self.pattern.producers

    def consumed_group_of_consumer(self, subtask: int) -> ConsumedPartitionGroup:
        """Return the group consumer subtask ``subtask`` reads (exactly one per result)."""
        return self.consumed_groups[self.pattern.group_of_consumer(subtask)]

    def consumed_group_of_partition(self, partition: int) -> ConsumedPartitionGroup:
        """Return the group partition ``partition`` belongs to (exactly one)."""
        return self.consumed_groups[self.pattern.group_of_partition(partition)]

    def consumer_group_of_partition(self, partition: int) -> ConsumerVertexGroup:
        """Return the consumer subtasks that read partition ``partition``."""
        return self.consumer_groups[self.pattern.group_of_partition(partition)]

    def consumer_group_of(self, group: ConsumedPartitionGroup) -> ConsumerVertexGroup:
        """Return the consumer subtasks that read ``group``."""
        return self.consumer_groups[group.index]

    def consumed_group_of(self, group: ConsumerVertexGroup) -> ConsumedPartitionGroup:
        """Return the partitions that the consumers of ``group`` read."""
        return self.consumed_groups[group.index]

    def groups_of_partitions(self, partitions: Sequence[int]) -> list[int]:
        """Return the distinct group indices of these partitions, ascending."""
        if isinstance(partitions, range) and partitions.step == 1:
            return list(self.pattern.groups_of_partitions(partitions))
        return sorted({self.pattern.group_of_partition(partition) for partition in partitions})

    def is_partition_finished(self, partition: int) -> bool:
        return bool(self._finished[partition])

    def mark_partition_finished(self, partition: int) -> ConsumedPartitionGroup | None:
        """Record that a partition is complete; return its group, or None if already recorded."""
        if self._finished[partition]:
            return None
        self._finished[partition] = 1
        group = self.consumed_group_of_partition(partition)
        group.partition_finished()
        return group

    def mark_partition_unfinished(self, partition: int) -> ConsumedPartitionGroup | None:
        """Record that a partition must be produced again; return its group, or None if it was not finished."""
        if not self._finished[partition]:
            return None
        self._finished[partition] = 0
        group = self.consumed_group_of_partition(partition)
        group.partition_unfinished()
        return group

    def reset(self) -> None:
        self._finished = bytearray(len(self._finished))
        for group in self.consumed_groups:
            group.reset()


class ExecutionVertex:
    """One subtask of a job vertex. Its connections are asked of the graph, not stored."""

    __slots__ = ("id", "_graph")

    def __init__(self, vertex_id: ExecutionVertexID, graph: "ExecutionGraph") -> None:
        self.id = vertex_id
        self._graph = graph

    def __repr__(self) -> str:
        return f"ExecutionVertex({self.id.job_vertex_id!r}, {self.id.subtask_index})"

    @property
    def job_vertex_id(self) -> str:
        return self.id.job_vertex_id

    @property
    def subtask_index(self) -> int:
        return self.id.subtask_index

    @property
    def consumed_partition_groups(self) -> list[ConsumedPartitionGroup]:
        return self._graph.consumed_partition_groups(self.id)

    @property
    def produced_partitions(self) -> list[ResultPartitionID]:
        return self._graph.produced_partitions(self.id)

    @property
    def consumer_vertex_groups(self) -> list[ConsumerVertexGroup]:
        return self._graph.consumer_vertex_groups(self.id)


class ExecutionJobVertex:
    """A job vertex with its execution vertices and the results around it.

    The execution vertex objects are created on first use: planning and scheduling work on
    ranges of subtask indices and never need them, and a million idle objects would only
    cost memory and garbage-collector time.
    """

    __slots__ = ("job_vertex", "_graph", "_task_vertices", "inputs", "outputs", "blocking_outputs")

    def __init__(self, job_vertex: JobVertex, graph: "ExecutionGraph") -> None:
        self.job_vertex = job_vertex
        self._graph = graph
        self._task_vertices: tuple[ExecutionVertex, ...] | None = None
        self.inputs: list[IntermediateResult] = []
        self.outputs: list[IntermediateResult] = []
        self.blocking_outputs: list[IntermediateResult] = []

    def __repr__(self) -> str:
        return f"ExecutionJobVertex({self.job_vertex.id!r}, parallelism={self.parallelism})"

    @property
    def id(self) -> str:
        return self.job_vertex.id

    @property
    def parallelism(self) -> int:
        return self.job_vertex.parallelism

    @property
    def task_vertices(self) -> tuple[ExecutionVertex, ...]:
        """The execution vertices, one per subtask, by subtask index."""
        if self._task_vertices is None:
            self._task_vertices = tuple(
                ExecutionVertex(ExecutionVertexID(self.job_vertex.id, subtask), self._graph)
                for subtask in range(self.job_vertex.parallelism)
            )
        return self._task_vertices


class ExecutionGraph:
    """Execution vertices per subtask, results per job edge, connections as groups."""

    def __init__(self, job_graph: JobGraph) -> None:
        self.job_graph = job_graph
        self.job_vertices: dict[str, ExecutionJobVertex] = {
            vertex.id: ExecutionJobVertex(vertex, self) for vertex in job_graph.vertices
        }
        self.results: dict[str, IntermediateResult] = {}
        for edge in job_graph.edges:
            result = IntermediateResult(
                edge,
                job_graph.vertex(edge.source).parallelism,
                job_graph.vertex(edge.target).parallelism,
            )
            self.results[edge.id] = result
            self.job_vertices[edge.source].outputs.append(result)
            self.job_vertices[edge.target].inputs.append(result)
            if result.is_blocking:
                self.job_vertices[edge.source].blocking_outputs.append(result)

    def __repr__(self) -> str:
        return (
            f"ExecutionGraph({len(self.job_vertices)} job vertices, "
            f"{self.number_of_execution_vertices} execution vertices, {len(self.results)} results)"
        )

    @property
    def number_of_execution_vertices(self) -> int:
        return sum(vertex.parallelism for vertex in self.job_vertices.values())

    def job_vertex(self, job_vertex_id: str) -> ExecutionJobVertex:
        return self.job_vertices[job_vertex_id]

    def result(self, result_id: str) -> IntermediateResult:
        return self.results[result_id]

    def execution_vertex(self, vertex_id: ExecutionVertexID) -> ExecutionVertex:
        return self.job_vertices[vertex_id.job_vertex_id].task_vertices[vertex_id.subtask_index]

    def execution_vertices(self) -> Iterator[ExecutionVertex]:
        """Yield every execution vertex: job vertices in topological order, subtasks ascending."""
        for job_vertex in self.job_vertices.values():
            yield from job_vertex.task_vertices

    def consumed_partition_groups(self, vertex_id: ExecutionVertexID) -> list[ConsumedPartitionGroup]:
        """Return the groups a subtask reads: one per input result."""
        job_vertex_id, subtask = vertex_id
        return [result.consumed_group_of_consumer(subtask) for result in self.job_vertices[job_vertex_id].inputs]

    def consumer_vertex_groups(self, vertex_id: ExecutionVertexID) -> list[ConsumerVertexGroup]:
        """Return the groups of subtasks that read what a subtask writes: one per output result."""
        job_vertex_id, subtask = vertex_id
        return [result.consumer_group_of_partition(subtask) for result in self.job_vertices[job_vertex_id].outputs]

    def produced_partitions(self, vertex_id: ExecutionVertexID) -> list[ResultPartitionID]:
        """Return the partitions a subtask writes: one per output result."""
        job_vertex_id, subtask = vertex_id
        return [ResultPartitionID(result.id, subtask) for result in self.job_vertices[job_vertex_id].outputs]

    def producer_of(self, partition: ResultPartitionID) -> ExecutionVertexID:
        return ExecutionVertexID(self.results[partition.result_id].producer_vertex_id, partition.partition_index)

    def mark_partition_finished(self, partition: ResultPartitionID) -> ConsumedPartitionGroup | None:
        """Record a complete partition; return its group, or None if it was already recorded."""
        return self.results[partition.result_id].mark_partition_finished(partition.partition_index)

    def reset_partition_states(self) -> None:
        """Count every partition as unfinished again."""
        for result in self.results.values():
            result.reset()


def build_execution_graph(job_graph: JobGraph) -> ExecutionGraph:
    """Expand a JobGraph to subtasks; O(total parallelism), independent of edge density."""
    return ExecutionGraph(job_graph)
