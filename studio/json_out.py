"""JSON that leaves the studio (REST answers, socket messages) is JSON, whatever the data holds.

Python's ``json`` writes two things that are not JSON text, or cannot be sent as UTF-8:
non-finite floats (``NaN``, ``Infinity``: a record of a user's pipeline may hold them) and
lone surrogates (a record decoded with ``surrogateescape``). Here non-finite floats become
the strings ``"NaN"``, ``"Infinity"`` and ``"-Infinity"`` (as protobuf's JSON mapping writes
them), and lone surrogates are escaped (``"\\udc80"``, which JSON allows). Data without
them costs one ordinary ``json.dumps``; only data that holds one pays a second pass.

What the studio stores is JSON too: a run's events are stored with their non-finite floats
named (``studio.runs.events``; SQLite's and PostgreSQL's JSON refuse the tokens), and
request bodies holding lone surrogates are refused when they are read (``studio.api.parsers``).
"""
from __future__ import annotations

import json
import math
from typing import Any

NON_FINITE = {math.inf: "Infinity", -math.inf: "-Infinity"}


def finite(value: Any) -> Any:
    """``value`` with every non-finite float (in dicts, lists and tuples) replaced by its name; ``value``
    itself, not a copy, when it holds none."""
    if isinstance(value, float):
        if math.isfinite(value):
            return value
        return "NaN" if math.isnan(value) else NON_FINITE[value]
    if isinstance(value, dict):
        changed = None
        for key, item in value.items():
            named = finite(item)
            if named is not item:
                changed = changed if changed is not None else dict(value)
                changed[key] = named
        return value if changed is None else changed
    if isinstance(value, (list, tuple)):
        items = [finite(item) for item in value]
        return value if all(named is item for named, item in zip(items, value)) else items
    return value


def dumps(data: Any, **options) -> str:
    """``json.dumps(data)`` as ASCII (lone surrogates escaped), with non-finite floats named."""
    try:
        return json.dumps(data, allow_nan=False, **options)
    except ValueError:  # a non-finite float
        return json.dumps(finite(data), allow_nan=False, **options)
