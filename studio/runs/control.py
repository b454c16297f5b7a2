"""Commands to a running run: cancel, trigger a savepoint, stop with a savepoint.

Each checks the run's state first (a 409 names it), writes what the studio promises to
track (a savepoint request row, a status) and sends the command to the driver through the
run's Redis list (``studio.runs.commands``) inside one transaction: when Redis cannot take
the command, nothing was written (the API answers 503), and the driver never sees a
command whose rows are missing, since it reads rows only after they committed.
"""
from __future__ import annotations

from django.db import transaction

from studio.locations import SnapshotRefused, check_savepoint_target
from studio.models import TERMINAL_STATUSES, Run, RunStatus, SavepointRequest, SavepointStatus, SavepointTrigger
from studio.runs.commands import send_command
from studio.runs.events import record_event, set_status
from studio.storage_urls import StorageUrlError, check_storage_url


class RunStateConflict(Exception):
    """The run's state does not allow the command; the message says which state it is in."""


def cancel(run: Run) -> None:
    if run.status in TERMINAL_STATUSES:
        raise RunStateConflict(f"run {run.id} already ended with status {run.status}")
    with transaction.atomic():
        if run.status != RunStatus.CANCELING:
            set_status(run.id, RunStatus.CANCELING)
        send_command(run, {"command": "cancel"})


def trigger_savepoint(run: Run, user, target_directory: str | None = None, *,
                      trigger: str = SavepointTrigger.MANUAL, schedule=None) -> SavepointRequest:
    """Ask the driver for a savepoint; the request is IN_PROGRESS until the driver answers."""
    return _savepoint(run, user, "savepoint", target_directory, drain=None, trigger=trigger, schedule=schedule)


def stop_with_savepoint(run: Run, user, drain: bool, target_directory: str | None = None) -> SavepointRequest:
    """Ask the driver to take a synchronous savepoint and then finish (draining first when asked)."""
    if run.savepoint_requests.filter(kind="sync-savepoint", status=SavepointStatus.IN_PROGRESS).exists():
        raise RunStateConflict(f"run {run.id} is already stopping with a savepoint")
    return _savepoint(run, user, "sync-savepoint", target_directory, drain=drain, trigger=SavepointTrigger.STOP)


def _savepoint(run: Run, user, kind: str, target_directory: str | None, drain: bool | None, *, trigger: str,
               schedule=None) -> SavepointRequest:
    if target_directory:
        target_directory = check_storage_url(target_directory)
        try:
            target_directory = check_savepoint_target(user, run.pipeline, target_directory)
        except SnapshotRefused as refused:
            raise StorageUrlError(str(refused))
    if run.status != RunStatus.RUNNING:
        raise RunStateConflict(f"run {run.id} is {run.status}; savepoints need a RUNNING run")
    if run.mode == "batch":
        raise RunStateConflict(f"run {run.id} runs in batch mode, which takes no checkpoints or savepoints")
    with transaction.atomic():
        request = SavepointRequest.objects.create(
            request_id=SavepointRequest.new_request_id(), run=run, kind=kind, drain=drain,
            target_directory=target_directory or "", created_by=user, trigger=trigger, schedule=schedule)
        record_event(run.id, "savepoint", {"request_id": request.request_id, "status": SavepointStatus.IN_PROGRESS,
                                           "kind": kind, "trigger": trigger, "target_directory": target_directory or None,
                                           **({"drain": drain} if drain is not None else {})})
        command = {"command": "stop" if kind == "sync-savepoint" else "savepoint",
                   "request_id": request.request_id, "target_directory": target_directory or None}
        if drain is not None:
            command["drain"] = drain
        send_command(run, command)
    return request
