"""The ``_metadata`` of a completed checkpoint: what a restore needs, as plain JSON.

::

    {"format": 1, "checkpoint_id": 7, "kind": "checkpoint" | "savepoint",
     "trigger_timestamp": ms, "completed_timestamp": ms,
     "vertices": {vertex id: {"parallelism": 2, "max_parallelism": 128,
                              "operators": [node ids, head first], "finished": [subtask indexes]}},
     "tasks": {"vertex#i": state handle | None},
     "coordinators": {node id: state},        # only when an operator coordinator has state
     "foreign_ids": [[first, last], ...]}     # only when some ids below this one are not of its history

``coordinators`` holds what the JobMaster's operator coordinators (a file source's split
enumerator: its unassigned splits) snapshotted as the checkpoint was triggered.

A state handle (see ``engine.runtime.state.snapshot``) names the subtask's state file
relative to the checkpoint directory and says which operators, key groups and operator
state lists it holds. ``foreign_ids`` are the ranges of checkpoint ids below this one that its history skipped: a job
numbers its checkpoints after every ``chk-<id>`` present in its directory, so ids a fenced job (or a
dead attempt) took were never its own (``foreign_id_ranges``). A two-phase-commit sink restored
from this checkpoint rolls back what it finds pre-committed under those ids instead of committing
it (``engine.runtime.operators.two_phase_commit``). ``finished`` lists the subtasks that had finished for good before
the checkpoint: a restore starts a vertex whose subtasks all finished as finished, instead
of running a bounded source again. ``engine.checkpoint.storage.load_metadata`` adds
``"location"``, the directory the file was read from.
"""
from __future__ import annotations

from engine.plan.execution_ids import TaskId, task_name

METADATA_FORMAT = 1


def build_metadata(*, checkpoint_id: int, kind: str, trigger_timestamp: int, completed_timestamp: int,
                   tasks: list[TaskId], vertices: dict, finished: set[TaskId],
                   handles: dict[TaskId, dict | None], coordinators: dict | None = None,
                   foreign_ids: list[list[int]] | None = None) -> dict:
    """The metadata of a checkpoint that every task acknowledged (or finished before)."""
    described: dict[str, dict] = {}
    for vertex, index in tasks:
        known = vertices.get(vertex, {})
        entry = described.setdefault(vertex, {
            "parallelism": known.get("parallelism", 0), "max_parallelism": known.get("max_parallelism"),
            "operators": list(known.get("operators", [])), "finished": []})
        if "parallelism" not in known:
            entry["parallelism"] = max(entry["parallelism"], index + 1)
        if (vertex, index) in finished:
            entry["finished"].append(index)
    task_handles = {}
    for task, handle in handles.items():
        task_handles[task_name(task)] = handle
        if handle:
            operators = described[task[0]]["operators"]
            for node_id in handle.get("operators", {}):
                if node_id not in operators:
                    operators.append(node_id)
    metadata = {"format": METADATA_FORMAT, "checkpoint_id": checkpoint_id, "kind": kind,
                "trigger_timestamp": trigger_timestamp, "completed_timestamp": completed_timestamp,
                "vertices": described, "tasks": task_handles}
    if coordinators:
        metadata["coordinators"] = coordinators
    if foreign_ids:
        metadata["foreign_ids"] = [list(pair) for pair in foreign_ids]
    return metadata


def foreign_id_ranges(metadata: dict | None) -> list[list[int]]:
    """A checkpoint's ``foreign_ids``: ``[[first, last], ...]``, each a range of positive ids, ``first``
    ≤ ``last`` < its own id. ValueError when they are not (restored metadata is data)."""
    if not metadata:
        return []
    ranges = metadata.get("foreign_ids", [])
    own = metadata.get("checkpoint_id")
    if not isinstance(ranges, list) or len(ranges) > 10_000:
        raise ValueError(f"foreign_ids {ranges!r:.120} is not a list of id ranges")
    for pair in ranges:
        if not (isinstance(pair, list) and len(pair) == 2 and all(type(bound) is int for bound in pair)
                and 0 < pair[0] <= pair[1] and (type(own) is not int or pair[1] < own)):
            raise ValueError(f"foreign_ids holds {pair!r:.80}, which is not a range of ids below the checkpoint's")
    return [list(pair) for pair in ranges]


def is_foreign(checkpoint_id: int, ranges: list[list[int]]) -> bool:
    """Whether ``checkpoint_id`` lies in one of ``ranges`` (``foreign_id_ranges``)."""
    return any(first <= checkpoint_id <= last for first, last in ranges)
