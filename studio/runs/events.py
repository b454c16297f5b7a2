"""Recording run events: persist first, apply to the run's rows, then fan out.

Every event of a run gets the next sequence number of that run inside one database
transaction, so a browser that reconnects with ``?after=<seq>`` can read everything it
missed from the database and then follow the live group without gaps or doubles. The
fan-out (Redis channel layer) comes after the commit and may fail: a stored event is
never lost, clients catch up from the database.

Event types: ``status`` (``{"status", "cause"?}``), ``checkpoint`` (the coordinator's
statistics, ``event`` in triggered | acknowledged | completed | failed | discarded; a discarded
savepoint's event, from the studio, says by whom: ``reason``, see :func:`record_discarded`),
``savepoint`` (``{"request_id", "status", "kind", "location"?, "failure_cause"?}``),
``savepoint_progress`` (``{"request_id", "status": "IN_PROGRESS", "kind", "trigger", "checkpoint_id",
"acknowledged", "total"}``: a savepoint request's subtasks acknowledged so far, recorded
after each checkpoint event of its savepoint),
``metrics`` (``{"vertices", "collected"}``), ``task_failed`` (``{"task", "region", "attempt",
"error"}``, see ``studio.runs.exception_history``) and ``finished`` (``{"collected"}``).
Once stored, an event goes to the run's socket group and then to the receivers of
``studio.runs.signals.run_event_recorded`` (a pipeline's socket feed, alerts, rescales).

Fencing: a driver passes its ``driver_token``; when it is not the run's (the studio
declared that driver lost and fenced it, ``studio.runs.liveness``), the event is refused: not
stored, not applied, not sent. So REST and the WebSocket always tell the same story, and
a driver that wakes up after its run moved on cannot rewrite it.
"""
from __future__ import annotations

import logging
from typing import Any

from django.db import connections, transaction
from django.db.models import Max
from django.utils import timezone

from studio.change_tokens import new_token
from studio.json_out import finite
from studio.secret_masking import masked
from studio.models import (
    TERMINAL_STATUSES, Checkpoint, Pipeline, Run, RunEvent, RunStatus, SavepointRequest, SavepointStatus, now_ms,
)
from studio.fanout import broadcast, broadcast_many
from studio.runs.signals import run_event_recorded

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
    "unaligned", "persisted_data",
)


def run_group(run_id: int) -> str:
    return f"run-{run_id}"


class DriverFenced(Exception):
    """The reporting driver's token is not the run's: it was declared lost and must stop."""


def record_event(run_id: int, event_type: str, data: dict[str, Any],
                 driver_token: str | None = None) -> dict[str, Any]:
    """Store one event of a run, update the run's rows from it, and broadcast it.

    ``driver_token``: given by drivers (never by the studio itself); raises
    :class:`DriverFenced` when the run no longer belongs to that driver. Non-finite floats (a
    record's NaN) are stored as their names (``studio.json_out``): JSON columns refuse them.
    Returns the stored event (``{}``: the run was deleted). One event is a batch of one
    (:func:`record_events`).
    """
    outcome = record_events([(run_id, event_type, data, driver_token)])[0]
    if isinstance(outcome, DriverFenced):
        raise outcome
    return outcome


