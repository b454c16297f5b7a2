"""Identifiers of the execution level: one subtask of a job vertex, one partition of a result.

They are plain named tuples (cheap to create, hashable, ordered) so the JobMaster can use
them as dictionary keys and send them over the control channel as they are.
"""
from __future__ import annotations

from enum import Enum
from typing import NamedTuple


class ExecutionVertexID(NamedTuple):
    """Subtask ``subtask_index`` of job vertex ``job_vertex_id``."""

    job_vertex_id: str
    subtask_index: int


class ResultPartitionID(NamedTuple):
    """The partition that subtask ``partition_index`` of a job edge's producer writes.

    Every job edge has its own result, so a result is named by the job edge id.
    """

    result_id: str
    partition_index: int


class ExecutionState(str, Enum):
    """Life cycle of one execution vertex, as the JobMaster reports it to the strategy."""

    CREATED = "CREATED"
    SCHEDULED = "SCHEDULED"
    RUNNING = "RUNNING"
    FINISHED = "FINISHED"
    CANCELED = "CANCELED"
    FAILED = "FAILED"
