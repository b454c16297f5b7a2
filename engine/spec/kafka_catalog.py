"""Catalog entries of ``source.kafka`` and ``sink.kafka``, and the checks their schemas cannot state.

Kept apart from ``engine.spec.catalog`` (which appends them to ``OPERATOR_CATALOG``) like
the other operator families. ``bootstrap_servers`` carries ``"x-location": "kafka"``, so the
studio checks it against the Kafka clusters granted to the user; ``avro_schema_file`` is a
path read by sources and sinks alike (``"x-read-only"``: a grant to read it is enough).
"""
from __future__ import annotations

import re
from typing import Any, Iterator

from engine.spec.catalog_schema import DAY_MS, EVENT_TIME_ASSIGNS, EXPRESSION, YEAR_MS, operator_entry, params_object

TUNING_PROPERTIES = frozenset({
    "client.id", "linger.ms", "batch.size", "batch.num.messages", "compression.level", "message.max.bytes",
    "queue.buffering.max.messages", "queue.buffering.max.kbytes", "request.timeout.ms", "socket.timeout.ms",
    "retry.backoff.ms", "retry.backoff.max.ms", "reconnect.backoff.ms", "reconnect.backoff.max.ms",
    "fetch.min.bytes", "fetch.wait.max.ms", "fetch.max.bytes", "max.partition.fetch.bytes",
    "queued.min.messages", "queued.max.messages.kbytes", "topic.metadata.refresh.interval.ms",
    "metadata.max.age.ms", "socket.keepalive.enable", "connections.max.idle.ms",
})
"""librdkafka properties a node may set in ``properties``: throughput and timing, nothing else. A
definition is untrusted input: other properties run commands (``sasl.kerberos.kinit.cmd``), read
files (``ssl.key.location``) or change what the engine relies on (``enable.auto.commit``,
``transactional.id``, ``isolation.level``)."""
FORMATS = ["json", "csv", "avro", "string", "raw"]
KEY_FORMATS = ["string", "json", "raw"]
KAFKA_TYPES = ("source.kafka", "sink.kafka")

BOOTSTRAP = {"type": "string", "minLength": 1, "maxLength": 2000, "x-location": "kafka",
             "description": "The brokers to start from, host:port[,host:port...]."}
TOPIC = {"type": "string", "pattern": r"^[A-Za-z0-9._-]{1,249}$", "description": "A topic name."}
PROPERTIES = {"type": "object", "additionalProperties": {"type": ["string", "integer", "number", "boolean"]},
              "description": "librdkafka tuning properties (linger.ms, batch.size, fetch.max.bytes ...); "
                             "properties that reach files, run commands or change delivery are refused."}


def _formatparams_object() -> dict[str, Any]:
    return {
        "format": {"type": "string", "enum": FORMATS, "default": "json",
                   "description": "How a message value is written: JSON, a CSV row, Avro (schemaless, or with "
                                  "the schema registry's framing), UTF-8 text, or the bytes as they are."},
        "key_format": {"type": "string", "enum": KEY_FORMATS, "default": "string",
                       "description": "How a message key is written."},
        "columns": {"type": "array", "items": {"type": "string", "minLength": 1}, "minItems": 1, "uniqueItems": True,
                    "description": "CSV: the fields of a row, in order."},
        "delimiter": {"type": "string", "minLength": 1, "maxLength": 1, "default": ",",
                      "description": "CSV: the field separator."},
        "avro_schema": {"type": ["object", "string"],
                        "description": "Avro: the schema (a JSON object, or its text)."},
        "avro_schema_file": {"type": "string", "minLength": 1, "x-location": "path", "x-read-only": True,
                             "description": "Avro: a file holding the schema, instead of avro_schema."},
        "avro_framing": {"type": "string", "enum": ["none", "confluent"], "default": "none",
                         "description": "Avro: confluent reads and writes a zero byte and a 4-byte schema id "
                                        "before each value (the schema registry's framing)."},
    }


