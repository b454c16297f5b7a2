"""``source.file``: JSON-lines or CSV files below a path, read in byte-range splits, offsets in state.

The path may be a file, a directory (every file below it, hidden ``.``/``_`` files
excepted) or a glob, on any fsspec filesystem. The files are cut into splits of about
``split_bytes`` (default 4 MiB), which the node's split enumerator in the JobMaster hands
out one at a time to the subtask that asks (``engine.runtime.operators.connectors.file_splits``): a
subtask asks for the next one while it still reads one, so it never waits, and faster
subtasks read more. Each split a subtask holds is an element ``{"path", "start", "end",
"offset", "header"}`` of its operator list state, where ``offset`` is the byte position
after the last line emitted. A restore seeks every split to its offset, so each line is
emitted exactly once per checkpointed run; after a rescale the splits are dealt out again.

Inside a hybrid source (no enumerator) the files are dealt to the subtasks round robin
when the job starts, one split per whole file, as they were before splits existed; a
checkpoint of such whole-file splits restores into either form.

Records: a JSON-lines file gives the parsed value of each non-empty line; a CSV file gives
one dict per row, keyed by the header row, values as strings. Rows are lines, so a CSV
value with an embedded line break is not supported.

Every file is listed and opened through the node's ``SourceFiles`` (``file_listing``): a
file of the directory or glob that is a link out of the job's grants is refused when it
is opened, whatever it was when listed. A restored split is data: it is read only when it
names one of the source's own files, with offsets that are non-negative integers
(``check_restored_split``); otherwise the snapshot is refused, naming the node.
"""
from __future__ import annotations

import csv
import io

from engine.runtime.grants import Grants
from engine.runtime.io.line_blocks import MIN_BLOCK_BYTES, LineBlockReader, Projection, decode_json_lines, text_lines
from engine.runtime.operators.base import ConfigurationError
from engine.runtime.operators.connectors.file_listing import SourceFiles
from engine.runtime.operators.connectors.file_splits import FileSplitEnumerator, csv_row, sizes_of
from engine.runtime.operators.restored_state import is_offset, is_optional_offset, require, restored_dicts
from engine.runtime.operators.source import END_OF_INPUT, SourceOperator
from engine.runtime.operators.source_lag import split_lag

AWAITING_SPLIT_POLL_DELAY = 0.001
"""Seconds between polls while a subtask waits for the enumerator's answer (a round trip)."""


def file_splits(source, fresh_split) -> list[dict]:
    """A file source's splits: restored ones, or (first start) ``fresh_split(path)`` of its share
    of the files, dealt round robin. Also binds ``source._state`` to the ``splits`` list state."""
    source._state = source.context.operator_state().list_state("splits")
    if source.context.is_restored:
        return restored_dicts(source.node, source.context, "splits", source._state.get())
    files = source.files.list()
    return [fresh_split(path) for path in files[source.context.subtask_index::source.context.parallelism]]


