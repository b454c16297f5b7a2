"""The jobs overview's per-run facts that live outside the Run row: its newest completed checkpoint,
and each pipeline's newest run. List queries annotate them (one query per page, not per row);
a single run or pipeline looks them up."""
from __future__ import annotations

from django.db.models import OuterRef, QuerySet, Subquery

from studio.models import Checkpoint, Run

_LAST_COMPLETED = Checkpoint.objects.filter(run=OuterRef("pk"), status="COMPLETED").order_by("-checkpoint_id")
_NEWEST_RUN = Run.objects.filter(pipeline=OuterRef("pk")).order_by("-created_at", "-id")


def with_last_checkpoint(runs: QuerySet) -> QuerySet:
    """``runs`` annotated with their newest completed checkpoint's id, kind and trigger time."""
    return runs.annotate(last_checkpoint_id=Subquery(_LAST_COMPLETED.values("checkpoint_id")[:1]),
                         last_checkpoint_kind=Subquery(_LAST_COMPLETED.values("kind")[:1]),
                         last_checkpoint_at=Subquery(_LAST_COMPLETED.values("trigger_timestamp")[:1]))


def with_latest_run(pipelines: QuerySet) -> QuerySet:
    """``pipelines`` annotated with their newest run's id and status."""
    return pipelines.annotate(latest_run_id=Subquery(_NEWEST_RUN.values("id")[:1]),
                              latest_run_status=Subquery(_NEWEST_RUN.values("status")[:1]))


def last_checkpoint_of(run: Run) -> dict | None:
    if hasattr(run, "last_checkpoint_id"):
        values = (run.last_checkpoint_id, run.last_checkpoint_kind, run.last_checkpoint_at)
    else:
        values = Checkpoint.objects.filter(run=run, status="COMPLETED").order_by("-checkpoint_id") \
            .values_list("checkpoint_id", "kind", "trigger_timestamp").first() or (None, None, None)
    checkpoint_id, kind, at = values
    return None if checkpoint_id is None else {"id": checkpoint_id, "kind": kind, "trigger_timestamp": at}
