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

from engine.spec.catalog_schema import (AGGREGATION, ALLOWED_LATENESS, DAY_MS, EVENT_TIME_ASSIGNS, EVENT_TIME_NEEDS,
                                        EXPRESSION, LATE_PORT, MAX_BATCH, MAX_COUNT, MAX_RATE, REDIS_URL, SAFE_INTEGER, STATE_TTL, YEAR_MS,
                                        operator_entry, params_object, unbounded_numbers)
from engine.spec.connector_catalog import connector_operators
from engine.spec.join_catalog import join_operators
from engine.spec.kafka_catalog import kafka_operators
from engine.spec.python_catalog import python_operators
from engine.spec.window_catalog import window_operators

_FAILURE_POLICY = {"type": "string", "enum": ["fail", "drop", "default"], "default": "fail"}

_ASYNC_IO = {
    "field": {"type": "string", "minLength": 1, "default": "value",
              "description": "Name of the looked-up value in a dict record."},
    "capacity": {"type": "integer", "minimum": 1, "maximum": MAX_BATCH, "default": 100,
                 "description": "Most records in the operator at once: calls in flight, or completed and "
                                "waiting to be emitted. A full operator holds back its input (backpressure)."},
    "timeout_ms": {"type": ["integer", "null"], "minimum": 0, "maximum": DAY_MS, "default": 10000,
                   "description": "Per record, all attempts and retry delays together; 0 or empty for none."},
    "output_mode": {"type": "string", "enum": ["ordered", "unordered"], "default": "ordered",
                    "description": "ordered: records leave in input order. unordered: as their lookups "
                                   "complete, but never across a watermark."},
    "retry": {"type": "string", "enum": ["none", "fixed_delay", "exponential_backoff"], "default": "none",
              "description": "Whether and how a failed lookup (or one matching retry_if) is tried again."},
    "retry_max_attempts": {"type": "integer", "minimum": 1, "maximum": 1000, "default": 3,
                           "description": "Attempts per record, the first one included."},
    "retry_delay_ms": {"type": "integer", "minimum": 0, "maximum": DAY_MS, "default": 100,
                       "description": "The fixed delay, or the first delay of the exponential backoff."},
    "retry_multiplier": {"type": "number", "minimum": 1, "maximum": 100, "default": 2.0,
                         "description": "Exponential backoff: each delay is the previous one times this."},
    "retry_max_delay_ms": {"type": "integer", "minimum": 0, "maximum": DAY_MS, "default": 10000,
                           "description": "Exponential backoff: the longest delay."},
    "retry_on_error": {"type": "boolean", "default": True, "description": "Retry lookups that raised an error."},
    "retry_if": {**EXPRESSION, "description": "Also retry when this is true of the record the lookup would emit, "
                                              "for example x[\"value\"] is None (x[1] is None for non-dict records)."},
    "on_timeout": {**_FAILURE_POLICY, "description": "When a record's lookup timed out: fail the job (it restarts "
                                                     "from its last checkpoint), drop the record, or emit it with "
                                                     "default_value. Drops and defaults are counted in the metrics."},
    "on_error": {**_FAILURE_POLICY, "description": "When a record's lookup failed after its last attempt: fail, "
                                                   "drop or default, as for on_timeout."},
    "default_value": {"default": None, "description": "The value used by on_timeout / on_error \"default\" (JSON)."},
}
"""The parameters every async lookup shares (``engine.runtime.operators.async_io.settings``)."""

_LOOKUP_OUTPUT = ("Each record leaves enriched: a dict record as {**x, field: value}, any other record as "
                  "[x, value]; the value is null when nothing was found. Lookups run concurrently (up to "
                  "`capacity`); the ones in flight are checkpointed and issued again after a restore, so every "
                  "record is emitted exactly once.")

