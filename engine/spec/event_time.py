"""Which operators need event time, and whether a definition gives it to them.

Event time comes from a ``transform.watermark`` node: it stamps each record and sends
watermarks, and the operators after it keep the stamps. An operator that needs event time
without a watermark node upstream could only fail at run time, on its first record; this
says so when the definition is validated, naming the node (and the parameter that asks
for event time, where one does).
"""
from __future__ import annotations

from typing import Any, Iterator

EVENT_TIME_TYPES = frozenset({"window.session", "transform.deduplicate"})
"""Operators that always need event time (their sessions and TTLs are event time)."""
WATERMARK_TYPE = "transform.watermark"


def event_time_field(node: dict[str, Any]) -> str | bool:
    """The field that makes ``node`` need event time (``"type"`` or ``"params.state_ttl_ms"``), else False."""
    if node.get("type") in EVENT_TIME_TYPES:
        return "type"
    params = node.get("params") or {}
    if isinstance(params.get("state_ttl_ms"), int) and params["state_ttl_ms"] > 0:
        return "params.state_ttl_ms"
    return False


def nodes_without_event_time(definition: dict[str, Any]) -> Iterator[tuple[dict[str, Any], str]]:
    """``(node, field)`` for each node that needs event time but has no watermark node upstream."""
    nodes = {node["id"]: node for node in definition["nodes"]}
    upstream: dict[str, list[str]] = {}
    for edge in definition["edges"]:
        if edge.get("from") in nodes and edge.get("to") in nodes:
            upstream.setdefault(edge["to"], []).append(edge["from"])
    for node in definition["nodes"]:
        field = event_time_field(node)
        if field and not _has_watermark_upstream(node["id"], nodes, upstream):
            yield node, field


def _has_watermark_upstream(node_id: str, nodes: dict, upstream: dict[str, list[str]]) -> bool:
    seen, stack = {node_id}, list(upstream.get(node_id, ()))
    while stack:
        current = stack.pop()
        if current in seen:
            continue
        seen.add(current)
        if nodes[current].get("type") == WATERMARK_TYPE:
            return True
        stack.extend(upstream.get(current, ()))
    return False
