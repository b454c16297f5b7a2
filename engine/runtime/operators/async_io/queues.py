"""The element queues of the async operator: ordered, and unordered by watermark segments.

A queue holds what the operator admitted and has not emitted yet: records whose call is in
flight, records whose call completed but that may not be emitted yet, and watermarks that
must wait for the records before them (seed 000, ``OrderedStreamElementQueue`` and
``UnorderedStreamElementQueue``). Unlike Flink's queues these have no lock, no condition
and no executor: they live on the subtask's mailbox thread and are plain data structures.
The operator adds entries, marks records completed when their completion mail runs, and
then asks for what became emittable (``pop_emittable``), in the order it must go out.

:class:`OrderedQueue`
    Emits strictly in input order: a completed record waits for every record before it.
:class:`UnorderedQueue`
    Emits records as they complete, but never across a watermark. The entries between two
    watermarks form a *segment*; only the first segment emits; when all its records are
    out, its closing watermark goes out and the next segment becomes the first (and emits
    what already completed in it).

Watermarks do not count towards the capacity (records do), and a watermark that follows
another with no record in between replaces it: the newer one says more, and so the
number of queued watermarks stays bounded by the number of queued records.

Threading model: the mailbox thread only.
"""
from __future__ import annotations

from collections import deque
from typing import Iterator

from engine.runtime.io.events import Watermark


class RecordEntry:
    """One input record: its value, event time, and -- once its call completed -- its output.

    ``request`` is what the operator prepared for the call (the value unless the operator
    says otherwise); the event loop thread reads ``value`` and ``request`` only, and only
    the mailbox thread writes the other fields.
    """

    __slots__ = ("value", "timestamp", "request", "output", "done", "sequence", "segment")

    is_watermark = False

    def __init__(self, value, timestamp: int | None = None):
        self.value = value
        self.timestamp = timestamp
        self.request = value
        self.output = None
        self.done = False
        self.sequence = 0
        self.segment: _Segment | None = None

    def __repr__(self) -> str:
        state = f"done -> {self.output!r}" if self.done else "in flight"
        return f"RecordEntry({self.value!r}, {state})"


class WatermarkEntry:
    """A watermark waiting behind the records that arrived before it."""

    __slots__ = ("watermark",)

    is_watermark = True
    done = True

    def __init__(self, watermark: Watermark):
        self.watermark = watermark

    def __repr__(self) -> str:
        return f"WatermarkEntry({self.watermark.timestamp})"


Entry = RecordEntry | WatermarkEntry


class OrderedQueue:
    """Entries in input order; the completed prefix is emittable."""

    def __init__(self) -> None:
        self._entries: deque[Entry] = deque()
        self.records = 0
        """Records in the queue (in flight or completed but not emitted): what capacity bounds."""

    def add_record(self, entry: RecordEntry) -> None:
        self._entries.append(entry)
        self.records += 1

    def add_watermark(self, watermark: Watermark) -> None:
        entries = self._entries
        if entries and entries[-1].is_watermark:
            entries[-1] = WatermarkEntry(watermark)
        else:
            entries.append(WatermarkEntry(watermark))

    def complete(self, entry: RecordEntry) -> None:
        entry.done = True

    def pop_emittable(self) -> list[Entry]:
        """Remove and return the entries that may go out now, in emission order."""
        entries = self._entries
        out = []
        while entries and entries[0].done:
            entry = entries.popleft()
            if not entry.is_watermark:
                self.records -= 1
            out.append(entry)
        return out

    def is_empty(self) -> bool:
        return not self._entries

    def __iter__(self) -> Iterator[Entry]:
        """All entries in input order (for snapshots)."""
        return iter(self._entries)


class _Segment:
    """The records between two watermarks, and the watermark that closes them (None: still open)."""

    __slots__ = ("in_flight", "completed", "watermark")

    def __init__(self) -> None:
        self.in_flight: dict[RecordEntry, None] = {}  # insertion-ordered set
        self.completed: list[RecordEntry] = []
        self.watermark: Watermark | None = None

    def has_records(self) -> bool:
        return bool(self.in_flight) or bool(self.completed)


class UnorderedQueue:
    """Segments separated by watermarks; records of the first segment go out as they complete."""

    def __init__(self) -> None:
        self._segments: deque[_Segment] = deque([_Segment()])  # the last one is always open
        self._sequence = 0
        self.records = 0
        """Records in the queue (in flight or completed but not emitted): what capacity bounds."""

    def add_record(self, entry: RecordEntry) -> None:
        segment = self._segments[-1]
        self._sequence += 1
        entry.sequence = self._sequence
        entry.segment = segment
        segment.in_flight[entry] = None
        self.records += 1

    def add_watermark(self, watermark: Watermark) -> None:
        segments = self._segments
        last = segments[-1]
        if not last.has_records() and len(segments) > 1:
            segments[-2].watermark = watermark  # nothing since the previous watermark: replace it
            return
        last.watermark = watermark
        segments.append(_Segment())

    def complete(self, entry: RecordEntry) -> None:
        entry.done = True
        segment = entry.segment
        del segment.in_flight[entry]
        segment.completed.append(entry)

    def pop_emittable(self) -> list[Entry]:
        """Remove and return the entries that may go out now, in emission order."""
        segments = self._segments
        out: list[Entry] = []
        while True:
            first = segments[0]
            if first.completed:
                out.extend(first.completed)
                self.records -= len(first.completed)
                first.completed = []
            if first.in_flight or first.watermark is None:
                return out
            out.append(WatermarkEntry(first.watermark))
            segments.popleft()

    def is_empty(self) -> bool:
        return len(self._segments) == 1 and not self._segments[0].has_records()

    def __iter__(self) -> Iterator[Entry]:
        """All entries in input order (for snapshots)."""
        for segment in self._segments:
            yield from sorted([*segment.in_flight, *segment.completed], key=_by_sequence)
            if segment.watermark is not None:
                yield WatermarkEntry(segment.watermark)


def _by_sequence(entry: RecordEntry) -> int:
    return entry.sequence


def create_queue(ordered: bool) -> OrderedQueue | UnorderedQueue:
    return OrderedQueue() if ordered else UnorderedQueue()
