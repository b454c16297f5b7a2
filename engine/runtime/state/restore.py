"""State assignment on restore: which parts of a completed checkpoint one new subtask gets.

The checkpoint's ``_metadata`` lists, per job vertex, its parallelism, its operators and
its finished subtasks, and per subtask the state handle (see ``snapshot.py``). A new
subtask may run at another parallelism than the one that wrote the checkpoint:

- keyed state: the subtask owns a new key-group range; it reads every old file whose key
  groups intersect that range and keeps only its own key groups (rescaling by key-group
  ranges, as Flink does);
- operator list state: at the same parallelism subtask i gets back exactly what old
  subtask i had; otherwise all old elements are pooled in subtask order and dealt out
  round robin; union list states give every subtask all elements, broadcast list states
  old subtask 0's copy (``engine.runtime.state.operator_state``);
- channel state (unaligned checkpoints): the in-flight buffers subtask i persisted go back
  to new subtask i, to be replayed before new data; where an edge's producer or consumer
  changed its parallelism, the consumers take the edge's whole channel state (both sides)
  and keep their share (see ``StreamTask._replay_channel_state``);
- finished vertices: if every old subtask of the operator's vertex had finished (a bounded
  source that was done), the new subtask starts finished instead of starting over.

State is matched by operator (node) id, so changing the chaining between runs is fine. A node
may name another node whose state it restores when the checkpoint has none of its own id
(``restore_state_of``, as Flink's ``uid``): a shadow run's copy of a production node starts
from that node's state (``aliases``).
State files are read only from the checkpoint's own directory, and only as they were
written (``storage.read_state_file``: a plain name, no symlink, the digest of the handle).
What an operator finds in its state is still data it checks against its own configuration
before acting on it (``engine.runtime.restored_state``).

Threading model: created and used by one subtask's thread while it restores.
"""
from __future__ import annotations

from engine.checkpoint import storage
from engine.checkpoint.signing import SnapshotRefused
from engine.plan.channels import ChannelId
from engine.runtime.state.key_groups import KeyGroupRange
from engine.runtime.state.operator_state import BROADCAST_PREFIX, UNION_PREFIX
from engine.runtime.state.snapshot import deserialise_channel_state, deserialise_task_state


