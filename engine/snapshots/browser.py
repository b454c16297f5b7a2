"""The state browser's questions about one snapshot, answered as JSON-ready data.

    browser = SnapshotBrowser(metadata, definition, cache_dir)   # metadata: loaded and verified
    browser.overview()                       # every operator: kind of state, parallelism, rows, bytes
    browser.keys("sum", offset=0, limit=50, search="user-7", key_expression='key > 10')
    browser.key("sum", '"user-7"')           # one key's full state (its canonical JSON as the key)
    browser.sizes("sum")                      # rows and bytes per key group
    browser.diff(other, "sum", change="changed")   # keys added, removed, changed since ``other``
    browser.export("sum", "jsonl", path)      # every row, JSON lines or Parquet

The snapshot is read, never restored into a job (``reader``); each operator's rows are
indexed once into the cache directory (``index``). Key expressions are the definition's
expression language over the names ``key`` and ``state`` (the rendered state, as shown).
"""
from __future__ import annotations

import os

from engine.snapshots.diff import diff_states
from engine.snapshots.index import StateIndex
from engine.snapshots.reader import SnapshotReader
from engine.spec.expressions import compile_expression

MAX_PAGE = 1000
KEY_EXPRESSION_NAMES = ("key", "state")


class UnknownOperator(LookupError):
    """The snapshot holds no state of the operator asked about."""


class SnapshotBrowser:
    """Answers about one verified snapshot (see the module docstring).

    Threading model: one thread; holds its reader and the indexes it opened."""

    def __init__(self, metadata: dict, definition: dict | None, cache_dir: str | os.PathLike):
        self.metadata = metadata
        self.definition = definition
        self.cache_dir = cache_dir
        self._reader = SnapshotReader(metadata, definition)
        self._indexes: dict[str, StateIndex] = {}

    def overview(self) -> dict:
        """``{"checkpoint_id", "kind", "completed_timestamp", "operators": [...]}``, each operator described
        (``SnapshotReader.describe``) with its ``rows`` and ``bytes``."""
        operators = []
        for node_id in self._reader.node_ids():
            described = self._reader.describe(node_id)
            sizes = self.index(node_id).sizes()
            described.update(rows=sizes["rows"], bytes=sizes["bytes"])
            operators.append(described)
        return {"checkpoint_id": self._reader.checkpoint_id, "kind": self._reader.kind,
                "completed_timestamp": self.metadata.get("completed_timestamp"), "operators": operators}

    def index(self, node_id: str) -> StateIndex:
        if node_id not in self._indexes:
            if node_id not in self._reader.node_ids():
                raise UnknownOperator(f"the snapshot holds no state of operator {node_id!r}")
            self._indexes[node_id] = StateIndex.of(self.metadata, node_id, self.cache_dir, self.definition,
                                                   self._reader)
        return self._indexes[node_id]

    def keys(self, node_id: str, *, offset: int = 0, limit: int = 50, search: str | None = None,
             key_expression: str | None = None) -> dict:
        """A page of the operator's rows in key order, filtered by ``search`` (text in the key or state) and
        ``key_expression`` (true for the row); ValueError for an expression that is not allowed."""
        matches = compile_expression(key_expression, KEY_EXPRESSION_NAMES).function if key_expression else None
        page = self.index(node_id).page(offset, min(max(limit, 0), MAX_PAGE), search=search, matches=matches)
        return {"node": node_id, **page}

    def key(self, node_id: str, key_json: str) -> dict | None:
        """One row by its key's canonical JSON (as ``keys`` returns it in ``key_json``), or None."""
        return self.index(node_id).get(key_json)

    def sizes(self, node_id: str) -> dict:
        return {"node": node_id, **self.index(node_id).sizes()}

    def diff(self, earlier: "SnapshotBrowser", node_id: str, *, change: str | None = None, offset: int = 0,
             limit: int = 50) -> dict:
        """What changed in ``node_id``'s state from ``earlier`` to this snapshot (``diff.diff_states``); an operator
        only one of them has counts as empty in the other."""
        before = earlier.index(node_id) if node_id in earlier._reader.node_ids() else StateIndex.empty()
        after = self.index(node_id) if node_id in self._reader.node_ids() else StateIndex.empty()
        result = diff_states(before, after, change, offset, min(max(limit, 0), MAX_PAGE))
        return {"node": node_id, "before": earlier._reader.checkpoint_id, "after": self._reader.checkpoint_id,
                **result}

    def export(self, node_id: str, fmt: str, path: str | os.PathLike) -> int:
        """Write the operator's rows to ``path`` as ``jsonl`` or ``parquet``; the number of rows."""
        return self.index(node_id).export(path, fmt)
