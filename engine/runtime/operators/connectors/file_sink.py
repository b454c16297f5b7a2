"""``sink.file``: JSON lines with two-phase commit, exactly once (seed 001, §5).

Records are appended to the subtask's current *transaction*: a hidden in-progress file in
the target directory. Readers see only committed files (``part-*.jsonl``); hidden files
are not output. Names and renames are those of ``engine.runtime.operators.connectors.file_transactions``;
when they happen is ``engine.runtime.operators.two_phase_commit``:

1. *pre-commit* (snapshot of checkpoint n): the in-progress file is closed and renamed to a
   hidden pending name carrying n;
2. *commit* (checkpoint n, or a later one, completed): renamed to its final name;
3. *recovery* (every start): pending files of checkpoints the restored one covers are
   committed, every other hidden file of this sink (pending for a later checkpoint, or
   in progress when an attempt died) is deleted.

Data written after the last completed checkpoint is written again after a restore, into
new transactions, which is why nothing is doubled.
"""
from __future__ import annotations

import io
import json

from engine.runtime.operators.connectors.file_transactions import FileTransactionSink
from engine.runtime.operators.two_phase_commit import CommitError

__all__ = ["CommitError", "TwoPhaseCommitFileSink", "encode_lines"]


def _json_default(value):
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=repr)
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return str(value)


def encode_lines(batch) -> str:
    dumps = json.dumps
    return "".join([dumps(record, separators=(",", ":"), default=_json_default) + "\n" for record in batch])


class TwoPhaseCommitFileSink(FileTransactionSink):
    """Writes JSON lines into files committed when their checkpoint completes."""

    prefix_label = "f"
    extension = ".jsonl"

    def begin_transaction(self):
        in_progress, final, file = self.files.new_file()
        return {"file": io.TextIOWrapper(file, encoding="utf-8"), "in_progress": in_progress,
                "final": final, "records": 0}

    def write(self, transaction, batch):
        transaction["file"].write(encode_lines(batch))
        transaction["records"] += len(batch)

    def pre_commit(self, transaction, checkpoint_id):
        transaction["file"].close()
        pending = self.files.mark_pending(transaction["in_progress"], checkpoint_id)
        return {"pending": pending, "final": transaction["final"], "records": transaction["records"]}

    def committed_files(self, committable):
        # "temporary": the pending name in checkpoints of versions before file_transactions
        return [(committable.get("pending") or committable["temporary"], committable["final"])]

    def abort(self, transaction):
        try:
            transaction["file"].close()
        finally:
            self.files.remove(transaction["in_progress"])
