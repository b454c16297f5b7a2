"""Snapshots restore only as they were written: signed metadata, state files checked by digest, read
only from the snapshot's own directory.

A job given a key signs what it writes and restores only what that key signed.
The metadata of every checkpoint and savepoint carries its origin (what the client says
wrote it: the studio's pipeline, run and owner), the SHA-256 of every state file it lists,
and an HMAC-SHA256 over all of it. A restore with the key refuses unsigned metadata, a
signature that does not match, and a state file whose bytes are not the ones signed,
naming the snapshot; the key itself is in no event, no metadata and no slot's configuration.
With or without a key, a restore reads a state file only by a plain name in the snapshot's
directory, never through a symlink, and only with the digest its handle holds.
"""
from __future__ import annotations

import hashlib
import json
import pickle

import pytest

from engine.api import Grants, SnapshotRefused, SnapshotSigner, load_checkpoint_metadata
from tests.engine.checkpoint.restored_state_support import (file_source_job, listing, places, rewrite_metadata,
                                                            savepoint_of, sink_job, write_snapshot)

KEY = b"k" * 32
ORIGIN = {"pipeline": 7, "run": 12, "owner": "alice"}


def signer(origin=None) -> SnapshotSigner:
    return SnapshotSigner(KEY, origin or ORIGIN)


def test_every_snapshot_is_signed_with_its_origin_and_state_digests(deployment, tmp_path):
    where = places(tmp_path)
    events = []
    definition = sink_job("sink.file", where["alice"] / "out", count=300)
    savepoint = savepoint_of(deployment, definition, tmp_path / "chk-1", where["alice"] / "sp", signer=signer())
    metadata = json.loads((savepoint / "_metadata").read_text())
    assert metadata["origin"] == ORIGIN and isinstance(metadata["signature"], str)
    for handle in metadata["tasks"].values():
        if handle:
            data = (savepoint / handle["path"]).read_bytes()
            assert handle["sha256"] == hashlib.sha256(data).hexdigest()
    assert load_checkpoint_metadata(str(savepoint), signer=signer())["origin"] == ORIGIN
    result = deployment.run(definition, checkpoint_dir=str(tmp_path / "chk-2"), restore=str(savepoint),
                            signer=signer({"pipeline": 7, "run": 13, "owner": "alice"}), on_event=events.append)
    assert result.status == "FINISHED", result.failure
    secret = KEY.decode()
    assert secret not in json.dumps(events, default=str)
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert KEY not in path.read_bytes(), path


def test_the_key_reaches_no_slot(tmp_path):
    from engine.api import InProcess, job_master_for

    job_master = job_master_for(sink_job("sink.file", tmp_path / "out"), InProcess(),
                                checkpoint_dir=str(tmp_path / "chk"), signer=signer())
    assert KEY.decode() not in json.dumps(job_master.config, default=str)
    assert KEY not in pickle.dumps(job_master.config)


def tampered(change):
    def apply(savepoint):
        rewrite_metadata(savepoint, change)
    return apply


def rewrite_a_state_file(savepoint):
    """Drop the sink's pending transactions, or, where the savepoint caught none (a slow source on a loaded
    machine), plant one: either way the file's bytes change (an unchanged rewrite proved nothing)."""
    state_file = next(savepoint.glob("*.state"))
    before = state_file.read_bytes()
    payload = pickle.loads(before)
    operator = payload["operators"]["files"]["operator"]
    operator["pending"] = [] if operator.get("pending") else [{"planted": True}]
    state_file.write_bytes(pickle.dumps(payload))
    assert state_file.read_bytes() != before


@pytest.mark.parametrize("attack, message", [
    (tampered(lambda m: m.update(origin={"pipeline": 8, "run": 1, "owner": "bob"})), "signature"),
    (tampered(lambda m: m.pop("signature")), "not signed"),
    (tampered(lambda m: m.update(checkpoint_id=m["checkpoint_id"] + 1)), "signature"),
    (rewrite_a_state_file, "state file"),
], ids=["origin", "unsigned", "checkpoint-id", "state-file"])
def test_a_rewritten_snapshot_is_refused_naming_it(deployment, tmp_path, attack, message):
    where = places(tmp_path)
    definition = sink_job("sink.file", where["alice"] / "out", count=300)
    savepoint = savepoint_of(deployment, definition, tmp_path / "chk-1", where["alice"] / "sp", signer=signer())
    attack(savepoint)
    before = listing(tmp_path, without=(tmp_path / "chk-2",))
    result = deployment.run(definition, checkpoint_dir=str(tmp_path / "chk-2"), restore=str(savepoint),
                            signer=signer())
    assert result.status == "FAILED", result.failure
    assert str(savepoint) in result.failure and message in result.failure, result.failure
    assert listing(tmp_path, without=(tmp_path / "chk-2",)) == before


def test_metadata_is_verified_when_loaded(tmp_path):
    where = places(tmp_path)
    (where["alice"] / "sp").mkdir()
    (where["alice"] / "sp" / "_metadata").write_text(json.dumps({"format": 1, "checkpoint_id": 1, "tasks": {}}))
    with pytest.raises(SnapshotRefused, match="not signed"):
        load_checkpoint_metadata(str(where["alice"] / "sp"), signer=signer())
    assert load_checkpoint_metadata(str(where["alice"] / "sp"))["checkpoint_id"] == 1  # without a key: as before


def test_a_metadata_naming_a_state_file_outside_its_directory_is_refused(deployment, tmp_path):
    where = places(tmp_path)
    definition = sink_job("sink.file", where["alice"] / "out")
    savepoint = savepoint_of(deployment, definition, tmp_path / "chk-1", where["alice"] / "sp")
    state_file = next(savepoint.glob("*.state"))
    (where["alice"] / "elsewhere.state").write_bytes(state_file.read_bytes())

    def point_out(metadata: dict) -> None:
        for handle in metadata["tasks"].values():
            if handle:
                handle["path"] = "../../elsewhere.state"

    rewrite_metadata(savepoint, point_out)
    result = deployment.run(definition, checkpoint_dir=str(tmp_path / "chk-2"), restore=str(savepoint))
    assert result.status == "FAILED" and str(savepoint) in result.failure, result.failure
    assert "elsewhere.state" in result.failure


def test_a_savepoint_reads_no_state_through_a_state_file_link(deployment, tmp_path):
    """A restore reads state files only from the snapshot's own directory: a state file that is a link to
    another user's is refused, whatever it holds."""
    where = places(tmp_path)
    definition = file_source_job(where["alice"] / "in")
    split = {"path": str(where["alice"] / "in" / "part-0.jsonl"), "start": 0, "end": None, "offset": 0,
             "header": None}
    theirs = write_snapshot(where["bob"] / "sp", definition, {"in": {"splits": [split]}},
                            coordinators={"in": {"files": []}})
    mine = write_snapshot(where["alice"] / "sp", definition, {"in": {"splits": []}},
                          coordinators={"in": {"files": []}})
    state_file = next(mine.glob("*.state"))
    state_file.unlink()
    state_file.symlink_to(next(theirs.glob("*.state")))
    result = deployment.run(definition, checkpoint_dir=str(tmp_path / "chk"), restore=str(mine),
                            grants=Grants(read=(str(where["alice"]),)))
    assert result.status == "FAILED" and str(mine) in result.failure, result.failure
    assert pickle.loads(next(theirs.glob("*.state")).read_bytes())  # untouched
