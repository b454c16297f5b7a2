"""Projected JSON records as fields: a source chain's filters, event time and window partials
computed over structs and columns instead of one dict per record.

Why: with projection pushdown (``engine.runtime.projection``) the events job's source chain
still built a dict per line and then, per operator, a list and a ``TimestampedBatch`` of the
same dicts (the filter's kept records, the event times and ``int`` of each, the key and
the value of the window behind the hash edge) before folding the window's partial
aggregates: the profile of the in-process job (``docs/performance.md``) put about half of
the source thread there, the other half in reading and decoding. Here each line decodes
into a msgspec struct holding just the projected fields as attributes (a quarter cheaper
than a dict of them; the event-time and summed fields typed ``int``, so nothing needs
``int`` or a type test later), the chain's expressions run over those attributes, each a
comprehension as before, and the writer's window partials fold the columns that come out
-- keys, values, event times as plain lists -- with the record path's own fold
(``WindowPartials.fold``). numpy did not pay here: a batch of ~800 records of 200 keys
folded no faster through ``bincount`` than through the fold's dict.

Where (``FieldsChain.plan``): a JSON-lines file source whose records are projected, followed
in its chain by filters and one watermark assigner (without idleness), the chain's last
operator ending in one record writer that sends a window's partial aggregates and no other
output. Anything else -- a tap, a late port, a Python node, a sink or a map in the chain, an
expression that uses the record whole -- keeps the record path, as projection itself does.

Exactly the record path's output, batch by batch. Every batch is computed first without
touching any state, and handed to the record path instead (its lines decoded into dicts as
before, the operators run one by one) when anything does not fit:

- a line that is not an object holding every projected field (a blank line, a missing
  field), or whose event-time or summed field is not a JSON integer -- the struct decode
  refuses it (``1.0``, ``true`` and ``"1"`` fail a field typed ``int``);
- anything that raises: an expression, a key that cannot be a dict key (the record path
  then raises it from its own operator).

The same expressions run on the same values in the same order, and the same fold makes
the partials, so filters, keys, sums and the order of the partials are the record path's.
After a batch fell back, the next ``PAUSE_BATCHES`` batches take the record path at once:
data that does not fit does not pay for both decodes.

Threading model: the subtask's mailbox thread.
"""
from __future__ import annotations

from typing import Any, Callable

import msgspec
import numpy as np

from engine.runtime.io.events import TimestampedBatch
from engine.runtime.io.line_blocks import Projection, decode_json_lines
from engine.spec.expressions import compile_fields_batch
from engine.spec.expressions.fields import single_field

PAUSE_BATCHES = 64
"""Batches that take the record path at once after one did not fit."""

_CLOSE = ord("}")
_AFTER_CLOSE = np.zeros(256, dtype=bool)
_AFTER_CLOSE[[ord("{"), ord(" "), ord("\t"), ord("\r")]] = True
"""Bytes that may follow a ``}`` where a second object starts on the same line (``}{``, ``} {``)."""


class FieldBatch:
    """A block of JSON lines decoded into structs of the projected fields (``rows``); ``records()``
    decodes the same block as the record path does (dicts of the projected fields)."""

    __slots__ = ("rows", "block", "projection")

    def __init__(self, rows: list, block: bytes, projection: Projection):
        self.rows, self.block, self.projection = rows, block, projection

    def __len__(self) -> int:
        return len(self.rows)

    def records(self) -> list:
        return decode_json_lines(self.block, self.projection)


class FieldDecoder:
    """Decodes blocks of JSON lines into :class:`FieldBatch` es: each line an object with every one
    of ``fields`` (held as attributes ``_field<n>``, see ``attributes``), those in ``int_fields``
    JSON integers; None for a block where a line is anything else (the caller decodes it the
    record way), and for ``PAUSE_BATCHES`` blocks after one that did not fit."""

    def __init__(self, fields, int_fields, projection: Projection):
        names = sorted(fields)
        self.attributes = {name: f"_field{number}" for number, name in enumerate(names)}
        struct = msgspec.defstruct(
            "ProjectedFields", [(self.attributes[name], int if name in int_fields else Any) for name in names],
            rename={attribute: name for name, attribute in self.attributes.items()}, gc=False)
        decoder = msgspec.json.Decoder(struct)
        self._decode, self._decode_lines = decoder.decode, decoder.decode_lines
        self.projection = projection
        self.paused = 0
        self.batches = self.fell_back = 0
        """Blocks decoded into fields, and batches that went the record way after all (tests, figures)."""

    def decode(self, block: bytes, lines: int | None = None) -> FieldBatch | None:
        """``block``'s lines as a FieldBatch, or None (see the class). ``lines``: how many lines the
        block holds, blank ones too (``LineBlockReader.lines``), which lets it decode the block
        in one call (``_decode_block``) instead of line by line."""
        if self.paused:
            self.paused -= 1
            return None
        rows = self._decode_block(block, lines) if lines else None
        if rows is None:
            split = block.split(b"\n")
            if not split[-1]:
                split.pop()
            try:
                rows = list(map(self._decode, split))
            except msgspec.DecodeError:  # ValidationError too: a missing field, a field that is no integer
                self.pause()
                return None
        self.batches += 1
        return FieldBatch(rows, block, self.projection)

    def _decode_block(self, block: bytes, lines: int) -> list | None:
        """The objects of ``block``'s ``lines`` lines in one call of msgspec's ``decode_lines``, or None
        (decode line by line) where that might not give each line's own object.

        ``decode_lines`` reads whitespace-separated values, so a line holding two objects and an
        object written across two lines could make up the right count together. A line holding
        two objects has ``}`` then at most spaces, tabs or CRs, then ``{`` (outside a string that
        is the only way one object can follow another on a line); where no ``}`` is followed by
        any of those bytes, each line holds at most one object's start, so as many objects as
        lines means one whole object per line, each decoded as decoding its line alone would.
        Blocks where a ``}`` is followed by one of them (in a string, or ``} ,``) go line by line.
        """
        data = np.frombuffer(block, dtype=np.uint8)
        if _AFTER_CLOSE[data[np.flatnonzero(data[:-1] == _CLOSE) + 1]].any():
            return None
        try:
            rows = self._decode_lines(block)
        except msgspec.DecodeError:
            return None  # line by line: the same error, or its own way of failing
        return rows if len(rows) == lines else None

    def pause(self) -> None:
        """A batch did not fit: the next ``PAUSE_BATCHES`` go the record way at once."""
        self.fell_back += 1
        self.paused = PAUSE_BATCHES


