"""Which Kafka transactions an exactly-once sink has begun: a registry beside the checkpoints.

Why: after a crash, every transaction the dead attempt left must be ended -- committed if
the restored checkpoint covers it, aborted otherwise -- and ending one needs its producer
id and epoch (``protocol.end_transaction``). A real broker would abort an open
transaction when the next producer initialises the same transactional id, but not every
cluster does (librdkafka's mock cluster hands out a new producer id instead), a
transaction's id alone says nothing of its producer, and listing transactions
(``ListTransactions``) is not available everywhere. So the sink writes down each
transaction before its first record, as a small file:

    <checkpoint storage>/kafka-transactions/<transaction prefix>/<subtask>.<sequence>.open.json
    ...                                                        /<subtask>.<sequence>.c<checkpoint>.json

``open``: begun, not pre-committed; ``c<n>``: pre-committed for checkpoint n (written
before the ``open`` file is removed, so a crash in between leaves both and the
pre-committed one counts). Each holds ``{"transactional_id", "producer_id", "epoch"}``.
A committed or aborted transaction's files are removed. A restore reads the registry of
the run being restored (the directory of its checkpoint) as well as this run's.

Every subtask reads the whole registry while the others write theirs, so an entry is written
under a name the registry does not match and then renamed into place (a reader never sees it
half written, and a crash in the middle leaves nothing it would read), and an entry removed
between the listing and its reading is left out: removed, it was ended (or replaced by its
pre-committed state), and only its own subtask, which is not writing while it recovers, acts on it.
"""
from __future__ import annotations

import json
import posixpath
import re
import uuid
from dataclasses import dataclass

import fsspec

from engine.runtime.operators.connectors.kafka.protocol import ProducerIdentity

REGISTRY_DIRECTORY = "kafka-transactions"
_ENTRY = re.compile(r"^(\d+)\.(\d+)\.(open|c(\d+))\.json$")


@dataclass
class RegisteredTransaction:
    """One transaction the registry knows: its subtask, sequence, checkpoint (None: open) and producer."""

    subtask: int
    sequence: int
    checkpoint_id: int | None
    identity: ProducerIdentity
    files: list[tuple]
    """``(filesystem, path)`` of each of its files."""


def registry_roots(checkpoint_storage: str, restored_location: str | None) -> list[str]:
    """Where registries are: this run's checkpoint storage first, then the restored checkpoint's run's."""
    roots = [checkpoint_storage.rstrip("/")]
    if restored_location:
        parent, name = posixpath.split(restored_location.rstrip("/"))
        if re.fullmatch(r"chk-\d+", name) and parent not in roots:
            roots.append(parent)
    return roots


class TransactionRegistry:
    """The registry of one sink (one transaction prefix), over one or more checkpoint storages."""

    def __init__(self, roots: list[str], prefix: str):
        self.directories = [f"{root}/{REGISTRY_DIRECTORY}/{prefix}" for root in roots]
        self._fs, self._directory = fsspec.core.url_to_fs(self.directories[0])
        self._fs.makedirs(self._directory, exist_ok=True)

    def record(self, subtask: int, sequence: int, identity: ProducerIdentity, checkpoint_id: int | None = None) -> None:
        """Write the transaction down (before its first record; again when pre-committed)."""
        state = "open" if checkpoint_id is None else f"c{checkpoint_id}"
        data = json.dumps({"transactional_id": identity.transactional_id, "producer_id": identity.producer_id,
                           "epoch": identity.epoch}).encode()
        final = f"{self._directory}/{subtask}.{sequence}.{state}.json"
        partial = f"{self._directory}/.{subtask}.{sequence}.{state}.{uuid.uuid4().hex}.tmp"
        self._fs.pipe_file(partial, data)
        self._fs.mv(partial, final)
        if checkpoint_id is not None:
            _remove([(self._fs, f"{self._directory}/{subtask}.{sequence}.open.json")])

    def forget(self, transaction: RegisteredTransaction | tuple[int, int]) -> None:
        """Remove a transaction that was committed or aborted."""
        if isinstance(transaction, RegisteredTransaction):
            _remove(transaction.files)
            return
        subtask, sequence = transaction
        _remove([(self._fs, path) for path in self._fs.glob(f"{self._directory}/{subtask}.{sequence}.*.json")])

    def transactions(self) -> list[RegisteredTransaction]:
        """Every transaction written down, the pre-committed state of one winning over its open state."""
        found: dict[tuple[int, int], RegisteredTransaction] = {}
        for directory in self.directories:
            fs, path = fsspec.core.url_to_fs(directory)
            try:
                names = fs.ls(path, detail=False)
            except FileNotFoundError:
                continue
            for name in sorted(names):
                match = _ENTRY.match(posixpath.basename(name))
                if match is None:
                    continue
                subtask, sequence = int(match[1]), int(match[2])
                checkpoint_id = int(match[4]) if match[4] else None
                entry = found.get((subtask, sequence))
                if entry is not None:
                    entry.files.append((fs, name))
                    if checkpoint_id is None or (entry.checkpoint_id or -1) >= checkpoint_id:
                        continue
                try:
                    with fs.open(name, "rb") as handle:
                        data = json.loads(handle.read())
                except FileNotFoundError:
                    continue  # ended (or pre-committed) after the listing: see the module's docstring
                identity = ProducerIdentity(data["transactional_id"], int(data["producer_id"]), int(data["epoch"]))
                files = entry.files if entry is not None else [(fs, name)]
                found[(subtask, sequence)] = RegisteredTransaction(subtask, sequence, checkpoint_id, identity, files)
        return sorted(found.values(), key=lambda entry: (entry.subtask, entry.sequence))


def _remove(files: list[tuple]) -> None:
    for fs, path in files:
        try:
            fs.rm_file(path)
        except FileNotFoundError:
            pass