def record_events(batch: list[tuple[int, str, dict[str, Any], str | None]]) -> list[dict[str, Any] | DriverFenced]:
    """Store many events, of one run or of many, in one transaction: what :func:`record_event` does for each,
    in their order, with a few statements for the whole batch.

    ``batch``: ``(run_id, event_type, data, driver_token)`` each. Returns, in the batch's order, each event
    as stored (``{}`` when its run was deleted) or the :class:`DriverFenced` that refused it (the rest of
    the batch is stored all the same).

    The statements: one to lock every run of the batch (in id order, the lock order of
    ``studio.change_tokens``), one for their last sequence numbers, one insert of every event; a
    periodic checkpoint's row is read once, written once (its triggered, acknowledged and completed
    events of one batch are one row written), and a run's collected records once. A session driver's
    event writer (``studio.runs.event_writer``) gives the events of all its runs here together: with a
    hundred runs checkpointing every second, one transaction a moment instead of six per run and second.
    """
    prepared = [(run_id, event_type, masked(finite(data)), token) for run_id, event_type, data, token in batch]
    outcomes: list[dict[str, Any] | DriverFenced] = [{} for _ in prepared]
    sent: list[tuple[int, int, RunEvent, bool]] = []
    with transaction.atomic():
        # not the plan, nor the status history (read when a status comes): JSON decoded for nothing at each batch
        runs = {run.id: run for run in Run.objects.select_for_update().defer("plan", "status_history").filter(
            pk__in={item[0] for item in prepared}).order_by("pk")}
        last = dict(RunEvent.objects.filter(run_id__in=list(runs)).values("run_id").annotate(
            last=Max("seq")).values_list("run_id", "last"))
        checkpoints = _PeriodicCheckpoints(runs, prepared)
        collected: set[int] = set()  # runs whose collected records changed
        stored: list[tuple[int, RunEvent]] = []  # (index in the batch, event)
        for index, (run_id, event_type, data, token) in enumerate(prepared):
            run = runs.get(run_id)
            if run is None:  # the run was deleted while its driver still reported
                logger.info("dropped %s event of deleted run %s", event_type, run_id)
                continue
            if token is not None and token != run.driver_token:
                outcomes[index] = DriverFenced(f"run {run_id} no longer listens to this driver ({run.status}); "
                                               f"its {event_type} event was refused")
                continue
            pending = [(event_type, data)]
            while pending:
                kind, values = pending.pop(0)
                last[run_id] = (last.get(run_id) or 0) + 1
                event = RunEvent(run=run, seq=last[run_id], type=kind, ts=now_ms(), data=values)
                status_changed = _apply(run, kind, values, checkpoints, collected)
                if kind == "checkpoint":
                    progress = _savepoint_progress(run, values)
                    if progress is not None:
                        pending.append(("savepoint_progress", progress))
                stored.append((index, event))
                sent.append((run_id, run.pipeline_id, event, status_changed))
        checkpoints.save()
        if collected:
            _save_collected([runs[run_id] for run_id in sorted(collected)])
        RunEvent.objects.bulk_create([event for _, event in stored])
        for index, event in stored:
            if outcomes[index] == {}:
                outcomes[index] = serialise_event(event)
    messages = [(run_id, pipeline_id, serialise_event(event), changed) for run_id, pipeline_id, event, changed in sent]
    # after the commit of an enclosing transaction (at once when there is none): a client
    # must be able to read from the database whatever it was told about
    transaction.on_commit(lambda: _fan_out_batch(messages))
    return outcomes


def record_discarded(checkpoint: Checkpoint, reason: str) -> dict[str, Any]:
    """Tell the run's pages that the files of ``checkpoint`` (a savepoint, usually) were deleted,
    ``reason`` saying by whom: a ``checkpoint`` event ``discarded`` as the engine sends for a
    subsumed checkpoint, so a page drops it from what it offers to restart from (replayed
    events included: the row may be gone, the event stays)."""
    return record_event(checkpoint.run_id, "checkpoint", {
        "id": checkpoint.checkpoint_id, "event": "discarded", "discarded": True, "kind": checkpoint.kind,
        "pk": checkpoint.pk, "external_path": checkpoint.external_path, "reason": reason})


def _fan_out(run_id: int, pipeline_id: int, message: dict[str, Any], status_changed: bool) -> None:
    """Send the stored event to the run's sockets, then to whoever subscribed to ``run_event_recorded``."""
    broadcast(run_group(run_id), {"type": "run.event", "event": message})
    # robust: a receiver that raises is logged (by Django) and the others still run
    run_event_recorded.send_robust(Run, run_id=run_id, pipeline_id=pipeline_id, event=message,
                                   status_changed=status_changed, batch={"pipelines": {pipeline_id}})


def _fan_out_batch(messages: list[tuple[int, int, dict[str, Any], bool]]) -> None:
    """:func:`_fan_out` for the events of a batch: one message per run to its sockets (``run.events`` with a
    run's events in order, or ``run.event`` for one), the runs' sends overlapping; then the receivers."""
    if len(messages) == 1:
        _fan_out(*messages[0])
        return
    by_run: dict[int, list[dict[str, Any]]] = {}
    for run_id, _, message, _ in messages:
        by_run.setdefault(run_id, []).append(message)
    broadcast_many([(run_group(run_id), {"type": "run.event", "event": events[0]} if len(events) == 1
                     else {"type": "run.events", "events": events}) for run_id, events in by_run.items()])
    # what the receivers read once for the whole batch (``studio.runs.signals``)
    batch: dict = {"pipelines": {pipeline_id for _, pipeline_id, _, _ in messages}}
    for run_id, pipeline_id, message, status_changed in messages:
        run_event_recorded.send_robust(Run, run_id=run_id, pipeline_id=pipeline_id, event=message,
                                       status_changed=status_changed, batch=batch)


