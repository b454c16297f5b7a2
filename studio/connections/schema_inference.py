"""A schema inferred from sample messages: the fields an expression over the source's records can use.

Each field is an expression path (``x['value']['user']``) with the JSON types seen there,
in how many samples it was present, and one example. A Kafka source emits records
``{topic, partition, offset, timestamp, key, headers, value}`` (``emit: record``) or the
decoded value alone (``emit: value``); the paths are written for what it emits. Objects are
walked to ``MAX_DEPTH`` levels and at most ``MAX_FIELDS`` paths are kept; arrays are one
field (their items are not walked).
"""
from __future__ import annotations

from typing import Any

MAX_DEPTH = 4
MAX_FIELDS = 200
EXAMPLE_CHARS = 80
RECORD_FIELDS = ("topic", "partition", "offset", "timestamp", "key", "headers", "value")


def type_of(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, dict):
        return "object"
    if isinstance(value, (list, tuple)):
        return "array"
    return type(value).__name__


def infer_fields(records: list[Any]) -> list[dict]:
    """``[{"path", "types", "present", "example"}]`` over ``records`` (what an expression sees as ``x``),
    in the order the paths were first seen."""
    fields: dict[str, dict] = {}
    for record in records:
        _walk(record, "x", 0, fields)
    return list(fields.values())


def _walk(value: Any, path: str, depth: int, fields: dict[str, dict]) -> None:
    if depth > 0:
        field = fields.get(path)
        if field is None:
            if len(fields) >= MAX_FIELDS:
                return
            field = fields[path] = {"path": path, "types": [], "present": 0, "example": None}
        kind = type_of(value)
        if kind not in field["types"]:
            field["types"].append(kind)
        field["present"] += 1
        if field["example"] is None and kind not in ("object", "null"):
            field["example"] = _example(value)
    if isinstance(value, dict) and depth < MAX_DEPTH:
        for key, child in value.items():
            _walk(child, f"{path}[{key!r}]", depth + 1, fields)


def _example(value: Any) -> str:
    import json

    text = json.dumps(value, default=str, ensure_ascii=False)
    return text if len(text) <= EXAMPLE_CHARS else text[:EXAMPLE_CHARS - 1] + "…"


def records_of(messages: list[dict], topic: str, emit: str = "record") -> list[Any]:
    """What a Kafka source would emit for sampled ``messages`` (``engine.api.kafka_sample``'s)."""
    if emit == "value":
        return [message["value"] for message in messages]
    return [{"topic": topic, **{name: message.get(name) for name in RECORD_FIELDS if name != "topic"}}
            for message in messages]
