"""Identifiers of the execution level: one subtask of a job vertex, one partition of a result.

They are plain named tuples (cheap to create, hashable, ordered) so the JobMaster can use
them as dictionary keys and send them over the control channel as they are.

:data:`TaskId` is the engine's one task id type: the planner's ``ExecutionVertexID``. A
plain ``(vertex, index)`` tuple compares and hashes equal to it, so ids that crossed the
control channel as lists work as keys once :func:`as_task_id` made them tuples again.
"""
from __future__ import annotations

from enum import Enum
from typing import NamedTuple


class ExecutionVertexID(NamedTuple):
    """Subtask ``subtask_index`` of job vertex ``job_vertex_id``."""

    job_vertex_id: str
    subtask_index: int


TaskId = ExecutionVertexID
"""One subtask: (job vertex id, subtask index)."""


def task_name(task: tuple) -> str:
    """Return the string form ``"vertex#index"`` of a task id, for file names and dict keys."""
    return f"{task[0]}#{task[1]}"


def parse_task_name(name: str) -> TaskId:
    """Return the task id of a ``"vertex#index"`` string (the vertex id may contain '#')."""
    vertex, _, index = name.rpartition("#")
    return ExecutionVertexID(vertex, int(index))


def as_task_id(task) -> TaskId:
    """Return a task id from a tuple, a two-element list (after msgpack) or a string."""
    if isinstance(task, str):
        return parse_task_name(task)
    vertex, index = task
    return ExecutionVertexID(vertex, int(index))


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
