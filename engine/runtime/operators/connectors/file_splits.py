"""Byte-range splits of a file source, handed out on request by one enumerator in the JobMaster.

Why: dealing whole files to the subtasks before the job starts makes a run last as long as
its slowest subtask -- a subtask on a slower CPU, or one dealt the bigger files, holds the
job up while the others idle. Here (as with Flink's FLIP-27 ``SplitEnumerator``) the files
are cut into splits of about ``split_bytes`` and a subtask asks for its next split when it
is about to run out, so faster subtasks simply read more of them.

``source.parquet`` hands out row groups the same way (``parquet.ParquetSplitEnumerator``:
its splits' ``start`` and ``end`` count row groups, not bytes).

Splits
    ``{"path", "start", "end"}``: the lines whose first byte lies in ``[start, end)``. The
    cuts need not fall on line breaks: a reader of a split starting inside a line skips to
    the next line, and the reader of the previous split reads that line to its end
    (``LineBlockReader``'s ``end``). So the enumerator only needs each file's size.

Exactly once (the enumerator's side of a checkpoint)
    The enumerator's state is its unassigned splits (``files_of_splits``), snapshotted when a
    checkpoint is triggered, at the same moment and under the same lock as the triggers are sent
    (``engine.cluster.operator_coordinators``). A split assigned before that moment reaches
    its reader before the trigger does (both travel the same ordered path into the same
    mailbox), so it is in the reader's snapshot; one assigned after it is still unassigned
    in the enumerator's snapshot. Each split is thus in exactly one of the two.

    When subtasks restart from a checkpoint (a region failover), the splits assigned to
    them after that checkpoint's snapshot are given back: their restored state does not
    have them (``SplitAssignmentTracker``, as Flink's).

Which split goes next (event time, where known)
    A subtask asking gets the unassigned split whose first record is earliest in event time.
    The JobMaster tells the enumerator the event-time expression of the watermark node in the
    source's chain (``order_by_event_time``; only filters between them, which keep records as
    they are); at the first request the enumerator reads each split's first record (a seek and
    a line: ``probe_first_times``) and orders the splits by its event time, a file's own splits
    always in the file's order (``UnassignedSplits``: a first record is one sample, and records
    a little out of order would otherwise send a later split out first). Why: files are often
    not laid out in event time by name (a file per device or partition, each over the whole
    time range; names that do not sort by time), and with several subtasks each keeping its own
    watermark, a subtask handed a split earlier than what it read makes those records late, and
    one handed a split far ahead of the others holds the windows, sessions and join buffers
    downstream open for the difference (``docs/performance.md``, "Watermark alignment"). This is
    also the split nearest the source subtasks' least watermark: every split read so far started
    at or before the earliest unassigned one. Without an expression, when a first record cannot
    be read or timed, and beyond ``PROBE_MAX_SPLITS`` splits, the order is the files' and the
    offsets'. A CSV split's first row is read as its reader reads it: keyed by the file's header row
    (``first_line_time``'s ``parse``), the header itself skipped in the file's first split. The first times are not checkpointed: the snapshot keeps the
    unassigned splits as before, and a restored enumerator reads the first records of those
    again at its first request (the same files: the same order).
"""
from __future__ import annotations

import csv
import json
import logging
import math
import time

import fsspec

from engine.runtime.grants import Grants
from engine.runtime.operators.base import ConfigurationError
from engine.runtime.operators.connectors.file_listing import SourceFiles
from engine.runtime.operators.restored_state import is_offset
from engine.spec.expressions import compile_batch_expression

logger = logging.getLogger(__name__)

DEFAULT_SPLIT_BYTES = 4 << 20
MAX_SPLITS = 10_000
"""Splits of one source at most: bigger splits over a huge input, so that the enumerator's
state (in every checkpoint's metadata) and its work per request stay small."""

PROBE_MAX_SPLITS = 2_000
"""Splits whose first records an enumerator reads at most (in the JobMaster, at the first request);
a source cut into more keeps file order."""
PROBE_BUDGET_S = 2.0
"""Seconds the enumerator spends at most reading first records (remote files: a request each); past
them it keeps file order. It answers no request meanwhile, and runs once a job run (its first request)."""
MIN_SPAN_SPLIT_BYTES = 64 << 10
"""Splits cut shorter in event time (``bounded_in_time``) are no smaller than this: each split costs a
request, a seek and a skipped line."""
PROBE_LINES = 16
"""Lines of a split read at most for its first event time (blank and undecodable ones are skipped)."""
_UNKNOWN = -math.inf


