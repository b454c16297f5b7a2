"""Where the planner puts a definition's expectations: a check operator beside what it checks.

Expectations (``engine.spec.expectations``) are written on nodes and edges; the runtime
checks them in an operator of their own, type :data:`CHECK_TYPE`, which the planner adds
before chaining, so the check runs in the checked node's subtask (chained, no extra
exchange), keeps its counts in its own operator state and takes part in checkpoints as any
operator does:

- a node ``n``'s expectations: ``n -> n::expect`` (forward, ``n``'s parallelism); the
  edges that left ``n``'s main output, and those leaving the quarantine ports of its
  expectations, leave ``n::expect`` instead;
- a sink ``s`` (no main output): the check goes before it, ``… -> s::expect -> s``; the
  edge into ``s`` keeps its id, partitioning and key and ends at the check;
- an edge ``e: a -> b``: ``a -> e::expect -> b``, the check at ``a``'s parallelism, fed by
  a forward edge ``e::expect`` from ``a`` (from ``e``'s port when ``e`` leaves one); ``e``
  keeps its id, partitioning, key and side, and now starts at the check. Edges leaving the
  quarantine ports of ``e``'s expectations leave the check.

The check node's params say what it checks (``{"node": n}`` or ``{"edge": e}``), so its
counts are reported under the user's names. A definition without expectations is returned
as it is. Ids with ``::`` are refused in definitions, so the added ids never clash.
"""
from __future__ import annotations

import copy

CHECK_TYPE = "quality.expectations"
CHECK_SUFFIX = "::expect"


def check_id(item_id: str) -> str:
    """The id of the check operator (and of its feeding edge) of a node or edge."""
    return item_id + CHECK_SUFFIX


def with_expectation_checks(definition: dict) -> dict:
    """``definition`` with a check operator for each node and edge that has expectations."""
    nodes = definition.get("nodes") or ()
    edges = definition.get("edges") or ()
    if not any(item.get("expectations") for item in (*nodes, *edges)):
        return definition
    result = copy.deepcopy(definition)
    default_parallelism = result.get("parallelism", 1)
    by_id = {node["id"]: node for node in result["nodes"]}
    origin = {id(edge): edge["from"] for edge in result["edges"]}  # before node checks take them over
    new_nodes, new_edges = [], []
    for node in result["nodes"]:
        new_nodes.append(node)
        if not node.get("expectations"):
            continue
        check = _check_node(node["id"], "node", node.pop("expectations"), node.get("parallelism", default_parallelism))
        new_nodes.append(check)
        by_id[check["id"]] = check
        ports = _ports(check)
        if any(edge["from"] == node["id"] and edge.get("from_port") is None for edge in result["edges"]):
            for edge in result["edges"]:
                if edge["from"] == node["id"] and (edge.get("from_port") is None or edge["from_port"] in ports):
                    edge["from"] = check["id"]
            new_edges.append({"id": check["id"], "from": node["id"], "to": check["id"], "partitioning": "forward"})
        else:  # a sink: check what it receives
            for edge in result["edges"]:
                if edge["to"] == node["id"]:
                    edge["to"] = check["id"]
                elif edge["from"] == node["id"] and edge.get("from_port") in ports:
                    edge["from"] = check["id"]
            new_edges.append({"id": check["id"], "from": check["id"], "to": node["id"], "partitioning": "forward"})
    for edge in list(result["edges"]):
        if not edge.get("expectations"):
            continue
        source = by_id.get(edge["from"])
        parallelism = (source or {}).get("parallelism", default_parallelism)
        check = _check_node(edge["id"], "edge", edge.pop("expectations"), parallelism)
        new_nodes.append(check)
        ports = _ports(check)
        for other in result["edges"]:
            if other is not edge and other.get("from_port") in ports and other["from"] in (origin[id(edge)],
                                                                                           edge["from"]):
                other["from"] = check["id"]
        feeding = {"id": check["id"], "from": edge["from"], "to": check["id"], "partitioning": "forward"}
        if edge.get("from_port") is not None:
            feeding["from_port"] = edge.pop("from_port")
        new_edges.append(feeding)
        edge["from"] = check["id"]
    result["nodes"] = new_nodes
    result["edges"] = result["edges"] + new_edges
    return result


def _check_node(item_id: str, kind: str, expectations: list, parallelism: int) -> dict:
    return {"id": check_id(item_id), "type": CHECK_TYPE, "parallelism": parallelism,
            "params": {kind: item_id, "expectations": expectations}}


def _ports(check: dict) -> set[str]:
    return {e["port"] for e in check["params"]["expectations"] if e.get("action") == "quarantine" and e.get("port")}

