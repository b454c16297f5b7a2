"""An operator's state of one snapshot as a sorted columnar file: pages, searches and diffs without re-reading.

Reading a state file means loading every key of its subtask (one pickle per subtask), so
a page of a million-key state read from the snapshot costs seconds each time. The first
read of an operator therefore writes its rows (``reader.Rows``) once into an Arrow IPC file,
sorted by key (numbers by value, then the rest by their JSON text), and every later page,
search, key lookup, size count, diff and export reads that file, memory-mapped: a page is
a slice.

Columns: ``key`` and ``state`` (canonical JSON), ``key_group``, ``subtask``, ``bytes`` (of
the state's JSON: the size the browser reports per operator and key group) and
``number`` (the key when it is a number, for the order).

The file lives in a cache directory the caller owns, named after the digest of the
snapshot's verified metadata (which holds every state file's SHA-256) and the node: a
snapshot that changed is a new name, never a stale answer. A file is written under a
temporary name and renamed, so a reader never sees half of one.
"""
from __future__ import annotations

import hashlib
import os
import uuid
from pathlib import Path
from typing import Any, Callable, Iterator

import msgspec
import pyarrow as pa
import pyarrow.compute as pc

from engine.checkpoint.signing import canonical
from engine.snapshots.reader import SnapshotReader

SCHEMA = pa.schema([("key", pa.string()), ("key_group", pa.int32()), ("subtask", pa.int32()),
                    ("state", pa.large_string()), ("bytes", pa.int64()), ("number", pa.float64())])
BUILD_BATCH = 65_536
KEY_ORDER = [("number", "ascending", "at_end"), ("key", "ascending", "at_end")]
"""Rows in key order: numeric keys by value first, then every other key by its JSON text."""
_decode = msgspec.json.decode
_JSON_NUMBER = r"^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?$"


def snapshot_digest(metadata: dict) -> str:
    """What names a snapshot's cached files: the SHA-256 of its metadata as signed (state files' digests in it)."""
    return hashlib.sha256(canonical(metadata)).hexdigest()


def index_path(cache_dir: str | os.PathLike, metadata: dict, node_id: str) -> Path:
    node = hashlib.sha256(node_id.encode("utf-8", "surrogatepass")).hexdigest()[:32]
    return Path(cache_dir) / snapshot_digest(metadata)[:40] / f"{node}.arrow"