class SplitReadingSource(SourceOperator):
    """A source that reads its splits one after the other: asked for one ahead from its split
    enumerator in the JobMaster, or, without one (inside a hybrid source), its share of whole
    files dealt at the start. Subclasses read the records (``_read_records``) and say what a
    split looks like: whole (``whole_file_split``), as received (``assigned_split``).

    Event time across splits (``split_epoch``, ``event_time_floor``): a poll gives records of one
    split, and ``split_epoch`` counts the splits begun, so the watermark node of the chain can keep
    its highest event time per split; the enumerator sends each split's first record's event time
    and the least of those nobody holds yet, so that node's watermark stays behind every split this
    subtask or another has still to read (``engine.runtime.operators.watermark``). Why: a subtask
    reading a file per device one split after another had its watermark at the end of the first
    device's split when it began the next device's, and that split's records were late."""

    def __init__(self, node, context):
        super().__init__(node, context)
        self.path = self.params["path"]
        self.files = SourceFiles(node, self.path, Grants.of(context.config))
        self.splits: list[dict] = []
        self._state = None
        self._no_more_splits = True  # static splits: what the subtask holds is all it reads
        self._awaiting_split = False
        self.split_epoch = 0
        """How many splits this subtask finished: the splits[0] a poll's records come from changes with it."""
        self._first_times: dict[tuple, int] = {}  # (path, start) of a split held -> its first record's time
        self._unassigned_floor: int | None = None  # the enumerator's least first time of the splits nobody holds
        self._times_unknown = False  # restored holding splits: their first times and the floor not asked yet
        self._awaiting_times = False

    @staticmethod
    def whole_file_split(path: str) -> dict:
        """A split of a whole file, not started: what static splits are, and what a restored
        split lacking keys (one from before byte ranges or row groups) defaults to."""
        raise NotImplementedError

    @staticmethod
    def assigned_split(split: dict) -> dict:
        """A split from the enumerator, with the reader's position at its start."""
        raise NotImplementedError

    def check_restored_split(self, split: dict) -> bool:
        """Whether a restored split's positions are what the reader keeps (its path is checked before)."""
        raise NotImplementedError

    def initialize_state(self):
        if self.context.send_operator_event is None:
            splits = file_splits(self, self.whole_file_split)
        else:
            self._state = self.context.operator_state().list_state("splits")
            splits = (restored_dicts(self.node, self.context, "splits", self._state.get())
                      if self.context.is_restored else [])
            self._no_more_splits = False
        if self.context.is_restored:
            for split in splits:
                require(self.files.owns(split.get("path")), self.node, self.context,
                        f"holds a split of {split.get('path')!r:.200}, which is not one of this source's files")
        # a checkpoint of whole-file splits lacks what later splits have
        self.splits = [{**self.whole_file_split(split["path"]), **split} for split in splits]
        if self.context.is_restored:
            for split in self.splits:
                require(self.check_restored_split(split), self.node, self.context,
                        f"holds the split {split!r:.200}, whose positions this source does not keep")
            self._times_unknown = bool(self.splits) and not self._no_more_splits

    def poll_next(self):
        if self._times_unknown:
            self._ask_first_times()
            return []
        while True:
            self._ask_ahead()
            if not self.splits:
                return END_OF_INPUT if self._no_more_splits else []
            records = self._read_records(self.splits[0], self.batch_size)
            if records:
                return records
            if records is None:  # the split ended
                done = self.splits.pop(0)
                self.split_epoch += 1
                self._first_times.pop((done["path"], done["start"]), None)
                self._split_done(done)

    def _read_records(self, split: dict, count: int) -> list | None:
        """Up to ``count`` further records of the split (possibly none), or None at its end;
        the split's position moves past them."""
        raise NotImplementedError

    def caught_up(self, records: int) -> bool:
        """Never after a poll that gave records: stored splits have their next records ready (a
        file's poll gives the lines of a block sized to a little under ``batch_size``, a split's
        end fewer still), so a short poll says nothing about the input. Where nothing is left in
        hand the next poll gives none and the subtask waits, which sends the buffers anyway."""
        return False

    def event_time_floor(self) -> int | None:
        """The least first event time of the splits still to be read after the current one: those this
        subtask holds and has not begun, and (as the enumerator said at its last answer) those nobody
        holds; None when none is known. A watermark past it would make their early records late."""
        floor = self._unassigned_floor
        for split in self.splits[1:]:
            first = self._first_times.get((split["path"], split["start"]))
            if first is not None and (floor is None or first < floor):
                floor = first
        return floor

    def _split_done(self, split: dict) -> None:
        """``split`` was read to its end (``self.splits`` holds what comes next)."""

    def next_poll_delay(self) -> float:
        awaiting = self._awaiting_split or self._awaiting_times
        return AWAITING_SPLIT_POLL_DELAY if awaiting else super().next_poll_delay()

    def _ask_first_times(self) -> None:
        """Restored holding splits, read nothing before the enumerator said their first event times and the
        floor of the splits nobody holds (neither is in a checkpoint): the watermark would otherwise pass
        the first records of a held split not begun, or of one taken later, while the first is read."""
        if not self._awaiting_times:
            self._awaiting_times = True
            self.context.send_operator_event(
                {"kind": "first_times", "splits": [{key: split[key] for key in ("path", "start", "end")}
                                                   for split in self.splits if split["end"] is not None]})

    def _ask_ahead(self) -> None:
        """Ask the enumerator for a split while this one is still being read: one in hand, one next."""
        if len(self.splits) < 2 and not self._no_more_splits and not self._awaiting_split:
            self._awaiting_split = True
            self.context.send_operator_event({"kind": "request"})

    def handle_operator_event(self, event: dict) -> None:
        kind = event.get("kind")
        self._awaiting_split = False
        if kind == "splits":
            self.splits.extend(self.assigned_split(split) for split in event["splits"])
            self._note_first_times(event)
        elif kind == "first_times":
            self._times_unknown = self._awaiting_times = False
            self._note_first_times(event)
        elif kind == "no_more":
            self._no_more_splits = True
            self._unassigned_floor = None  # nobody has a split left to take
        elif kind == "error":
            raise ConfigurationError(self.node, event["message"])
        else:
            super().handle_operator_event(event)

    def _note_first_times(self, answer: dict) -> None:
        """Keep an enumerator's answer's first times of its splits and its floor of the splits nobody holds."""
        for split, first in zip(answer["splits"], answer.get("first_times") or ()):
            if isinstance(first, int) and not isinstance(first, bool):
                self._first_times[split["path"], split["start"]] = first
        floor = answer.get("floor")
        self._unassigned_floor = floor if isinstance(floor, int) and not isinstance(floor, bool) else None

    def snapshot_state(self, checkpoint_id):
        self._state.update(dict(split) for split in self.splits)

    def source_lag(self) -> list[dict]:
        """Each split this subtask holds (the one being read and the one asked ahead), with what of it is
        left; the splits nobody holds yet are the enumerator's (``FileSplitEnumerator.lag``)."""
        return [self._split_lag(split) for split in self.splits]

    def _split_lag(self, split: dict) -> dict:
        """One held split's ``source_lag.split_lag``."""
        raise NotImplementedError


