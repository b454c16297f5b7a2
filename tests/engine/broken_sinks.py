"""Deliberately broken operators, registered only in tests (``engine.api.register_operator``).

``sink.eager_commit`` writes JSON lines as ``sink.file`` does, but commits each transaction
at the checkpoint's snapshot, before the checkpoint completed: the classic two-phase-commit
mistake. Without failures its output is right; when a subtask dies after a snapshot and
before its checkpoint completed, the job restores the checkpoint before, its sources read
those records again, and they are committed twice. The exactly-once proof must catch it.
"""
from __future__ import annotations

import copy

from engine.api import operator_spec, register_operator
from engine.runtime.operators.connectors.file_sink import TwoPhaseCommitFileSink

EAGER_COMMIT = "sink.eager_commit"


class EagerCommitFileSink(TwoPhaseCommitFileSink):
    """``sink.file`` committing at the snapshot instead of when the checkpoint completes."""

    def snapshot_state(self, checkpoint_id):
        super().snapshot_state(checkpoint_id)
        self.notify_checkpoint_complete(checkpoint_id)  # too early: the checkpoint may still fail


def register_broken_sinks() -> str:
    """Register ``sink.eager_commit`` in this process (and, through the jobs using it, in their slots)."""
    spec = copy.deepcopy(operator_spec("sink.file"))
    spec.update(type=EAGER_COMMIT, title="File sink committing too early (test only)",
                description="sink.file, but it commits at the snapshot, before the checkpoint completed.")
    spec.pop("plugin", None)
    register_operator(spec, f"{__name__}:EagerCommitFileSink")
    return EAGER_COMMIT
