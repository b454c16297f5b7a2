"""Starting a run from a checkpoint or savepoint: find it, check it, and check it fits.

Like Flink, a restore fails when the snapshot holds state of operators the new version
no longer has, unless ``allow_non_restored_state`` says to drop that state. Whatever names
it (a path, a row), a snapshot is restored only when this studio signed it as it is and
the user may run the pipeline that wrote it (``studio.runs.snapshots``): 400 and 403
otherwise, naming ``restore_from``.

``restore_points`` lists what a run can still be restarted from: its completed checkpoints
and savepoints whose files are still there (retention, a user or an operator may have
deleted them), newest first. A restore from one that is gone answers 409 naming it, and a
path with no snapshot a 400 saying so, never the storage layer's words.
"""
from __future__ import annotations

from dataclasses import dataclass

from engine.api import SnapshotRefused as EngineSnapshotRefused
from engine.api import checkpoint_exists
from studio.access import checkpoints_visible_to
from studio.locations import SnapshotRefused, check_restore_path
from studio.models import Checkpoint
from studio.runs.snapshots import SnapshotForbidden, verified_snapshot
from studio.storage_urls import StorageUrlError, check_storage_url


class RestoreError(Exception):
    """The restore cannot go ahead; ``status`` is the HTTP status that says why (400, 403 or 409)."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


@dataclass
class Restore:
    checkpoint: Checkpoint | None
    path: str
    origin_run: int | None = None
    """The run that wrote the snapshot, as its signed metadata says (None: not a run's, or unknown)."""


def resolve_restore(user, restore_from: dict, definition: dict, allow_non_restored_state: bool,
                    pipeline=None) -> Restore:
    """Turn ``{"checkpoint": id, "run"?: run}``, ``{"pk": row}`` or ``{"path": location}`` into a checked
    :class:`Restore`. A bare checkpoint id is looked up among ``pipeline``'s runs."""
    checkpoint = None
    if "path" in restore_from:
        try:
            path = check_restore_path(user, check_storage_url(restore_from["path"]))
        except StorageUrlError as error:
            raise RestoreError(str(error))
        except SnapshotRefused as refused:
            raise RestoreError(f"restore_from.path: {refused}", status=refused.status)
    else:
        checkpoint = _checkpoint(user, restore_from, pipeline)
        if checkpoint.status != "COMPLETED" or not checkpoint.external_path:
            raise RestoreError(f"{_name(checkpoint)} is {checkpoint.status}; only a completed one "
                               "can be restored", status=409)
        if checkpoint.discarded:
            raise RestoreError(f"{_name(checkpoint)} was deleted: its files are gone", status=409)
        path = checkpoint.external_path
    field = "restore_from.path" if "path" in restore_from else "restore_from"
    try:  # signed by this studio as it is, and written by a pipeline the user may run (the driver asks again)
        metadata = verified_snapshot(user, path)
    except FileNotFoundError:
        if checkpoint is not None:
            raise RestoreError(f"{_name(checkpoint)} no longer exists: its files at {path} were deleted",
                               status=409)
        raise RestoreError(f"restore_from.path: there is no completed checkpoint or savepoint at {path} (it was "
                           "deleted, or never completed)")
    except SnapshotForbidden as forbidden:
        raise RestoreError(f"{field}: {forbidden}", status=403)
    except EngineSnapshotRefused as refused:
        raise RestoreError(f"{field}: {refused}")
    except Exception as error:  # unreadable, an unknown filesystem ...
        raise RestoreError(f"cannot read the checkpoint at {path}: {error}")
    unmatched = sorted(operators_with_state(metadata) - {node["id"] for node in definition.get("nodes", [])})
    if unmatched and not allow_non_restored_state:
        raise RestoreError(
            f"the snapshot has state of operators {', '.join(unmatched)} that this version does not have; "
            "set allow_non_restored_state to start without it")
    origin = metadata.get("origin") if isinstance(metadata.get("origin"), dict) else {}
    origin_run = checkpoint.run_id if checkpoint is not None else origin.get("run")
    return Restore(checkpoint, metadata["location"], origin_run if isinstance(origin_run, int) else None)


def _checkpoint(user, restore_from: dict, pipeline) -> Checkpoint:
    """The checkpoint row meant by ``pk``, or by the checkpoint id users see (and its run)."""
    visible = checkpoints_visible_to(user)
    if "pk" in restore_from:
        checkpoint = visible.filter(pk=restore_from["pk"]).first()
        if checkpoint is None:
            raise RestoreError(f"there is no checkpoint or savepoint with pk {restore_from['pk']} (it was deleted, "
                               "or is not yours to see)")
        return checkpoint
    number = restore_from["checkpoint"]
    if "run" in restore_from:
        checkpoint = visible.filter(run_id=restore_from["run"], checkpoint_id=number).first()
        if checkpoint is None:
            raise RestoreError(f"run {restore_from['run']} has no checkpoint or savepoint #{number}")
        return checkpoint
    candidates = list(visible.filter(run__pipeline=pipeline, checkpoint_id=number).order_by("-run_id")[:50])
    if not candidates:
        raise RestoreError(f"no run of this pipeline has a checkpoint or savepoint #{number}")
    completed = [candidate for candidate in candidates if candidate.status == "COMPLETED" and not candidate.discarded]
    if len(candidates) > 1 and len(completed) != 1:
        runs = ", ".join(str(candidate.run_id) for candidate in candidates)
        raise RestoreError(f"checkpoint #{number} is ambiguous: runs {runs} each have one; "
                           "add \"run\" to say whose")
    return completed[0] if completed else candidates[0]


RESTORE_POINTS_MAX = 100
"""The newest completed checkpoints and savepoints of a run looked at (each costs a look at its files)."""


def restore_points(run) -> list[dict]:
    """The run's completed checkpoints and savepoints that can still be restored, newest first:
    not deleted, and their ``_metadata`` still where the row says."""
    rows = (Checkpoint.objects.filter(run=run, status="COMPLETED", discarded=False).exclude(external_path="")
            .order_by("-checkpoint_id")[:RESTORE_POINTS_MAX])
    return [{"pk": row.pk, "run": row.run_id, "checkpoint_id": row.checkpoint_id,
             "kind": "checkpoint" if row.kind == "checkpoint" else "savepoint", "trigger": row.trigger or None,
             "trigger_timestamp": row.trigger_timestamp,
             "completed_timestamp": row.latest_ack_timestamp or row.trigger_timestamp,
             "state_size": row.state_size, "location": row.external_path}
            for row in rows if _still_there(row.external_path)]


def _still_there(location: str) -> bool:
    try:
        return checkpoint_exists(location)
    except Exception:  # an unreachable or unknown filesystem: nothing to restore from there now
        return False


def _name(checkpoint: Checkpoint) -> str:
    return f"{'savepoint' if checkpoint.is_savepoint else 'checkpoint'} #{checkpoint.checkpoint_id} of run {checkpoint.run_id}"


def operators_with_state(metadata: dict) -> set[str]:
    """The node ids whose state a checkpoint's ``_metadata`` holds."""
    operators: set[str] = set()
    for handle in (metadata.get("tasks") or {}).values():
        if isinstance(handle, dict):
            operators.update(str(node_id) for node_id in (handle.get("operators") or {}))
    return operators
