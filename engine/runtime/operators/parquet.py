"""``source.parquet`` and ``sink.parquet``: columnar files through pyarrow.

Source
    Like ``source.file``: the path is a file, a directory (every file below it, hidden
    ``.``/``_`` files excepted) or a glob; files are dealt to the subtasks round robin, each
    a split ``{"path", "row"}`` in operator list state, ``row`` being the rows emitted so far.
    A restore skips the row groups before that row and slices the rest. Rows become dicts
    (``RecordBatch.to_pylist``, in C); ``columns`` reads only some columns. Directories named
    ``field=value`` between the path and a file (Hive-style partitions, as the sink writes
    them) add ``field: "value"`` to its records.

Sink
    Two-phase commit (``two_phase_commit``, names from ``file_transactions``): a transaction
    is one hidden file per partition value, closed and marked pending at the checkpoint's
    snapshot, renamed into view when it completes. Dict records are rows (anything else
    becomes ``{"value": x}``); the schema is the first batch's, later batches are cast to it.
    Rows collect in memory up to ``row_group_size`` before a row group is written, so a file
    does not become many tiny row groups. ``partition_by`` names a field: its rows go below
    ``<field>=<value>/`` and the field is left out of the file (the directory holds it).
"""
from __future__ import annotations

import posixpath
from urllib.parse import quote, unquote

import fsspec

from engine.runtime.operators.base import ConfigurationError
from engine.runtime.operators.file_source import file_splits
from engine.runtime.operators.file_transactions import FileTransactionSink
from engine.runtime.operators.source import END_OF_INPUT, SourceOperator

NULL_PARTITION = "__HIVE_DEFAULT_PARTITION__"


def partition_fields(root: str, path: str) -> dict[str, str]:
    """``{"field": "value"}`` of the ``field=value`` directories between ``root`` and ``path``."""
    relative = posixpath.relpath(posixpath.dirname(path), root.rstrip("/")) if root else ""
    fields = {}
    for part in relative.split("/"):
        name, equals, value = part.partition("=")
        if equals and name:
            fields[unquote(name)] = None if value == NULL_PARTITION else unquote(value)
    return fields


class ParquetSource(SourceOperator):
    """Reads its files' rows as dicts, ``batch_size`` rows per poll."""

    def __init__(self, node, context):
        super().__init__(node, context)
        self.path = self.params["path"]
        self.columns = list(self.params.get("columns") or []) or None
        self.splits: list[dict] = []
        self._state = None
        self._reader = None  # (path, iterator of record batches, fields of the partition directories, file)

    def initialize_state(self):
        self.splits = file_splits(self, lambda path: {"path": path, "row": 0})

    def poll_next(self):
        while self.splits:
            split = self.splits[0]
            reader = self._reader_of(split)
            batch = next(reader[1], None)
            if batch is not None and batch.num_rows:
                records = batch.to_pylist()
                split["row"] += len(records)
                if reader[2]:
                    extra = reader[2]
                    records = [{**record, **extra} for record in records]
                return records
            if batch is None:
                self._close_reader()
                self.splits.pop(0)
        return END_OF_INPUT

    def _reader_of(self, split: dict):
        if self._reader is not None and self._reader[0] == split["path"]:
            return self._reader
        import pyarrow.parquet as pq

        self._close_reader()
        handle = fsspec.open(split["path"], "rb").open()
        try:
            parquet = pq.ParquetFile(handle)
        except Exception as error:
            handle.close()
            raise ConfigurationError(self.node, f"cannot read {split['path']} as Parquet: {error}") from None
        skip, groups = split["row"], []
        for index in range(parquet.num_row_groups):
            rows = parquet.metadata.row_group(index).num_rows
            if skip >= rows:
                skip -= rows
            else:
                groups.append(index)
        batches = parquet.iter_batches(batch_size=self.batch_size, row_groups=groups, columns=self.columns)
        if skip:
            batches = _skipping(batches, skip)
        self._reader = (split["path"], batches, partition_fields(self._root(), split["path"]), handle)
        return self._reader

    def _close_reader(self) -> None:
        if self._reader is not None:
            self._reader[3].close()
            self._reader = None

    def close(self):
        self._close_reader()

    def _root(self) -> str:
        """Where partition directories start: the path, the part before a glob, or a file's folder."""
        fs, root = fsspec.core.url_to_fs(self.path)
        if any(ch in root for ch in "*?["):
            return posixpath.dirname(root.split("*", 1)[0].split("?", 1)[0].split("[", 1)[0])
        return root if fs.isdir(root) else posixpath.dirname(root)

    def snapshot_state(self, checkpoint_id):
        self._state.update(dict(split) for split in self.splits)


def _skipping(batches, rows: int):
    for batch in batches:
        if rows >= batch.num_rows:
            rows -= batch.num_rows
            continue
        yield batch.slice(rows)
        rows = 0


class ParquetSink(FileTransactionSink):
    """Writes rows into Parquet files committed when their checkpoint completes."""

    prefix_label = "p"
    extension = ".parquet"

    def __init__(self, node, context):
        super().__init__(node, context)
        self.partition_by = self.params.get("partition_by") or None
        self.row_group_size = int(self.params.get("row_group_size", 65536))
        self.schema = None

    def begin_transaction(self):
        return {"parts": {}, "records": 0}  # partition directory -> {"rows", "writer", ...}

    def write(self, transaction, batch):
        rows = [record if isinstance(record, dict) else {"value": record} for record in batch]
        if self.partition_by is None:
            self._add(transaction, self.root, rows)
        else:
            field = self.partition_by
            groups: dict = {}
            for row in rows:
                groups.setdefault(row.get(field), []).append(row)
            for value, group in groups.items():
                directory = f"{self.root}/{quote(field, safe='')}=" + (
                    NULL_PARTITION if value is None else quote(str(value), safe=""))
                self._add(transaction, directory, [{k: v for k, v in row.items() if k != field} for row in group])
        transaction["records"] += len(rows)

    def _add(self, transaction, directory: str, rows: list) -> None:
        part = transaction["parts"].setdefault(directory, {"rows": [], "writer": None})
        part["rows"].extend(rows)
        if len(part["rows"]) >= self.row_group_size:
            self._flush(part, directory)

    def _flush(self, part: dict, directory: str) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        rows, part["rows"] = part["rows"], []
        if not rows:
            return
        try:
            table = pa.Table.from_pylist(rows, schema=self.schema)
        except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError) as error:
            raise ConfigurationError(self.node, f"a record does not fit the Parquet schema {self.schema}: {error}"
                                     ) from None
        if self.schema is None:
            self.schema = table.schema
        if part["writer"] is None:
            self.fs.makedirs(directory, exist_ok=True)
            part["in_progress"], part["final"] = self.files.new_file(directory)
            part["file"] = self.fs.open(part["in_progress"], "wb")
            part["writer"] = pq.ParquetWriter(part["file"], self.schema)
        part["writer"].write_table(table)

    def pre_commit(self, transaction, checkpoint_id):
        files = []
        for directory, part in transaction["parts"].items():
            self._flush(part, directory)
            if part["writer"] is None:
                continue
            part["writer"].close()
            part["file"].close()
            files.append([self.files.mark_pending(part["in_progress"], checkpoint_id), part["final"]])
        return {"files": files, "records": transaction["records"]}

    def commit(self, committable):
        for pending, final in committable["files"]:
            self.files.commit(pending, final)

    def abort(self, transaction):
        for part in transaction["parts"].values():
            if part["writer"] is not None:
                try:
                    part["writer"].close()
                    part["file"].close()
                finally:
                    self.files.remove(part["in_progress"])
