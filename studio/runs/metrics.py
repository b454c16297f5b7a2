"""A run's metrics from its stored ``metrics`` events: the latest per vertex and per node (with each
node's subtasks, for the drill-down), and the last N samples."""
from __future__ import annotations

from typing import Any

from studio.models import Run, RunEvent


def metrics_of(run: Run, samples: int = 60) -> dict[str, Any]:
    """``{"vertices": latest per vertex, "nodes": latest per node, "expectations": latest counts per checked
    node or edge, "samples": [{"ts", "seq", "vertices"}] oldest first}``; ``nodes`` is
    ``studio.runs.vertex_metrics.VertexMetricsTracker.enrich_nodes``'s shape, ``expectations``
    ``engine.api.expectation_counts``'s (``{"node:<id>" | "edge:<id>": {...}}``)."""
    events = list(RunEvent.objects.filter(run=run, type="metrics").order_by("-seq")
                  .values_list("seq", "ts", "data")[:max(1, samples)])
    events.reverse()
    history = [{"ts": ts, "seq": seq, "vertices": (data or {}).get("vertices") or {}} for seq, ts, data in events]
    latest = history[-1]["vertices"] if history else {}
    nodes = (events[-1][2] or {}).get("nodes") or {} if events else {}
    expectations = (events[-1][2] or {}).get("expectations") or {} if events else {}
    return {"vertices": latest, "nodes": nodes, "expectations": expectations,
            "samples": history[-samples:] if samples else []}
