"""Whether a running version's state fits another version: the check shown before an upgrade with state.

Like Flink, state is matched to operators by their node id. A stateful node of the running
version that the target lacks loses its state (the restore needs ``allow_non_restored_state``);
one whose operator type changed cannot take the old state (refused); a new stateful node
starts empty; the rest keep their state.
"""
from __future__ import annotations

from typing import Any

from engine.api import operator_spec


def _stateful_nodes(definition: dict) -> dict[str, str]:
    """Node id → type of every node that keeps state (sources' positions and sinks' transactions too)."""
    nodes = {}
    for node in definition.get("nodes") or []:
        spec = operator_spec(node.get("type", ""))
        if spec is not None and spec.get("stateful"):
            nodes[str(node["id"])] = node["type"]
    return nodes


def state_compatibility(running: dict, target: dict) -> dict[str, Any]:
    """``{"compatible", "needs_allow_non_restored_state", "kept", "dropped", "added", "changed_type",
    "message"}`` for restoring the running definition's state into ``target``."""
    before, after = _stateful_nodes(running), _stateful_nodes(target)
    changed = sorted(node for node in before.keys() & after.keys() if before[node] != after[node])
    kept = sorted(node for node in before.keys() & after.keys() if before[node] == after[node])
    dropped = sorted(before.keys() - after.keys())
    added = sorted(after.keys() - before.keys())
    if changed:
        message = (f"{', '.join(changed)} changed operator type: their state cannot be restored; keep the type or "
                   "give the node a new id")
    elif dropped:
        message = f"the state of {', '.join(dropped)} is dropped (allow_non_restored_state)"
    else:
        message = "every stateful operator of the running version keeps its state"
    return {"compatible": not changed, "needs_allow_non_restored_state": bool(dropped), "kept": kept,
            "dropped": dropped, "added": added, "changed_type": changed, "message": message}
