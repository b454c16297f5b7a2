"""Files as transactions: hidden while written and pre-committed, renamed into view on commit.

The two-phase-commit file sinks (``sink.file``, ``sink.parquet``) name every file they
write after the sink's transaction prefix, the subtask, the operator instance's token and a
sequence number, so that a restarted job recognises what an earlier attempt left::

    .part-<node>-<prefix>-<subtask>-<token>-<seq><ext>.inprogress      being written
    .part-<node>-<prefix>-<subtask>-<token>-<seq><ext>.pending-<n>     pre-committed for checkpoint n
     part-<node>-<prefix>-<subtask>-<token>-<seq><ext>                 committed (readers see these)

Hidden names (leading ``.``) are skipped by readers (``source.file``, ``source.parquet``).
The checkpoint id in a pending name is what recovery decides by (see ``two_phase_commit``).

Every file is created, renamed and removed inside the sink's directory as it was opened
when the sink started (``sink_directory``), in it or in a partition directory directly
below it. A transaction a restored state names is the sink's own only when its files are
there, named as the sink names them (:meth:`FileTransactions.owns`): anything else in a
snapshot is refused before a file is touched.
"""
from __future__ import annotations

import re

from engine.runtime.grants import Grants
from engine.runtime.operators.restored_state import require
from engine.runtime.operators.connectors.sink_directory import SinkDirectory
from engine.runtime.operators.two_phase_commit import CommitError, TwoPhaseCommitSink

_INPROGRESS = ".inprogress"
_PENDING = ".pending-"


def safe_name(name: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in name)


class FileTransactions:
    """Names, pre-commits, commits and finds the files of one sink subtask."""

    def __init__(self, directory: SinkDirectory, node_id: str, prefix: str, subtask: int, token: str,
                 extension: str):
        self.directory = directory
        self.base = f"part-{safe_name(node_id)}-{prefix}"
        self.subtask = subtask
        self.token = token
        self.extension = extension
        self._sequence = 0
        self._leftover = re.compile(
            rf"^\.{re.escape(self.base)}-(\d+)-([0-9a-f]+)-(\d+){re.escape(extension)}"
            rf"(?:{re.escape(_INPROGRESS)}|{re.escape(_PENDING)}(\d+))$")
        self._final = re.compile(rf"^part-{re.escape(safe_name(node_id))}-[A-Za-z0-9_.-]+{re.escape(extension)}$")
        """A committed name this node's sink makes (of any prefix: older versions had none)."""

    def new_file(self, partition: str | None = None):
        """``(in-progress path, final path, the in-progress file open for binary writing)`` of the next file,
        in the directory or in ``partition``."""
        self._sequence += 1
        final = f"{self.base}-{self.subtask}-{self.token}-{self._sequence}{self.extension}"
        in_progress = f".{final}{_INPROGRESS}"
        file = self.directory.create(in_progress, partition)
        return self.directory.path(in_progress, partition), self.directory.path(final, partition), file

    def mark_pending(self, in_progress: str, checkpoint_id: int) -> str:
        """Pre-commit: the closed file takes the checkpoint's id in its (still hidden) name."""
        partition, name = self._located(in_progress)
        pending = name[: -len(_INPROGRESS)] + f"{_PENDING}{checkpoint_id}"
        self.directory.rename(name, pending, partition)
        return self.directory.path(pending, partition)

    def owns(self, pending, final) -> bool:
        """Whether ``(pending, final)`` is a transaction this sink could have made: both in its directory (or
        one partition directory of it), the final name one of this node's, the pending name made from it."""
        located_final, located_pending = self.directory.relative(final), self.directory.relative(pending)
        if located_final is None or located_pending is None or located_final[0] != located_pending[0]:
            return False
        name, hidden = located_final[1], located_pending[1]
        if not self._final.match(name) or not hidden.startswith(f".{name}"):
            return False
        rest = hidden[len(name) + 1:]
        return rest == _INPROGRESS or (rest.startswith(_PENDING) and rest[len(_PENDING):].isdigit())

    def commit(self, pending: str, final: str) -> None:
        """Rename into view; a file already renamed is committed (idempotent)."""
        if not self.owns(pending, final):
            raise CommitError(f"{pending} -> {final} is not a transaction of this sink")
        partition, hidden = self._located(pending)
        name = self._located(final)[1]
        if self.directory.exists(hidden, partition):
            self.directory.rename(hidden, name, partition)
        elif not self.directory.exists(name, partition):
            raise CommitError(f"pending file {pending} is missing and {final} was never committed")

    def remove(self, path: str) -> None:
        partition, name = self._located(path)
        self.directory.remove(name, partition)

    def leftovers(self) -> list[tuple[int, int | None, tuple[str, str]]]:
        """Hidden files of this sink in its directory and its partition directories, except this instance's:
        ``(subtask, checkpoint id or None, (path, final path))``."""
        found = []
        for partition, name in self.directory.files():
            match = self._leftover.match(name)
            if match is None or match.group(2) == self.token:
                continue
            checkpoint = match.group(4)
            final = name[1:].split(_INPROGRESS)[0].split(_PENDING)[0]
            found.append((int(match.group(1)), int(checkpoint) if checkpoint else None,
                          (self.directory.path(name, partition), self.directory.path(final, partition))))
        return found

    def _located(self, path: str) -> tuple[str | None, str]:
        located = self.directory.relative(path)
        if located is None:
            raise CommitError(f"{path} is not a file of the sink's directory {self.directory.root}")
        return located


class FileTransactionSink(TwoPhaseCommitSink):
    """A two-phase-commit sink writing files below ``params.path``: what recovery needs of files."""

    extension = ""

    def __init__(self, node, context):
        super().__init__(node, context)
        self.directory = SinkDirectory(node, self.params["path"], Grants.of(context.config))
        self.root = self.directory.root
        self.files: FileTransactions | None = None

    def connect(self):
        self.directory.open()
        self.files = FileTransactions(self.directory, self.node_id, self.transaction_prefix,
                                      self.context.subtask_index, self.attempt_token, self.extension)

    def committed_files(self, committable: dict) -> list[tuple[str, str]]:
        """``(pending path, final path)`` of each file of a pre-committed transaction."""
        raise NotImplementedError(f"{type(self).__name__}.committed_files() must be overridden")

    def commit(self, committable):
        for pending, final in self.committed_files(committable):
            self.files.commit(pending, final)

    def check_restored(self, committable: dict) -> None:
        try:
            files = self.committed_files(committable)
        except (KeyError, TypeError, ValueError):
            files = None
        require(files is not None and all(self.files.owns(pending, final) for pending, final in files),
                self.node, self.context,
                f"names the transaction {committable!r:.300}, whose files are not this sink's own in {self.root}")

    def leftovers(self):
        return self.files.leftovers()

    def commit_leftover(self, handle):
        self.files.commit(*handle)

    def abort_leftover(self, handle):
        self.files.remove(handle[0])

    def close(self):
        try:
            super().close()
        finally:
            self.directory.close()
