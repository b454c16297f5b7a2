"""Links are resolved at every use: each file a source opens, each directory a sink writes into.

The job gets the locations its user was granted (``engine.api.Grants``: the real paths the
studio resolved). A source over a directory or a glob opens every file of it through one
check: the file that was opened, links followed, must lie inside a granted location, else
the job fails naming the node and the file. A sink writes and renames inside the directory
it opened when it started; if that directory changes identity during the run (swapped for
a link to someone else's), the job fails naming the node and nothing is written there.
Both deployments: threads and Spark.
"""
from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from engine.api import Grants
from tests.engine.checkpoint.restored_state_support import SECRET, listing, places
from tests.engine.checkpoint.restored_state_support import file_source_job, write_snapshot


def grants_of(where: dict) -> Grants:
    """What the studio would hand Alice's run: her directory, readable and writable."""
    return Grants(read=(str(where["alice"]),), write=(str(where["alice"]),))


@pytest.fixture
def linked(tmp_path):
    """Alice's input directories, each with a file of hers and a link to Bob's file of the same kind."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    where = places(tmp_path)
    alice, bob = where["alice"], where["bob"]
    (alice / "in" / "s.jsonl").symlink_to(bob / "data" / "secret.jsonl")
    (alice / "columns").mkdir()
    pq.write_table(pa.table({"mine": [1]}), alice / "columns" / "a.parquet")
    pq.write_table(pa.table({"secret": [SECRET]}), bob / "data" / "secret.parquet")
    (alice / "columns" / "s.parquet").symlink_to(bob / "data" / "secret.parquet")
    (alice / "nested").mkdir()
    (alice / "nested" / "a.jsonl").write_text(json.dumps({"mine": 1}) + "\n")
    (alice / "nested" / "theirs").symlink_to(bob / "data")  # a linked directory inside a granted one
    return where


@pytest.mark.parametrize("type_, path", [
    ("source.file", "in"), ("source.file", "in/*.jsonl"), ("source.parquet", "columns"),
    ("source.parquet", "columns/*.parquet"),
])
def test_a_source_opens_no_file_through_a_link_out_of_its_grants(deployment, tmp_path, linked, type_, path):
    definition = file_source_job(linked["alice"] / path, type_)
    result = deployment.run(definition, checkpoint_dir=str(tmp_path / "chk"), grants=grants_of(linked))
    assert result.status == "FAILED", result.failure
    assert "node 'in'" in result.failure and "outside the locations granted" in result.failure, result.failure
    assert SECRET not in json.dumps(result.collected) and SECRET not in result.failure


@pytest.mark.parametrize("path", ["nested", "nested/**/*.jsonl"])
def test_a_linked_directory_inside_a_source_is_not_entered(deployment, tmp_path, linked, path):
    """Listing a directory (or a ``**`` glob) does not follow a link to a directory: its files are not the
    source's (with or without grants)."""
    for grants in (grants_of(linked), None):
        result = deployment.run(file_source_job(linked["alice"] / path), checkpoint_dir=str(tmp_path / "chk"),
                                grants=grants)
        assert result.status == "FINISHED", result.failure
        assert result.collected["out"] == [{"mine": 1}]


def test_a_link_inside_the_grants_is_read(deployment, tmp_path):
    where = places(tmp_path)
    (where["alice"] / "elsewhere").mkdir()
    (where["alice"] / "elsewhere" / "x.jsonl").write_text(json.dumps({"linked": 1}) + "\n")
    (where["alice"] / "in" / "l.jsonl").symlink_to(where["alice"] / "elsewhere" / "x.jsonl")
    result = deployment.run(file_source_job(where["alice"] / "in"), checkpoint_dir=str(tmp_path / "chk"),
                            grants=grants_of(where))
    assert result.status == "FINISHED", result.failure
    assert {"linked": 1} in result.collected["out"] and len(result.collected["out"]) == 601


def test_a_file_swapped_for_a_link_after_it_was_listed_is_refused_when_opened(deployment, tmp_path):
    """The split names a file that was Alice's own when it was listed (and checkpointed); it is a link to
    Bob's file when the restored job opens it."""
    where = places(tmp_path)
    mine = where["alice"] / "in" / "part-0.jsonl"
    definition = file_source_job(where["alice"] / "in")
    split = {"path": str(mine), "start": 0, "end": None, "offset": 0, "header": None}
    snapshot = write_snapshot(where["alice"] / "sp", definition, {"in": {"splits": [split]}},
                              coordinators={"in": {"files": []}})
    mine.unlink()
    mine.symlink_to(where["bob"] / "data" / "secret.jsonl")
    result = deployment.run(definition, checkpoint_dir=str(tmp_path / "chk"), restore=str(snapshot),
                            grants=grants_of(where))
    assert result.status == "FAILED" and "node 'in'" in result.failure and "part-0.jsonl" in result.failure, \
        result.failure
    assert SECRET not in json.dumps(result.collected)


