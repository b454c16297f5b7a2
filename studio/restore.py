"""Starting a run from a checkpoint or savepoint: find it, check it, and check it fits.

Like Flink, a restore fails when the snapshot holds state of operators the new version
no longer has, unless ``allow_non_restored_state`` says to drop that state.
"""
from __future__ import annotations

from dataclasses import dataclass

from engine.checkpoint.storage import load_metadata
from studio.access import checkpoints_visible_to
from studio.models import Checkpoint
from studio.storage_urls import StorageUrlError, check_storage_url


class RestoreError(Exception):
    """The restore cannot go ahead; ``status`` is the HTTP status that says why (400 or 409)."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


@dataclass
class Restore:
    checkpoint: Checkpoint | None
    path: str


def resolve_restore(user, restore_from: dict, definition: dict, allow_non_restored_state: bool) -> Restore:
    """Turn ``{"checkpoint": pk}`` or ``{"path": location}`` into a checked :class:`Restore`."""
    checkpoint = None
    if "checkpoint" in restore_from:
        checkpoint = checkpoints_visible_to(user).filter(pk=restore_from["checkpoint"]).first()
        if checkpoint is None:
            raise RestoreError(f"no checkpoint or savepoint with pk {restore_from['checkpoint']}")
        if checkpoint.status != "COMPLETED" or not checkpoint.external_path:
            raise RestoreError(f"checkpoint {checkpoint.pk} is {checkpoint.status}; only a completed one "
                               "can be restored", status=409)
        if checkpoint.discarded:
            raise RestoreError(f"checkpoint {checkpoint.pk} was discarded: its files are gone", status=409)
        path = checkpoint.external_path
    else:
        try:
            path = check_storage_url(restore_from["path"])
        except StorageUrlError as error:
            raise RestoreError(str(error))
    try:
        metadata = load_metadata(path)
    except FileNotFoundError as error:
        raise RestoreError(str(error))
    except Exception as error:  # unreadable, not JSON, an unknown filesystem ...
        raise RestoreError(f"cannot read the checkpoint at {path}: {error}")
    unmatched = sorted(operators_with_state(metadata) - {node["id"] for node in definition.get("nodes", [])})
    if unmatched and not allow_non_restored_state:
        raise RestoreError(
            f"the snapshot has state of operators {', '.join(unmatched)} that this version does not have; "
            "set allow_non_restored_state to start without it")
    return Restore(checkpoint, metadata.get("location", path))


def operators_with_state(metadata: dict) -> set[str]:
    """The node ids whose state a checkpoint's ``_metadata`` holds."""
    operators: set[str] = set()
    for handle in (metadata.get("tasks") or {}).values():
        if isinstance(handle, dict):
            operators.update(str(node_id) for node_id in (handle.get("operators") or {}))
    return operators