def serialise_event(event: RunEvent) -> dict[str, Any]:
    return {"seq": event.seq, "type": event.type, "ts": event.ts, "data": event.data}


def set_status(run_id: int, status: str, cause: str | None = None,
               driver_token: str | None = None, details: dict[str, Any] | None = None) -> dict[str, Any]:
    """Record a status transition (an event like any other); ``details`` (a restart's regions and
    delay) go into the event's data."""
    data = {**(details or {}), "status": status}
    if cause:
        data["cause"] = cause
    return record_event(run_id, "status", data, driver_token)


def _apply(run: Run, event_type: str, data: dict[str, Any], checkpoints: "_PeriodicCheckpoints",
           collected: set[int]) -> bool:
    """Apply an event to the run's rows (a periodic checkpoint's to ``checkpoints``, collected records to
    ``run`` with its id added to ``collected``: both saved with the batch); True when the run's status changed."""
    if event_type == "status":
        return _apply_status(run, data)
    if event_type == "checkpoint":
        if not checkpoints.apply(run, data):
            _apply_checkpoint(run, data)
    elif event_type == "savepoint":
        _apply_savepoint(run, data)
    elif event_type in ("metrics", "finished") and data.get("collected"):
        run.collected = {**run.collected, **data["collected"]}
        collected.add(run.id)
    return False


class _PeriodicCheckpoints:
    """The rows of the periodic checkpoints a batch of events speaks of: read in one query, changed in
    memory event by event as :func:`_apply_checkpoint` changes them, then created and updated once each.
    Savepoints (their requests link to their rows as the events come) go through ``_apply_checkpoint``."""

    FIELDS = ("status", *CHECKPOINT_FIELDS, "alignment_duration", "discarded")

    def __init__(self, runs: dict[int, Run], batch: list[tuple[int, str, dict[str, Any], str | None]]):
        ids = {(run_id, data.get("id")) for run_id, kind, data, _ in batch
               if kind == "checkpoint" and run_id in runs and _kind(data) == "checkpoint"}
        self.rows: dict[tuple[int, Any], Checkpoint] = {}
        if ids:
            for row in Checkpoint.objects.filter(run_id__in={run_id for run_id, _ in ids},
                                                 checkpoint_id__in={cid for _, cid in ids if isinstance(cid, int)}):
                self.rows[(row.run_id, row.checkpoint_id)] = row
        self.new: dict[tuple[int, Any], Checkpoint] = {}
        self.changed: dict[tuple[int, Any], Checkpoint] = {}

    def apply(self, run: Run, data: dict[str, Any]) -> bool:
        """Apply a periodic checkpoint's event; False for a savepoint's (``_apply_checkpoint`` applies it)."""
        if _kind(data) != "checkpoint" or not isinstance(data.get("id"), int):
            return False
        key = (run.id, data["id"])
        row = self.rows.get(key)
        if data.get("event") == "discarded":
            if row is None:
                return False  # not in this batch: one UPDATE, as always
            row.discarded = True
            self._changed(key, row)
            return True
        status = CHECKPOINT_STATUS_BY_EVENT.get(data.get("event"))
        if status is None:
            return True
        values = {field: data[field] for field in CHECKPOINT_FIELDS if data.get(field) is not None}
        if "subtasks" in values:
            values["alignment_duration"] = _slowest_alignment(values["subtasks"])
        if row is None:
            self.rows[key] = self.new[key] = Checkpoint(
                run=run, checkpoint_id=data["id"], kind="checkpoint", status=status,
                **{"trigger_timestamp": data.get("trigger_timestamp") or now_ms(), **values})
            return True
        if row.status in ("COMPLETED", "FAILED") and status == "IN_PROGRESS":
            return True  # a late acknowledgement after the outcome changes nothing
        row.status = status
        for field, value in values.items():
            setattr(row, field, value)
        self._changed(key, row)
        return True

    def _changed(self, key, row: Checkpoint) -> None:
        if key not in self.new:
            self.changed[key] = row

    def save(self) -> None:
        if self.new:
            Checkpoint.objects.bulk_create(list(self.new.values()))
        if self.changed:
            _update_checkpoints(list(self.changed.values()), self.FIELDS)


