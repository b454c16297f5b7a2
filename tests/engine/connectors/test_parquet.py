"""``source.parquet`` and ``sink.parquet``: files split across subtasks, two-phase commit, partitions."""
from __future__ import annotations

import json
import random
from collections import Counter

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cluster.local import LocalCluster
from engine.runtime.operators.connectors.parquet import ParquetSource, cut_row_groups
from tests.engine.connectors.support import KillPlan, expected_sums, sums_job

COUNT = 3000


def parquet_sink(path, **params) -> dict:
    return {"id": "pq", "type": "sink.parquet", "params": {"path": str(path), **params}}


def committed_rows(directory) -> Counter:
    """The rows of the committed (visible) files, as ``(k, total)``."""
    rows: Counter = Counter()
    for path in directory.rglob("part-*.parquet"):
        if not path.name.startswith("."):
            for row in pq.read_table(path).to_pylist():
                rows[(row["k"], row["total"])] += 1
    return rows


def sums_to_parquet(path, **params) -> dict:
    sink = parquet_sink(path, **params)
    definition = sums_job([sink], count=COUNT, rate=2500, attempts=20)
    definition["nodes"][1]["params"]["value"] = "x"
    definition["nodes"].insert(2, {"id": "row", "type": "transform.map",
                                   "params": {"expression": '{"k": x[0], "total": x[1], "even": x[1] % 2 == 0}'}})
    definition["edges"][1] = {"id": "to-row", "from": "sum", "to": "row"}
    definition["edges"].append({"id": "to-pq", "from": "row", "to": "pq"})
    return definition


def test_parquet_rows_arrive_exactly_once_despite_random_kills(tmp_path):
    seed = random.randrange(2**32)
    plan = KillPlan(seed, limit=8, parallelism=2)
    result = LocalCluster(config={"batch_size": 32}).run(sums_to_parquet(tmp_path / "out", row_group_size=50),
                                                         kill_hook=plan, timeout=120,
                                                         checkpoint_dir=str(tmp_path / "chk"))
    assert result.status == "FINISHED", f"seed {seed}: {result.failure}"
    assert result.restarts >= 1
    assert committed_rows(tmp_path / "out") == expected_sums(COUNT), f"seed {seed}, kills {plan.kills}"
    hidden = [p.name for p in (tmp_path / "out").rglob(".*")]
    assert hidden == [], "no pending or in-progress file is left after the job ended"


def test_partitioned_files_read_back_with_their_partition_field(tmp_path):
    result = LocalCluster(config={"batch_size": 64}).run(sums_to_parquet(tmp_path / "out", partition_by="even"),
                                                         timeout=60, checkpoint_dir=str(tmp_path / "chk"))
    assert result.status == "FINISHED", result.failure
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["even=False", "even=True"]
    assert committed_rows(tmp_path / "out") == expected_sums(COUNT)
    read_back = {
        "format": 1, "name": "read", "parallelism": 2, "checkpointing": {"interval_ms": 50},
        "nodes": [{"id": "in", "type": "source.parquet", "params": {"path": str(tmp_path / "out")}},
                  {"id": "out", "type": "sink.collect", "params": {"max_records": 100000}}],
        "edges": [{"id": "e", "from": "in", "to": "out"}]}
    result = LocalCluster().run(read_back, timeout=60, checkpoint_dir=str(tmp_path / "chk2"))
    assert result.status == "FINISHED", result.failure
    records = result.collected["out"]
    assert Counter((r["k"], r["total"]) for r in records) == expected_sums(COUNT)
    assert all(r["even"] == str(r["total"] % 2 == 0) for r in records)


def numbered_rows_job(tmp_path, name: str, **params) -> dict:
    """Three Parquet files of rows ``{"f": file, "i": 0..1999}`` (row groups of 300), copied to a
    file sink at parallelism 2."""
    source_dir = tmp_path / "in"
    source_dir.mkdir()
    for f in range(3):
        pq.write_table(pa.table({"f": [f] * 2000, "i": list(range(2000))}), source_dir / f"part-{f}.parquet",
                       row_group_size=300)
    return {
        "format": 1, "name": name, "parallelism": 2, "checkpointing": {"interval_ms": 50},
        "nodes": [{"id": "in", "type": "source.parquet", "params": {"path": str(source_dir), **params}},
                  {"id": "out", "type": "sink.file", "params": {"path": str(tmp_path / "out")}}],
        "edges": [{"id": "e", "from": "in", "to": "out", "partitioning": "rebalance"}]}


