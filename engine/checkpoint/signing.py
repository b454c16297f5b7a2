"""Signed snapshots: a job restores a snapshot only as a job holding the same key wrote it.

A snapshot often lies where a user can write (a savepoint target in their own directory),
and its state names files, offsets, keys and transactions that operators act on when they
restore. So a client that hands the job a key (:class:`SnapshotSigner`; the studio derives
its key from its secret and keeps it in the driver process: no slot, event, log or
snapshot ever holds it) gets every ``_metadata`` the job writes signed, and every restore
checked:

- ``origin``: what the client says wrote the snapshot (the studio: pipeline, run, owner),
  so the client can check, when the snapshot is chosen and again when the run opens it,
  that whoever restores it may use what it came from;
- ``sha256`` in every state handle: the digest of the state file, computed by the subtask
  as it writes the file (``engine.runtime.subtask_checkpoint``) and checked by every subtask
  that reads it (``engine.runtime.state.restore``): a rewritten state file is refused;
- ``signature``: HMAC-SHA256 of the metadata's canonical JSON (sorted keys, compact), all of
  it except the signature itself and ``location`` (a savepoint may be moved or copied).

Without a key nothing is signed or required (the engine alone, ``engine run``); digests are
written and checked all the same. A snapshot written before signing existed is refused by
a job with a key: the studio's operators re-sign one they trust (``manage.py sign_snapshot``).
"""
from __future__ import annotations

import hashlib
import hmac
import json
from dataclasses import dataclass, field
from typing import Any

SIGNATURE = "signature"
ORIGIN = "origin"
DIGEST = "sha256"
UNSIGNED_FIELDS = (SIGNATURE, "location")


class SnapshotRefused(ValueError):
    """A snapshot that may not be restored; the message names it and says why."""

    def __init__(self, location: str, reason: str):
        self.location = location
        super().__init__(f"the snapshot at {location} is refused: {reason}")


def digest(data: bytes) -> str:
    """The digest a state handle carries of its file's bytes."""
    return hashlib.sha256(data).hexdigest()


def check_digest(location: str, handle: dict, data: bytes) -> None:
    """``data`` is the state file ``handle`` names, as it was written (when the handle says what that was)."""
    expected = handle.get(DIGEST)
    if expected is not None and not hmac.compare_digest(str(expected), digest(data)):
        raise SnapshotRefused(location, f"its state file {handle.get('path')!r} is not the one it was written with "
                                        "(its SHA-256 differs from the snapshot's metadata)")


def canonical(metadata: dict[str, Any]) -> bytes:
    """What the signature covers: the metadata without its signature and location, as canonical JSON."""
    signed = {key: value for key, value in metadata.items() if key not in UNSIGNED_FIELDS}
    return json.dumps(signed, sort_keys=True, separators=(",", ":"), ensure_ascii=True,
                      allow_nan=False).encode("ascii")


@dataclass(frozen=True)
class SnapshotSigner:
    """Signs the metadata a job writes and verifies the metadata it restores, with ``key``.

    ``origin`` is plain data the client wants to find again in the snapshots this job writes."""

    key: bytes = field(repr=False)
    origin: dict = field(default_factory=dict)

    def __post_init__(self):
        if not isinstance(self.key, bytes) or len(self.key) < 16:
            raise ValueError("a snapshot signing key is at least 16 bytes")

    def sign(self, metadata: dict[str, Any]) -> dict[str, Any]:
        """Add ``origin`` and ``signature`` to ``metadata`` (in place, and return it). Every state handle must
        carry its file's digest: a signature over a handle without one would vouch for any file."""
        for name, handle in (metadata.get("tasks") or {}).items():
            if handle and not handle.get(DIGEST):
                raise ValueError(f"the state handle of {name} has no {DIGEST}: it cannot be signed")
        metadata[ORIGIN] = dict(self.origin)
        metadata[SIGNATURE] = self._mac(metadata)
        return metadata

    def verify(self, metadata: dict[str, Any], location: str | None = None) -> dict[str, Any]:
        """``metadata`` when this key signed it as it is; :class:`SnapshotRefused` naming ``location`` otherwise."""
        where = str(location or metadata.get("location") or "?")
        signature = metadata.get(SIGNATURE)
        if not isinstance(signature, str):
            raise SnapshotRefused(where, "it is not signed (written before snapshots were signed, or not by this "
                                         "studio); an operator may re-sign one they trust")
        try:
            expected = self._mac(metadata)
        except (TypeError, ValueError) as error:
            raise SnapshotRefused(where, f"its metadata cannot be read as signed data: {error}") from None
        if not hmac.compare_digest(signature, expected):
            raise SnapshotRefused(where, "its signature does not match its metadata (it was changed after it was "
                                         "written, or written with another key)")
        for name, handle in (metadata.get("tasks") or {}).items():
            if handle is not None and not (isinstance(handle, dict) and isinstance(handle.get(DIGEST), str)):
                raise SnapshotRefused(where, f"the state of {name} has no digest")
        return metadata

    def _mac(self, metadata: dict[str, Any]) -> str:
        return hmac.new(self.key, canonical(metadata), hashlib.sha256).hexdigest()