def _update_checkpoints(rows: list[Checkpoint], fields: tuple[str, ...]) -> None:
    """Write ``fields`` of checkpoint ``rows`` in one prepared UPDATE run for every row (``executemany``), then
    touch the runs that show them (``studio.change_tokens``), as ``bulk_update`` would.

    ``bulk_update`` builds one ``CASE WHEN pk = ... THEN ...`` expression per field and row: for a session's
    hundred runs acknowledging and completing a checkpoint a second, compiling those was a third of the
    session driver's CPU (py-spy with --gil, 20 runs)."""
    model_fields = [Checkpoint._meta.get_field(name) for name in fields]
    connection = connections[Checkpoint.objects.db]
    quote = connection.ops.quote_name
    sql = (f"UPDATE {quote(Checkpoint._meta.db_table)} SET "
           + ", ".join(f"{quote(field.column)} = %s" for field in model_fields)
           + f" WHERE {quote(Checkpoint._meta.pk.column)} = %s")
    params = [[field.get_db_prep_save(getattr(row, field.attname), connection) for field in model_fields] + [row.pk]
              for row in rows]
    with transaction.atomic(using=connection.alias, savepoint=False):
        with connection.cursor() as cursor:
            cursor.executemany(sql, params)
        Checkpoint.objects.filter(pk__in=[row.pk for row in rows]).touch_runs()


def _save_collected(runs: list[Run]) -> None:
    """Write the ``collected`` records of ``runs`` with a new ``change_token`` each in one prepared UPDATE run for
    every run, then touch their pipelines once, as each run's ``save(update_fields=["collected"])`` would with
    two statements a run: a session's runs each send collected records with their metrics every second."""
    connection = connections[Run.objects.db]
    quote = connection.ops.quote_name
    collected, token = Run._meta.get_field("collected"), Run._meta.get_field("change_token")
    sql = (f"UPDATE {quote(Run._meta.db_table)} SET {quote(collected.column)} = %s, {quote(token.column)} = %s "
           f"WHERE {quote(Run._meta.pk.column)} = %s")
    for run in runs:
        run.change_token = new_token()
    with transaction.atomic(using=connection.alias, savepoint=False):
        with connection.cursor() as cursor:
            cursor.executemany(sql, [[collected.get_db_prep_save(run.collected, connection), run.change_token, run.pk]
                                     for run in runs])
        Pipeline.objects.filter(pk__in={run.pipeline_id for run in runs}).touch_runs()


def _apply_status(run: Run, data: dict[str, Any]) -> bool:
    if run.status in TERMINAL_STATUSES:
        return False  # a terminal status is final; late reports must not resurrect a run
    run.status = data["status"]
    now = timezone.now()
    entry = {"status": run.status, "ts": int(now.timestamp() * 1000)}
    if data.get("cause"):
        entry["cause"] = data["cause"]
        run.failure_cause = data["cause"]
    run.status_history = [*run.status_history, entry]
    if run.status == RunStatus.RUNNING and run.started_at is None:
        run.started_at = now
    if run.status in TERMINAL_STATUSES:
        run.ended_at = now
        _fail_open_savepoint_requests(run)
    run.save(update_fields=["status", "status_history", "started_at", "ended_at", "failure_cause"])
    return True


def _fail_open_savepoint_requests(run: Run) -> None:
    """A run that ended answers no more savepoint requests; say so instead of leaving them open."""
    SavepointRequest.objects.filter(run=run, status=SavepointStatus.IN_PROGRESS).update(
        status=SavepointStatus.FAILED, completed_at=timezone.now(),
        failure_cause=f"the run ended ({run.status}) before the savepoint completed")