class StateIndex:
    """The sorted rows of one operator's state in one snapshot (see the module docstring)."""

    def __init__(self, table: pa.Table):
        self.table = table

    # -- building and opening -----------------------------------------------------------------
    @classmethod
    def of(cls, metadata: dict, node_id: str, cache_dir: str | os.PathLike, definition: dict | None = None,
           reader: SnapshotReader | None = None) -> "StateIndex":
        """The index of ``node_id`` in the (verified) snapshot ``metadata``, built on first use."""
        path = index_path(cache_dir, metadata, node_id)
        if not path.exists():
            reader = reader or SnapshotReader(metadata, definition)
            cls.write(reader.row_batches(node_id), path)
        return cls.open(path)

    @staticmethod
    def write(batches, path: Path) -> None:
        """Sort the rows of ``batches`` (``reader.Rows``) by key and write them to ``path`` (atomically)."""
        keys, groups, subtasks, states = [], [], [], []
        for rows in batches:
            keys += rows.keys
            groups += rows.key_groups
            subtasks += rows.subtasks
            states += rows.states
        key_column = pa.array(keys, pa.string())
        state_column = pa.array(states, pa.large_string())
        table = pa.table({"key": key_column, "key_group": pa.array(groups, pa.int32()),
                          "subtask": pa.array(subtasks, pa.int32()), "state": state_column,
                          "bytes": pc.cast(pc.binary_length(state_column), pa.int64()),
                          "number": _numbers(key_column)}, schema=SCHEMA)
        if table.num_rows:
            table = table.take(pc.sort_indices(table, KEY_ORDER))
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(f".{path.name}.{uuid.uuid4().hex[:8]}")
        with pa.OSFile(str(temporary), "wb") as sink, pa.ipc.new_file(sink, SCHEMA) as writer:
            writer.write_table(table, max_chunksize=BUILD_BATCH)
        os.replace(temporary, path)

    @classmethod
    def empty(cls) -> "StateIndex":
        """No rows: the side of a diff whose snapshot lacks the operator."""
        return cls(SCHEMA.empty_table())

    @classmethod
    def open(cls, path: str | os.PathLike) -> "StateIndex":
        return cls(pa.ipc.open_file(pa.memory_map(str(path), "r")).read_all())

    # -- reading ------------------------------------------------------------------------------
    def __len__(self) -> int:
        return self.table.num_rows

    def page(self, offset: int = 0, limit: int = 50, *, search: str | None = None,
             matches: Callable[[Any, Any], Any] | None = None) -> dict:
        """``{"total", "offset", "rows"}``: rows ``offset..offset+limit`` of those whose key or state JSON holds
        ``search`` (case-insensitive) and for which ``matches(key, state)`` is true (both when given)."""
        table = self.select(search=search, matches=matches)
        offset = max(0, offset)
        return {"total": table.num_rows, "offset": offset, "rows": rows_of(table.slice(offset, max(0, limit)))}

    def select(self, *, search: str | None = None, matches: Callable[[Any, Any], Any] | None = None) -> pa.Table:
        """The rows kept by ``search`` and ``matches`` (see :meth:`page`), in key order."""
        table = self.table
        if search:
            table = table.filter(pc.or_(pc.match_substring(table["key"], search, ignore_case=True),
                                        pc.match_substring(table["state"], search, ignore_case=True)))
        if matches is not None and table.num_rows:
            table = table.filter(pa.array(list(_evaluate(matches, table)), pa.bool_()))
        return table

    def get(self, key: str) -> dict | None:
        """The row of ``key`` (its canonical JSON), or None."""
        found = self.table.filter(pc.equal(self.table["key"], key))
        rows = rows_of(found.slice(0, 1))
        return rows[0] if rows else None

    def sizes(self) -> dict:
        """``{"rows", "bytes", "key_groups": [{"key_group", "rows", "bytes"}]}`` (list state rows under key group -1)."""
        table = self.table
        grouped = table.group_by("key_group").aggregate([("key", "count"), ("bytes", "sum")]).sort_by("key_group")
        groups = [{"key_group": group, "rows": count, "bytes": size}
                  for group, count, size in zip(grouped["key_group"].to_pylist(), grouped["key_count"].to_pylist(),
                                                grouped["bytes_sum"].to_pylist())]
        total = pc.sum(table["bytes"]).as_py() if table.num_rows else 0
        return {"rows": table.num_rows, "bytes": total or 0, "key_groups": groups}

    # -- export -------------------------------------------------------------------------------
    def export(self, path: str | os.PathLike, fmt: str) -> int:
        """Write every row to ``path`` as ``jsonl`` (``{"key", "key_group", "subtask", "state"}`` a line, key
        and state as JSON values) or ``parquet`` (key and state as JSON text); return the rows written."""
        if fmt == "parquet":
            import pyarrow.parquet as pq

            pq.write_table(self.table.select(["key", "key_group", "subtask", "state", "bytes"]), str(path))
            return self.table.num_rows
        if fmt != "jsonl":
            raise ValueError(f"unknown export format {fmt!r}: jsonl or parquet")
        with open(path, "wb") as out:
            for batch in self.table.to_batches(max_chunksize=BUILD_BATCH):
                columns = batch.to_pydict()
                out.write("".join(
                    f'{{"key":{key},"key_group":{group},"subtask":{subtask},"state":{state}}}\n'
                    for key, group, subtask, state in zip(columns["key"], columns["key_group"], columns["subtask"],
                                                          columns["state"])).encode("utf-8", "surrogatepass"))
        return self.table.num_rows


def rows_of(table: pa.Table) -> list[dict]:
    """Rows as ``{"key", "key_group", "subtask", "state", "bytes"}``, key and state decoded from their JSON."""
    columns = table.select(["key", "key_group", "subtask", "state", "bytes"]).to_pydict()
    return [{"key": _decode(key), "key_json": key, "key_group": group, "subtask": subtask, "state": _decode(state),
             "bytes": size}
            for key, group, subtask, state, size in zip(columns["key"], columns["key_group"], columns["subtask"],
                                                       columns["state"], columns["bytes"])]


def _evaluate(matches: Callable[[Any, Any], Any], table: pa.Table) -> Iterator[bool]:
    """``matches(key, state)`` of every row; a row it raises on (a missing field ...) does not match."""
    for batch in table.select(["key", "state"]).to_batches(max_chunksize=BUILD_BATCH):
        columns = batch.to_pydict()
        for key, state in zip(columns["key"], columns["state"]):
            try:
                yield bool(matches(_decode(key), _decode(state)))
            except Exception:  # noqa: BLE001 - a user's expression failing on one row rejects that row only
                yield False


def _numbers(keys: pa.Array) -> pa.Array:
    """The numeric value of each key's JSON text, null where the key is not a number."""
    numeric = pc.match_substring_regex(keys, _JSON_NUMBER)
    return pc.cast(pc.if_else(numeric, keys, pa.scalar(None, pa.string())), pa.float64())