def split_name(split: dict) -> str:
    """A split as the run page names it: its file and range (``end`` empty: to the file's end).

    >>> split_name({"path": "/data/in/a.jsonl", "start": 0, "end": 4096})
    '/data/in/a.jsonl[0:4096]'
    """
    end = split.get("end")
    return f"{split['path']}[{split.get('start', 0)}:{'' if end is None else end}]"


class FileSource(SplitReadingSource):
    """Reads lines from its splits in turn, ``batch_size`` lines per poll, in blocks
    (``engine.runtime.io.line_blocks``): one read and one decode per poll, not per line."""

    coordinator = FileSplitEnumerator

    def __init__(self, node, context):
        super().__init__(node, context)
        self.format = self.params.get("format", "jsonl")
        if self.format not in ("jsonl", "csv"):
            raise ValueError(f"unknown file format '{self.format}'")
        self._handle = None
        self._reader: LineBlockReader | None = None
        self._reader_path = None
        self._projection: Projection | None = None
        self._fields = None  # engine.runtime.json_fields.FieldDecoder
        self._tap_points = ()
        self._sizes: dict[str, int] = {}  # whole-file splits' sizes, for their lag

    def project_records(self, fields, tap_points) -> bool:
        if self.format != "jsonl":
            return False
        self._projection = Projection(fields)
        self._tap_points = tuple(tap_points)
        return True

    @property
    def projection(self) -> Projection | None:
        return self._projection

    def decode_json_fields(self, decoder) -> bool:
        if self._projection is None:
            return False
        self._fields = decoder
        return True

    @staticmethod
    def whole_file_split(path: str) -> dict:
        return whole_file_split(path)

    @staticmethod
    def assigned_split(split: dict) -> dict:
        return dict(split, offset=split["start"], header=None)

    def _split_lag(self, split: dict) -> dict:
        end = split["end"]
        if end is None:  # a whole-file split: its end is the file's size, asked once
            end = self._sizes.get(split["path"])
            if end is None:
                end = self._sizes[split["path"]] = sizes_of([split["path"]])[0][1]
        return split_lag(split_name(split), bytes_behind=end - split["offset"])

    def check_restored_split(self, split: dict) -> bool:
        header = split["header"]
        return (is_offset(split["start"]) and is_optional_offset(split["end"]) and is_offset(split["offset"])
                and (header is None or isinstance(header, list) and all(isinstance(name, str) for name in header)))

    def _split_done(self, split: dict) -> None:
        """Keep the reader when the next split goes on where this one ended in the same file: it
        already stands at the next split's first line (the line running past this split's end
        was read with it), so that split needs neither a seek nor a skipped line. A next split
        elsewhere in the same file keeps the open file (a seek instead of an open: with several
        subtasks reading neighbouring splits, each one's next split is rarely the one after)."""
        following = self.splits[0] if self.splits else None
        if (following is not None and self._reader is not None and split.get("end") is not None
                and following["path"] == split["path"] and following["start"] == split["end"]
                and following["offset"] == following["start"]):
            following["offset"] = self._reader.offset
            following["header"] = split["header"]
            self._reader.end = following["end"]
        elif following is not None and following["path"] == self._reader_path:
            self._reader = None  # the next split seeks in the open file (``_reader_of``)
        else:
            self._close_reader()

    def _read_records(self, split: dict, count: int) -> list | None:
        """The records of up to ``count`` further lines of the split (blank ones skipped, so
        possibly none), or None at its end; the split's offset moves past those lines."""
        if self.format == "csv" and split["header"] is None and split["start"] > 0:
            split["header"] = self._header_of(split["path"])
        reader = self._reader_of(split)
        if self.format == "csv" and split["header"] is None:
            block, split["offset"] = reader.read(1)
            if not block:
                return None
            split["header"] = csv_row(block)
            return []
        block, split["offset"] = reader.read(count)
        if not block:
            return None
        if self.format == "jsonl":
            projection = self._projection
            if projection is not None and any(point.open for point in self._tap_points):
                projection = None  # a tap shows the records as they are
            elif projection is not None and self._fields is not None:
                batch = self._fields.decode(block, reader.lines)
                if batch is not None:
                    return batch
            return decode_json_lines(block, projection)
        header = split["header"]
        return [dict(zip(header, row)) for row in csv.reader(io.StringIO("\n".join(text_lines(block))))]

    def _reader_of(self, split: dict) -> LineBlockReader:
        if self._reader is None or self._reader_path != split["path"]:
            if self._handle is None or self._reader_path != split["path"]:
                self._close_reader()
                self._handle = self.files.open(split["path"])
                self._reader_path = split["path"]
            self._reader = split_reader(self._handle, split)
        return self._reader

    def _header_of(self, path: str) -> list[str]:
        """A CSV file's header row, for a split that starts after it."""
        with self.files.open(path) as handle:
            return csv_row(handle.readline())

    def _close_reader(self):
        if self._handle is not None:
            self._handle.close()
        self._handle = None
        self._reader = None
        self._reader_path = None

    def close(self):
        self._close_reader()


def split_reader(handle, split: dict, min_block_bytes: int = MIN_BLOCK_BYTES) -> LineBlockReader:
    """A reader of ``split``'s lines from its offset on, over the open binary ``handle``.

    A split not started yet whose range begins inside a line begins at the next line: the
    line holding byte ``start - 1`` belongs to the split before (its rest is empty when that
    byte is a line break). The split's offset then moves past that rest, to its first line."""
    offset = split["offset"]
    if offset == split["start"] and offset > 0:
        handle.seek(offset - 1)
        reader = LineBlockReader(handle, offset - 1, min_block_bytes, end=split["end"])
        _, split["offset"] = reader.read(1)
        return reader
    handle.seek(offset)
    return LineBlockReader(handle, offset, min_block_bytes, end=split["end"])


def whole_file_split(path: str) -> dict:
    """A split of a whole file, not started (static splits; and what a split missing keys defaults to)."""
    return {"path": path, "start": 0, "end": None, "offset": 0, "header": None}
