"""Expectations: data-quality rules on a node's output or an edge, as in Spark Declarative Pipelines.

A node or an edge of a definition may carry ``"expectations"``, a list of named rules::

    {"name": "positive_amount", "rule": "x['amount'] > 0", "action": "drop"}

``rule`` is an expression of the expression language over the record ``x``; a record
*meets* the rule when it evaluates truthy, and *violates* it otherwise -- also when it
cannot be evaluated on the record (a missing field, a wrong type): a record a rule cannot
judge is not a record it vouches for. What happens to a violating record is the rule's
``action``:

``warn``
    count it, pass it on;
``drop``
    count it, drop it;
``quarantine``
    count it, send it to the named output port ``port`` instead of the main output (an edge
    ``{"from": <node>, "from_port": <port>, "to": <sink>}`` takes it on, as from a window's
    late port; a port no edge leaves drops them, counted);
``fail``
    fail the run, naming the rule, where it is and a sample record.

Every rule of a node or edge sees every record that reaches it, so each rule's count is the
number of records violating it, whatever the other rules did. A record goes on when it
violates no ``drop``, ``quarantine`` or ``fail`` rule; it goes to the port of every
``quarantine`` rule it violates (once per port).

Where they apply: a node's expectations check what the node emits on its main output (for a
sink, which emits nothing, what it receives); an edge's check what travels on the edge. The
quarantine port of an edge's rule is a port of the edge's ``from`` node, so names must differ
from the node's own ports and be unique per node.

The planner places each check as an operator of its own, chained to the node it checks
(``engine.plan.expectations``); the runtime operator is
``engine.runtime.operators.expectations``. This module is the definition's side: the JSON
Schema of the field and every problem a definition's expectations have, each naming the node
or edge and the field (``expectations.1.rule``).
"""
from __future__ import annotations

from collections import Counter
from typing import Any, Iterator

from engine.spec.expressions import check_expression

ACTIONS = ("warn", "drop", "quarantine", "fail")
RESERVED_ID_PART = "::"
"""Ids of the check operators the planner adds contain it (``node::expect``); user ids may not."""

EXPECTATIONS_SCHEMA: dict[str, Any] = {
    "type": "array",
    "maxItems": 50,
    "items": {
        "type": "object",
        "required": ["name", "rule"],
        "properties": {
            "name": {"type": "string", "minLength": 1, "maxLength": 100, "pattern": r"^[A-Za-z0-9_.:-]+$"},
            "rule": {"type": "string", "minLength": 1},
            "action": {"enum": list(ACTIONS)},
            "port": {"type": "string", "minLength": 1, "maxLength": 100, "pattern": r"^[A-Za-z0-9_.-]+$"},
            "description": {"type": "string", "maxLength": 1000},
        },
        "additionalProperties": False,
    },
}


def action_of(expectation: dict[str, Any]) -> str:
    """The action of an expectation (``warn`` when it names none)."""
    return expectation.get("action") or "warn"


def quarantine_ports(definition: dict[str, Any], node_id: str) -> list[str]:
    """The output ports the expectations of ``node_id`` and of the edges leaving it add to it."""
    ports: list[str] = []
    holders = [node for node in definition.get("nodes", ()) if node.get("id") == node_id]
    holders += [edge for edge in definition.get("edges", ()) if edge.get("from") == node_id]
    for holder in holders:
        for expectation in holder.get("expectations") or ():
            if action_of(expectation) == "quarantine" and expectation.get("port") and \
                    expectation["port"] not in ports:
                ports.append(expectation["port"])
    return ports


def expectation_problems(definition: dict[str, Any], own_ports) -> Iterator[tuple[dict, str, str]]:
    """``(where, field, message)`` for each problem of the definition's expectations, where ``where``
    is ``{"node": id}`` or ``{"edge": id}``. ``own_ports(node)`` lists a node's catalog ports.
    Called on a definition that passed the JSON Schema."""
    for kind in ("nodes", "edges"):
        for item in definition[kind]:
            if RESERVED_ID_PART in item["id"]:
                yield ({kind[:-1]: item["id"]}, "id",
                       f"'{RESERVED_ID_PART}' is reserved in ids (the planner's expectation checks use it)")
    nodes = {node["id"]: node for node in definition["nodes"]}
    for node in definition["nodes"]:
        yield from _holder_problems({"node": node["id"]}, node)
    for edge in definition["edges"]:
        yield from _holder_problems({"edge": edge["id"]}, edge)
    for node in nodes.values():
        yield from _port_clashes(definition, node, own_ports(node))


def _holder_problems(where: dict, holder: dict[str, Any]) -> Iterator[tuple[dict, str, str]]:
    expectations = holder.get("expectations") or ()
    names = Counter(expectation["name"] for expectation in expectations)
    for position, expectation in enumerate(expectations):
        field = f"expectations.{position}"
        if names[expectation["name"]] > 1:
            yield where, f"{field}.name", f"expectation name '{expectation['name']}' is used {names[expectation['name']]} times here"
        message = check_expression(expectation["rule"])
        if message:
            yield where, f"{field}.rule", f"invalid rule of expectation '{expectation['name']}': {message}"
        action = action_of(expectation)
        if action == "quarantine" and not expectation.get("port"):
            yield where, f"{field}.port", (f"expectation '{expectation['name']}' quarantines: name the output port "
                                           "its records go to (port), and connect it to a sink")
        if action != "quarantine" and expectation.get("port"):
            yield where, f"{field}.port", (f"expectation '{expectation['name']}' has action '{action}': "
                                           "only quarantine sends records to a port")


def _port_clashes(definition: dict[str, Any], node: dict[str, Any], own: list[str]) -> Iterator[tuple[dict, str, str]]:
    """A quarantine port must not shadow one of the node's own ports."""
    holders = [({"node": node["id"]}, node)] + [({"edge": edge["id"]}, edge) for edge in definition["edges"]
                                                 if edge.get("from") == node["id"]]
    for where, holder in holders:
        for position, expectation in enumerate(holder.get("expectations") or ()):
            port = expectation.get("port")
            if action_of(expectation) == "quarantine" and port in own:
                yield where, f"expectations.{position}.port", (
                    f"'{node['id']}' has an output port '{port}' of its own: name the quarantine port otherwise")
