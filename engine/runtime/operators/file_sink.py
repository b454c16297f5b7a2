"""``sink.file``: JSON lines with two-phase commit, exactly once (seed 001, §5).

Records are appended to the subtask's current *transaction*: a hidden in-progress file
``.part-....jsonl.inprogress`` in the target directory. Readers see only committed files
(``part-*.jsonl``); hidden files are not output.

1. *pre-commit* (``snapshot_state`` of checkpoint n): the in-progress file is closed and
   becomes a pending committable ``{"checkpoint_id": n, "temporary": ..., "final": ...}``;
   the pending list is part of the checkpoint's operator state.
2. *commit* (``notify_checkpoint_complete(n)``): every pending committable of a checkpoint
   up to n is renamed to its final name.
3. *re-commit on restore*: the restored pending list belongs to a completed checkpoint,
   so each entry is committed again. Commits are idempotent: a committable whose
   temporary file is gone and whose final file exists was committed before.

Data written after the last completed checkpoint stays in in-progress files that nobody
commits: after a restore it is written again into new transactions, which is why nothing
is doubled. At end of input the subtask waits for one more checkpoint to commit its last
transaction (``requires_final_checkpoint``); with checkpointing off it commits directly.
"""
from __future__ import annotations

import json
import uuid

import fsspec

from engine.checkpoint.storage import join
from engine.runtime.operators.base import StreamOperator


class CommitError(RuntimeError):
    """A pending file can be neither committed nor found committed: its data is lost."""


def _json_default(value):
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=repr)
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return str(value)


def encode_lines(batch) -> str:
    dumps = json.dumps
    return "".join([dumps(record, separators=(",", ":"), default=_json_default) + "\n" for record in batch])


class TwoPhaseCommitFileSink(StreamOperator):
    """Writes JSON lines into transactions committed when their checkpoint completes."""

    def __init__(self, node, context):
        super().__init__(node, context)
        self.directory = self.params["path"]
        self.fs, self.root = fsspec.core.url_to_fs(self.directory)
        self.checkpointing = bool(context.config.get("checkpointing_enabled", True))
        self.pending: list[dict] = []
        self._file = None
        self._transaction: dict | None = None
        self._prefix = f"part-{_safe(self.node_id)}-{context.subtask_index}-{uuid.uuid4().hex[:8]}"
        self._sequence = 0
        self._state = None
        self.committed_files = 0

    @property
    def requires_final_checkpoint(self) -> bool:  # type: ignore[override]
        return self.checkpointing

    def initialize_state(self):
        self.fs.makedirs(self.root, exist_ok=True)
        self._state = self.context.operator_state().list_state("pending")
        restored = [dict(entry) for entry in self._state.get()]
        for committable in restored:
            self._commit(committable)
        self.pending = []
        self._state.update([])

    def process_batch(self, batch):
        if not batch:
            return
        if self._file is None:
            self._begin_transaction()
        self._file.write(encode_lines(batch))
        self._transaction["records"] += len(batch)

    def process_watermark(self, watermark):
        pass

    def _begin_transaction(self):
        self._sequence += 1
        final = f"{self._prefix}-{self._sequence}.jsonl"
        self._transaction = {"temporary": join(self.root, f".{final}.inprogress"),
                             "final": join(self.root, final), "records": 0}
        self._file = self.fs.open(self._transaction["temporary"], "w", encoding="utf-8")

    def _pre_commit(self, checkpoint_id: int) -> None:
        if self._file is None:
            return
        self._file.close()
        self._file = None
        transaction, self._transaction = self._transaction, None
        self.pending.append({"checkpoint_id": checkpoint_id, "temporary": transaction["temporary"],
                             "final": transaction["final"], "records": transaction["records"]})

    def snapshot_state(self, checkpoint_id):
        self._pre_commit(checkpoint_id)
        self._state.update(dict(entry) for entry in self.pending)

    def notify_checkpoint_complete(self, checkpoint_id):
        ready = [entry for entry in self.pending if entry["checkpoint_id"] <= checkpoint_id]
        for committable in ready:
            self._commit(committable)
        self.pending = [entry for entry in self.pending if entry["checkpoint_id"] > checkpoint_id]

    def finish(self):
        if not self.checkpointing:
            self._pre_commit(0)
            self.notify_checkpoint_complete(0)

    def _commit(self, committable: dict) -> None:
        temporary, final = committable["temporary"], committable["final"]
        if self.fs.exists(temporary):
            self.fs.mv(temporary, final)
            self.committed_files += 1
        elif not self.fs.exists(final):
            raise CommitError(f"pending file {temporary} is missing and {final} was never committed")

    def close(self):
        if self._file is not None:
            try:
                self._file.close()
                self.fs.rm(self._transaction["temporary"])
            except (OSError, FileNotFoundError):
                pass
            self._file = None

    def metrics(self):
        return {"pending_transactions": len(self.pending)}


def _safe(name: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in name)