def kafka_operators() -> list[dict[str, Any]]:
    source = params_object({
        "bootstrap_servers": BOOTSTRAP,
        "topics": {"type": "array", "items": TOPIC, "minItems": 1, "maxItems": 1000, "uniqueItems": True,
                   "description": "The topics to read (or topic_pattern)."},
        "topic_pattern": {"type": "string", "minLength": 1, "maxLength": 1000,
                          "description": "A regular expression: every topic whose whole name matches is read, "
                                         "also topics created while the job runs."},
        "group": {"type": "string", "pattern": r"^[A-Za-z0-9._-]{1,249}$",
                  "description": "Consumer group to commit offsets to when a checkpoint completes (and to start "
                                 "from with start: committed). Empty: no offsets are committed."},
        "start": {"type": "string", "enum": ["earliest", "latest", "timestamp", "committed"], "default": "earliest",
                  "description": "Where partitions start on the first run: their first record, their end, the "
                                 "first record at or after start_timestamp_ms, or the group's committed offset. "
                                 "A restored job goes on from its checkpoint; partitions added later start at "
                                 "their first record."},
        "start_timestamp_ms": {"type": "integer", "minimum": 0, "maximum": 2 ** 53 - 1,
                               "description": "start: timestamp: epoch milliseconds."},
        "committed_fallback": {"type": "string", "enum": ["earliest", "latest"], "default": "earliest",
                               "description": "start: committed: where a partition without a committed offset "
                                              "starts."},
        "bounded": {"type": "boolean", "default": False,
                    "description": "Read up to the end each partition had when the job first started, then end."},
        "discovery_interval_ms": {"type": "integer", "minimum": 0, "maximum": DAY_MS, "default": 10000,
                                  "description": "How often new partitions and topics are looked for; 0: only "
                                                 "at the start."},
        "isolation": {"type": "string", "enum": ["read_committed", "read_uncommitted"], "default": "read_committed",
                      "description": "read_committed skips records of aborted transactions and waits for open "
                                     "ones."},
        "emit": {"type": "string", "enum": ["record", "value"], "default": "record",
                 "description": "record: {topic, partition, offset, timestamp, key, headers, value}; value: the "
                                "decoded value alone."},
        **_formatparams_object(),
        "watermarks": {"type": "boolean", "default": False,
                       "description": "Event time from each record (its Kafka timestamp, or timestamp), with one "
                                      "watermark per partition.",
                       "x-event-time": EVENT_TIME_ASSIGNS},
        "timestamp": {**EXPRESSION, "description": "Event time in epoch milliseconds, over the emitted record x "
                                                   "(watermarks: true). Empty: the Kafka timestamp."},
        "max_out_of_orderness_ms": {"type": "integer", "minimum": 0, "maximum": YEAR_MS, "default": 0,
                                    "description": "How late a record of a partition may be behind the latest one."},
        "idle_timeout_ms": {"type": "integer", "minimum": 0, "maximum": DAY_MS, "default": 0,
                            "description": "A partition without records this long holds event time back no "
                                           "more; 0: it always does."},
        "unavailable_timeout_ms": {"type": "integer", "minimum": 0, "maximum": DAY_MS, "default": 120000,
                                   "description": "A partition whose leader broker stays unreachable this long "
                                                  "fails the job (it restarts from its last checkpoint); 0: wait "
                                                  "for ever."},
        "properties": PROPERTIES,
    }, ["bootstrap_servers"])
    sink = params_object({
        "bootstrap_servers": BOOTSTRAP,
        "topic": {**TOPIC, "x-sink-target": True, "description": "The topic written to (it must exist)."},
        "delivery": {"type": "string", "enum": ["exactly_once", "at_least_once"], "default": "exactly_once",
                     "description": "exactly_once: one Kafka transaction per subtask and checkpoint, committed when "
                                    "the checkpoint completes (read_committed consumers see records then). "
                                    "at_least_once: records are visible at once and may be doubled after a "
                                    "restore."},
        "value": {**EXPRESSION, "description": "The message value, over the record x. Empty: the record."},
        "key": {**EXPRESSION, "description": "The message key, over the record x. Empty: no key."},
        "partition": {**EXPRESSION, "description": "The partition number, over the record x. Empty: by the key's "
                                                   "hash (murmur2, as Kafka's clients), spread without a key."},
        "timestamp": {**EXPRESSION, "description": "The message timestamp in epoch milliseconds. Empty: now."},
        **_formatparams_object(),
        "avro_schema_id": {"type": "integer", "minimum": 0, "maximum": 2 ** 31 - 1, "default": 0,
                           "description": "Avro with the confluent framing: the schema id written before values."},
        "compression": {"type": "string", "enum": ["none", "gzip", "snappy", "lz4", "zstd"], "default": "none"},
        "delivery_timeout_ms": {"type": "integer", "minimum": 1000, "maximum": DAY_MS, "default": 120000,
                                "description": "How long a record may take to be acknowledged before the job fails."},
        "transaction_timeout_ms": {"type": "integer", "minimum": 1000, "maximum": DAY_MS, "default": 900000,
                                   "description": "exactly_once: longer than any checkpoint takes, at most the "
                                                  "brokers' transaction.max.timeout.ms."},
        "properties": PROPERTIES,
    }, ["bootstrap_servers", "topic"])
    return [
        operator_entry("source.kafka", "Kafka source",
                  "Reads Kafka topics (by name or pattern). Partitions are splits handed to the subtasks, new ones "
                  "found while running; offsets are checkpointed and committed to the consumer group when a "
                  "checkpoint completes. JSON, CSV, Avro or text values; per-partition watermarks with idleness.",
                  source, inputs=0),
        operator_entry("sink.kafka", "Kafka sink (exactly-once)",
                  "Writes records to a Kafka topic: exactly once through a Kafka transaction per subtask and "
                  "checkpoint (committed when the checkpoint completes; after a failure the restored checkpoint's "
                  "transactions are committed and the others aborted), or at least once. Key, partition and "
                  "timestamp from expressions.",
                  sink, outputs=0),
    ]