OPERATOR_CATALOG: list[dict[str, Any]] = [
    operator_entry(
        "source.datagen", "Sequence generator",
        "Emits the numbers start, start+1, ... split across subtasks; bounded when `count` is set, "
        "rate-limited when `rate` is set. An optional expression turns each number x into a record.",
        params_object({
            "count": {"type": ["integer", "null"], "minimum": 0, "maximum": MAX_COUNT, "default": None,
                      "x-empty-means": "unbounded",
                      "description": "Total records over all subtasks; empty for an unbounded stream."},
            "rate": {"type": "number", "minimum": 0, "maximum": MAX_RATE, "default": 0,
                     "description": "Records per second over all subtasks; 0 for as fast as possible."},
            "start": {"type": "integer", "minimum": -SAFE_INTEGER, "maximum": SAFE_INTEGER, "default": 0,
                      "description": "First number of the sequence."},
            "expression": {**EXPRESSION, "description": "Optional: the record made from number x."},
        }),
        inputs=0,
    ),
    operator_entry(
        "source.file", "File source",
        "Reads CSV (one dict per row, header first) or JSON-lines files below a path, in byte-range splits "
        "handed to whichever subtask asks next; the read position is checkpointed.",
        params_object({
            "path": {"type": "string", "minLength": 1, "x-location": "path",
                     "description": "A file, a directory or a glob; a URL works."},
            "format": {"type": "string", "enum": ["jsonl", "csv"], "default": "jsonl"},
            "split_bytes": {"type": "integer", "minimum": 1, "maximum": 1 << 40, "default": 4 << 20,
                            "description": "Bytes per split (about; at most 10,000 splits per source). Subtasks "
                                           "ask for splits as they go, so a faster one reads more."},
        }, ["path"]),
        inputs=0,
    ),
    operator_entry(
        "source.redis_stream", "Redis Streams source",
        "Reads entries of a Redis stream; the last stream id read is checkpointed. With a consumer group, "
        "every subtask is a consumer and entries are acknowledged (XACK) when a checkpoint covering them "
        "completes.",
        params_object({
            "stream": {"type": "string", "minLength": 1},
            "url": REDIS_URL,
            "group": {"type": "string", "minLength": 1,
                      "description": "Read as this consumer group (created at the stream's start when missing); "
                                     "empty: one subtask reads the whole stream."},
            "batch_size": {"type": "integer", "minimum": 1, "maximum": MAX_BATCH, "default": 500},
            "bounded": {"type": "boolean", "default": False,
                        "description": "Stop at the stream's last entry when the job started."},
        }, ["stream"]),
        inputs=0,
    ),
    operator_entry(
        "source.hybrid", "Hybrid source (files, then Redis Streams)",
        "Backfill, then live: reads the history from files (like the file source), then continues with a "
        "Redis stream right after the recorded position `start_id`. Both positions are checkpointed, so the "
        "switch happens exactly once, also across a restore in either phase.",
        params_object({
            "path": {"type": "string", "minLength": 1, "x-location": "path",
                     "description": "History: a file, a directory or a glob; a URL works."},
            "format": {"type": "string", "enum": ["jsonl", "csv"], "default": "jsonl"},
            "stream": {"type": "string", "minLength": 1, "description": "Live data: the Redis stream."},
            "start_id": {"type": "string", "pattern": r"^(\$|\d+(-\d+)?)$", "default": "$",
                         "description": "The stream id the history ends with: live data starts right after it. "
                                        "$: the stream's last entry when the job first started."},
            "url": REDIS_URL,
            "batch_size": {"type": "integer", "minimum": 1, "maximum": MAX_BATCH, "default": 500},
            "bounded": {"type": "boolean", "default": False,
                        "description": "Stop at the stream's last entry when the job started."},
        }, ["path", "stream"]),
        inputs=0,
    ),
    operator_entry(
        "transform.map", "Map", "Replaces each record by the value of an expression over x.",
        params_object({"expression": {**EXPRESSION, "description": "For example x * 2 or {\"user\": x % 10}."}},
                ["expression"]),
    ),
    operator_entry(
        "transform.filter", "Filter", "Keeps the records for which the predicate is true.",
        params_object({"predicate": {**EXPRESSION, "description": "For example x % 3 != 0."}}, ["predicate"]),
    ),
    operator_entry(
        "transform.flat_map", "Flat map", "Replaces each record by the elements of a list expression.",
        params_object({"expression": {**EXPRESSION, "description": "For example [x, x + 1]."}}, ["expression"]),
    ),
    operator_entry(
        "transform.union", "Union", "Merges several inputs of the same kind into one stream.",
        params_object({}), inputs="many",
    ),
    operator_entry(
        "transform.watermark", "Watermarks",
        "Assigns event time from an expression and emits watermarks with bounded out-of-orderness.",
        params_object({
            "timestamp": {**EXPRESSION, "description": "Event time in milliseconds, for example x[\"ts\"]."},
            "max_out_of_orderness_ms": {"type": "integer", "minimum": 0, "maximum": YEAR_MS, "default": 0},
            "idle_timeout_ms": {"type": "integer", "minimum": 0, "maximum": YEAR_MS, "default": 0,
                                "description": "Without records for this long, the subtask stops holding "
                                               "event time back downstream (0: never)."},
            "alignment_max_drift_ms": {
                "type": ["integer", "null"], "minimum": 0, "maximum": YEAR_MS, "default": None,
                "description": "Watermark alignment: a source subtask whose watermark runs this far ahead of "
                               "the slowest one in its group pauses reading until that one caught up, so "
                               "windows and joins downstream keep less state. Acts where this node is chained "
                               "to its source. 0: off; empty: 10 s where a file or Parquet source read by "
                               "several subtasks (a backfill) feeds a session window or a join, off "
                               "elsewhere."},
            "alignment_group": {"type": "string", "maxLength": 100, "default": "",
                                "description": "Sources aligned together (empty: this node's own subtasks)."},
            "alignment_update_interval_ms": {
                "type": "integer", "minimum": 1, "maximum": 60_000, "default": 10,
                "description": "How often at most a source subtask reports its watermark for alignment."},
        }, ["timestamp"]),
        event_time=EVENT_TIME_ASSIGNS,
    ),
    operator_entry(
        "aggregate.reduce", "Keyed running aggregate",
        "Per key (from the hash edge feeding it), emits [key, aggregate] after every record; in batch mode "
        "only each key's final aggregate, once, when the input ended.",
        params_object({**AGGREGATION, "state_ttl_ms": STATE_TTL}), keyed=True,
    ),
    operator_entry(
        "window.tumbling", "Tumbling window",
        "Per key, aggregates event-time windows of a fixed size; emits [key, window_end, aggregate] "
        "when the watermark passes the window's end.",
        params_object({"size_ms": {"type": "integer", "minimum": 1, "maximum": YEAR_MS}, **AGGREGATION,
                 "allowed_lateness_ms": ALLOWED_LATENESS}, ["size_ms"]),
        keyed=True, output_ports=[LATE_PORT], event_time=EVENT_TIME_NEEDS,
    ),
    operator_entry(
        "window.sliding", "Sliding window",
        "Per key, aggregates event-time windows of `size_ms` starting every `slide_ms`; emits "
        "[key, window_end, aggregate] when the watermark passes the window's end.",
        params_object({"size_ms": {"type": "integer", "minimum": 1, "maximum": YEAR_MS},
                 "slide_ms": {"type": "integer", "minimum": 1, "maximum": YEAR_MS},
                 **AGGREGATION, "allowed_lateness_ms": ALLOWED_LATENESS}, ["size_ms", "slide_ms"]), keyed=True,
        output_ports=[LATE_PORT], event_time=EVENT_TIME_NEEDS,
    ),
    operator_entry(
        "sink.collect", "Collect (preview)", "Keeps the last N records of each subtask for preview.",
        params_object({"max_records": {"type": "integer", "minimum": 1, "maximum": MAX_BATCH, "default": 100}}),
        outputs=0,
    ),
    operator_entry(
        "sink.file", "File sink (exactly-once)",
        "Writes JSON lines with two-phase commit: files become visible when the checkpoint that "
        "covers them completes.",
        params_object({"path": {"type": "string", "minLength": 1, "x-location": "path",
                          "description": "Target directory; a URL works."}},
                ["path"]),
        outputs=0,
    ),
    operator_entry(
        "sink.redis_stream", "Redis Streams sink",
        "Appends each record as a stream entry. Exactly once by default: a checkpoint's entries are staged "
        "beside the stream and appended when it completes.",
        params_object({
            "stream": {"type": "string", "minLength": 1, "x-sink-target": True},
            "url": REDIS_URL,
            "delivery": {"type": "string", "enum": ["exactly_once", "at_least_once"], "default": "exactly_once",
                         "description": "exactly_once: entries appear when their checkpoint completes. "
                                        "at_least_once: at once, but written again after a restore."},
        }, ["stream"]),
        outputs=0,
    ),
    operator_entry(
        "lookup.redis", "Redis lookup",
        "Looks up a Redis key per record (GET, or HGETALL for a hash) with an async client. " + _LOOKUP_OUTPUT,
        params_object({
            "key": {**EXPRESSION, "description": "The Redis key, for example f\"user:{x['user']}\"."},
            "command": {"type": "string", "enum": ["get", "hgetall"], "default": "get",
                        "description": "get: a string value; hgetall: a hash, as a dict."},
            "decode": {"type": "string", "enum": ["string", "json"], "default": "string",
                       "description": "get: keep the value as a string or parse it as JSON."},
            "url": REDIS_URL,
            **_ASYNC_IO,
        }, ["key"]),
        stateful=True,
    ),
    operator_entry(
        "lookup.http", "HTTP lookup",
        "Calls an HTTP service per record (GET, or POST with a JSON body) with an async client; the answer "
        "(JSON or text) is the value, 404 means not found, other error statuses are errors. " + _LOOKUP_OUTPUT,
        params_object({
            "url": {**EXPRESSION, "x-location": "url", "description": "The address, usually an f-string: "
                                                 "f\"http://users.internal/profiles/{x['user']}\"."},
            "method": {"type": "string", "enum": ["GET", "POST"], "default": "GET"},
            "body": {**EXPRESSION, "default": "x", "description": "POST: the JSON body sent for record x."},
            "headers": {"type": "object", "additionalProperties": {"type": "string"}, "default": {},
                        "x-http-headers": True,
                        "description": "Request headers, for example {\"Authorization\": \"Bearer ...\"}; "
                                       "not Host: the address decides where the request goes."},
            "response": {"type": "string", "enum": ["json", "text"], "default": "json",
                         "description": "Parse the answer as JSON or keep it as text."},
            **_ASYNC_IO,
        }, ["url"]),
        stateful=True,
    ),
]

