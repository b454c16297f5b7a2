"""Snapshots a run may restore: signed by this studio, written by a pipeline its user may run.

A savepoint often lies where its user can write (a target in their own directory), so a
snapshot is input: its state names files, offsets and transactions that operators act on.
Every run's driver therefore hands the engine a :class:`~engine.api.SnapshotSigner` with
the studio's key and the run's origin (pipeline, run, owner), and the engine signs each
``_metadata`` it writes (HMAC-SHA256 over the metadata, the SHA-256 of every state file
included) and refuses to restore one the key did not sign (``engine.checkpoint.signing``).

A restore is checked here twice, with the same function (:func:`verified_snapshot`): when
it is asked for (the API answers 400 for a snapshot that is not signed as it is, 403 for
one whose pipeline the user may not run) and again by the run's driver when it opens the
snapshot, with the grants as they are then -- a path swapped for a link to another user's
savepoint in between is refused by the driver. The driver then restores the very metadata
it checked.

The key: ``STUDIO_SNAPSHOT_SIGNING_KEY`` (hex, at least 32 digits) or a random key generated
once into ``<data dir>/snapshot-signing-key`` (mode 0600), read by every process of the
studio; it is never written into a definition, an event, a log or a snapshot. Snapshots
written before signing existed, or signed with another key, are refused; an administrator
who trusts one signs it for the pipeline it belongs to with ``manage.py sign_snapshot``.
"""
from __future__ import annotations

import functools
import os
import secrets
from pathlib import Path

from engine.api import SnapshotRefused, SnapshotSigner, load_checkpoint_metadata, sign_snapshot_files

KEY_BYTES = 32


class SnapshotForbidden(Exception):
    """A snapshot signed as it is, of a pipeline the user may not run (403)."""


def signing_key() -> bytes:
    """The studio's snapshot signing key (see the module)."""
    from django.conf import settings

    configured = getattr(settings, "SNAPSHOT_SIGNING_KEY", "")
    if configured:
        return bytes.fromhex(configured)
    return _key_from_file(str(settings.SNAPSHOT_SIGNING_KEY_FILE))


@functools.lru_cache(maxsize=4)
def _key_from_file(path: str) -> bytes:
    file = Path(path)
    if not file.exists():
        file.parent.mkdir(parents=True, exist_ok=True)
        try:
            descriptor = os.open(file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            pass  # another process made it first: read theirs
        else:
            with os.fdopen(descriptor, "w") as handle:
                handle.write(secrets.token_hex(KEY_BYTES) + "\n")
    return bytes.fromhex(file.read_text().strip())


def origin_of(pipeline, run=None) -> dict:
    """What a snapshot says wrote it: the pipeline, the run and the pipeline's owner."""
    return {"pipeline": pipeline.pk, "run": getattr(run, "pk", None),
            "owner": pipeline.owner.get_username() if pipeline.owner_id else None}


def signer_for(run) -> SnapshotSigner:
    """The signer a run's job writes and verifies its snapshots with."""
    return SnapshotSigner(signing_key(), origin_of(run.pipeline, run))


def verified_snapshot(user, location: str) -> dict:
    """The metadata of the snapshot at ``location`` when this studio signed it as it is and ``user`` may run the
    pipeline that wrote it. Raises ``engine.api.SnapshotRefused`` (not signed as it is) or
    :class:`SnapshotForbidden`."""
    from studio.access import pipelines_runnable_by

    metadata = load_checkpoint_metadata(location, signer=SnapshotSigner(signing_key()))
    origin = metadata.get("origin")
    pipeline = origin.get("pipeline") if isinstance(origin, dict) else None
    if type(pipeline) is not int or not pipelines_runnable_by(user).filter(pk=pipeline).exists():
        raise SnapshotForbidden(f"the snapshot at {metadata['location']} was written by a pipeline you may not run")
    return metadata


def sign_snapshot(location: str, pipeline, run=None) -> dict:
    """Sign the snapshot at ``location`` as written by ``pipeline`` (an administrator's decision: the digests of
    its state files as they are now go into its metadata); its metadata."""
    return sign_snapshot_files(location, SnapshotSigner(signing_key(), origin_of(pipeline, run)))


__all__ = ["SnapshotForbidden", "SnapshotRefused", "origin_of", "sign_snapshot", "signer_for", "signing_key",
           "verified_snapshot"]
