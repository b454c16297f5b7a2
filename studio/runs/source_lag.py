"""A node's lag and emit delay as the run page shows them, from its subtasks' reports.

The engine reports per source subtask a ``lag`` list, one entry per split it holds
(``{"split", "records_behind", "bytes_behind", "pending"}``, see ``engine.api`` and the
engine's ``source_lag`` module), and per split enumerator what no subtask holds yet (the
metrics event's ``enumerators``: ``{node id: {"splits_unassigned", "bytes_unassigned"}}``).
:func:`node_lag` sums them per node::

    {"records_behind", "bytes_behind", "pending", "splits_unassigned", "bytes_unassigned",
     "splits_total", "splits": [{"split", "subtask", "records_behind", "bytes_behind", "pending"}]}

A sum is None when no split says that figure (a Kafka source has no bytes). ``splits`` lists
the ``LISTED_SPLITS`` furthest behind, ``splits_total`` how many there are: a source with a
thousand partitions does not put a thousand rows into every metrics event.

Windows and window joins report ``emit_delay_ms`` (the mean over their recent results),
``emit_delay_max_ms`` and ``emit_delay_results`` per subtask; :func:`node_emit_delay` weighs
the means by their results and takes the largest maximum.
"""
from __future__ import annotations

from typing import Any

FIGURES = ("records_behind", "bytes_behind", "pending")
LISTED_SPLITS = 20
EMIT_DELAY_FIGURES = ("emit_delay_ms", "emit_delay_max_ms", "emit_delay_results")


def node_lag(subtasks: list[dict], enumerator: dict | None) -> dict[str, Any] | None:
    """The node's lag (see the module), or None for a node that reports none (not a source).

    >>> lag = node_lag([{"subtask": 0, "lag": [{"split": "t/0", "records_behind": 5, "bytes_behind": None,
    ...                                          "pending": None}]},
    ...                 {"subtask": 1, "lag": [{"split": "t/1", "records_behind": 7, "bytes_behind": None,
    ...                                          "pending": None}]}], None)
    >>> lag["records_behind"], lag["bytes_behind"], [split["split"] for split in lag["splits"]]
    (12, None, ['t/1', 't/0'])
    """
    splits = [{"subtask": subtask["subtask"], **split} for subtask in subtasks for split in subtask.get("lag") or ()]
    if not splits and not any("lag" in subtask for subtask in subtasks) and enumerator is None:
        return None
    lag: dict[str, Any] = {name: _sum(split.get(name) for split in splits) for name in FIGURES}
    lag["splits_unassigned"] = (enumerator or {}).get("splits_unassigned")
    lag["bytes_unassigned"] = (enumerator or {}).get("bytes_unassigned")
    lag["splits_total"] = len(splits)
    lag["splits"] = sorted(splits, key=_furthest_behind)[:LISTED_SPLITS]
    return lag


def node_emit_delay(subtasks: list[dict]) -> dict[str, Any]:
    """The node's emit delay from its subtasks' (empty when none fired a window with epoch event times).

    >>> node_emit_delay([{"emit_delay_ms": 100.0, "emit_delay_max_ms": 150.0, "emit_delay_results": 3},
    ...                  {"emit_delay_ms": 200.0, "emit_delay_max_ms": 400.0, "emit_delay_results": 1}, {}])
    {'emit_delay_ms': 125.0, 'emit_delay_max_ms': 400.0, 'emit_delay_results': 4}
    """
    fired = [subtask for subtask in subtasks if subtask.get("emit_delay_results")]
    if not fired:
        return {}
    results = sum(subtask["emit_delay_results"] for subtask in fired)
    return {"emit_delay_ms": round(sum(s["emit_delay_ms"] * s["emit_delay_results"] for s in fired) / results, 1),
            "emit_delay_max_ms": max(subtask["emit_delay_max_ms"] for subtask in fired),
            "emit_delay_results": results}


def _sum(values) -> int | None:
    known = [value for value in values if value is not None]
    return sum(known) if known else None


def _furthest_behind(split: dict) -> tuple:
    return (-(split.get("records_behind") or 0), -(split.get("bytes_behind") or 0), split["subtask"], split["split"])
