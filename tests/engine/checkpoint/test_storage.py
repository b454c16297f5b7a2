"""Checkpoint storage over fsspec: files, _metadata, discovery, deletion; any URL."""
from __future__ import annotations

import pytest

from engine.checkpoint import storage
from engine.checkpoint.storage import CheckpointStorage, load_metadata


@pytest.mark.parametrize("url", ["local", "memory://checkpoints-test"])
def test_state_files_and_metadata_round_trip(tmp_path, url):
    root = str(tmp_path / "c") if url == "local" else url
    checkpoints = CheckpointStorage(root)
    location = checkpoints.checkpoint_directory(3)
    assert storage.write_file(location, "op-0.state", b"abc") == 3
    assert storage.read_file(location, "op-0.state") == b"abc"
    assert not storage.is_completed(location)
    checkpoints.write_metadata(location, {"checkpoint_id": 3, "tasks": {}})
    for path in (location, location + "/_metadata", location + "/"):
        metadata = load_metadata(path)
        assert metadata["checkpoint_id"] == 3 and metadata["location"] == location
    assert checkpoints.completed_checkpoints() == [(3, location)]
    assert checkpoints.latest_completed()["checkpoint_id"] == 3
    checkpoints.discard(location)
    assert checkpoints.completed_checkpoints() == []


def test_missing_metadata_is_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="no completed checkpoint"):
        load_metadata(str(tmp_path / "chk-9"))


def test_savepoints_get_their_own_unique_directories(tmp_path):
    checkpoints = CheckpointStorage(str(tmp_path))
    first = checkpoints.location_for(5, "savepoint")
    second = checkpoints.location_for(5, "savepoint", str(tmp_path / "elsewhere"))
    assert first.startswith(str(tmp_path / "savepoints" / "savepoint-5-"))
    assert second.startswith(str(tmp_path / "elsewhere" / "savepoint-5-"))
    assert checkpoints.location_for(5, "checkpoint") == str(tmp_path / "chk-5")


def test_discarding_a_local_checkpoint_removes_it_without_listing_it_through_fsspec(tmp_path, monkeypatch):
    """A JobMaster discards a checkpoint each time one completes: a hundred runs of a session, a hundred a
    second; fsspec listed each tree and asked for each entry's details first."""
    import fsspec

    from engine.checkpoint import storage

    directory = tmp_path / "chk-3"
    (directory / "sub").mkdir(parents=True)
    (directory / "task-0").write_bytes(b"state")
    (directory / "sub" / "part").write_bytes(b"state")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "kept").write_bytes(b"not the checkpoint's")
    (directory / "link").symlink_to(outside)
    linked = tmp_path / "chk-4"
    linked.symlink_to(outside)

    def no_fsspec(*args, **kwargs):
        raise AssertionError("a local discard went through fsspec")

    monkeypatch.setattr(fsspec.core, "url_to_fs", no_fsspec)
    storage.discard(str(directory))
    storage.discard(str(directory))  # missing: nothing to do
    storage.discard(str(linked))  # a link: the link goes, not what it names
    assert not directory.exists() and not linked.exists()
    assert (outside / "kept").read_bytes() == b"not the checkpoint's"
