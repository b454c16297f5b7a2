"""A run's metrics from its stored ``metrics`` events: the latest per vertex and per node (with each
node's subtasks, for the drill-down), and the last N samples."""
from __future__ import annotations

from typing import Any

from studio.models import Run, RunEvent


def metrics_of(run: Run, samples: int = 60) -> dict[str, Any]:
    """``{"vertices": latest per vertex, "nodes": latest per node, "samples": [{"ts", "seq", "vertices"}]
    oldest first}``; ``nodes`` is ``studio.runs.vertex_metrics.VertexMetricsTracker.enrich_nodes``'s shape."""
    events = list(RunEvent.objects.filter(run=run, type="metrics").order_by("-seq")
                  .values_list("seq", "ts", "data")[:max(1, samples)])
    events.reverse()
    history = [{"ts": ts, "seq": seq, "vertices": (data or {}).get("vertices") or {}} for seq, ts, data in events]
    latest = history[-1]["vertices"] if history else {}
    nodes = (events[-1][2] or {}).get("nodes") or {} if events else {}
    return {"vertices": latest, "nodes": nodes, "samples": history[-samples:] if samples else []}
