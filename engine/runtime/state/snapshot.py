"""The snapshot of one subtask: what its operators' states looked like at a checkpoint.

A checkpoint of a subtask has two parts (seed 003, ``performCheckpoint``):

1. *synchronous*, in the mailbox thread, right after the barrier went downstream: every
   operator copies its state (:meth:`TaskStateSnapshot.add_operator`). Fast: dict copies.
2. *asynchronous*, in a snapshot thread: the copies are grouped by key group, serialised
   with pickle protocol 5 (records and keys are arbitrary Python values, tuples included)
   and written as one file per subtask into the checkpoint's directory.

The file holds ``{"format": 1, "task": [vertex, index], "operators": {node id:
{"keyed": {key group: {state name: {key: value}}} | None, "operator": {name: [elements]} |
None}}, "channels": pickled channel state | None}`` where the channel state of an unaligned
checkpoint is ``{"input": [[channel id, [items]]], "output": [[channel id, [items]]]}``
(input: what the subtask read or had queued after its snapshot and before a barrier;
output: what its barriers overtook in its output queues; channel ids as
``ChannelId.as_list()``). The *state handle* sent with the acknowledgement names it and says what is
inside, so a restore at another parallelism knows which files to read without opening
the others: ``{"path": file name relative to the checkpoint directory, "size": bytes,
"key_group_range": [start, end], "operators": {node id: {"key_groups": [first, last] |
None, "operator_state": {name: element count}}}}``.
"""
from __future__ import annotations

import pickle

from engine.runtime.state import safe_pickle
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
        self.input_channels: dict = {}
        """Unaligned checkpoints: input channel index -> items (filled until every barrier arrived)."""
        self.input_channel_ids: list = []
        """The channel id of each input channel index."""
        self.output_channels: dict = {}
        """Unaligned checkpoints: channel id -> items the barriers overtook in the output queues."""

    def add_operator(self, node_id: str, snapshot: OperatorSnapshot) -> None:
        if not snapshot.is_empty():
            self.operators[node_id] = snapshot

    def is_empty(self) -> bool:
        return not self.operators and not self.has_channel_state()

    def has_channel_state(self) -> bool:
        return any(self.input_channels.values()) or any(self.output_channels.values())

    def serialise_channels(self) -> bytes | None:
        if not self.has_channel_state():
            return None
        ids = self.input_channel_ids
        state = {"input": [[list_id(ids[index]), items] for index, items in self.input_channels.items() if items],
                 "output": [[list_id(cid), items] for cid, items in self.output_channels.items() if items]}
        return pickle.dumps(state, protocol=5)

    def serialise(self) -> tuple[bytes, dict, int]:
        """Return the file contents, the handle's ``operators`` description and the bytes of
        channel state (async part)."""
        operators = {}
        described = {}
        for node_id, snapshot in self.operators.items():
            groups = snapshot.keyed.by_key_group() if snapshot.keyed is not None else None
            operators[node_id] = {"keyed": groups, "operator": snapshot.operator}
            described[node_id] = {
                "key_groups": [min(groups), max(groups)] if groups else None,
                "operator_state": {name: len(elements) for name, elements in (snapshot.operator or {}).items()},
            }
        channels = self.serialise_channels()
        payload = {"format": STATE_FILE_FORMAT, "task": list(self.task), "operators": operators,
                   "channels": channels}
        return pickle.dumps(payload, protocol=5), described, len(channels or b"")


def list_id(channel_id) -> list:
    """A channel id as stored: ``[edge, [vertex, index], [vertex, index]]``."""
    as_list = getattr(channel_id, "as_list", None)
    return as_list() if as_list is not None else list(channel_id)


def deserialise_task_state(data: bytes) -> dict:
    """Return the ``operators`` dict of a state file."""
    payload = safe_pickle.loads(data)
    if payload.get("format") != STATE_FILE_FORMAT:
        raise ValueError(f"unsupported state file format {payload.get('format')!r}")
    return payload["operators"]


def deserialise_channel_state(data: bytes) -> dict:
    """Return ``{"input": [[channel id, items]], "output": [...]}`` of a state file (empty lists if none)."""
    payload = safe_pickle.loads(data)
    channels = payload.get("channels")
    return safe_pickle.loads(channels) if channels else {"input": [], "output": []}
