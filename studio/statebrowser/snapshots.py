"""Which snapshot a state browser's request reads, checked when it is read.

A request names a run the user may see and one of its checkpoint ids; the row must be a
completed checkpoint or savepoint whose files are still there, and its ``_metadata`` must
be signed by this studio as it is (``studio.runs.snapshots``) with the run's own pipeline
as its origin: a row whose path was pointed at another pipeline's snapshot (or a snapshot
replaced by a link to one) is refused, whoever may see the run. The worker that reads the
state then checks every state file against the digests of this very metadata
(``engine.api.SnapshotBrowser``), so what was verified is what is shown.
"""
from __future__ import annotations

from dataclasses import dataclass

from engine.api import SnapshotRefused, SnapshotSigner, load_checkpoint_metadata, normalise_definition
from studio.models import Checkpoint, Run
from studio.run_values import run_definition
from studio.runs.snapshots import signing_key


class SnapshotUnavailable(Exception):
    """The checkpoint cannot be browsed; ``status`` is the HTTP answer (404, 409) and the message says why."""

    def __init__(self, message: str, status: int):
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class BrowsableSnapshot:
    checkpoint: Checkpoint
    metadata: dict
    definition: dict

    def as_args(self) -> dict:
        return {"metadata": self.metadata, "definition": self.definition}


def browsable_snapshot(run: Run, checkpoint_id: int) -> BrowsableSnapshot:
    """The verified snapshot of ``run``'s checkpoint ``checkpoint_id`` (see the module docstring)."""
    checkpoint = Checkpoint.objects.filter(run=run, checkpoint_id=checkpoint_id).first()
    name = f"checkpoint #{checkpoint_id} of run {run.pk}"
    if checkpoint is None:
        raise SnapshotUnavailable(f"run {run.pk} has no checkpoint or savepoint #{checkpoint_id}", 404)
    if checkpoint.is_savepoint:
        name = f"savepoint #{checkpoint_id} of run {run.pk}"
    if checkpoint.status != "COMPLETED" or not checkpoint.external_path:
        raise SnapshotUnavailable(f"{name} is {checkpoint.status}; only a completed one can be browsed", 409)
    if checkpoint.discarded:
        raise SnapshotUnavailable(f"{name} was deleted: its files are gone", 409)
    try:
        metadata = load_checkpoint_metadata(checkpoint.external_path, signer=SnapshotSigner(signing_key()))
    except FileNotFoundError:
        raise SnapshotUnavailable(f"{name} no longer exists: its files were deleted", 409) from None
    except SnapshotRefused as refused:
        raise SnapshotUnavailable(f"{name}: {refused}", 409) from None
    except Exception as error:  # unreadable, an unknown filesystem ...
        raise SnapshotUnavailable(f"cannot read {name}: {type(error).__name__}", 409) from None
    origin = metadata.get("origin")
    if not isinstance(origin, dict) or origin.get("pipeline") != run.pipeline_id:
        raise SnapshotUnavailable(f"{name}: the snapshot at its location was not written by this run's pipeline", 409)
    # the definition the job ran: with the parameters of the environment it ran in (a window's size, say)
    return BrowsableSnapshot(checkpoint, metadata, normalise_definition({**run_definition(run), "mode": run.mode}))