for family in (connector_operators, window_operators, join_operators, python_operators, kafka_operators):
    OPERATOR_CATALOG.extend(family())

_BY_TYPE = {spec["type"]: spec for spec in OPERATOR_CATALOG}


def register_operator_spec(spec: dict[str, Any]) -> None:
    """Add an operator type to the catalog at run time (a plugin: ``engine.api.register_operator``).

    ``spec`` has the catalog entries' keys (``operator_entry`` makes one); a type of the catalog's
    own cannot be replaced, a plugin's can (registering it again is harmless). Every number a
    plugin takes needs a maximum, as the catalog's own do: a definition is untrusted input."""
    type_ = spec["type"]
    known = _BY_TYPE.get(type_)
    if known is not None and known.get("plugin") is not True:
        raise ValueError(f"operator type '{type_}' is the catalog's own")
    unbounded = unbounded_numbers(spec["params_schema"])
    if unbounded:
        raise ValueError(f"operator type '{type_}': params.{', params.'.join(unbounded)} "
                         f"{'has' if len(unbounded) == 1 else 'have'} no maximum")
    entry = {**spec, "plugin": True}
    if known is not None:
        OPERATOR_CATALOG[OPERATOR_CATALOG.index(known)] = entry
    else:
        OPERATOR_CATALOG.append(entry)
    _BY_TYPE[type_] = entry


