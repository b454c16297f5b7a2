"""Reading a completed snapshot's state as data: per operator, its states, keys and sizes.

The state browser never restores a snapshot into a job: it reads the snapshot's files the
way a restoring subtask reads them, through the same path (``TaskRestore``: a state file
only as a plain name of the snapshot's own directory, no symlink, its SHA-256 equal to the
one in the metadata, loaded with the data-only unpickler, its structure checked), as one
subtask owning every key group. The caller hands in metadata it verified (signed by its
key, ``engine.checkpoint.signing``); everything read from the files is then checked
against that metadata's digests, so what is shown is what the job wrote.

Rows: the browser shows an operator's state as rows ``(key, key group, subtask, state)``,
``key`` and ``state`` as canonical JSON (``values``), ``state`` rendered by the operator
type's layout (``layouts``: a window's panes with their timers, a join's buffers ...).
Keyed state gives one row per key; list state (sources' splits, sinks' pending
transactions) one row per element, keyed ``[state name, subtask, position]`` with key group
-1; a split enumerator's unassigned splits one row keyed ``["enumerator"]``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterator

from engine.runtime.state.key_groups import KeyGroupRange, subtask_for_key_group
from engine.runtime.state.operator_state import BROADCAST_PREFIX
from engine.runtime.state.restore import TaskRestore
from engine.snapshots.layouts import keyed_layout, operator_state_kind
from engine.snapshots.values import json_texts, to_json

NO_KEY_GROUP = -1
"""The key group of rows that are not keyed state (list state elements, enumerators)."""


@dataclass(frozen=True)
class Rows:
    """Rows of an operator's state as columns: canonical JSON ``keys`` and ``states``."""

    keys: list[str]
    key_groups: list[int]
    subtasks: list[int]
    states: list[str]


