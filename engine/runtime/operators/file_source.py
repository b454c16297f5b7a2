"""``source.file``: JSON-lines or CSV files below a path, one split per file, offsets in state.

The path may be a file, a directory (every file below it, hidden ``.``/``_`` files
excepted) or a glob, on any fsspec filesystem. Files are sorted and dealt to the
subtasks round robin; each file is one split ``{"path", "offset", "header"}`` in operator
list state, where ``offset`` is the byte position after the last line emitted. A restore
seeks every split to its offset, so each line is emitted exactly once per checkpointed
run; after a rescale the splits are dealt out again.

Records: a JSON-lines file gives the parsed value of each non-empty line; a CSV file gives
one dict per row, keyed by the header row, values as strings. Rows are lines, so a CSV
value with an embedded line break is not supported.
"""
from __future__ import annotations

import csv
import io

import fsspec

from engine.runtime.io.line_blocks import LineBlockReader, decode_json_lines, text_lines
from engine.runtime.operators.base import ConfigurationError
from engine.runtime.operators.source import END_OF_INPUT, SourceOperator

_GLOB_CHARACTERS = set("*?[")


def file_splits(source, fresh_split) -> list[dict]:
    """A file source's splits: restored ones, or (first start) ``fresh_split(path)`` of its share
    of the files, dealt round robin. Also binds ``source._state`` to the ``splits`` list state."""
    source._state = source.context.operator_state().list_state("splits")
    if source.context.is_restored:
        return [dict(split) for split in source._state.get()]
    files = files_of_node(source.node, source.path)
    return [fresh_split(path) for path in files[source.context.subtask_index::source.context.parallelism]]


def files_of_node(node: dict, path: str) -> list[str]:
    """``list_files``, but a path that matches nothing (or cannot be read) fails naming the node:
    a source over a wrong path must not look like an empty input."""
    try:
        files = list_files(path)
    except (OSError, ValueError, ImportError) as error:
        raise ConfigurationError(node, f"cannot list {path}: {error}") from None
    if not files:
        raise ConfigurationError(node, f"no file matches {path}")
    return files


def list_files(path: str) -> list[str]:
    """The files a path names, sorted, as URLs/paths usable with ``fsspec.open``."""
    fs, root = fsspec.core.url_to_fs(path)
    protocol = fs.protocol if isinstance(fs.protocol, str) else fs.protocol[0]
    if _GLOB_CHARACTERS & set(root):
        found = fs.glob(root)
    elif fs.isdir(root):
        found = fs.find(root)
    else:
        found = [root] if fs.exists(root) else []
    found = [f for f in found if not f.rsplit("/", 1)[-1].startswith((".", "_")) and not fs.isdir(f)]
    prefix = "" if protocol in ("file", "local") else f"{protocol}://"
    return sorted(prefix + f if prefix and not f.startswith(prefix) else f for f in found)


class FileSource(SourceOperator):
    """Reads lines from its splits in turn, ``batch_size`` lines per poll, in blocks
    (``engine.runtime.io.line_blocks``): one read and one decode per poll, not per line."""

    def __init__(self, node, context):
        super().__init__(node, context)
        self.path = self.params["path"]
        self.format = self.params.get("format", "jsonl")
        if self.format not in ("jsonl", "csv"):
            raise ValueError(f"unknown file format '{self.format}'")
        self.splits: list[dict] = []
        self._state = None
        self._handle = None
        self._reader: LineBlockReader | None = None
        self._reader_path = None

    def initialize_state(self):
        self.splits = file_splits(self, lambda path: {"path": path, "offset": 0, "header": None})

    def poll_next(self):
        while self.splits:
            split = self.splits[0]
            records = self._read_records(split, self.batch_size)
            if records:
                return records
            if records is None:  # the split's file ended
                self._close_reader()
                self.splits.pop(0)
        return END_OF_INPUT

    def _read_records(self, split: dict, count: int) -> list | None:
        """The records of up to ``count`` further lines of the split (blank ones skipped, so
        possibly none), or None at its end; the split's offset moves past those lines."""
        reader = self._reader_of(split)
        if self.format == "csv" and split["header"] is None:
            block, split["offset"] = reader.read(1)
            if not block:
                return None
            split["header"] = next(csv.reader([block.decode("utf-8").rstrip("\r\n")]), [])
            return []
        block, split["offset"] = reader.read(count)
        if not block:
            return None
        if self.format == "jsonl":
            return decode_json_lines(block, reader.block_lines)
        header = split["header"]
        return [dict(zip(header, row)) for row in csv.reader(io.StringIO("\n".join(text_lines(block))))]

    def _reader_of(self, split: dict) -> LineBlockReader:
        if self._reader_path != split["path"]:
            self._close_reader()
            self._handle = fsspec.open(split["path"], "rb").open()
            self._handle.seek(split["offset"])
            self._reader = LineBlockReader(self._handle, split["offset"])
            self._reader_path = split["path"]
        return self._reader

    def snapshot_state(self, checkpoint_id):
        self._state.update(dict(split) for split in self.splits)

    def _close_reader(self):
        if self._handle is not None:
            self._handle.close()
        self._handle = None
        self._reader = None
        self._reader_path = None

    def close(self):
        self._close_reader()
