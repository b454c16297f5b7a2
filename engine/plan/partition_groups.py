"""ConsumedPartitionGroup and ConsumerVertexGroup: connections without per-pair edges.

Between a producer with n subtasks and a consumer with m subtasks an all-to-all edge has
n·m subtask pairs. Flink once kept one ExecutionEdge object per pair, which made memory and
every scheduling decision O(n·m) (seed 002, 调度部署性能优化). The pairs are symmetric, so
they can be described once: the n partitions form one :class:`ConsumedPartitionGroup`, the
m consumers one :class:`ConsumerVertexGroup`, and "every consumer of the group reads every
partition of the group" says everything the n·m edges said, in O(n + m).

Pointwise edges are cut into several pairs of groups the same way (see
``connection_patterns``). Each partition of a result belongs to exactly one consumed group
and each consumer subtask reads exactly one consumed group of that result.

A consumed group also counts its unfinished partitions, so "are all inputs of this
consumer finished?" is one comparison instead of a scan: a finished partition calls
:meth:`ConsumedPartitionGroup.partition_finished`, which returns the remaining count.
"""
from __future__ import annotations

from typing import Iterator

from engine.plan.execution_ids import ExecutionVertexID, ResultPartitionID
from engine.plan.job_graph import ResultPartitionType


class ConsumedPartitionGroup:
    """Partitions of one result that the same consumer subtasks read together.

    Mutable in one respect only: the count of unfinished partitions, maintained by the
    owning result, which guarantees that each partition is counted once.
    """

    __slots__ = ("result_id", "index", "partition_indices", "result_type", "_unfinished")

    def __init__(
        self, result_id: str, index: int, partition_indices: range, result_type: ResultPartitionType
    ) -> None:
        if not partition_indices:
            raise ValueError(f"a consumed partition group of result '{result_id}' cannot be empty")
        self.result_id = result_id
        self.index = index
        """Position of this group among the groups of its result."""
        self.partition_indices = partition_indices
        self.result_type = result_type
        self._unfinished = len(partition_indices)

    @classmethod
    def from_single_partition(
        cls, result_id: str, partition_index: int, result_type: ResultPartitionType
    ) -> "ConsumedPartitionGroup":
        return cls(result_id, partition_index, range(partition_index, partition_index + 1), result_type)

    def __len__(self) -> int:
        return len(self.partition_indices)

    def __iter__(self) -> Iterator[ResultPartitionID]:
        return (ResultPartitionID(self.result_id, index) for index in self.partition_indices)

    def __contains__(self, partition: object) -> bool:
        return (
            isinstance(partition, tuple)
            and partition[0] == self.result_id
            and partition[1] in self.partition_indices
        )

    def __repr__(self) -> str:
        return (
            f"ConsumedPartitionGroup({self.result_id!r}#{self.index}, partitions="
            f"{self.partition_indices.start}..{self.partition_indices.stop - 1}, "
            f"unfinished={self._unfinished})"
        )

    @property
    def number_of_unfinished_partitions(self) -> int:
        return self._unfinished

    def partition_finished(self) -> int:
        """Count one more finished partition; return how many are still unfinished."""
        if self._unfinished == 0:
            raise RuntimeError(f"{self!r}: every partition is already finished")
        self._unfinished -= 1
        return self._unfinished

    def partition_unfinished(self) -> int:
        """Count a finished partition as unfinished again (its producer restarts)."""
        if self._unfinished == len(self.partition_indices):
            raise RuntimeError(f"{self!r}: no partition is finished")
        self._unfinished += 1
        return self._unfinished

    def are_all_partitions_finished(self) -> bool:
        return self._unfinished == 0

    def reset(self) -> None:
        """Count every partition as unfinished."""
        self._unfinished = len(self.partition_indices)


class ConsumerVertexGroup:
    """Subtasks of one consumer job vertex that read the same consumed partition group."""

    __slots__ = ("result_id", "index", "job_vertex_id", "subtasks", "result_type")

    def __init__(
        self,
        result_id: str,
        index: int,
        job_vertex_id: str,
        subtasks: range,
        result_type: ResultPartitionType,
    ) -> None:
        if not subtasks:
            raise ValueError(f"a consumer vertex group of result '{result_id}' cannot be empty")
        self.result_id = result_id
        self.index = index
        """Position of this group among the groups of its result (the same as its consumed group)."""
        self.job_vertex_id = job_vertex_id
        self.subtasks = subtasks
        self.result_type = result_type

    @classmethod
    def from_single_vertex(
        cls, result_id: str, job_vertex_id: str, subtask: int, result_type: ResultPartitionType
    ) -> "ConsumerVertexGroup":
        return cls(result_id, subtask, job_vertex_id, range(subtask, subtask + 1), result_type)

    def __len__(self) -> int:
        return len(self.subtasks)

    def __iter__(self) -> Iterator[ExecutionVertexID]:
        return (ExecutionVertexID(self.job_vertex_id, subtask) for subtask in self.subtasks)

    def __contains__(self, vertex: object) -> bool:
        return (
            isinstance(vertex, tuple)
            and vertex[0] == self.job_vertex_id
            and vertex[1] in self.subtasks
        )

    def __repr__(self) -> str:
        return (
            f"ConsumerVertexGroup({self.result_id!r}#{self.index}, {self.job_vertex_id!r} "
            f"subtasks {self.subtasks.start}..{self.subtasks.stop - 1})"
        )