class FieldsChain:
    """The source chain's operators after the head (filters, one watermark assigner) and the window
    partials its writer sends, run over a :class:`FieldBatch` (``process``)."""

    def __init__(self, steps: list, watermark, timestamps: Callable, keys: Callable, values: Callable | None,
                 values_are_ints: bool, partials, counters: list, send: Callable, record_path: Callable,
                 tap_points: list):
        self._steps = steps
        self._watermark = watermark
        self._timestamps = timestamps
        self._keys = keys
        self._values = values
        self._values_are_ints = values_are_ints
        self._fold = partials.fold
        self._counters = counters
        self._send = send
        self._record_path = record_path
        self._tap_points = tap_points
        self.decoder: FieldDecoder | None = None

    @classmethod
    def plan(cls, operators: list, writer, counters: list, tap_points: list,
             fields) -> tuple["FieldsChain", set[str]] | None:
        """The chain for ``operators`` (head first) ending in ``writer``, and the fields that must
        decode as integers; None where the record path must stay (see the module's "Where")."""
        from engine.runtime.operators.transform import FilterOperator
        from engine.runtime.operators.watermark import WatermarkAssignerOperator

        partials = getattr(writer, "partials", None)
        if partials is None:
            return None
        watermarks = [op for op in operators[1:] if type(op) is WatermarkAssignerOperator]
        if len(watermarks) != 1 or watermarks[0].idle_timeout_s > 0 or any(
                type(op) not in (FilterOperator, WatermarkAssignerOperator) for op in operators[1:]):
            return None
        attributes = {name: f"_field{number}" for number, name in enumerate(sorted(fields))}
        int_fields: set[str] = set()

        def column(source: str, kind: str = "map") -> Callable | None:
            return compile_fields_batch(source, attributes, kind)

        steps = []
        for op in operators[1:]:
            if type(op) is FilterOperator:
                kept = column(op.params["predicate"], "filter")
                if kept is None:
                    return None
                steps.append(kept)
            else:
                steps.append(None)  # the watermark assigner's place
        source = watermarks[0].params["timestamp"]
        timestamps = column(source)
        if timestamps is None:
            return None
        if single_field(source) in attributes:
            int_fields.add(single_field(source))  # decoded as ints: ``int`` of each is each
        else:
            raw = timestamps

            def timestamps(rows, raw=raw):
                return list(map(int, raw(rows)))
        keys = column(partials.key_source)
        if keys is None:
            return None
        values = None
        values_are_ints = False
        if partials.function != "count":
            value_source = partials.value_source
            if value_source is None:
                return None
            values = column(value_source)
            if values is None:
                return None
            if partials.function == "sum" and single_field(value_source) in attributes:
                int_fields.add(single_field(value_source))  # decoded as ints: the fold tests no types
                values_are_ints = True
        chain = cls(steps, watermarks[0], timestamps, keys, values, values_are_ints, partials, counters[1:],
                    writer.send_partials, operators[1].process_batch, tap_points)
        return chain, int_fields

    def process(self, batch) -> None:
        """``process_batch`` of the operator after the head: a FieldBatch computed here, else the record path."""
        if type(batch) is not FieldBatch:
            self._record_path(batch)
            return
        if any(point.open for point in self._tap_points):
            self._record_path(batch.records())
            return
        try:
            counts, highest, partials = self._compute(batch.rows)
        except Exception:  # the record path raises it again, from its operator
            if self.decoder is not None:
                self.decoder.pause()
            self._record_path(batch.records())
            return
        for counters, count in zip(self._counters, counts):
            counters.records_out += count
        if partials:
            self._send(partials)
        if highest is not None:
            self._advance(highest)

    def _advance(self, highest: int) -> None:
        """What the watermark assigner does after its batch: its new highest event time, its watermark."""
        self._watermark.advance(highest)

    def _compute(self, rows: list) -> tuple[list[int], int | None, TimestampedBatch | None]:
        """Records out per operator, the watermark assigner's highest event time of the batch (None:
        it saw no record) and the partial aggregates to send; touches no state but the partials held
        for their windows (``window_partials``)."""
        counts = []
        stamps = highest = None
        for kept in self._steps:
            if kept is not None:
                rows = kept(rows)
                if stamps is not None:  # a filter after the event times: the kept records' event times
                    stamps = None
            else:
                stamps = self._timestamps(rows)
                highest = max(stamps) if stamps else None
            counts.append(len(rows))
        if not rows:
            return counts, highest, None
        if stamps is None:
            stamps = self._timestamps(rows)
        values = None if self._values is None else self._values(rows)
        return counts, highest, self._fold(self._keys(rows), values, stamps, self._values_are_ints)