class TaskRestore:
    """The parts of one checkpoint that belong to one new subtask."""

    def __init__(self, metadata: dict, index: int, parallelism: int, aliases: dict[str, str] | None = None):
        self.metadata = metadata
        self.index = index
        self.parallelism = parallelism
        self.location = metadata.get("location", "")
        self.checkpoint_id = int(metadata.get("checkpoint_id", 0))
        self._vertices: dict = metadata.get("vertices", {})
        self._tasks: dict = metadata.get("tasks", {})
        self._files: dict[str, dict] = {}
        self._aliases = dict(aliases or {})

    # -- where an operator was -------------------------------------------------------------
    def state_id(self, node_id: str) -> str:
        """The id the checkpoint holds ``node_id``'s state under: its own, or, when the checkpoint has no
        operator of that id, the one its node restores the state of (``aliases``)."""
        alias = self._aliases.get(node_id)
        if alias is None or self._vertex_of(node_id) is not None:
            return node_id
        return alias

    @staticmethod
    def aliases_of(nodes) -> dict[str, str]:
        """``{node id: restore_state_of}`` of the definition's nodes that name one."""
        return {node["id"]: node["restore_state_of"] for node in nodes if node.get("restore_state_of")}

    def old_vertex(self, node_id: str) -> tuple[str, dict] | None:
        """``(vertex id, vertex)`` of the checkpoint that held the operator's state, or None."""
        return self._vertex_of(self.state_id(node_id))

    def _vertex_of(self, node_id: str) -> tuple[str, dict] | None:
        for vertex_id, vertex in self._vertices.items():
            if node_id in vertex.get("operators", ()):
                return vertex_id, vertex
        vertex = self._vertices.get(node_id)
        return (node_id, vertex) if vertex is not None else None

    def knows(self, node_id: str) -> bool:
        """Whether the checkpoint had this operator (then it is *restored*, maybe to empty state)."""
        return self.old_vertex(node_id) is not None

    def is_finished(self, node_id: str) -> bool:
        """Whether every subtask of the operator's old vertex had finished."""
        found = self.old_vertex(node_id)
        if found is None:
            return False
        _, vertex = found
        return len(set(vertex.get("finished", ()))) >= int(vertex["parallelism"])

    def _old_handles(self, node_id: str) -> list[dict | None]:
        found = self.old_vertex(node_id)
        if found is None:
            return []
        vertex_id, vertex = found
        return [self._tasks.get(f"{vertex_id}#{i}") for i in range(int(vertex["parallelism"]))]

    def _read(self, handle: dict) -> dict:
        path = handle["path"]
        contents = self._files.get(path)
        if contents is None:
            data = storage.read_state_file(self.location, handle)
            try:
                contents = deserialise_task_state(data)
            except Exception as error:  # not what the engine writes: refused, naming the snapshot
                raise SnapshotRefused(self.location, f"its state file {path!r} cannot be read: {error}") from None
            self._files[path] = contents
        return contents

    def old_parallelism(self, vertex_id: str) -> int | None:
        """The parallelism job vertex ``vertex_id`` had in the checkpoint (None: not in it)."""
        vertex = self._vertices.get(vertex_id)
        return int(vertex["parallelism"]) if vertex is not None else None

    def channel_state(self, vertex_id: str, index: int | None = None) -> dict:
        """``{"input": {ChannelId: items}, "output": {ChannelId: items}}`` persisted by old
        subtask ``index`` of ``vertex_id`` (None: by all of them), empty if none."""
        parallelism = self.old_parallelism(vertex_id)
        result: dict = {"input": {}, "output": {}}
        if parallelism is None:
            return result
        for old_index in range(parallelism) if index is None else [index]:
            handle = self._tasks.get(f"{vertex_id}#{old_index}")
            if not handle or not handle.get("persisted_data"):
                continue
            state = deserialise_channel_state(storage.read_state_file(self.location, handle))
            for side in ("input", "output"):
                for cid, items in state.get(side, []):
                    result[side][ChannelId.from_list(cid)] = items
        return result

    # -- what an operator gets --------------------------------------------------------------
    def keyed_state(self, node_id: str, key_group_range: KeyGroupRange,
                    max_parallelism: int | None = None) -> dict[int, dict]:
        """``{key group: {state name: {key: value}}}`` for the key groups of ``key_group_range``.

        Key groups are only comparable under the same max parallelism, so a checkpoint taken
        with another one cannot be restored (as in Flink).
        """
        node_id = self.state_id(node_id)
        found = self.old_vertex(node_id)
        old_max = found[1].get("max_parallelism") if found else None
        if max_parallelism is not None and old_max is not None and int(old_max) != max_parallelism:
            raise ValueError(
                f"operator '{node_id}' cannot restore its keyed state with max_parallelism {max_parallelism}: "
                f"checkpoint {self.checkpoint_id} was taken with max_parallelism {old_max}")
        result: dict[int, dict] = {}
        for handle in self._old_handles(node_id):
            if not handle:
                continue
            described = handle.get("operators", {}).get(node_id)
            if not described or not described.get("key_groups"):
                continue
            if not KeyGroupRange.from_list(described["key_groups"]).intersects(key_group_range):
                continue
            groups = self._part(handle, node_id, "keyed")
            for group, states in groups.items():
                if type(group) is not int or not isinstance(states, dict) or not all(
                        isinstance(name, str) and isinstance(values, dict) for name, values in states.items()):
                    raise SnapshotRefused(self.location, f"the keyed state of {node_id} in {handle.get('path')!r} "
                                                         "is not what the engine writes")
                if group in key_group_range:
                    result[group] = states
        return result

    def operator_state(self, node_id: str) -> dict[str, list] | None:
        """``{name: [elements]}`` for this subtask, or None when the operator was not in the checkpoint."""
        node_id = self.state_id(node_id)
        if not self.knows(node_id):
            return None
        handles = self._old_handles(node_id)
        states = self.written_operator_state(node_id)
        result: dict[str, list] = {}
        names = {name for state in states for name in state}
        for name in names:
            if name.startswith(UNION_PREFIX):  # every subtask gets everything, at any parallelism
                result[name] = [element for state in states for element in state.get(name, ())]
            elif name.startswith(BROADCAST_PREFIX):  # all hold the same: old subtask 0's copy
                result[name] = list(next((state[name] for state in states if name in state), ()))
            elif len(handles) == self.parallelism:
                if name in states[self.index]:
                    result[name] = states[self.index][name]
            else:
                pooled = [element for state in states for element in state.get(name, ())]
                result[name] = pooled[self.index::self.parallelism]
        return result

    def written_operator_state(self, node_id: str) -> list[dict[str, list]]:
        """``{name: [elements]}`` of each old subtask of the operator, as it wrote them (none: not in the
        checkpoint)."""
        node_id = self.state_id(node_id)
        return [self._operator_state_of(handle, node_id) for handle in self._old_handles(node_id)]

    def _operator_state_of(self, handle: dict | None, node_id: str) -> dict[str, list]:
        if not handle:
            return {}
        described = handle.get("operators", {}).get(node_id)
        if not described or not described.get("operator_state"):
            return {}
        state = self._part(handle, node_id, "operator")
        if not all(isinstance(name, str) and isinstance(elements, list) for name, elements in state.items()):
            raise SnapshotRefused(self.location, f"the operator state of {node_id} in {handle.get('path')!r} is not "
                                                 "lists of elements")
        return dict(state)

    def _part(self, handle: dict, node_id: str, kind: str) -> dict:
        """``kind`` (``keyed`` or ``operator``) of ``node_id`` in the state file of ``handle``, a dict (maybe empty)."""
        operators = self._read(handle)
        entry = operators.get(node_id) if isinstance(operators, dict) else None
        part = entry.get(kind) if isinstance(entry, dict) else entry
        if part is None:
            return {}
        if not isinstance(part, dict):
            raise SnapshotRefused(self.location, f"the {kind} state of {node_id} in {handle.get('path')!r} is not "
                                                 "what the engine writes")
        return part