def test_a_hybrid_source_reads_no_history_through_a_link(deployment, tmp_path, linked):
    from tests.support import RedisServer

    server = RedisServer()
    server.start()
    try:
        definition = file_source_job(linked["alice"] / "in", "source.hybrid")
        definition["nodes"][0]["params"].update(stream="live", url=server.url, bounded=True, start_id="0-0")
        result = deployment.run(definition, checkpoint_dir=str(tmp_path / "chk"), grants=grants_of(linked))
    finally:
        server.process.terminate()
        server.process.wait(10)
    assert result.status == "FAILED" and "node 'in'" in result.failure, result.failure
    assert "outside the locations granted" in result.failure and SECRET not in json.dumps(result.collected)


# --- sinks ----------------------------------------------------------------------------------------


def streaming_sink_job(type_: str, output: Path) -> dict:
    return {"format": 1, "name": "to-files", "parallelism": 1, "checkpointing": {"interval_ms": 100},
            "restart": {"strategy": "none"},
            "nodes": [{"id": "gen", "type": "source.datagen", "params": {"count": None, "rate": 500}},
                      {"id": "files", "type": type_, "params": {"path": str(output)}}],
            "edges": [{"id": "e1", "from": "gen", "to": "files"}]}


@pytest.mark.parametrize("type_", ["sink.file", "sink.parquet"])
def test_a_sink_directory_swapped_for_a_link_during_the_run_fails_it(deployment, tmp_path, type_):
    where = places(tmp_path)
    alice, bob = where["alice"], where["bob"]
    completed = threading.Event()

    def on_event(event: dict) -> None:
        if event["type"] == "checkpoint" and event.get("event") == "completed":
            completed.set()

    handle = deployment.submit(streaming_sink_job(type_, alice / "out"), checkpoint_dir=str(tmp_path / "chk"),
                               on_event=on_event, grants=grants_of(where))
    try:
        assert completed.wait(120), "no checkpoint completed"
        bobs = listing(bob)
        (alice / "out").rename(alice / "out.old")
        (alice / "out").symlink_to(bob / "out")
        result = handle.wait(120)
    finally:
        handle.cancel()
    assert result.status == "FAILED", result.failure
    assert "node 'files'" in result.failure and str(alice / "out") in result.failure, result.failure
    assert listing(bob) == bobs


@pytest.mark.parametrize("type_", ["sink.file", "sink.parquet"])
def test_a_sink_directory_that_is_a_link_out_of_the_grants_is_refused(deployment, tmp_path, type_):
    where = places(tmp_path)
    (where["alice"] / "out").symlink_to(where["bob"] / "out")
    bobs = listing(where["bob"])
    result = deployment.run(streaming_sink_job(type_, where["alice"] / "out"), checkpoint_dir=str(tmp_path / "chk"),
                            grants=grants_of(where), timeout=60)
    assert result.status == "FAILED" and "node 'files'" in result.failure, result.failure
    assert "outside the locations granted" in result.failure, result.failure
    assert listing(where["bob"]) == bobs


def test_a_savepoint_target_that_is_a_link_out_of_the_grants_gets_nothing(deployment, tmp_path):
    """The studio resolved the target when the savepoint was asked for; it is a link to Bob's directory when the
    job writes: the savepoint fails naming the target, and nothing is written there."""
    where = places(tmp_path)
    completed = threading.Event()
    handle = deployment.submit(streaming_sink_job("sink.file", where["alice"] / "out"),
                               checkpoint_dir=str(tmp_path / "chk"), grants=grants_of(where),
                               on_event=lambda event: event["type"] == "checkpoint" and event.get(
                                   "event") == "completed" and completed.set())
    try:
        assert completed.wait(120), "no checkpoint completed"
        bobs = listing(where["bob"])
        (where["alice"] / "sp").symlink_to(where["bob"] / "out")
        with pytest.raises(Exception, match="outside the locations granted"):
            handle.trigger_savepoint(str(where["alice"] / "sp")).result(timeout=60)
        assert listing(where["bob"]) == bobs
        assert handle.trigger_savepoint(str(where["alice"] / "sp-real")).result(timeout=60)  # the control
    finally:
        handle.cancel()
        handle.wait(60)


def test_a_state_file_is_written_only_through_the_directory_as_opened(tmp_path):
    """A savepoint directory swapped for a link after the JobMaster checked its target: a subtask writing its
    state file opens the directory, finds it outside the grants and writes nothing."""
    from engine.checkpoint.storage import OutsideGrants, write_confined
    from engine.runtime.grants import snapshot_directories

    where = places(tmp_path)
    (where["alice"] / "sp").symlink_to(where["bob"] / "out")
    bobs = listing(where["bob"])
    allowed = snapshot_directories(grants_of(where), str(tmp_path / "chk"))
    with pytest.raises(OutsideGrants):
        write_confined(str(where["alice"] / "sp" / "savepoint-3-x"), "gen-0.state", b"state", allowed)
    assert listing(where["bob"]) == bobs
    assert write_confined(str(where["alice"] / "real" / "savepoint-3-x"), "gen-0.state", b"state", allowed) == 5
