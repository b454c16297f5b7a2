"""The building blocks of catalog entries: an entry (``operator_entry``), a closed parameter
schema (``params_object``), and the parameter schemas and bounds several operators share.

``engine.spec.catalog`` and the catalogs of the operator families beside it
(``connector_catalog``, ``window_catalog``, ``join_catalog``, ``python_catalog``) build
their entries from these; the catalog appends the families' entries to ``OPERATOR_CATALOG``.

Keys beyond JSON Schema's start with ``x-``: ``x-location`` and ``x-sink-target`` (below),
``x-event-time`` (``engine.spec.event_time``), ``x-names`` (the names an expression sees), and
``x-empty-means``: what leaving a nullable parameter empty means (datagen's count:
``"unbounded"``), which the editor shows in the empty input.
"""
from __future__ import annotations

from typing import Any

EXPRESSION = {"type": "string", "format": "expression", "minLength": 1}
REDIS_URL = {"type": "string", "x-location": "redis", "description": "Redis URL; the studio's Redis when empty."}
"""Parameters naming a location carry ``"x-location"``: ``path`` | ``url`` | ``redis`` | ``postgres``,
so that the studio can check them against what the user may reach. A sink's parameter that
names what it writes inside a server's location (a Redis stream, a PostgreSQL table) carries
``"x-sink-target": true``: the studio lets one pipeline own it."""
AGGREGATE_FUNCTIONS = ["sum", "count", "min", "max"]

# Every number a parameter takes has a maximum: a definition is untrusted input, and a
# count of 10^30 or a window of 10^30 ms is a mistake or an attack, never a pipeline.
DAY_MS = 86_400_000
YEAR_MS = 365 * DAY_MS
SAFE_INTEGER = 2 ** 53 - 1
"""The largest integer a browser holds exactly (JavaScript numbers are doubles)."""
MAX_COUNT = 10 ** 12
MAX_RATE = 10_000_000
MAX_BATCH = 100_000


def unbounded_numbers(schema: Any, path: str = "") -> list[str]:
    """The paths of the integers and numbers in a parameter schema that have no maximum (none in
    the catalog; ``register_operator_spec`` refuses a plugin with one)."""
    if not isinstance(schema, dict):
        return []
    kinds = schema.get("type")
    kinds = kinds if isinstance(kinds, list) else [kinds]
    found = [path] if ("integer" in kinds or "number" in kinds) and "maximum" not in schema else []
    for name, child in (schema.get("properties") or {}).items():
        found += unbounded_numbers(child, f"{path}.{name}".lstrip("."))
    for key, suffix in (("items", "[]"), ("additionalProperties", ".*")):
        found += unbounded_numbers(schema.get(key), f"{path}{suffix}")
    return found


EVENT_TIME_NEEDS = "needs"
EVENT_TIME_ASSIGNS = "assigns"
"""The two ways an operator relates to event time: it needs it on every input (windows, joins,
deduplication), or it assigns it (watermark nodes). A parameter schema with ``"x-event-time"``
set to one of them makes the operator do so while the parameter is set (a positive number, or
true): a state TTL needs event time, a Kafka source with ``watermarks`` assigns it."""


def params_object(properties: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    """A closed JSON Schema object: unknown parameters are errors, not silently ignored."""
    return {
        "type": "object",
        "properties": properties,
        "required": required or [],
        "additionalProperties": False,
    }


def operator_entry(
    type_: str,
    title: str,
    description: str,
    params_schema: dict[str, Any],
    *,
    inputs: int | str = 1,
    outputs: int = 1,
    keyed: bool = False,
    stateful: bool = False,
    output_ports: list[dict[str, str]] | None = None,
    event_time: str | None = None,
) -> dict[str, Any]:
    """One catalog entry. ``event_time`` says how the operator relates to event time (see
    ``engine.spec.event_time``): ``"needs"`` (every record it takes must carry an event time),
    ``"assigns"`` (it stamps its records) or None; a parameter that makes it need or assign
    event time only when set says so in its schema with ``"x-event-time"``."""
    assert event_time in (None, EVENT_TIME_NEEDS, EVENT_TIME_ASSIGNS), event_time
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
        "output_ports": list(output_ports or []),
        "event_time": event_time,
    }


LATE_PORT = {"name": "late", "description": "Records too late for their window: the watermark passed "
                                            "the window's end (plus the allowed lateness) before they came."}
"""The second, named output port of event-time windows and joins. An edge leaves it with
``"from_port": "late"``; its records are the late input records, unchanged, with their event time.
Operators without ports emit only on their main output (an edge without ``from_port``)."""


ALLOWED_LATENESS = {"type": "integer", "minimum": 0, "maximum": YEAR_MS, "default": 0,
                    "description": "A window that fired keeps its state this long (in event time) after its "
                                   "end: a record for it meanwhile updates it and it fires again. Later records "
                                   "are late: counted, and sent to the late port when an edge leaves it."}

STATE_TTL = {"type": "integer", "minimum": 0, "maximum": YEAR_MS,
             "description": "A key's state expires this long (in event time) after its latest record: a later "
                            "record starts afresh, and keys that stop appearing are removed when the watermark "
                            "passes (counted as expired_keys). Needs event time. Empty or 0: never.",
             "x-event-time": "needs"}

AGGREGATION = {
    "function": {"type": "string", "enum": AGGREGATE_FUNCTIONS, "default": "sum",
                 "description": "How values of one key are combined."},
    "value": {**EXPRESSION, "default": "x", "description": "The value aggregated per record."},
}
