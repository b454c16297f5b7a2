"""The jobs overview's per-run facts that live outside the Run row: its newest completed checkpoint,
how it ended (and which run the job continues as), and each pipeline's newest run. List queries
annotate them (one query per page, not per row); a single run or pipeline looks them up.

How a run ended (``ended_by``): a run that stopped with a savepoint from which a later run of the
same pipeline was restored *continues as* that run, and says why: a rescale (its message), an
upgrade to another version, or a restart of the same version. Otherwise it was stopped with a
savepoint, canceled, failed, or its input ended."""
from __future__ import annotations

from django.db.models import Exists, OuterRef, QuerySet, Subquery

from studio.models import (TERMINAL_STATUSES, Checkpoint, Rescale, RescaleStatus, Run, RunStatus, SavepointRequest,
                           SavepointStatus, SavepointTrigger)

_LAST_COMPLETED = Checkpoint.objects.filter(run=OuterRef("pk"), status="COMPLETED").order_by("-checkpoint_id")
_NEWEST_RUN = Run.objects.filter(pipeline=OuterRef("pk")).order_by("-created_at", "-id")
_SUCCESSOR = Run.objects.filter(restored_from__run=OuterRef("pk"), pipeline=OuterRef("pipeline")).order_by("-id")
_RESCALE = Rescale.objects.filter(run=OuterRef("pk")).exclude(status=RescaleStatus.FAILED).order_by("-id")
_STOP = SavepointRequest.objects.filter(run=OuterRef("pk"), trigger=SavepointTrigger.STOP,
                                        status=SavepointStatus.COMPLETED)


SUMMARY_UNREAD = ("plan", "collected", "version__definition")
"""What a run list (``RunSummarySerializer``) loads and never shows: a run's plan and collected records and its
version's definition are JSON documents of kilobytes each; decoding them was two thirds of the CPU of
``GET /api/runs`` with a hundred live runs (py-spy: ``JSONField.from_db_value``)."""


def for_summary(runs: QuerySet) -> QuerySet:
    """``runs`` (joined with their versions) without the columns a run list does not show (``SUMMARY_UNREAD``)."""
    return runs.defer(*SUMMARY_UNREAD)


def with_last_checkpoint(runs: QuerySet) -> QuerySet:
    """``runs`` annotated with their newest completed checkpoint's id, kind and trigger time."""
    return runs.annotate(last_checkpoint_id=Subquery(_LAST_COMPLETED.values("checkpoint_id")[:1]),
                         last_checkpoint_kind=Subquery(_LAST_COMPLETED.values("kind")[:1]),
                         last_checkpoint_at=Subquery(_LAST_COMPLETED.values("trigger_timestamp")[:1]))


def with_ending(runs: QuerySet) -> QuerySet:
    """``runs`` annotated with what :func:`ended_by` needs."""
    return runs.annotate(successor_id=Subquery(_SUCCESSOR.values("id")[:1]),
                         successor_version=Subquery(_SUCCESSOR.values("version__number")[:1]),
                         rescale_message=Subquery(_RESCALE.values("message")[:1]),
                         stopped_with_savepoint=Exists(_STOP))


def ended_by(run: Run) -> dict | None:
    """``{"how", "continued_as", "detail"}`` once ``run`` ended, else None. ``how``: rescale | upgrade |
    restart (then ``continued_as`` is the run the job goes on as) | stop | cancel | failure | end_of_input."""
    if run.status not in TERMINAL_STATUSES:
        return None
    if not hasattr(run, "successor_id"):
        successor = Run.objects.filter(restored_from__run=run, pipeline_id=run.pipeline_id) \
            .order_by("-id").values_list("id", "version__number").first() or (None, None)
        run.successor_id, run.successor_version = successor
        run.rescale_message = Rescale.objects.filter(run=run).exclude(status=RescaleStatus.FAILED) \
            .order_by("-id").values_list("message", flat=True).first()
        run.stopped_with_savepoint = SavepointRequest.objects.filter(
            run=run, trigger=SavepointTrigger.STOP, status=SavepointStatus.COMPLETED).exists()
    version = run.version.number
    if run.successor_id is not None:
        if run.rescale_message:
            how, detail = "rescale", run.rescale_message.split(";")[0].removeprefix("rescale: ")
        elif run.successor_version != version:
            how, detail = "upgrade", f"v{version} -> v{run.successor_version}"
        else:
            how, detail = "restart", f"v{version} again"
        return {"how": how, "continued_as": run.successor_id, "detail": detail}
    if run.status == RunStatus.CANCELED:
        return {"how": "cancel", "continued_as": None, "detail": ""}
    if run.status == RunStatus.FAILED:
        return {"how": "failure", "continued_as": None, "detail": (run.failure_cause or "").split("\n")[0][:200]}
    how = "stop" if run.stopped_with_savepoint else "end_of_input"
    return {"how": how, "continued_as": None, "detail": ""}


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