def cut_into_splits(files: list[tuple[str, int]], split_bytes: int) -> list[dict]:
    """Splits of about ``split_bytes`` covering every ``(path, size)``; none for an empty file."""
    splits = []
    for path, size in files:
        if size <= 0:
            continue
        pieces = max(1, -(-size // split_bytes))
        step = -(-size // pieces)  # equal pieces: no runt split at a file's end
        splits.extend({"path": path, "start": start, "end": min(start + step, size)}
                      for start in range(0, size, step))
    return splits


def sizes_of(paths: list[str]) -> list[tuple[str, int]]:
    """Each file's size in bytes, through its fsspec filesystem."""
    sized = []
    for path in paths:
        fs, root = fsspec.core.url_to_fs(path)
        sized.append((path, int(fs.size(root))))
    return sized


def files_of_splits(splits: list[dict]) -> list[list]:
    """``[[path, [start, end, start, end, ...]], ...]``: splits in path order as the checkpoint
    metadata holds them, each path once (a third of the bytes of a list of split dicts)."""
    files: list[list] = []
    for split in splits:
        if not files or files[-1][0] != split["path"]:
            files.append([split["path"], []])
        files[-1][1].extend((split["start"], split["end"]))
    return files


def splits_of_files(files: list[list]) -> list[dict]:
    """The splits ``files_of_splits`` made ``files`` of."""
    return [{"path": path, "start": start, "end": end}
            for path, bounds in files for start, end in zip(bounds[::2], bounds[1::2])]


class SplitAssignmentTracker:
    """Which splits went to which subtask since which checkpoint snapshot.

    ``assigned`` is a log in assignment order; ``snapshot(checkpoint_id)`` marks its current
    length. A restart of subtasks from checkpoint ``c`` returns what the log holds for them
    after ``c``'s mark (after the start, for a checkpoint of an earlier run or none). A
    completed checkpoint drops the entries before its mark: no restart goes back further.
    """

    def __init__(self):
        self._log: list[tuple[int, dict]] = []  # (subtask, split), oldest first
        self._dropped = 0  # entries dropped from the log's front
        self._marks: dict[int, int] = {}  # checkpoint id -> absolute log position at its snapshot

    def assigned(self, subtask: int, split: dict) -> None:
        self._log.append((subtask, split))

    def snapshot(self, checkpoint_id: int) -> None:
        self._marks[checkpoint_id] = self._dropped + len(self._log)

    def checkpoint_complete(self, checkpoint_id: int) -> None:
        mark = self._marks.get(checkpoint_id)
        if mark is None or mark < self._dropped:  # an older one than a checkpoint completed before
            return
        del self._log[:mark - self._dropped]
        self._dropped = mark
        self._marks = {cid: position for cid, position in self._marks.items() if cid >= checkpoint_id}

    def take_back(self, subtasks: set[int], checkpoint_id: int | None) -> dict[int, list[dict]]:
        """The splits each of ``subtasks`` got after ``checkpoint_id``'s snapshot, removed from the log."""
        since = max(0, self._marks.get(checkpoint_id, 0) - self._dropped) if checkpoint_id is not None else 0
        kept, returned = self._log[:since], {}
        for subtask, split in self._log[since:]:
            if subtask in subtasks:
                returned.setdefault(subtask, []).append(split)
            else:
                kept.append((subtask, split))
        self._log = kept
        return returned


class UnassignedSplits:
    """Splits no subtask holds, handed out earliest first: by the event time their file has
    reached at their start where known (``reached_times`` of the first times), then by path,
    then by offset. A file's own splits thus always go out in its order; files go side by side.

    Why that order: each subtask then reads its splits forward through the input, as a
    subtask dealt whole files did. A subtask's watermark comes from what it read last, so a
    subtask going back in event time would make its later records late; inputs laid out in
    event time (a file per hour, appended in order) read forward in file order already.

    Why not the first times alone: a first record is one sample. Records a little out of order
    (within the watermark's bound) can make a split's first record later than the next split's;
    handed out by it, a subtask read the next split first, its watermark passed the earlier
    split's records, and those closing a window were dropped as late (records lost, in a job
    that is exactly-once otherwise). Within a file only its order is safe: the bound the user
    declared is about records read in that order.

    Splits given back by a restarted subtask go back to that subtask (it asks again at once):
    it re-reads them in order after its restored splits, and no other subtask has to go back.
    """

    def __init__(self, splits: list[dict], first_times: dict[tuple, int] | None = None):
        self._probed: dict[tuple, int] = dict(first_times or {})  # (path, start) -> its first record's event time
        self._first_times: dict[tuple, int] = reached_times(self._probed)  # (path, start) -> the order's key
        self._waiting: list[dict] = []  # the latest first: popped from the end
        self._given_back: dict[int, list[dict]] = {}  # subtask -> its splits, the latest first
        self.add(splits)

    def add(self, splits: list[dict], subtask: int | None = None) -> None:
        target = self._waiting if subtask is None else self._given_back.setdefault(subtask, [])
        target.extend(dict(split) for split in splits)
        target.sort(key=self._earliest_first, reverse=True)

    def order_by(self, first_times: dict[tuple, int]) -> None:
        """Hand the splits out by these first event times from now on (``{}``: in file order), each
        file's splits in its order (``reached_times``)."""
        self._probed = dict(first_times)
        self._first_times = reached_times(first_times)
        for splits in (self._waiting, *self._given_back.values()):
            splits.sort(key=self._earliest_first, reverse=True)

    def take(self, subtask: int) -> dict | None:
        mine = self._given_back.get(subtask)
        if mine:
            split = mine.pop()
            if not mine:
                del self._given_back[subtask]
            return split
        return self._waiting.pop() if self._waiting else None

    def first_time(self, split: dict) -> int | None:
        """The event time of ``split``'s first record, None when not probed."""
        return self._probed.get((split["path"], split["start"]))

    def floor(self) -> int | None:
        """The least first event time of the splits nobody holds: what a subtask's watermark must stay
        behind (``SplitReadingSource.event_time_floor``). None when none is left, or when one of them was
        not probed (then nothing holds the watermarks back, as before first times existed)."""
        least = None
        for splits in (self._waiting, *self._given_back.values()):
            for split in splits:
                first = self._probed.get((split["path"], split["start"]))
                if first is None:
                    return None
                least = first if least is None else min(least, first)
        return least

    def as_list(self) -> list[dict]:
        """Every split, in file and offset order (a restore hands them to whoever asks)."""
        splits = self._waiting + [split for given in self._given_back.values() for split in given]
        return sorted((dict(split) for split in splits), key=_in_file_order)

    def _earliest_first(self, split: dict) -> tuple:
        return self._first_times.get((split["path"], split["start"]), _UNKNOWN), split["path"], split["start"]


def _in_file_order(split: dict) -> tuple:
    return split["path"], split["start"]


def reached_times(first_times: dict[tuple, int]) -> dict[tuple, int]:
    """``{(path, start): the latest first time of that split and of every split before it in its
    file}``: never decreasing along a file, so ordering by it keeps each file's splits in its order
    and merges the files by how far in event time each has got."""
    reached, latest = {}, {}
    for path, start in sorted(first_times):
        time_ = first_times[path, start]
        latest[path] = time_ if path not in latest else max(latest[path], time_)
        reached[path, start] = latest[path]
    return reached


def first_line_time(handle, start: int, end: int, timestamp_of, parse=json.loads,
                    skip_first_line: bool = False) -> int | None:
    """The event time ``timestamp_of(parse(line))`` of the first line whose first byte lies in
    ``[start, end)`` of the open binary ``handle`` (the split's first record, as its reader
    reads it), trying up to ``PROBE_LINES`` lines; None when none of them gives an integer.
    ``skip_first_line``: a CSV file's first split, whose first line is the header."""
    if start > 0:
        handle.seek(start - 1)
        handle.readline()  # the rest of the line holding byte start - 1: the split before's
    else:
        handle.seek(0)
        if skip_first_line:
            handle.readline()
    for _ in range(PROBE_LINES):
        if handle.tell() >= end:
            return None
        line = handle.readline()
        if not line:
            return None
        if not line.strip():
            continue
        try:
            value = timestamp_of(parse(line))
        except Exception:  # noqa: BLE001 - a user expression over a record it may not fit, a broken line: the next
            continue
        if isinstance(value, bool):
            continue
        try:
            return int(value)
        except (TypeError, ValueError, OverflowError):
            continue
    return None


def csv_row(line: bytes) -> list[str]:
    """One CSV line's fields (rows are lines: ``source.file`` reads no quoted line breaks)."""
    return next(csv.reader([line.decode("utf-8").rstrip("\r\n")]), [])


def csv_row_parser(handle):
    """A parser of one CSV line of the open binary ``handle``'s file into the dict its reader makes
    (keyed by the header row, values as strings), the header read from the file's first line."""
    handle.seek(0)
    header = csv_row(handle.readline())

    def parse(line: bytes) -> dict:
        return dict(zip(header, csv_row(line)))
    return parse


class FileSplitEnumerator:
    """The JobMaster's side of one file source node: its unassigned splits and who took what.

    Events from a reader: ``{"kind": "request"}``. Answers: ``{"kind": "splits", "splits": [split],
    "first_times": [its first record's event time or None], "floor": the least first time of the splits
    left or None}`` (the floor and first times keep the reader's watermark behind what it has not read
    yet: ``SplitReadingSource.event_time_floor``); from a restored reader, once, ``{"kind":
    "first_times", "splits": [the splits it holds]}``, answered ``{"kind": "first_times", "splits",
    "first_times", "floor"}`` (``_first_times_of_held``),
    ``{"kind": "no_more"}`` once nothing is left, ``{"kind": "error", "message": ...}`` when the
    path cannot be listed (the reader fails naming the node, as a static source did).
    """

    def __init__(self, node: dict, restored: dict | None, restored_node: bool, *, config: dict | None = None,
                 snapshot: str | None = None):
        self.node = node
        params = node.get("params") or {}
        self.path = params.get("path")
        self.files = SourceFiles(node, self.path, Grants.of(config))
        self.split_bytes = int(params.get("split_bytes") or DEFAULT_SPLIT_BYTES)
        self.tracker = SplitAssignmentTracker()
        self.unassigned: UnassignedSplits | None = None  # listed on the first request of a fresh start
        self.refused: str | None = None
        """Why the restored state was refused: every request is answered with it."""
        self.timestamp: str | None = None
        """The event-time expression of the watermark node in the source's chain (``order_by_event_time``)."""
        self.max_span_ms: int | None = None
        """Event time a split covers at most, about (``order_by_event_time``); None: cut by bytes alone."""
        self._ordered = False  # whether the unassigned splits' first times were read (the first request)
        if restored is not None:
            self._restore(restored, snapshot)
        elif restored_node:
            self.unassigned = UnassignedSplits([])  # a checkpoint of whole-file splits: its readers hold them all

    def _restore(self, restored, snapshot: str | None) -> None:
        """The unassigned splits of the snapshot: ``{"files": ...}``, or before that form ``{"splits": [split,
        ...]}`` (``{"splits": None}``: none listed yet). Restored state is data: each split must be of this
        source's own files, with a byte range of non-negative integers, or the snapshot is refused."""
        try:
            splits = splits_of_files(restored["files"]) if "files" in restored else restored.get("splits")
            if splits is not None:
                splits = [{"path": split["path"], "start": split["start"], "end": split["end"]} for split in splits]
            bad = next((split for split in splits or () if not (
                self.files.owns(split["path"]) and is_offset(split["start"]) and is_offset(split["end"])
                and split["start"] <= split["end"])), None)
        except (TypeError, KeyError, ValueError, AttributeError):
            bad = restored
        if bad is not None:
            self.refused = (f"the snapshot at {snapshot or '?'} is refused: its split enumerator's state holds "
                            f"{bad!r:.200}, which is not a split of this source's files")
            return
        self.unassigned = None if splits is None else UnassignedSplits(splits)

    # -- events ------------------------------------------------------------------------------
    def handle_event(self, subtask: int, event: dict) -> dict:
        kind = event.get("kind")
        if kind not in ("request", "first_times"):
            return {"kind": "error", "message": f"unknown split request {kind!r}"}
        if self.refused is not None:
            return {"kind": "error", "message": self.refused}
        not_ready = self._list_and_order()
        if not_ready is not None:
            return not_ready
        if kind == "first_times":
            return self._first_times_of_held(event.get("splits"))
        split = self.unassigned.take(subtask)
        if split is None:
            return {"kind": "no_more"}
        self.tracker.assigned(subtask, split)
        return {"kind": "splits", "splits": [split], "first_times": [self.unassigned.first_time(split)],
                "floor": self.unassigned.floor()}

    def _first_times_of_held(self, held) -> dict:
        """The answer to a restored reader's ``{"kind": "first_times", "splits": [the splits it holds]}``:
        their first records' event times, read as the unassigned ones' are, and the floor of the splits
        nobody holds. Why: neither is in a checkpoint, and a reader restored holding a split it has not
        begun would otherwise let its watermark pass that split's first records before it begins it."""
        try:
            held = [{"path": split["path"], "start": split["start"], "end": split["end"]} for split in held]
            bad = next((split for split in held if not (self.files.owns(split["path"]) and is_offset(split["start"])
                                                        and is_offset(split["end"]))), None)
        except (TypeError, KeyError):
            bad = held
        if bad is not None:
            return {"kind": "error", "message": f"a reader asked for the first times of {bad!r:.200}, "
                                                f"which is not a split of this source's files"}
        times = self.probe_first_times(held) if held else {}
        return {"kind": "first_times", "splits": held,
                "first_times": [times.get((split["path"], split["start"])) for split in held],
                "floor": self.unassigned.floor()}

    def _list_and_order(self) -> dict | None:
        """At the first event: list the files (a fresh start) and order the unassigned splits by their
        first records' event times; an error answer when the files cannot be listed."""
        listed = self.unassigned is None
        if listed:
            try:
                self.unassigned = UnassignedSplits(self._list_splits())
            except ConfigurationError as error:
                return {"kind": "error", "message": error.cause}
        if not self._ordered:
            self._ordered = True
            splits = self.unassigned.as_list()
            first_times = self.probe_first_times(splits)
            if listed and first_times and self.max_span_ms is not None:  # none assigned yet: they may be cut again
                shorter = self.bounded_in_time(splits, first_times)
                if shorter != splits:
                    shorter_times = self.probe_first_times(shorter)
                    if shorter_times:
                        self.unassigned = UnassignedSplits(shorter)
                        first_times = shorter_times
            self.unassigned.order_by(first_times)
        return None

    def order_by_event_time(self, timestamp: str, max_span_ms: int | None = None) -> None:
        """Hand splits out by the event time ``timestamp`` (an expression over a record ``x``) gives
        their first records (the JobMaster's call, before any request); with ``max_span_ms``, cut
        a fresh listing's splits so that each covers about that much event time at most
        (``bounded_in_time``)."""
        self.timestamp = timestamp
        self.max_span_ms = max_span_ms if max_span_ms is None or max_span_ms > 0 else None

    def bounded_in_time(self, splits: list[dict], first_times: dict[tuple, int]) -> list[dict]:
        """``splits`` (in file order) cut again, each file in pieces of about ``max_span_ms`` of event
        time by its splits' first times (as if its event time grew evenly with its bytes), equal pieces of about
        ``MIN_SPAN_SPLIT_BYTES`` at least, no more than ``PROBE_MAX_SPLITS`` in all; a file whose splits'
        first times do not grow, or that is one split, as it was."""
        files: dict[str, list[dict]] = {}
        for split in splits:
            files.setdefault(split["path"], []).append(split)
        wanted: dict[str, int] = {}
        for path, pieces in files.items():
            first, last = pieces[0], pieces[-1]
            grown = first_times[path, last["start"]] - first_times[path, first["start"]]
            if len(pieces) < 2 or grown <= 0 or last["start"] <= first["start"]:
                continue
            ms_per_byte = grown / (last["start"] - first["start"])
            size = max(MIN_SPAN_SPLIT_BYTES, int(self.max_span_ms / ms_per_byte))
            file_size = last["end"]
            size = -(-file_size // max(1, file_size // size))  # equal pieces of at least that size
            if size < first["end"] - first["start"]:
                wanted[path] = size
        if not wanted:
            return splits
        sizes = {path: pieces[-1]["end"] for path, pieces in files.items()}
        count = sum(-(-sizes[path] // wanted[path]) if path in wanted else len(files[path]) for path in files)
        if count > PROBE_MAX_SPLITS:  # fewer, longer pieces: every split is probed
            scale = count / PROBE_MAX_SPLITS
            wanted = {path: int(size * scale) + 1 for path, size in wanted.items()}
        cut = []
        for path, pieces in files.items():  # a fresh listing's: each file's splits cover it from 0 to its size
            cut.extend(cut_into_splits([(path, sizes[path])], wanted[path]) if path in wanted else pieces)
        return cut

    def probe_first_times(self, splits: list[dict]) -> dict[tuple, int]:
        """``{(path, start): event time of the split's first record}`` for every split, or ``{}`` (file
        order) when there is no expression, the files are neither JSON lines nor CSV, there are more
        than ``PROBE_MAX_SPLITS``, one split's first record cannot be read or timed, or reading them
        takes longer than ``PROBE_BUDGET_S``."""
        file_format = (self.node.get("params") or {}).get("format", "jsonl")
        if self.timestamp is None or not splits or len(splits) > PROBE_MAX_SPLITS or file_format not in ("jsonl", "csv"):
            return {}
        try:
            of_batch = compile_batch_expression(self.timestamp)
        except Exception:  # noqa: BLE001 - checked when the job was built; should it not compile: file order
            return {}
        times, handle, open_path = {}, None, None
        deadline = time.monotonic() + PROBE_BUDGET_S
        try:
            for split in splits:
                if time.monotonic() > deadline:
                    logger.warning("node %s: splits in file order, reading their first records took over %s s",
                                   self.node.get("id"), PROBE_BUDGET_S)
                    return {}
                if split["path"] != open_path:
                    if handle is not None:
                        handle.close()
                    handle, open_path = self.files.open(split["path"]), split["path"]
                    parse = json.loads if file_format == "jsonl" else csv_row_parser(handle)
                first = first_line_time(handle, split["start"], split["end"], lambda record: of_batch([record])[0],
                                        parse, skip_first_line=file_format == "csv")
                if first is None:
                    return {}
                times[split["path"], split["start"]] = first
        except (OSError, ConfigurationError) as error:  # the reader meets it too, and fails naming the node
            logger.warning("node %s: splits in file order, a first record could not be read: %s",
                           self.node.get("id"), error)
            return {}
        finally:
            if handle is not None:
                handle.close()
        return times

    def _list_splits(self) -> list[dict]:
        try:
            files = sizes_of(self.files.list())
        except OSError as error:
            raise ConfigurationError(self.node, f"cannot read the size of a file under {self.path}: {error}") from None
        return cut_into_splits(files, self.split_size(sum(size for _, size in files)))

    def split_size(self, total_bytes: int) -> int:
        """``split_bytes``, raised where a tiny value over a huge input would pass ``MAX_SPLITS``."""
        return max(self.split_bytes, -(-total_bytes // MAX_SPLITS))

    def lag(self) -> dict:
        """The splits no subtask holds yet: ``{"splits_unassigned", "bytes_unassigned"}`` (None before the
        files were listed, at the first request); a subtask's held splits are in its own report."""
        if self.unassigned is None:
            return {"splits_unassigned": None, "bytes_unassigned": None}
        splits = self.unassigned.as_list()
        return {"splits_unassigned": len(splits), "bytes_unassigned": self.unassigned_bytes(splits)}

    @staticmethod
    def unassigned_bytes(splits: list[dict]) -> int | None:
        """The bytes of ``splits``: their byte ranges."""
        return sum(split["end"] - split["start"] for split in splits)

    # -- checkpoints and restarts --------------------------------------------------------------
    def snapshot(self, checkpoint_id: int) -> dict:
        self.tracker.snapshot(checkpoint_id)
        if self.unassigned is None:
            return {"splits": None}  # nothing asked yet: a restore lists the files afresh, as this run would
        return {"files": files_of_splits(self.unassigned.as_list())}

    def checkpoint_complete(self, checkpoint_id: int) -> None:
        self.tracker.checkpoint_complete(checkpoint_id)

    def subtasks_reset(self, subtasks: set[int], checkpoint_id: int | None) -> None:
        """``subtasks`` start again from ``checkpoint_id`` (None: from nothing): what each got
        since is unassigned again, kept for it."""
        for subtask, splits in self.tracker.take_back(subtasks, checkpoint_id).items():
            if self.unassigned is not None:
                self.unassigned.add(splits, subtask)
