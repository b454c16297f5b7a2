"""One job that runs production's version and a candidate side by side, from one snapshot, on one input.

A shadow run compares what a candidate version would write with what production's version
writes, from the same state and on exactly the same input. Two jobs reading a stream each
would read different amounts of it; so the shadow is *one* job: the nodes both versions
have alike (same type, parameters, parallelism, and the same inputs, all the way up:
usually the sources and whatever precedes the change) run once and feed both sides; every
other node runs twice, production's under its own id and the candidate's copy as
``candidate:<id>``, which restores the state of ``<id>`` (``restore_state_of``). Every sink
of either side is redirected into the shadow's output directory (``redirect``): production's
as ``production:<id>``, the candidate's as ``candidate:<id>``. A barrier from the shared
sources passes both sides, so at every checkpoint both have processed the same records, and
a stop with a savepoint cuts both at the same point.

The shadow job restarts nothing (a failure ends it) and takes checkpoints at least every
second, so the redirected sinks commit as it goes.
"""
from __future__ import annotations

import json
from dataclasses import dataclass

from engine.shadow.redirect import RedirectedSink, is_sink, prefixed_id, redirect_sinks

PRODUCTION, CANDIDATE = "production", "candidate"
CHECKPOINT_INTERVAL_MS = 1000
_NOT_COMPARED = ("ui", "name")
_EDGE_FIELDS = ("from", "from_port", "to", "partitioning", "key", "exchange", "side")


class ForkError(ValueError):
    """The two versions cannot run as one shadow job; the message says why."""


@dataclass(frozen=True)
class ShadowJob:
    """The shadow's definition, which nodes both sides share, and where each side's sinks write."""

    definition: dict
    shared: list[str]
    sinks: list[dict]
    """Per sink id of either version: ``{"node", "production": RedirectedSink json | None, "candidate": ...}``."""


def fork_definition(production: dict, candidate: dict, output_dir: str) -> ShadowJob:
    """The shadow job of two normalised definitions (see the module docstring)."""
    if production.get("max_parallelism") != candidate.get("max_parallelism"):
        raise ForkError(f"the candidate's max_parallelism {candidate.get('max_parallelism')} differs from "
                        f"production's {production.get('max_parallelism')}: its keyed state cannot be restored")
    shared = shared_nodes(production, candidate)
    production_side, production_sinks = redirect_sinks(production, output_dir, PRODUCTION)
    candidate_side, candidate_sinks = redirect_sinks(_candidate_side(candidate, shared), output_dir, CANDIDATE)
    checkpointing = dict(production.get("checkpointing") or {})
    checkpointing["interval_ms"] = min(int(checkpointing.get("interval_ms") or CHECKPOINT_INTERVAL_MS),
                                       CHECKPOINT_INTERVAL_MS)
    checkpointing.update(mode="exactly_once", enabled=True)
    definition = {**{key: value for key, value in production.items() if key != "ui"},
                  "name": f"shadow of {production.get('name') or 'a pipeline'}",
                  "mode": "streaming", "checkpointing": checkpointing, "restart": {"strategy": "none"},
                  "nodes": [_without_ui(node) for node in production_side["nodes"] + candidate_side["nodes"]],
                  "edges": [_without_ui(edge) for edge in production_side["edges"] + candidate_side["edges"]]}
    return ShadowJob(definition, sorted(shared), _paired(production_sinks, candidate_sinks))


def shared_nodes(production: dict, candidate: dict) -> set[str]:
    """Ids of the nodes both definitions have alike, with alike inputs from nodes they share (no sinks)."""
    ours = {node["id"]: node for node in production.get("nodes", [])}
    theirs = {node["id"]: node for node in candidate.get("nodes", [])}
    shared = {node_id for node_id, node in ours.items()
              if node_id in theirs and not is_sink(node) and _same_node(node, theirs[node_id], production, candidate)}
    inputs_ours, inputs_theirs = _inputs(production), _inputs(candidate)
    changed = True
    while changed:
        changed = False
        for node_id in sorted(shared):
            inputs = inputs_ours.get(node_id, set())
            if inputs != inputs_theirs.get(node_id, set()) or any(edge[0] not in shared for edge in inputs):
                shared.discard(node_id)
                changed = True
    return shared


def _same_node(ours: dict, theirs: dict, production: dict, candidate: dict) -> bool:
    def comparable(node: dict, definition: dict) -> str:
        fields = {key: value for key, value in node.items() if key not in _NOT_COMPARED}
        fields["parallelism"] = node.get("parallelism") or definition.get("parallelism", 1)
        return json.dumps(fields, sort_keys=True, default=str)
    return comparable(ours, production) == comparable(theirs, candidate)


def _inputs(definition: dict) -> dict[str, set[tuple]]:
    inputs: dict[str, set[tuple]] = {}
    for edge in definition.get("edges", []):
        inputs.setdefault(edge["to"], set()).add(tuple(json.dumps(edge.get(name), sort_keys=True)
                                                      if name != "from" else edge["from"] for name in _EDGE_FIELDS))
    return inputs


def _candidate_side(candidate: dict, shared: set[str]) -> dict:
    """The candidate's nodes that are not shared, as copies restoring their production namesake's state; its
    sinks keep their ids here (``redirect_sinks`` renames them)."""
    parallelism = candidate.get("parallelism", 1)

    def own(node_id: str, node: dict | None = None) -> str:
        if node_id in shared or (node is not None and is_sink(node)):
            return node_id
        return prefixed_id(CANDIDATE, node_id)

    nodes_by_id = {node["id"]: node for node in candidate.get("nodes", [])}
    nodes = []
    for node in candidate.get("nodes", []):
        if node["id"] in shared:
            continue
        copy = {**node, "id": own(node["id"], node), "parallelism": node.get("parallelism") or parallelism}
        if not is_sink(node):
            copy["restore_state_of"] = node.get("restore_state_of") or node["id"]
        nodes.append(copy)
    edges = [{**edge, "id": prefixed_id(CANDIDATE, edge["id"]), "from": own(edge["from"], nodes_by_id.get(edge["from"])),
              "to": own(edge["to"], nodes_by_id.get(edge["to"]))}
             for edge in candidate.get("edges", []) if edge["to"] not in shared]
    return {"nodes": nodes, "edges": edges}


def _paired(production: list[RedirectedSink], candidate: list[RedirectedSink]) -> list[dict]:
    ours = {sink.node: sink for sink in production}
    theirs = {sink.node: sink for sink in candidate}
    return [{"node": node_id,
             PRODUCTION: ours[node_id].as_json() if node_id in ours else None,
             CANDIDATE: theirs[node_id].as_json() if node_id in theirs else None}
            for node_id in sorted(ours.keys() | theirs.keys())]


def _without_ui(item: dict) -> dict:
    return {key: value for key, value in item.items() if key != "ui"}
