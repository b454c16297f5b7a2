"""Catalog entries of the two-input operators: ``join.interval`` and ``join.window``.

Kept beside ``engine.spec.catalog`` (which appends them to ``OPERATOR_CATALOG``) because
they are the catalog's only operators with two *named* inputs: an edge into a join says
which side it feeds with ``"side": "left" | "right"`` (``INPUT_SIDES``), and validation names
the edge when it does not. Each side has its own hash edge and key expression; records of
the two sides join when their keys are equal.

Late records leave through one port per side, ``late_left`` and ``late_right`` (an edge
with ``"from_port"``, the windows' mechanism), unchanged and with their event times: the
two sides' records usually differ in shape, so one port for both would mix them.

Their ``output`` expression sees the two joined records as ``left`` and ``right``
(``"x-names"``), not ``x``; validation and the runtime compile it with those names.
"""
from __future__ import annotations

from typing import Any

from engine.spec.catalog_schema import EVENT_TIME_NEEDS, EXPRESSION, YEAR_MS, operator_entry, params_object

INPUT_SIDES = ("left", "right")
"""The input ports of a two-input operator, in the order the editor shows them."""
JOIN_NAMES = ("left", "right")
"""The names an ``output`` expression of a join sees."""
JOIN_TYPES = frozenset({"join.interval", "join.window"})
"""The two-input operators this catalog describes."""


def join_operators() -> list[dict[str, Any]]:
    late_ports = [{"name": f"late_{side}", "description": f"{side.capitalize()} records too late to join: the "
                                                          "watermark passed their time plus the allowed lateness "
                                                          "(window join: their windows' ends plus it)."}
                  for side in INPUT_SIDES]

    output = {**EXPRESSION, "x-names": list(JOIN_NAMES), "default": "[left, right]",
              "description": "The joined record, an expression over left and right, for example "
                             "{**left, \"price\": right[\"price\"]}."}
    lateness = {"type": "integer", "minimum": 0, "maximum": YEAR_MS, "default": 0,
                "description": "How far behind the watermark a record may be and still join; state is kept "
                               "that much longer. Later records leave through the late_left / late_right "
                               "ports (or are dropped) and are counted (late_records)."}
    join_type = {"type": "string", "enum": ["inner", "left_outer"], "default": "inner"}
    interval = operator_entry(
        "join.interval", "Interval join",
        "Per key, joins each left record with every right record whose event time lies in "
        "[left time + lower_ms, left time + upper_ms]; a pair leaves when its second record arrives, stamped "
        "with the later of the two times. Left outer: a left record that matched nothing leaves with right = "
        "null once the watermark passes its interval. Each side keeps its records only as long as a later "
        "record of the other side can still match them.",
        params_object({
            "lower_ms": {"type": "integer", "minimum": -YEAR_MS, "maximum": YEAR_MS,
                         "description": "Start of the interval relative to the left record's time (may be negative)."},
            "upper_ms": {"type": "integer", "minimum": -YEAR_MS, "maximum": YEAR_MS,
                         "description": "End of the interval (inclusive), at least lower_ms."},
            "join_type": {**join_type, "description": "inner: only pairs. left_outer: also every left record "
                                                      "without a match, with right = null."},
            "output": output,
            "allowed_lateness_ms": lateness,
        }, ["lower_ms", "upper_ms"]),
        inputs=2, keyed=True, output_ports=late_ports, event_time=EVENT_TIME_NEEDS,
    )
    window = operator_entry(
        "join.window", "Window join",
        "Per key and event-time window (tumbling, or sliding when slide_ms is set), joins every left record "
        "with every right record of the same window when the watermark passes the window's end; each pair is "
        "stamped with the window's end - 1. Left outer: a left record with no right record in a window leaves "
        "with right = null when that window fires. With allowed lateness a fired window keeps its records "
        "that much longer, and a record for it joins the other side at once (only the new pairs leave).",
        params_object({
            "size_ms": {"type": "integer", "minimum": 1, "maximum": YEAR_MS},
            "slide_ms": {"type": "integer", "minimum": 1, "maximum": YEAR_MS,
                         "description": "Sliding windows: a window starts every slide_ms; empty for tumbling."},
            "join_type": {**join_type, "description": "inner: only pairs. left_outer: also every left record "
                                                      "of a window without right records, once per window, with "
                                                      "right = null."},
            "output": output,
            "allowed_lateness_ms": lateness,
        }, ["size_ms"]),
        inputs=2, keyed=True, output_ports=late_ports, event_time=EVENT_TIME_NEEDS,
    )
    for spec in (interval, window):
        spec["input_sides"] = list(INPUT_SIDES)
    return [interval, window]
