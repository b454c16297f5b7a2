"""Record buffers between slot processes as msgpack, pickle only where msgpack cannot be exact.

Why: a buffer crossing to another slot process was pickled and unpickled whole. Profiled on
Spark at parallelism 2 (the window join of ``make bench-events``), pickling and unpickling
were an eighth of a slot's busy time. Records are mostly JSON-like values (dicts, lists,
strings, numbers), which msgpack packs and msgspec decodes for about two thirds of
pickle's cost (measured on the events job's records, 1,024 a buffer: 8-field events
1,630 → 1,060-1,360 ns a record for both ends, its 4 projected fields 815 → 570-610).

Exactness: a record must arrive as it was sent, types included. The packer runs with
``strict_types``: it packs only values whose type is exactly ``dict``, ``list``, ``str``,
``bytes``, ``int`` (64 bits), ``float``, ``bool`` or ``None``, and refuses anything else
-- a tuple, a set, a subclass (an ``IntEnum``, an ``OrderedDict``), a datetime, a
``Decimal``, an int beyond 64 bits, a string with a lone surrogate. A refused buffer goes
pickled, whole, as before (``encode`` returns ``None``), so no value ever changes type. The
one value msgpack cannot tell apart is a ``bytearray`` or ``memoryview`` (it packs them as
bytes): a buffer holding one arrives with ``bytes`` in its place. ``bytes`` compare equal to
them and are what any sink writes of them; a ``memoryview`` could not be pickled at all.

Frames (``tcp_channel``): RECORDS carries a plain list of records, TIMED a
``TimestampedBatch`` as ``[records, timestamps, watermarks]`` with its inline watermarks as
``[position, timestamp, ...]`` (None when it has none). Decoding is msgspec's untyped
msgpack decoder (dict keys of any packed type come back as they were).

A channel whose buffers keep being refused (records with tuples, say) stops trying for the
next ``RETRY_AFTER`` buffers: a refusal can cost a whole buffer's packing before it.

Threading model: an encoder belongs to one output channel and is used under its lock; the
decoder is stateless and shared by a network's reader threads.
"""
from __future__ import annotations

import msgpack
import msgspec

from engine.runtime.io.events import TimestampedBatch, Watermark

RECORDS_FRAME, TIMED_FRAME = 8, 9
"""Frame kinds of ``tcp_channel`` for buffers in this format (DATA stays pickle)."""
RETRY_AFTER = 32
"""Buffers sent pickled after a refused one before msgpack is tried again on a channel."""


class _Refused(Exception):
    """A value msgpack cannot carry exactly: the buffer goes pickled."""


def _refuse(value):
    raise _Refused(type(value).__name__)


_REFUSALS = (_Refused, TypeError, ValueError, OverflowError)
"""What packing an inexact value raises: the default hook's refusal, an int beyond 64 bits
(OverflowError, or TypeError from the hook), a lone surrogate (UnicodeEncodeError, a
ValueError), nesting deeper than msgpack's limit (ValueError)."""


class BufferEncoder:
    """Packs one channel's buffers; ``encode`` gives ``(frame kind, body)`` or None (pickle it)."""

    def __init__(self):
        self._packer = msgpack.Packer(use_bin_type=True, strict_types=True, datetime=False, default=_refuse,
                                      autoreset=True)
        self._skip = 0
        self.packed = 0
        """Buffers packed as msgpack so far."""
        self.refused = 0
        """Buffers that held a value msgpack cannot carry exactly (sent pickled)."""

    def encode(self, buffer) -> tuple[int, bytes] | None:
        if self._skip:
            self._skip -= 1
            return None
        kind = type(buffer)
        try:
            if kind is list:
                frame = RECORDS_FRAME, self._packer.pack(buffer)
            elif kind is TimestampedBatch:
                frame = TIMED_FRAME, self._packer.pack([list(buffer), buffer.timestamps, _flat(buffer.watermarks)])
            else:
                return None
        except _REFUSALS:
            self._packer.reset()
            self.refused += 1
            self._skip = RETRY_AFTER
            return None
        self.packed += 1
        return frame


def _flat(watermarks):
    if watermarks is None:
        return None
    flat = []
    for position, watermark in watermarks:
        if type(watermark) is not Watermark:
            raise _Refused(type(watermark).__name__)
        flat += (position, watermark.timestamp)
    return flat


_decode = msgspec.msgpack.Decoder().decode


def decode(kind: int, body) -> list:
    """The buffer a RECORDS or TIMED frame's ``body`` carries."""
    if kind == RECORDS_FRAME:
        return _decode(body)
    records, timestamps, flat = _decode(body)
    watermarks = None if flat is None else [(flat[i], Watermark(flat[i + 1])) for i in range(0, len(flat), 2)]
    return TimestampedBatch(records, timestamps, watermarks)
