"""What changed between two pipeline definitions: nodes, edges (by id) and settings.

>>> a = {"format": 1, "parallelism": 1, "nodes": [{"id": "m", "type": "transform.map",
...      "params": {"expression": "x"}}], "edges": []}
>>> b = {"format": 1, "parallelism": 2, "nodes": [{"id": "m", "type": "transform.map",
...      "params": {"expression": "x * 2"}}], "edges": []}
>>> diff = diff_definitions(a, b)
>>> diff["nodes"]["changed"]
[{'id': 'm', 'changes': [{'path': 'params.expression', 'from': 'x', 'to': 'x * 2'}]}]
>>> diff["settings"]["changed"]
[{'path': 'parallelism', 'from': 1, 'to': 2}]

Nested objects are compared field by field (``params.expression``, ``checkpointing.interval_ms``,
``ui.x``); lists are values. A field that is absent on one side is ``None`` there.
"""
from __future__ import annotations

from typing import Any

_MISSING = object()


def diff_definitions(before: dict, after: dict) -> dict[str, Any]:
    """Return ``{"nodes", "edges", "settings"}`` describing how ``after`` differs from ``before``."""
    return {
        "nodes": _diff_items(_items(before, "nodes"), _items(after, "nodes")),
        "edges": _diff_items(_items(before, "edges"), _items(after, "edges")),
        "settings": {"changed": _changes(_settings(before), _settings(after))},
    }


def _items(definition: dict, key: str) -> dict[str, dict]:
    items = definition.get(key) if isinstance(definition, dict) else None
    if not isinstance(items, list):
        return {}
    return {str(item.get("id")): item for item in items if isinstance(item, dict) and "id" in item}


def _settings(definition: dict) -> dict:
    if not isinstance(definition, dict):
        return {}
    return {key: value for key, value in definition.items() if key not in ("nodes", "edges")}


def _diff_items(before: dict[str, dict], after: dict[str, dict]) -> dict[str, list]:
    changed = []
    for item_id in after:
        if item_id in before:
            changes = _changes({k: v for k, v in before[item_id].items() if k != "id"},
                               {k: v for k, v in after[item_id].items() if k != "id"})
            if changes:
                changed.append({"id": item_id, "changes": changes})
    return {"added": [item_id for item_id in after if item_id not in before],
            "removed": [item_id for item_id in before if item_id not in after],
            "changed": changed}


def _changes(before: Any, after: Any, prefix: str = "") -> list[dict[str, Any]]:
    if isinstance(before, dict) and isinstance(after, dict):
        changes = []
        for key in [*before, *(k for k in after if k not in before)]:
            path = f"{prefix}.{key}" if prefix else str(key)
            changes.extend(_changes(before.get(key, _MISSING), after.get(key, _MISSING), path))
        return changes
    if before == after and type(before) is type(after):
        return []
    return [{"path": prefix, "from": None if before is _MISSING else before,
             "to": None if after is _MISSING else after}]
