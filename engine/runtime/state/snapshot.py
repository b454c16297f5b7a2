"""The snapshot of one subtask: what its operators' states looked like at a checkpoint.

A checkpoint of a subtask has two parts (seed 003, ``performCheckpoint``):

1. *synchronous*, in the mailbox thread, right after the barrier went downstream: every
   operator copies its state (:meth:`TaskStateSnapshot.add_operator`). Fast: dict copies.
2. *asynchronous*, in a snapshot thread: the copies are grouped by key group, serialised
   with pickle protocol 5 (records and keys are arbitrary Python values, tuples included)
   and written as one file per subtask into the checkpoint's directory.

The file holds ``{"format": 1, "task": [vertex, index], "operators": {node id:
{"keyed": {key group: {state name: {key: value}}} | None, "operator": {name: [elements]} |
None}}}``. The *state handle* sent with the acknowledgement names it and says what is
inside, so a restore at another parallelism knows which files to read without opening
the others: ``{"path": file name relative to the checkpoint directory, "size": bytes,
"key_group_range": [start, end], "operators": {node id: {"key_groups": [first, last] |
None, "operator_state": {name: element count}}}}``.
"""
from __future__ import annotations

import pickle

from engine.runtime.state.key_groups import KeyGroupRange
from engine.runtime.state.keyed_state import KeyedStateSnapshot

STATE_FILE_FORMAT = 1


class OperatorSnapshot:
    """The synchronous copy of one operator's keyed and operator state."""

    __slots__ = ("keyed", "operator")

    def __init__(self, keyed: KeyedStateSnapshot | None, operator: dict[str, list] | None):
        self.keyed = keyed
        self.operator = operator

    def is_empty(self) -> bool:
        keyed_empty = self.keyed is None or self.keyed.is_empty()
        return keyed_empty and not self.operator


class TaskStateSnapshot:
    """The synchronous copies of all operators of a subtask, for one checkpoint."""

    def __init__(self, task: tuple, key_group_range: KeyGroupRange | None):
        self.task = task
        self.key_group_range = key_group_range
        self.operators: dict[str, OperatorSnapshot] = {}

    def add_operator(self, node_id: str, snapshot: OperatorSnapshot) -> None:
        if not snapshot.is_empty():
            self.operators[node_id] = snapshot

    def is_empty(self) -> bool:
        return not self.operators

    def serialise(self) -> tuple[bytes, dict]:
        """Return the file contents and the handle's ``operators`` description (async part)."""
        operators = {}
        described = {}
        for node_id, snapshot in self.operators.items():
            groups = snapshot.keyed.by_key_group() if snapshot.keyed is not None else None
            operators[node_id] = {"keyed": groups, "operator": snapshot.operator}
            described[node_id] = {
                "key_groups": [min(groups), max(groups)] if groups else None,
                "operator_state": {name: len(elements) for name, elements in (snapshot.operator or {}).items()},
            }
        payload = {"format": STATE_FILE_FORMAT, "task": list(self.task), "operators": operators}
        return pickle.dumps(payload, protocol=5), described


def deserialise_task_state(data: bytes) -> dict:
    """Return the ``operators`` dict of a state file."""
    payload = pickle.loads(data)
    if payload.get("format") != STATE_FILE_FORMAT:
        raise ValueError(f"unsupported state file format {payload.get('format')!r}")
    return payload["operators"]