def savepoint_of_running(definition: dict, checkpoint_dir) -> str:
    """The job stopped with a savepoint just after it started (small polls: it is still reading).

    Stopped with it, not a savepoint and then a cancel: a periodic checkpoint completing in between
    committed rows past the savepoint, which its restore then read again (a row twice, at load)."""
    handle = LocalCluster(config={"batch_size": 5}).submit(definition, checkpoint_dir=str(checkpoint_dir))
    savepoint = handle.stop_with_savepoint(drain=False).result(timeout=30)
    handle.wait(30)
    return savepoint


def committed_numbered_rows(out_dir) -> list[tuple[int, int]]:
    lines = [json.loads(line) for path in out_dir.glob("part-*.jsonl") for line in path.read_text().splitlines()]
    return sorted((r["f"], r["i"]) for r in lines)


def test_the_source_resumes_mid_file_after_a_savepoint_at_another_parallelism(tmp_path):
    definition = numbered_rows_job(tmp_path, "resume", columns=["f", "i"])
    savepoint = savepoint_of_running(definition, tmp_path / "c1")
    definition["parallelism"] = 3
    result = LocalCluster(config={"batch_size": 64}).run(definition, restore=savepoint, timeout=60,
                                                         checkpoint_dir=str(tmp_path / "c2"))
    assert result.status == "FINISHED", result.failure
    assert committed_numbered_rows(tmp_path / "out") == [(f, i) for f in range(3) for i in range(2000)]


def test_a_path_matching_nothing_fails_the_run_naming_node_and_path(tmp_path):
    for kind in ("source.parquet", "source.file"):
        definition = {"format": 1, "name": "missing", "restart": {"strategy": "none"},
                      "nodes": [{"id": "in", "type": kind, "params": {"path": str(tmp_path / "nothing-here")}},
                                {"id": "out", "type": "sink.collect", "params": {}}],
                      "edges": [{"id": "e", "from": "in", "to": "out"}]}
        result = LocalCluster().run(definition, timeout=60, checkpoint_dir=str(tmp_path / f"chk-{kind}"))
        assert result.status == "FAILED", kind
        assert f"node 'in' ({kind}): no file matches {tmp_path / 'nothing-here'}" in result.failure
        assert "Traceback" not in result.failure


@settings(max_examples=200, deadline=None)
@given(files=st.lists(st.lists(st.integers(0, 50), max_size=8), max_size=4), split_bytes=st.integers(1, 120))
def test_row_groups_are_cut_into_consecutive_splits_of_at_least_the_split_size(files, split_bytes):
    named = [(f"f{number}", sizes) for number, sizes in enumerate(files)]
    splits = cut_row_groups(named, split_bytes)
    for path, sizes in named:
        mine = [split for split in splits if split["path"] == path]
        assert [index for split in mine for index in range(split["start"], split["end"])] == list(range(len(sizes)))
        assert all(split["end"] > split["start"] for split in mine)
        assert all(sum(sizes[split["start"]:split["end"]]) >= split_bytes for split in mine[:-1])


@pytest.mark.parametrize("parallelism", [1, 3])
def test_a_checkpoint_of_whole_files_from_before_splits_restores_into_splits(tmp_path, monkeypatch, parallelism):
    """A savepoint taken without an enumerator (``{"path", "row"}`` per file, as before splits
    existed) goes on where it was, and nothing is read twice or left out."""
    definition = numbered_rows_job(tmp_path, "old-savepoint", split_bytes=1)
    with monkeypatch.context() as before_splits:
        before_splits.setattr(ParquetSource, "coordinator", None)
        savepoint = savepoint_of_running(definition, tmp_path / "c1")
    from engine.checkpoint.storage import load_metadata

    assert "in" not in (load_metadata(savepoint).get("coordinators") or {})
    definition["parallelism"] = parallelism
    result = LocalCluster(config={"batch_size": 64}).run(definition, restore=savepoint, timeout=60,
                                                         checkpoint_dir=str(tmp_path / "c2"))
    assert result.status == "FINISHED", result.failure
    assert committed_numbered_rows(tmp_path / "out") == [(f, i) for f in range(3) for i in range(2000)]
