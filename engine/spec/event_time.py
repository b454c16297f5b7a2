"""Which operators need event time, and whether a definition gives it to them.

The catalog says it (``engine.spec.catalog_schema``): an entry's ``event_time`` is
``"needs"`` for operators whose every record must carry an event time (tumbling, sliding and
session windows, interval and window joins, deduplication) and ``"assigns"`` for those that
stamp their records (``transform.watermark``); a parameter with ``"x-event-time"`` does the
same while it is set (a state TTL needs event time; a Kafka source with ``watermarks``
assigns it). Every other operator keeps the stamps of what it takes, so a record carries an
event time when every path from its source to it passes an operator that assigns one.

An operator that needs event time where some input has none could only fail at run time, on
its first record; validation says so instead, naming the node, the field that asks for event
time, and the inputs that have none.
"""
from __future__ import annotations

from typing import Any, Iterator

from engine.spec.catalog import operator_spec
from engine.spec.catalog_schema import EVENT_TIME_ASSIGNS, EVENT_TIME_NEEDS


def _param_is_set(value: Any) -> bool:
    return value is True or (isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0)


def _event_time_param(node: dict[str, Any], spec: dict[str, Any], relation: str) -> str | None:
    params = node.get("params") if isinstance(node.get("params"), dict) else {}
    for name, schema in spec["params_schema"].get("properties", {}).items():
        if schema.get("x-event-time") == relation and _param_is_set(params.get(name)):
            return f"params.{name}"
    return None


def event_time_field(node: dict[str, Any]) -> str | None:
    """The field that makes ``node`` need event time (``"type"`` or ``"params.state_ttl_ms"``), else None."""
    spec = operator_spec(node.get("type"))
    if spec is None:
        return None
    if spec.get("event_time") == EVENT_TIME_NEEDS:
        return "type"
    return _event_time_param(node, spec, EVENT_TIME_NEEDS)


def assigns_event_time(node: dict[str, Any]) -> bool:
    """Whether ``node`` stamps its records with an event time (an unknown type counts as doing so:
    it is reported on its own, and should not make its successors' problems too)."""
    spec = operator_spec(node.get("type"))
    if spec is None:
        return True
    return spec.get("event_time") == EVENT_TIME_ASSIGNS or _event_time_param(node, spec, EVENT_TIME_ASSIGNS) is not None


class _Inputs:
    """The definition's edges by target, and whether a node's records carry event time."""

    def __init__(self, definition: dict[str, Any]):
        self.nodes = {node["id"]: node for node in definition["nodes"]}
        self.edges: dict[str, list[dict[str, Any]]] = {}
        for edge in definition["edges"]:
            if edge.get("from") in self.nodes and edge.get("to") in self.nodes:
                self.edges.setdefault(edge["to"], []).append(edge)
        self._carries: dict[str, bool] = {}

    def carries(self, node_id: str) -> bool:
        """Whether the records leaving ``node_id`` carry event time (a cycle, refused elsewhere, counts as yes)."""
        known = self._carries.get(node_id)
        if known is not None:
            return known
        self._carries[node_id] = True  # while visiting: a cycle does not make its nodes' problems
        node = self.nodes[node_id]
        inputs = self.edges.get(node_id, [])
        result = assigns_event_time(node) or (bool(inputs) and all(self.carries(edge["from"]) for edge in inputs))
        self._carries[node_id] = result
        return result


def nodes_without_event_time(definition: dict[str, Any]) -> Iterator[tuple[dict[str, Any], str, list[dict]]]:
    """``(node, field, edges)`` for each node that needs event time (``field`` says why) and the
    input ``edges`` whose records have none."""
    inputs = _Inputs(definition)
    for node in definition["nodes"]:
        field = event_time_field(node)
        if not field:
            continue
        untimed = [edge for edge in inputs.edges.get(node["id"], []) if not inputs.carries(edge["from"])]
        if untimed:
            yield node, field, untimed
