"""Recording run events: persist first, apply to the run's rows, then fan out.

Every event of a run gets the next sequence number of that run inside one database
transaction, so a browser that reconnects with ``?after=<seq>`` can read everything it
missed from the database and then follow the live group without gaps or doubles.
"""
from __future__ import annotations

import logging
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from studio.models import TERMINAL_STATUSES, Checkpoint, Run, RunEvent, RunStatus, now_ms

logger = logging.getLogger(__name__)

CHECKPOINT_STATUS_BY_EVENT = {
    "triggered": "IN_PROGRESS",
    "acknowledged": "IN_PROGRESS",
    "completed": "COMPLETED",
    "failed": "FAILED",
}
CHECKPOINT_FIELDS = (
    "trigger_timestamp", "latest_ack_timestamp", "end_to_end_duration", "state_size",
    "num_acknowledged_subtasks", "num_subtasks", "external_path", "failure_message", "subtasks",
)


def run_group(run_id: int) -> str:
    return f"run-{run_id}"


def record_event(run_id: int, event_type: str, data: dict[str, Any]) -> dict[str, Any]:
    """Store one event of a run, update the run's rows from it, and broadcast it."""
    with transaction.atomic():
        run = Run.objects.select_for_update().filter(pk=run_id).first()
        if run is None:  # the run was deleted while its driver still reported
            logger.info("dropped %s event of deleted run %s", event_type, run_id)
            return {}
        last = RunEvent.objects.filter(run=run).aggregate(last=Max("seq"))["last"] or 0
        event = RunEvent.objects.create(run=run, seq=last + 1, type=event_type, ts=now_ms(), data=data)
        _apply(run, event_type, data)
    message = serialise_event(event)
    _broadcast(run_id, message)
    return message


def serialise_event(event: RunEvent) -> dict[str, Any]:
    return {"seq": event.seq, "type": event.type, "ts": event.ts, "data": event.data}


def set_status(run_id: int, status: str, cause: str | None = None) -> dict[str, Any]:
    """Record a status transition (an event like any other)."""
    data = {"status": status}
    if cause:
        data["cause"] = cause
    return record_event(run_id, "status", data)


def _apply(run: Run, event_type: str, data: dict[str, Any]) -> None:
    if event_type == "status":
        _apply_status(run, data)
    elif event_type == "checkpoint":
        _apply_checkpoint(run, data)
    elif event_type in ("metrics", "finished") and data.get("collected"):
        run.collected = {**run.collected, **data["collected"]}
        run.save(update_fields=["collected"])


def _apply_status(run: Run, data: dict[str, Any]) -> None:
    if run.status in TERMINAL_STATUSES:
        return  # a terminal status is final; late reports must not resurrect a run
    run.status = data["status"]
    now = timezone.now()
    if run.status == RunStatus.RUNNING and run.started_at is None:
        run.started_at = now
    if run.status in TERMINAL_STATUSES:
        run.ended_at = now
    if data.get("cause"):
        run.failure_cause = data["cause"]
    run.save(update_fields=["status", "started_at", "ended_at", "failure_cause"])


def _apply_checkpoint(run: Run, data: dict[str, Any]) -> None:
    status = CHECKPOINT_STATUS_BY_EVENT.get(data.get("event"))
    if status is None:
        return
    values = {field: data[field] for field in CHECKPOINT_FIELDS if data.get(field) is not None}
    checkpoint, created = Checkpoint.objects.get_or_create(
        run=run, checkpoint_id=data["id"],
        defaults={"kind": data.get("kind", "checkpoint"), "status": status,
                  "trigger_timestamp": data.get("trigger_timestamp") or now_ms(), **values},
    )
    if created:
        return
    if checkpoint.status in ("COMPLETED", "FAILED") and status == "IN_PROGRESS":
        return  # a late acknowledgement after the outcome changes nothing
    checkpoint.status = status
    for field, value in values.items():
        setattr(checkpoint, field, value)
    checkpoint.save()


def _broadcast(run_id: int, message: dict[str, Any]) -> None:
    """Fan out to the run's WebSocket group; the stored event is the source of truth."""
    layer = get_channel_layer()
    try:
        async_to_sync(layer.group_send)(run_group(run_id), {"type": "run.event", "event": message})
    except Exception:  # Redis down: the event is stored; clients catch up on reconnect
        logger.warning("could not broadcast event %s of run %s", message["seq"], run_id, exc_info=True)
