"""Catalog entries of the keyed, timer-driven operators beyond tumbling and sliding windows.

``window.session``, ``window.count`` and ``transform.deduplicate`` live here, apart from
``engine.spec.catalog`` (which appends them to ``OPERATOR_CATALOG``), so that other
operator families can grow the catalog in their own modules without touching each other.
"""
from __future__ import annotations

from typing import Any

from engine.spec.catalog_schema import (AGGREGATION, ALLOWED_LATENESS, EVENT_TIME_NEEDS, LATE_PORT, STATE_TTL, YEAR_MS,
                                        operator_entry, params_object)

MAX_RECORDS_PER_WINDOW = 1_000_000
"""The largest count window: its records of one key are held in state until it fires."""


def window_operators() -> list[dict[str, Any]]:
    dedup_late = {**LATE_PORT, "description": "Records whose key's TTL the watermark may have ended already: "
                                              "whether they are duplicates cannot be told any more."}
    return [
        operator_entry(
            "window.session", "Session window",
            "Per key, groups records into sessions of activity: a record opens a window [t, t + gap_ms), and "
            "windows of one key that touch or overlap merge. Emits [key, session_start, session_end, aggregate] "
            "when the watermark passes the session's end.",
            params_object({"gap_ms": {"type": "integer", "minimum": 1, "maximum": YEAR_MS,
                                "description": "A session ends after this long without a record of its key."},
                     **AGGREGATION, "allowed_lateness_ms": ALLOWED_LATENESS}, ["gap_ms"]),
            keyed=True, output_ports=[LATE_PORT], event_time=EVENT_TIME_NEEDS,
        ),
        operator_entry(
            "window.count", "Count window",
            "Per key, aggregates every `size` records into [key, aggregate]. With `slide`, emits every `slide` "
            "records the aggregate of the last `size` (fewer at the start). A window still short of its records "
            "at the end of the input is not emitted.",
            params_object({"size": {"type": "integer", "minimum": 1, "maximum": MAX_RECORDS_PER_WINDOW,
                              "description": "Records per window."},
                     "slide": {"type": ["integer", "null"], "minimum": 1, "maximum": MAX_RECORDS_PER_WINDOW,
                               "default": None, "description": "Emit every this many records (empty: size)."},
                     **AGGREGATION, "state_ttl_ms": STATE_TTL}, ["size"]),
            keyed=True,
        ),
        operator_entry(
            "transform.deduplicate", "Deduplicate",
            "Per key, one record per time-to-live in event time: the first record of a key opens a TTL "
            "[t, t + ttl_ms); the key's later records before its end are duplicates. keep first: that first "
            "record leaves at once. keep last: the TTL's last record leaves when the TTL ends.",
            params_object({"ttl_ms": {"type": "integer", "minimum": 1, "maximum": YEAR_MS,
                                "description": "How long (in event time) a key's first record makes its "
                                               "later ones duplicates."},
                     "keep": {"type": "string", "enum": ["first", "last"], "default": "first",
                              "description": "first: emit the first record at once. last: emit the last "
                                             "record of each TTL when it ends."}}, ["ttl_ms"]),
            keyed=True, output_ports=[dedup_late], event_time=EVENT_TIME_NEEDS,
        ),
    ]
