"""A pipeline's socket feed (``ws/pipelines/<id>/``): each of its runs' summaries, sent to the
pipeline's group whenever a run's status changed (a receiver of ``run_event_recorded``)."""
from __future__ import annotations

from studio.fanout import broadcast
from studio.models import Run, now_ms


def pipeline_group(pipeline_id: int) -> str:
    return f"pipeline-{pipeline_id}"


def send_run_summary(sender, run_id: int, status_changed: bool, **kwargs) -> None:
    """The run's summary to its pipeline's sockets, when the event changed the run's status."""
    if not status_changed:
        return
    # imported here: every process connects this receiver at start-up (the driver too), and the
    # serializers bring in the engine's whole import
    from studio.api.serializers.runs import RunSummarySerializer

    run = Run.objects.select_related("pipeline", "version", "created_by").filter(pk=run_id).first()
    if run is not None:
        summary = dict(RunSummarySerializer(run).data)
        broadcast(pipeline_group(run.pipeline_id),
                  {"type": "pipeline.run", "message": {"type": "run", "ts": now_ms(), "data": summary}})
