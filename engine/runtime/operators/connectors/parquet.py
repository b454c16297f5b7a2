"""``source.parquet`` and ``sink.parquet``: columnar files through pyarrow.

Source
    Like ``source.file``: the path is a file, a directory (every file below it, hidden
    ``.``/``_`` files excepted) or a glob. The files' row groups are cut into splits of about
    ``split_bytes`` (by the row groups' sizes in the files' footers), which the node's split
    enumerator hands out on request as ``source.file``'s are (``file_splits``): so one big
    file is read by every subtask, and faster subtasks read more. A split ``{"path", "start",
    "end", "row"}`` is the row groups ``[start, end)`` of a file (``end`` None: to the last)
    and ``row`` the rows emitted from them so far, in operator list state; a restore skips
    the row groups before that row and slices the rest. Checkpoints from before splits
    (``{"path", "row"}``: a whole file) restore as whole-file splits. Rows become dicts
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
import re
from urllib.parse import quote, unquote

import fsspec

from engine.runtime.operators.base import ConfigurationError
from engine.runtime.operators.connectors.file_listing import SourceFiles
from engine.runtime.operators.connectors.file_source import SplitReadingSource, split_name
from engine.runtime.operators.connectors.file_splits import PROBE_MAX_SPLITS, FileSplitEnumerator
from engine.runtime.operators.connectors.file_transactions import FileTransactionSink
from engine.runtime.operators.restored_state import is_offset, is_optional_offset
from engine.runtime.operators.source_lag import split_lag

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


def cut_row_groups(files: list[tuple[str, list[int]]], split_bytes: int) -> list[dict]:
    """Splits of consecutive row groups of about ``split_bytes`` each (at least one group),
    covering every ``(path, [bytes of each row group])``; none for a file without rows."""
    splits = []
    for path, group_bytes in files:
        start, gathered = 0, 0
        for index, size in enumerate(group_bytes):
            gathered += size
            if gathered >= split_bytes or index == len(group_bytes) - 1:
                splits.append({"path": path, "start": start, "end": index + 1})
                start, gathered = index + 1, 0
    return splits


def open_parquet(files: SourceFiles, path: str):
    """``(handle, ParquetFile)`` of one of a source's files (opened through its checks), or a
    ConfigurationError naming the node and the file."""
    import pyarrow.parquet as pq

    handle = files.open(path)
    try:
        return handle, pq.ParquetFile(handle)
    except Exception as error:
        handle.close()
        raise ConfigurationError(files.node, f"cannot read {path} as Parquet: {error}") from None


class ParquetSplitEnumerator(FileSplitEnumerator):
    """``FileSplitEnumerator`` over row groups: each file's footer says their sizes."""

    def _list_splits(self) -> list[dict]:
        files = []
        for path in self.files.list():
            handle, parquet = open_parquet(self.files, path)
            with handle:
                metadata = parquet.metadata
                files.append((path, [metadata.row_group(index).total_byte_size
                                     for index in range(metadata.num_row_groups)]))
        return cut_row_groups(files, self.split_size(sum(sum(sizes) for _, sizes in files)))

    @staticmethod
    def unassigned_bytes(splits: list[dict]) -> int | None:
        """Unknown: a split's range is row groups, and their sizes are not kept."""
        return None

    def bounded_in_time(self, splits: list[dict], first_times: dict[tuple, int]) -> list[dict]:
        """As they are: a row group is the least a split holds."""
        return splits

    def probe_first_times(self, splits: list[dict]) -> dict[tuple, int]:
        """Each split's first event time from the footer: the least value of the timestamp's column in
        its first row group (Parquet statistics; no rows read). Only for an expression that is a
        column (``x["ts"]``) of integers with statistics in every split's first row group; else ``{}``."""
        column = column_of(self.timestamp)
        if column is None or not splits or len(splits) > PROBE_MAX_SPLITS:
            return {}
        times, metadata, open_path = {}, None, None
        try:
            for split in splits:
                if split["path"] != open_path:
                    handle, parquet = open_parquet(self.files, split["path"])
                    with handle:
                        metadata, open_path = parquet.metadata, split["path"]
                first = least_of_column(metadata, split["start"], column)
                if first is None:
                    return {}
                times[split["path"], split["start"]] = first
        except (OSError, ConfigurationError):  # the reader meets it too, and fails naming the node
            return {}
        return times


_COLUMN = re.compile(r"""\s*x\s*\[\s*(?:"([^"\\]+)"|'([^'\\]+)')\s*\]\s*""")


def column_of(expression: str | None) -> str | None:
    """The column an expression is, ``x["name"]``; None for anything else.

    >>> column_of('x["ts"]'), column_of("x['ts'] + 1"), column_of(None)
    ('ts', None, None)
    """
    found = _COLUMN.fullmatch(expression or "")
    return None if found is None else found.group(1) or found.group(2)


def least_of_column(metadata, row_group: int, column: str) -> int | None:
    """The least value of top-level ``column`` in a row group by its statistics, when an integer."""
    if row_group >= metadata.num_row_groups:
        return None
    group = metadata.row_group(row_group)
    for index in range(group.num_columns):
        chunk = group.column(index)
        if chunk.path_in_schema != column:
            continue
        statistics = chunk.statistics
        if statistics is None or not statistics.has_min_max:
            return None
        least = statistics.min
        return least if isinstance(least, int) and not isinstance(least, bool) else None
    return None