class SnapshotReader:
    """The state of one completed snapshot, read as data. ``metadata``: loaded (with ``location``) and
    verified by the caller; ``definition``: the pipeline that wrote it (operator types and parameters,
    for the layouts), or None.

    Threading model: one thread; state files are read once and kept while the reader lives."""

    def __init__(self, metadata: dict, definition: dict | None = None):
        self.metadata = metadata
        self.location = str(metadata.get("location", ""))
        self.checkpoint_id = int(metadata.get("checkpoint_id", 0))
        self.kind = str(metadata.get("kind", "checkpoint"))
        self._nodes = {str(node.get("id")): node for node in (definition or {}).get("nodes", [])
                       if isinstance(node, dict)}
        self._restore = TaskRestore(metadata, 0, 1)

    # -- what the snapshot holds ------------------------------------------------------------
    def node_ids(self) -> list[str]:
        """Every operator the snapshot has state of (in some state file), or a split enumerator's."""
        nodes: set[str] = set()
        for handle in (self.metadata.get("tasks") or {}).values():
            if isinstance(handle, dict):
                nodes.update(str(node) for node in (handle.get("operators") or {}))
        nodes.update(str(node) for node in (self.metadata.get("coordinators") or {}))
        return sorted(nodes)

    def describe(self, node_id: str) -> dict[str, Any]:
        """One operator: type, vertex, parallelism, which states it has and their kind, its state files' bytes."""
        found = self._restore.old_vertex(node_id)
        vertex_id, vertex = found if found is not None else (None, {})
        parallelism = int(vertex.get("parallelism") or 0)
        handles = [self._handle(vertex_id, index) for index in range(parallelism)] if vertex_id else []
        described = [((handle or {}).get("operators") or {}).get(node_id) or {} for handle in handles]
        list_states: dict[str, int] = {}
        for entry in described:
            for name, count in (entry.get("operator_state") or {}).items():
                list_states[name] = list_states.get(name, 0) + int(count)
        node = self._nodes.get(node_id, {})
        keyed = any(entry.get("key_groups") for entry in described)
        result = {
            "node": node_id, "type": node.get("type"), "vertex": vertex_id, "parallelism": parallelism,
            "max_parallelism": vertex.get("max_parallelism"), "finished": sorted(vertex.get("finished") or []),
            "keyed": keyed, "list_states": list_states,
            "coordinator": node_id in (self.metadata.get("coordinators") or {}),
            "state_file_bytes": sum(int((handle or {}).get("size") or 0) for handle in handles),
        }
        kinds = []
        if keyed:
            kinds.append(keyed_layout(node.get("type"), self._first_key_states(node_id)).kind)
        if list_states:
            kinds.append(operator_state_kind(node.get("type"), sorted(list_states)))
        if result["coordinator"]:
            kinds.append("unassigned splits (split enumerator)")
        result["kind"] = "; ".join(kinds) or "empty"
        return result

    def _first_key_states(self, node_id: str) -> dict[str, Any]:
        """``{state name: value}`` of some key of each state: a sample that tells value, map and list apart."""
        for states in self.keyed_state(node_id).values():
            return {name: next(iter(entries.values())) for name, entries in states.items() if entries}
        return {}

    def _handle(self, vertex_id: str, index: int) -> dict | None:
        return (self.metadata.get("tasks") or {}).get(f"{vertex_id}#{index}")

    # -- the state itself -------------------------------------------------------------------
    def keyed_state(self, node_id: str) -> dict[int, dict[str, dict]]:
        """``{key group: {state name: {key: value}}}`` of every key group (cached by the restore reader)."""
        found = self._restore.old_vertex(node_id)
        if found is None:
            return {}
        max_parallelism = int(found[1].get("max_parallelism") or 32768)
        return self._restore.keyed_state(node_id, KeyGroupRange(0, max_parallelism - 1))

    def list_state(self, node_id: str) -> list[dict[str, list]]:
        """``{state name: [elements]}`` of each old subtask, as that subtask wrote it."""
        return self._restore.written_operator_state(node_id)

    def row_batches(self, node_id: str) -> Iterator[Rows]:
        """Every row of the operator's state (see the module docstring), a key group (or a list state) at a
        time, keyed rows first."""
        node = self._nodes.get(node_id, {})
        params = node.get("params") or {}
        found = self._restore.old_vertex(node_id)
        vertex = found[1] if found else {}
        parallelism = int(vertex.get("parallelism") or 1)
        max_parallelism = int(vertex.get("max_parallelism") or 1)
        layout = keyed_layout(node.get("type"), self._first_key_states(node_id))
        for group, states in sorted(self.keyed_state(node_id).items()):
            subtask = subtask_for_key_group(max_parallelism, parallelism, group)
            if len(states) == 1 and layout.shows_states_as_they_are and "ttl_latest" not in states:
                (name, entries), = states.items()  # the common case, written without a dict per key
                prefix = "{" + to_json(name) + ":"
                keys = json_texts(entries)
                rendered = [prefix + text + "}" for text in json_texts(entries.values())]
            else:
                per_key: dict[Any, dict[str, Any]] = {}
                for name, entries in states.items():
                    for key, value in entries.items():
                        per_key.setdefault(key, {})[name] = value
                keys = json_texts(per_key)
                rendered = [to_json(layout.render(key_states, params)) for key_states in per_key.values()]
            yield Rows(keys, [group] * len(keys), [subtask] * len(keys), rendered)
        for subtask, lists in enumerate(self.list_state(node_id)):
            for name, elements in sorted(lists.items()):
                if name.startswith(BROADCAST_PREFIX) and subtask > 0:
                    continue  # every subtask holds the same broadcast elements: shown once
                yield Rows([to_json([name, subtask, position]) for position in range(len(elements))],
                           [NO_KEY_GROUP] * len(elements), [subtask] * len(elements), list(map(to_json, elements)))
        coordinators = self.metadata.get("coordinators") or {}
        if node_id in coordinators:
            yield Rows([to_json(["enumerator"])], [NO_KEY_GROUP], [-1], [to_json(coordinators[node_id])])
