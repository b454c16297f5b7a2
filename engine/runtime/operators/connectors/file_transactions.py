"""Files as transactions: hidden while written and pre-committed, renamed into view on commit.

The two-phase-commit file sinks (``sink.file``, ``sink.parquet``) name every file they
write after the sink's transaction prefix, the subtask, the operator instance's token and a
sequence number, so that a restarted job recognises what an earlier attempt left::

    .part-<node>-<prefix>-<subtask>-<token>-<seq><ext>.inprogress      being written
    .part-<node>-<prefix>-<subtask>-<token>-<seq><ext>.pending-<n>     pre-committed for checkpoint n
     part-<node>-<prefix>-<subtask>-<token>-<seq><ext>                 committed (readers see these)

Hidden names (leading ``.``) are skipped by readers (``source.file``, ``source.parquet``).
The checkpoint id in a pending name is what recovery decides by (see ``two_phase_commit``).
"""
from __future__ import annotations

import posixpath
import re

import fsspec

from engine.checkpoint.storage import join
from engine.runtime.operators.two_phase_commit import CommitError, TwoPhaseCommitSink

_INPROGRESS = ".inprogress"
_PENDING = ".pending-"


def safe_name(name: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in name)


class FileTransactions:
    """Names, pre-commits, commits and finds the files of one sink subtask."""

    def __init__(self, fs, root: str, node_id: str, prefix: str, subtask: int, token: str, extension: str):
        self.fs = fs
        self.root = root
        self.base = f"part-{safe_name(node_id)}-{prefix}"
        self.subtask = subtask
        self.token = token
        self.extension = extension
        self._sequence = 0
        self._leftover = re.compile(
            rf"^\.{re.escape(self.base)}-(\d+)-([0-9a-f]+)-(\d+){re.escape(extension)}"
            rf"(?:{re.escape(_INPROGRESS)}|{re.escape(_PENDING)}(\d+))$")

    def new_file(self, directory: str | None = None) -> tuple[str, str]:
        """``(in-progress path, final path)`` of the next file, in ``directory`` (default: the root)."""
        self._sequence += 1
        directory = directory or self.root
        final = f"{self.base}-{self.subtask}-{self.token}-{self._sequence}{self.extension}"
        return join(directory, f".{final}{_INPROGRESS}"), join(directory, final)

    def mark_pending(self, in_progress: str, checkpoint_id: int) -> str:
        """Pre-commit: the closed file takes the checkpoint's id in its (still hidden) name."""
        pending = in_progress[: -len(_INPROGRESS)] + f"{_PENDING}{checkpoint_id}"
        self.fs.mv(in_progress, pending)
        return pending

    def commit(self, pending: str, final: str) -> None:
        """Rename into view; a file already renamed is committed (idempotent)."""
        if self.fs.exists(pending):
            self.fs.mv(pending, final)
        elif not self.fs.exists(final):
            raise CommitError(f"pending file {pending} is missing and {final} was never committed")

    def remove(self, path: str) -> None:
        try:
            self.fs.rm(path)
        except FileNotFoundError:
            pass

    def leftovers(self) -> list[tuple[int, int | None, tuple[str, str]]]:
        """Hidden files of this sink below the root, except this instance's:
        ``(subtask, checkpoint id or None, (path, final path))``."""
        found = []
        for path in self.fs.find(self.root):
            directory, name = posixpath.split(path)
            match = self._leftover.match(name)
            if match is None or match.group(2) == self.token:
                continue
            checkpoint = match.group(4)
            final = join(directory, name[1:].split(_INPROGRESS)[0].split(_PENDING)[0])
            found.append((int(match.group(1)), int(checkpoint) if checkpoint else None, (path, final)))
        return found


class FileTransactionSink(TwoPhaseCommitSink):
    """A two-phase-commit sink writing files below ``params.path``: what recovery needs of files."""

    extension = ""

    def __init__(self, node, context):
        super().__init__(node, context)
        self.fs, self.root = fsspec.core.url_to_fs(self.params["path"])
        self.files: FileTransactions | None = None

    def connect(self):
        self.fs.makedirs(self.root, exist_ok=True)
        self.files = FileTransactions(self.fs, self.root, self.node_id, self.transaction_prefix,
                                      self.context.subtask_index, self.attempt_token, self.extension)

    def leftovers(self):
        return self.files.leftovers()

    def commit_leftover(self, handle):
        self.files.commit(*handle)

    def abort_leftover(self, handle):
        self.files.remove(handle[0])
