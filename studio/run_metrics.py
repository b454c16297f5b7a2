"""A run's metrics from its stored ``metrics`` events: the latest per vertex and the last N samples."""
from __future__ import annotations

from typing import Any

from studio.models import Run, RunEvent


def metrics_of(run: Run, samples: int = 60) -> dict[str, Any]:
    """``{"vertices": latest per vertex, "samples": [{"ts", "seq", "vertices"}] oldest first}``."""
    events = list(RunEvent.objects.filter(run=run, type="metrics").order_by("-seq")
                  .values_list("seq", "ts", "data")[:max(1, samples)])
    events.reverse()
    history = [{"ts": ts, "seq": seq, "vertices": (data or {}).get("vertices") or {}} for seq, ts, data in events]
    latest = history[-1]["vertices"] if history else {}
    return {"vertices": latest, "samples": history[-samples:] if samples else []}