class ParquetSource(SplitReadingSource):
    """Reads its splits' rows as dicts, ``batch_size`` rows per poll."""

    coordinator = ParquetSplitEnumerator

    def __init__(self, node, context):
        super().__init__(node, context)
        self.columns = list(self.params.get("columns") or []) or None
        self._file = None  # (path, handle, ParquetFile, fields of the partition directories)
        self._batches = None  # the record batches of splits[0], from its row on

    @staticmethod
    def whole_file_split(path: str) -> dict:
        return {"path": path, "start": 0, "end": None, "row": 0}

    @staticmethod
    def assigned_split(split: dict) -> dict:
        return dict(split, row=0)

    def check_restored_split(self, split: dict) -> bool:
        return is_offset(split["start"]) and is_optional_offset(split["end"]) and is_offset(split["row"])

    def _split_lag(self, split: dict) -> dict:
        """Rows left, from the footer of the file being read (a split of another file: not opened yet, None)."""
        rows = None
        if self._file is not None and self._file[0] == split["path"]:
            metadata = self._file[2].metadata
            end = metadata.num_row_groups if split["end"] is None else split["end"]
            rows = sum(metadata.row_group(index).num_rows for index in range(split["start"], end)) - split["row"]
        return split_lag(split_name(split), records_behind=rows)

    def _read_records(self, split: dict, count: int) -> list | None:
        if self._batches is None:
            self._batches = self._batches_of(split)
        batch = next(self._batches, None)
        if batch is None:
            return None
        records = batch.to_pylist()
        split["row"] += len(records)
        extra = self._file[3]
        if extra:
            records = [{**record, **extra} for record in records]
        return records

    def _batches_of(self, split: dict):
        if self._file is None or self._file[0] != split["path"]:
            self._close_file()
            handle, parquet = open_parquet(self.files, split["path"])
            self._file = (split["path"], handle, parquet, partition_fields(self._root(), split["path"]))
        parquet = self._file[2]
        end = parquet.num_row_groups if split["end"] is None else split["end"]
        if not split["start"] <= end <= parquet.num_row_groups:
            raise ConfigurationError(self.node, f"{split['path']} has {parquet.num_row_groups} row groups, not the "
                                                f"groups {split['start']} to {end} of its split")
        skip, groups = split["row"], []
        for index in range(split["start"], end):
            rows = parquet.metadata.row_group(index).num_rows
            if skip >= rows:
                skip -= rows
            else:
                groups.append(index)
        batches = parquet.iter_batches(batch_size=self.batch_size, row_groups=groups, columns=self.columns)
        return _skipping(batches, skip) if skip else batches

    def _split_done(self, split: dict) -> None:
        self._batches = None
        if not self.splits or self.splits[0]["path"] != split["path"]:
            self._close_file()

    def _close_file(self) -> None:
        self._batches = None
        if self._file is not None:
            self._file[1].close()
            self._file = None

    def close(self):
        self._close_file()

    def _root(self) -> str:
        """Where partition directories start: the path, the part before a glob, or a file's folder."""
        fs, root = fsspec.core.url_to_fs(self.path)
        if any(ch in root for ch in "*?["):
            return posixpath.dirname(root.split("*", 1)[0].split("?", 1)[0].split("[", 1)[0])
        return root if fs.isdir(root) else posixpath.dirname(root)


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
        return {"parts": {}, "records": 0}  # partition directory name (None: none) -> {"rows", "writer", ...}

    def write(self, transaction, batch):
        rows = [record if isinstance(record, dict) else {"value": record} for record in batch]
        if self.partition_by is None:
            self._add(transaction, None, rows)
        else:
            field = self.partition_by
            groups: dict = {}
            for row in rows:
                groups.setdefault(row.get(field), []).append(row)
            for value, group in groups.items():
                partition = f"{quote(field, safe='')}=" + (
                    NULL_PARTITION if value is None else quote(str(value), safe=""))
                self._add(transaction, partition, [{k: v for k, v in row.items() if k != field} for row in group])
        transaction["records"] += len(rows)

    def _add(self, transaction, partition: str | None, rows: list) -> None:
        part = transaction["parts"].setdefault(partition, {"rows": [], "writer": None})
        part["rows"].extend(rows)
        if len(part["rows"]) >= self.row_group_size:
            self._flush(part, partition)

    def _flush(self, part: dict, partition: str | None) -> None:
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
            part["in_progress"], part["final"], part["file"] = self.files.new_file(partition)
            part["writer"] = pq.ParquetWriter(part["file"], self.schema)
        part["writer"].write_table(table)

    def pre_commit(self, transaction, checkpoint_id):
        files = []
        for partition, part in transaction["parts"].items():
            self._flush(part, partition)
            if part["writer"] is None:
                continue
            part["writer"].close()
            part["file"].close()
            files.append([self.files.mark_pending(part["in_progress"], checkpoint_id), part["final"]])
        return {"files": files, "records": transaction["records"]}

    def committed_files(self, committable):
        return [(pending, final) for pending, final in committable["files"]]

    def abort(self, transaction):
        for part in transaction["parts"].values():
            if part["writer"] is not None:
                try:
                    part["writer"].close()
                    part["file"].close()
                finally:
                    self.files.remove(part["in_progress"])
