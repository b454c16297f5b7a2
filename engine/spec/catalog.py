"""The operator catalog: every operator type a pipeline may use, with its parameter schema.

One source of truth: ``GET /api/operators`` serves this list, the browser builds its
palette and parameter forms from it, validation checks ``params`` against it, and the
runtime builds operators by ``type``. Parameters holding an expression carry
``"format": "expression"`` so that validation compiles them and the editor can show them
as code.

Records are plain Python values. Expressions see the current record as ``x``: a number
from ``source.datagen``, a dict after a map such as ``{"user": x % 10, "amount": x}``,
a ``[key, value]`` pair from keyed aggregations.
"""
from __future__ import annotations

from typing import Any

EXPRESSION = {"type": "string", "format": "expression", "minLength": 1}
AGGREGATE_FUNCTIONS = ["sum", "count", "min", "max"]


def _params(properties: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    """A closed JSON Schema object: unknown parameters are errors, not silently ignored."""
    return {
        "type": "object",
        "properties": properties,
        "required": required or [],
        "additionalProperties": False,
    }


def _operator(
    type_: str,
    title: str,
    description: str,
    params_schema: dict[str, Any],
    *,
    inputs: int | str = 1,
    outputs: int = 1,
    keyed: bool = False,
    stateful: bool = False,
) -> dict[str, Any]:
    category = type_.split(".", 1)[0]
    return {
        "type": type_,
        "category": category,
        "title": title,
        "description": description,
        "inputs": inputs,
        "outputs": outputs,
        "source": category == "source",
        "sink": category == "sink",
        "keyed": keyed,
        "stateful": stateful or keyed or category in ("source", "sink"),
        "params_schema": params_schema,
    }


_AGGREGATION = {
    "function": {"type": "string", "enum": AGGREGATE_FUNCTIONS, "default": "sum",
                 "description": "How values of one key are combined."},
    "value": {**EXPRESSION, "default": "x", "description": "The value aggregated per record."},
}

OPERATOR_CATALOG: list[dict[str, Any]] = [
    _operator(
        "source.datagen", "Sequence generator",
        "Emits the numbers start, start+1, ... split across subtasks; bounded when `count` is set, "
        "rate-limited when `rate` is set. An optional expression turns each number x into a record.",
        _params({
            "count": {"type": ["integer", "null"], "minimum": 0, "default": 1000,
                      "description": "Total records over all subtasks; empty for an unbounded stream."},
            "rate": {"type": "number", "minimum": 0, "default": 0,
                     "description": "Records per second over all subtasks; 0 for as fast as possible."},
            "start": {"type": "integer", "default": 0, "description": "First number of the sequence."},
            "expression": {**EXPRESSION, "description": "Optional: the record made from number x."},
        }),
        inputs=0,
    ),
    _operator(
        "source.file", "File source",
        "Reads CSV (one dict per row, header first) or JSON-lines files below a path, split by file; "
        "the read position is checkpointed.",
        _params({
            "path": {"type": "string", "minLength": 1, "description": "A file, a directory or a glob; a URL works."},
            "format": {"type": "string", "enum": ["jsonl", "csv"], "default": "jsonl"},
        }, ["path"]),
        inputs=0,
    ),
    _operator(
        "source.redis_stream", "Redis Streams source",
        "Reads entries of a Redis stream; the last stream id read is checkpointed.",
        _params({
            "stream": {"type": "string", "minLength": 1},
            "url": {"type": "string", "description": "Redis URL; the studio's Redis when empty."},
            "batch_size": {"type": "integer", "minimum": 1, "default": 500},
            "bounded": {"type": "boolean", "default": False,
                        "description": "Stop at the stream's last entry when the job started."},
        }, ["stream"]),
        inputs=0,
    ),
    _operator(
        "transform.map", "Map", "Replaces each record by the value of an expression over x.",
        _params({"expression": {**EXPRESSION, "description": "For example x * 2 or {\"user\": x % 10}."}},
                ["expression"]),
    ),
    _operator(
        "transform.filter", "Filter", "Keeps the records for which the predicate is true.",
        _params({"predicate": {**EXPRESSION, "description": "For example x % 3 != 0."}}, ["predicate"]),
    ),
    _operator(
        "transform.flat_map", "Flat map", "Replaces each record by the elements of a list expression.",
        _params({"expression": {**EXPRESSION, "description": "For example [x, x + 1]."}}, ["expression"]),
    ),
    _operator(
        "transform.union", "Union", "Merges several inputs of the same kind into one stream.",
        _params({}), inputs="many",
    ),
    _operator(
        "transform.watermark", "Watermarks",
        "Assigns event time from an expression and emits watermarks with bounded out-of-orderness.",
        _params({
            "timestamp": {**EXPRESSION, "description": "Event time in milliseconds, for example x[\"ts\"]."},
            "max_out_of_orderness_ms": {"type": "integer", "minimum": 0, "default": 0},
        }, ["timestamp"]),
    ),
    _operator(
        "aggregate.reduce", "Keyed running aggregate",
        "Per key (from the hash edge feeding it), emits [key, aggregate] after every record.",
        _params(_AGGREGATION), keyed=True,
    ),
    _operator(
        "window.tumbling", "Tumbling window",
        "Per key, aggregates event-time windows of a fixed size; emits [key, window_end, aggregate] "
        "when the watermark passes the window's end.",
        _params({"size_ms": {"type": "integer", "minimum": 1}, **_AGGREGATION}, ["size_ms"]), keyed=True,
    ),
    _operator(
        "window.sliding", "Sliding window",
        "Per key, aggregates event-time windows of `size_ms` starting every `slide_ms`; emits "
        "[key, window_end, aggregate] when the watermark passes the window's end.",
        _params({"size_ms": {"type": "integer", "minimum": 1}, "slide_ms": {"type": "integer", "minimum": 1},
                 **_AGGREGATION}, ["size_ms", "slide_ms"]), keyed=True,
    ),
    _operator(
        "sink.collect", "Collect (preview)", "Keeps the last N records of each subtask for preview.",
        _params({"max_records": {"type": "integer", "minimum": 1, "maximum": 100000, "default": 100}}),
        outputs=0,
    ),
    _operator(
        "sink.file", "File sink (exactly-once)",
        "Writes JSON lines with two-phase commit: files become visible when the checkpoint that "
        "covers them completes.",
        _params({"path": {"type": "string", "minLength": 1, "description": "Target directory; a URL works."}},
                ["path"]),
        outputs=0,
    ),
    _operator(
        "sink.redis_stream", "Redis Streams sink", "Appends each record as a stream entry.",
        _params({
            "stream": {"type": "string", "minLength": 1},
            "url": {"type": "string", "description": "Redis URL; the studio's Redis when empty."},
        }, ["stream"]),
        outputs=0,
    ),
]

_BY_TYPE = {spec["type"]: spec for spec in OPERATOR_CATALOG}


def operator_spec(type_: str) -> dict[str, Any] | None:
    """Return the catalog entry of an operator type, or None when the type is unknown."""
    return _BY_TYPE.get(type_)


def expression_fields(spec: dict[str, Any]) -> list[str]:
    """Return the names of the parameters of an operator that hold expressions."""
    properties = spec["params_schema"]["properties"]
    return [name for name, schema in properties.items() if schema.get("format") == "expression"]


def params_with_defaults(spec: dict[str, Any], params: dict[str, Any]) -> dict[str, Any]:
    """Return ``params`` completed with the schema's defaults."""
    properties = spec["params_schema"]["properties"]
    merged = {name: schema["default"] for name, schema in properties.items() if "default" in schema}
    merged.update(params)
    return merged
