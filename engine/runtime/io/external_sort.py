"""The sort buffer of batch mode: records grouped by key, spilled to disk past a memory limit.

Batch mode (seed 002, 流批一体) processes a keyed operator's input key by key instead of
record by record in arrival order: the subtask first reads all of its input into a
:class:`KeyGroupingSorter`, then hands the records to the operator one group of keys at a
time, so the operator's keyed state only ever holds the keys of the current group
(Flink's ``SortingDataInput`` with the batch keyed state backend).

Grouping, not a total order
    Keys are arbitrary Python values (numbers, strings, tuples, dicts turned into tuples
    ...), often not comparable with each other. The sorter orders records by ``hash(key)``
    -- an int, so always comparable -- and keeps records with equal hashes together; two
    different keys with the same hash simply form one group. Records of one key stay in
    their arrival order (every step below is stable), so a running aggregate sees each
    key's records in the same order as in streaming mode. ``hash`` is Python's, salted
    per process: that is fine, spill files never leave the subtask that wrote them.

Memory bound
    The buffer holds at most ``memory_records`` records (``sort_buffer_records`` in the
    runtime configuration, default :data:`DEFAULT_MEMORY_RECORDS`). When it is full, its
    groups are sorted by hash and written as one *run*: a file of pickled frames of about
    :data:`FRAME_RECORDS` records each. At the end the runs and the buffer are merged
    (``heapq.merge``, stable: on equal hashes the older run comes first), reading one frame
    per run at a time, so memory stays at one frame per run plus the group being handed out.

Threading model: the owning subtask's mailbox thread.
"""
from __future__ import annotations

import heapq
import os
import pickle
import struct
import tempfile
import uuid
from typing import Iterator

DEFAULT_MEMORY_RECORDS = 200_000
"""Records held in memory before a run is spilled."""
FRAME_RECORDS = 4096
"""About how many records one frame of a run file holds."""

_LENGTH = struct.Struct(">I")

Entry = tuple  # (hash, records: list, timestamps: list | None)
"""One group (or a slice of one) in hash order: ``(hash, records, timestamps or None)``."""


class KeyGroupingSorter:
    """Collects records by key hash; spills sorted runs; merges them into hash order."""

    def __init__(self, key_function, memory_records: int = DEFAULT_MEMORY_RECORDS,
                 spill_directory: str | None = None):
        self.key_function = key_function
        self.memory_records = max(1, int(memory_records))
        self.spill_directory = spill_directory or tempfile.gettempdir()
        self._groups: dict[int, list] = {}  # hash -> [records, timestamps | None]
        self._buffered = 0
        self._runs: list[str] = []
        self.spilled_runs = 0
        self.spilled_records = 0
        self.records = 0

    def add(self, batch: list, timestamps: list | None = None) -> None:
        """Buffer a batch (with its event times, if any); spill a run when memory is full."""
        key = self.key_function
        groups = self._groups
        if timestamps is None:
            for record in batch:
                h = hash(key(record))
                group = groups.get(h)
                if group is None:
                    groups[h] = [[record], None]
                else:
                    group[0].append(record)
        else:
            for record, stamp in zip(batch, timestamps):
                h = hash(key(record))
                group = groups.get(h)
                if group is None:
                    groups[h] = [[record], [stamp]]
                elif group[1] is None:  # mixed input: earlier records had no event time
                    group[0].append(record)
                else:
                    group[0].append(record)
                    group[1].append(stamp)
        self._buffered += len(batch)
        self.records += len(batch)
        if self._buffered >= self.memory_records:
            self._spill()

    def _sorted_buffer(self) -> list[Entry]:
        entries = [(h, group[0], group[1]) for h, group in self._groups.items()]
        entries.sort(key=_entry_hash)
        return entries

    def _spill(self) -> None:
        os.makedirs(self.spill_directory, exist_ok=True)
        path = os.path.join(self.spill_directory, f"sort-run-{uuid.uuid4().hex}.spill")
        with open(path, "wb") as handle:
            frame: list[Entry] = []
            size = 0
            for h, records, stamps in self._sorted_buffer():
                for start in range(0, len(records), FRAME_RECORDS):
                    part = records[start:start + FRAME_RECORDS]
                    frame.append((h, part, None if stamps is None else stamps[start:start + FRAME_RECORDS]))
                    size += len(part)
                    if size >= FRAME_RECORDS:
                        _write_frame(handle, frame)
                        frame, size = [], 0
            if frame:
                _write_frame(handle, frame)
        self._runs.append(path)
        self.spilled_runs += 1
        self.spilled_records += self._buffered
        self._groups = {}
        self._buffered = 0

    def sorted_entries(self) -> Iterator[Entry]:
        """All buffered and spilled records as entries in hash order (consumes the sorter)."""
        in_memory = self._sorted_buffer()
        self._groups = {}
        self._buffered = 0
        if not self._runs:
            return iter(in_memory)
        sources = [_read_run(path) for path in self._runs] + [iter(in_memory)]
        return heapq.merge(*sources, key=_entry_hash)

    def close(self) -> None:
        """Delete the run files (also when the subtask failed halfway)."""
        for path in self._runs:
            try:
                os.remove(path)
            except OSError:
                pass
        self._runs = []


def _entry_hash(entry: Entry) -> int:
    return entry[0]


def _write_frame(handle, frame: list[Entry]) -> None:
    payload = pickle.dumps(frame, protocol=5)
    handle.write(_LENGTH.pack(len(payload)))
    handle.write(payload)


def _read_run(path: str) -> Iterator[Entry]:
    with open(path, "rb") as handle:
        while True:
            header = handle.read(_LENGTH.size)
            if len(header) < _LENGTH.size:
                return
            (length,) = _LENGTH.unpack(header)
            yield from pickle.loads(handle.read(length))


def key_groups_in_pieces(entries: Iterator[Entry], piece_records: int) -> Iterator[tuple[list, list | None, bool]]:
    """Cut hash-ordered entries into pieces of at most ``piece_records`` records.

    Yields ``(records, timestamps or None, ends_keys)``. A piece ends at a hash boundary
    whenever it can (``ends_keys`` True: no later piece has a key of this one, so the
    operator may emit its final results for these keys and drop their state); only a
    group larger than what is left of a piece is cut inside, with ``ends_keys`` False for
    every piece but the one holding its end.
    """
    records: list = []
    stamps: list = []
    timed = False
    previous_hash = None
    for h, group_records, group_stamps in entries:
        if h != previous_hash and len(records) >= piece_records:
            yield records, (stamps if timed else None), True
            records, stamps = [], []
        if group_stamps is not None and not timed:
            timed = True
            stamps = [0] * len(records)  # untimed records before (mixed input): time 0
        start = 0
        while start < len(group_records):
            room = piece_records - len(records)
            if room <= 0:  # the piece is full in the middle of this group
                yield records, (stamps if timed else None), False
                records, stamps = [], []
                room = piece_records
            part = group_records[start:start + room]
            records.extend(part)
            if group_stamps is not None:
                stamps.extend(group_stamps[start:start + room])
            elif timed:
                stamps.extend([0] * len(part))
            start += len(part)
        previous_hash = h
    if records:
        yield records, (stamps if timed else None), True