def kafka_param_problems(type_: str, params: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """``(field, message)`` for what a Kafka node's schema cannot say."""
    if type_ not in KAFKA_TYPES or not isinstance(params, dict):
        return
    for message in property_problems(params.get("properties")):
        yield "params.properties", message
    if type_ == "source.kafka":
        yield from _source_problems(params)
    yield from _format_problems(params, type_)


def _source_problems(params: dict[str, Any]) -> Iterator[tuple[str, str]]:
    if bool(params.get("topics")) == bool(params.get("topic_pattern")):
        yield "params.topics", "name the topics to read, or give topic_pattern: exactly one of them"
    pattern = params.get("topic_pattern")
    if isinstance(pattern, str) and pattern:
        try:
            re.compile(pattern)
        except re.error as error:
            yield "params.topic_pattern", f"not a regular expression: {error}"
    if params.get("start") == "timestamp" and "start_timestamp_ms" not in params:
        yield "params.start_timestamp_ms", "start: timestamp needs start_timestamp_ms"
    if params.get("start") == "committed" and not params.get("group"):
        yield "params.group", "start: committed needs the consumer group whose offsets to start from"
    if not params.get("watermarks"):
        for name in ("timestamp", "max_out_of_orderness_ms", "idle_timeout_ms"):
            if params.get(name):  # set to something; a normalised definition holds the defaults (0)
                yield f"params.{name}", f"{name} is used only with watermarks: true"


def _format_problems(params: dict[str, Any], type_: str) -> Iterator[tuple[str, str]]:
    kind = params.get("format", "json")
    if kind == "csv" and not params.get("columns") and type_ == "source.kafka":
        yield "params.columns", "the csv format needs columns: the names of a row's fields"
    if kind != "avro":
        for name in ("avro_schema", "avro_schema_file"):
            if name in params:
                yield "params.format", f"{name} is set, but the format is {kind}: the schema is used by avro only"
        return
    if bool(params.get("avro_schema")) == bool(params.get("avro_schema_file")):
        yield "params.avro_schema", "the avro format needs the schema: avro_schema or avro_schema_file, one of them"
    elif params.get("avro_schema"):
        try:
            parse_avro_schema(params["avro_schema"])
        except ValueError as error:
            yield "params.avro_schema", str(error)


def property_problems(properties) -> list[str]:
    """What is wrong with a node's ``properties``."""
    if not isinstance(properties, dict):
        return []
    return [f"{name!r} is not a property a pipeline may set; allowed: {', '.join(sorted(TUNING_PROPERTIES))}"
            for name in properties if name not in TUNING_PROPERTIES]


def parse_avro_schema(schema) -> Any:
    """fastavro's parsed form of an Avro schema given as a JSON object or its text (ValueError if bad)."""
    import json

    import fastavro

    if isinstance(schema, str):
        try:
            schema = json.loads(schema)
        except json.JSONDecodeError as error:
            raise ValueError(f"the Avro schema is not JSON: {error}") from None
    try:
        return fastavro.parse_schema(schema)
    except Exception as error:  # fastavro raises several kinds for a bad schema
        raise ValueError(f"the Avro schema is not valid: {error}") from None