def _apply_checkpoint(run: Run, data: dict[str, Any]) -> None:
    if data.get("event") == "discarded":
        Checkpoint.objects.filter(run=run, checkpoint_id=data["id"]).update(discarded=True)
        return
    status = CHECKPOINT_STATUS_BY_EVENT.get(data.get("event"))
    if status is None:
        return
    values = {field: data[field] for field in CHECKPOINT_FIELDS if data.get(field) is not None}
    if "subtasks" in values:
        values["alignment_duration"] = _slowest_alignment(values["subtasks"])
    kind = _kind(data)
    checkpoint, created = Checkpoint.objects.get_or_create(
        run=run, checkpoint_id=data["id"],
        defaults={"kind": kind, "status": status, "trigger_timestamp": data.get("trigger_timestamp") or now_ms(),
                  **values},
    )
    if not created:
        if checkpoint.status in ("COMPLETED", "FAILED") and status == "IN_PROGRESS":
            return  # a late acknowledgement after the outcome changes nothing
        checkpoint.status = status
        for field, value in values.items():
            setattr(checkpoint, field, value)
        checkpoint.save()
    if status == "COMPLETED" and checkpoint.is_savepoint and checkpoint.external_path:
        for request in SavepointRequest.objects.filter(run=run, location=checkpoint.external_path, checkpoint=None):
            _link(request, checkpoint)
            request.save(update_fields=["checkpoint"])


def _savepoint_progress(run: Run, data: dict[str, Any]) -> dict[str, Any] | None:
    """A savepoint's checkpoint was triggered or acknowledged: its request's progress (the data of a
    ``savepoint_progress`` event), or None.

    The engine does not know request ids; savepoints are triggered in the order their
    requests were sent, so a triggered savepoint belongs to the oldest open request of its
    kind that has none yet.
    """
    if data.get("event") not in ("triggered", "acknowledged") or _kind(data) == "checkpoint":
        return None
    checkpoint = Checkpoint.objects.filter(run=run, checkpoint_id=data["id"]).first()
    if checkpoint is None:
        return None
    request = SavepointRequest.objects.filter(run=run, checkpoint=checkpoint).first()
    if request is None and data["event"] == "triggered":
        request = (SavepointRequest.objects.filter(run=run, checkpoint=None, status=SavepointStatus.IN_PROGRESS,
                                                   kind=_kind(data)).order_by("triggered_at", "id").first())
        if request is not None:
            _link(request, checkpoint)
            request.save(update_fields=["checkpoint"])
    if request is None or request.status != SavepointStatus.IN_PROGRESS:
        return None
    return {"request_id": request.request_id, "status": SavepointStatus.IN_PROGRESS, "kind": request.kind,
            "trigger": request.trigger, "checkpoint_id": checkpoint.checkpoint_id,
            "acknowledged": checkpoint.num_acknowledged_subtasks, "total": checkpoint.num_subtasks}


def _kind(data: dict[str, Any]) -> str:
    kind = data.get("kind") or "checkpoint"
    if kind == "savepoint" and (data.get("synchronous") or data.get("checkpoint_type") == "SYNC_SAVEPOINT"):
        return "sync-savepoint"
    return kind


def _slowest_alignment(subtasks: list[dict]) -> float | None:
    values = [s.get("alignment_duration") for s in subtasks if isinstance(s.get("alignment_duration"), (int, float))]
    return max(values) if values else None


def _apply_savepoint(run: Run, data: dict[str, Any]) -> None:
    """The driver's word on a savepoint request: the last report wins, it is the engine's truth."""
    status = data.get("status")
    if status not in (SavepointStatus.COMPLETED, SavepointStatus.FAILED):
        return
    request = SavepointRequest.objects.filter(run=run, request_id=data.get("request_id")).first()
    if request is None:
        return
    request.status = status
    request.completed_at = timezone.now()
    request.location = data.get("location") or ""
    request.failure_cause = data.get("failure_cause") if status == SavepointStatus.FAILED else None
    checkpoint = request.location and (Checkpoint.objects.filter(run=run, external_path=request.location)
                                       .exclude(kind="checkpoint").first())
    if checkpoint:
        _link(request, checkpoint)
    request.save()


def _link(request: SavepointRequest, checkpoint: Checkpoint) -> None:
    """Tie a request to the checkpoint row it produced (whichever of the two events came last)."""
    request.checkpoint = checkpoint
    changed = []
    if request.kind == "sync-savepoint" and checkpoint.kind != "sync-savepoint":
        checkpoint.kind = "sync-savepoint"  # the engine reports a stop's savepoint as a plain savepoint
        changed.append("kind")
    if checkpoint.trigger != request.trigger:
        checkpoint.trigger = request.trigger  # the history says who asked for it
        changed.append("trigger")
    if changed:
        checkpoint.save(update_fields=changed)
