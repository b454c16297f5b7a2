"""Record values to and from Kafka message bytes, a batch at a time: JSON, CSV, Avro, text, raw bytes.

Decoding maps a C-implemented decoder over the batch's values (``map(decoder.decode,
values)``), so a batch of JSON values costs no Python call per record; only when that
fails does a slow pass decode value by value to name the first bad one. Encoding is the
same in reverse. Avro goes through fastavro, with the schema given in the node
(``avro_schema``, a JSON object or its text) or read from a file (``avro_schema_file``);
``avro_framing: "confluent"`` reads and writes the schema registry's framing (a zero
byte and a four-byte schema id before the Avro body: ``avro_schema_id`` on writing).

A null value (a tombstone) decodes to None and None encodes to a null value, whatever the
format.
"""
from __future__ import annotations

import csv
import io
import json
import struct
from typing import Any, Callable

import msgspec

class BadRecord(ValueError):
    """One value cannot be decoded or encoded: ``index`` is its place in the batch, ``cause`` why."""

    def __init__(self, index: int, cause: str):
        super().__init__(cause)
        self.index = index
        self.cause = cause


def avro_schema(params: dict, grants=None) -> Any:
    """The parsed Avro schema of a node's ``avro_schema`` or ``avro_schema_file`` (ValueError if neither
    is usable). The file is opened through the job's ``grants`` (``engine.runtime.grants``): a link
    swapped in since the definition was checked is refused at the moment of use."""
    from engine.runtime.grants import open_for_reading
    from engine.spec.kafka_catalog import parse_avro_schema

    schema = params.get("avro_schema")
    if schema is None and params.get("avro_schema_file"):
        try:
            with open_for_reading(params["avro_schema_file"], grants) as handle:
                schema = handle.read().decode("utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise ValueError(f"cannot read the Avro schema file {params['avro_schema_file']}: {error}") from None
    if schema is None:
        raise ValueError("the avro format needs avro_schema or avro_schema_file")
    return parse_avro_schema(schema)


# -- decoding -------------------------------------------------------------------------------------


def value_decoder(params: dict, grants=None) -> Callable[[list], list]:
    """``decode(values) -> records`` for the node's ``format``; raises :class:`BadRecord`."""
    kind = params.get("format", "json")
    if kind == "json":
        return _json_decoder()
    if kind == "string":
        return _mapped(_utf8, "UTF-8 text")
    if kind == "raw":
        return list
    if kind == "csv":
        return _csv_decoder(list(params.get("columns") or ()), params.get("delimiter", ","))
    if kind == "avro":
        return _avro_decoder(avro_schema(params, grants), params.get("avro_framing", "none") == "confluent")
    raise ValueError(f"unknown format {kind!r}")


def key_decoder(kind: str) -> Callable[[list], list]:
    if kind == "json":
        return _json_decoder()
    if kind == "raw":
        return list
    return _mapped(_utf8, "UTF-8 text")


def _utf8(value: bytes) -> str:
    return value.decode("utf-8")


def _mapped(function: Callable, what: str) -> Callable[[list], list]:
    """``function`` mapped over a batch (None stays None); a failure is located value by value."""

    def decode(values: list) -> list:
        try:
            if None in values:
                return [None if value is None else function(value) for value in values]
            return list(map(function, values))
        except Exception:
            for index, value in enumerate(values):
                try:
                    if value is not None:
                        function(value)
                except Exception as error:
                    raise BadRecord(index, f"not {what}: {error}") from None
            raise

    return decode


def _json_decoder() -> Callable[[list], list]:
    decoder = msgspec.json.Decoder()

    def loads(value: bytes):
        try:
            return decoder.decode(value)
        except msgspec.DecodeError:
            return json.loads(value)  # what only the standard library takes (NaN, 1e400), or its own error

    fast = _mapped(decoder.decode, "JSON")
    slow = _mapped(loads, "JSON")

    def decode(values: list) -> list:
        try:
            return fast(values)
        except BadRecord:
            return slow(values)

    return decode


def _csv_decoder(columns: list[str], delimiter: str) -> Callable[[list], list]:
    def row(value: bytes) -> dict:
        fields = next(csv.reader([value.decode("utf-8").rstrip("\r\n")], delimiter=delimiter), [])
        if len(fields) != len(columns):
            raise ValueError(f"{len(fields)} fields, but columns names {len(columns)}")
        return dict(zip(columns, fields))

    return _mapped(row, "a CSV row")


def _avro_decoder(schema, framed: bool) -> Callable[[list], list]:
    from fastavro import schemaless_reader

    def read(value: bytes):
        if framed:
            if len(value) < 5 or value[0] != 0:
                raise ValueError("no schema registry framing (a zero byte and a 4-byte schema id)")
            value = value[5:]
        return schemaless_reader(io.BytesIO(value), schema, None)

    return _mapped(read, "Avro of the given schema")


# -- encoding -------------------------------------------------------------------------------------


def value_encoder(params: dict, grants=None) -> Callable[[list], list]:
    """``encode(values) -> [bytes or None]`` for the node's ``format``; raises :class:`BadRecord`."""
    kind = params.get("format", "json")
    if kind == "json":
        return _mapped(msgspec.json.Encoder().encode, "encodable as JSON")
    if kind == "string":
        return _mapped(_text_bytes, "text")
    if kind == "raw":
        return _mapped(_raw_bytes, "bytes")
    if kind == "csv":
        return _mapped(_csv_writer(list(params.get("columns") or ()), params.get("delimiter", ",")), "a CSV row")
    if kind == "avro":
        framing = struct.pack(">bI", 0, int(params.get("avro_schema_id", 0))) \
            if params.get("avro_framing", "none") == "confluent" else b""
        return _mapped(_avro_writer(avro_schema(params, grants), framing), "a record of the Avro schema")
    raise ValueError(f"unknown format {kind!r}")


def key_encoder(kind: str) -> Callable[[list], list]:
    if kind == "json":
        return _mapped(msgspec.json.Encoder().encode, "encodable as JSON")
    if kind == "raw":
        return _mapped(_raw_bytes, "bytes")
    return _mapped(_text_bytes, "text")


def _text_bytes(value) -> bytes:
    return (value if isinstance(value, str) else str(value)).encode("utf-8")


def _raw_bytes(value) -> bytes:
    if isinstance(value, (bytes, bytearray)):
        return bytes(value)
    if isinstance(value, str):
        return value.encode("utf-8")
    raise TypeError(f"{type(value).__name__} is not bytes or text")


def _csv_writer(columns: list[str], delimiter: str) -> Callable[[Any], bytes]:
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter=delimiter, lineterminator="")

    def write(value) -> bytes:
        if isinstance(value, dict):
            value = [value.get(column) for column in columns] if columns else list(value.values())
        elif not isinstance(value, (list, tuple)):
            value = [value]
        buffer.seek(0)
        buffer.truncate()
        writer.writerow(value)
        return buffer.getvalue().encode("utf-8")

    return write


def _avro_writer(schema, framing: bytes) -> Callable[[Any], bytes]:
    from fastavro import schemaless_writer

    def write(value) -> bytes:
        buffer = io.BytesIO()
        buffer.write(framing)
        schemaless_writer(buffer, schema, value)
        return buffer.getvalue()

    return write