def output_port_names(spec: dict[str, Any]) -> list[str]:
    """The names of an operator's extra output ports (the main output has none)."""
    return [port["name"] for port in spec.get("output_ports", ())]


def operator_spec(type_: str) -> dict[str, Any] | None:
    """Return the catalog entry of an operator type, or None when the type is unknown."""
    return _BY_TYPE.get(type_)


def expression_fields(spec: dict[str, Any]) -> list[str]:
    """Return the names of the parameters of an operator that hold expressions."""
    properties = spec["params_schema"]["properties"]
    return [name for name, schema in properties.items() if schema.get("format") == "expression"]


def expression_names(spec: dict[str, Any], field: str) -> tuple[str, ...]:
    """Return the names an expression parameter sees: ``x``, unless its schema says ``"x-names"``."""
    return tuple(spec["params_schema"]["properties"][field].get("x-names", ("x",)))


def expression_map_fields(spec: dict[str, Any]) -> list[str]:
    """Return the names of the parameters that map names to expressions (``sink.postgres`` columns)."""
    properties = spec["params_schema"]["properties"]
    return [name for name, schema in properties.items()
            if isinstance(schema.get("additionalProperties"), dict)
            and schema["additionalProperties"].get("format") == "expression"]


def params_with_defaults(spec: dict[str, Any], params: dict[str, Any]) -> dict[str, Any]:
    """Return ``params`` completed with the schema's defaults."""
    properties = spec["params_schema"]["properties"]
    merged = {name: schema["default"] for name, schema in properties.items() if "default" in schema}
    merged.update(params)
    return merged
