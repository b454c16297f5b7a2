"""``source.file``: JSON-lines or CSV files below a path, one split per file, offsets in state.

The path may be a file, a directory (every file below it, hidden ``.``/``_`` files
excepted) or a glob, on any fsspec filesystem. Files are sorted and dealt to the
subtasks round robin; each file is one split ``{"path", "offset", "header"}`` in operator
list state, where ``offset`` is the byte position after the last line emitted. A restore
seeks every split to its offset, so each line is emitted exactly once per checkpointed
run; after a rescale the splits are dealt out again.

Records: a JSON-lines file gives the parsed value of each non-empty line; a CSV file gives
one dict per row, keyed by the header row, values as strings. Rows are read line by line,
so a CSV value with an embedded line break is not supported.
"""
from __future__ import annotations

import csv
import io
import json

import fsspec

from engine.runtime.operators.source import END_OF_INPUT, SourceOperator

_GLOB_CHARACTERS = set("*?[")


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
    """Reads lines from its splits in turn, ``batch_size`` lines per poll."""

    def __init__(self, node, context):
        super().__init__(node, context)
        self.path = self.params["path"]
        self.format = self.params.get("format", "jsonl")
        if self.format not in ("jsonl", "csv"):
            raise ValueError(f"unknown file format '{self.format}'")
        self.splits: list[dict] = []
        self._state = None
        self._handle = None
        self._handle_path = None

    def initialize_state(self):
        self._state = self.context.operator_state().list_state("splits")
        if self.context.is_restored:
            self.splits = [dict(split) for split in self._state.get()]
        else:
            files = list_files(self.path)
            mine = files[self.context.subtask_index::self.context.parallelism]
            self.splits = [{"path": path, "offset": 0, "header": None} for path in mine]

    def poll_next(self):
        while self.splits:
            split = self.splits[0]
            lines = self._read_lines(split, self.batch_size)
            if lines:
                return self._records(split, lines)
            self._close_handle()
            self.splits.pop(0)
        return END_OF_INPUT

    def _read_lines(self, split: dict, count: int) -> list[str]:
        if self._handle_path != split["path"]:
            self._close_handle()
            self._handle = fsspec.open(split["path"], "rb").open()
            self._handle.seek(split["offset"])
            self._handle_path = split["path"]
        lines = []
        handle = self._handle
        while len(lines) < count:
            raw = handle.readline()
            if not raw:
                break
            split["offset"] += len(raw)
            text = raw.decode("utf-8").rstrip("\r\n")
            if self.format == "csv" and split["header"] is None:
                split["header"] = next(csv.reader([text]))
                continue
            if text.strip():
                lines.append(text)
        return lines

    def _records(self, split: dict, lines: list[str]) -> list:
        if self.format == "jsonl":
            return [json.loads(line) for line in lines]
        header = split["header"]
        return [dict(zip(header, row)) for row in csv.reader(io.StringIO("\n".join(lines)))]

    def snapshot_state(self, checkpoint_id):
        self._state.update(dict(split) for split in self.splits)

    def _close_handle(self):
        if self._handle is not None:
            self._handle.close()
        self._handle = None
        self._handle_path = None

    def close(self):
        self._close_handle()
