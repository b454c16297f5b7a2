"""File source (JSON lines, CSV, offsets in state) and Redis Streams source and sink, end to end."""
from __future__ import annotations

import json
import os
import uuid

import pytest

from engine.cluster.local import LocalCluster
from engine.runtime.operators.connectors.file_listing import list_files
from tests.builders import edge, node, pipeline

REDIS_URL = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/15")


def job(source, sink=None, parallelism=1, **fields):
    """``source`` --rebalance--> ``sink`` (by default, every record collected)."""
    sink = sink or node("out", "sink.collect", max_records=100000)
    return pipeline([source, sink], [edge(source["id"], sink["id"], "rebalance")], name="io", parallelism=parallelism,
                    **fields)


@pytest.fixture
def cluster():
    return LocalCluster(config={"batch_size": 7})


def write_jsonl(directory, files=3, lines=40):
    directory.mkdir(parents=True, exist_ok=True)
    for f in range(files):
        (directory / f"part-{f}.jsonl").write_text("".join(json.dumps({"f": f, "i": i}) + "\n" for i in range(lines)))
    (directory / ".hidden").write_text("not data\n")


def test_list_files_expands_directories_and_globs(tmp_path):
    write_jsonl(tmp_path / "d", files=2)
    assert [p.rsplit("/", 1)[1] for p in list_files(str(tmp_path / "d"))] == ["part-0.jsonl", "part-1.jsonl"]
    assert len(list_files(str(tmp_path / "d" / "*.jsonl"))) == 2
    assert list_files(str(tmp_path / "missing")) == []


def test_jsonl_files_across_subtasks(cluster, tmp_path):
    write_jsonl(tmp_path / "in")
    source = node("files", "source.file", path=str(tmp_path / "in"))
    result = cluster.run(job(source, parallelism=2), timeout=30, checkpoint_dir=str(tmp_path / "c"))
    assert result.status == "FINISHED", result.failure
    assert sorted((r["f"], r["i"]) for r in result.collected["out"]) == [(f, i) for f in range(3) for i in range(40)]


def test_csv_rows_become_dicts(cluster, tmp_path):
    (tmp_path / "in.csv").write_text("user,amount\na,1\nb,2\n\nc,3\n")
    source = node("files", "source.file", path=str(tmp_path / "in.csv"), format="csv")
    result = cluster.run(job(source), timeout=30, checkpoint_dir=str(tmp_path / "c"))
    assert result.collected["out"] == [{"user": "a", "amount": "1"}, {"user": "b", "amount": "2"},
                                       {"user": "c", "amount": "3"}]


def test_file_offsets_survive_a_savepoint_and_rescale(cluster, tmp_path):
    write_jsonl(tmp_path / "in", files=4, lines=3000)
    source = node("files", "source.file", path=str(tmp_path / "in"))
    definition = job(source, parallelism=2)
    sink_dir = tmp_path / "out"
    definition["nodes"][1] = node("out", "sink.file", path=str(sink_dir))
    slow = LocalCluster(config={"batch_size": 5})
    handle = slow.submit(definition, checkpoint_dir=str(tmp_path / "c1"))
    # stopped with it: a checkpoint completing between a savepoint and a cancel commits rows its restore reads again
    savepoint = handle.stop_with_savepoint(drain=False).result(timeout=20)
    handle.wait(20)
    definition["parallelism"] = 3
    result = cluster.run(definition, restore=savepoint, timeout=60, checkpoint_dir=str(tmp_path / "c2"))
    assert result.status == "FINISHED", result.failure
    lines = [json.loads(line) for path in sink_dir.glob("part-*.jsonl") for line in path.read_text().splitlines()]
    assert sorted((r["f"], r["i"]) for r in lines) == [(f, i) for f in range(4) for i in range(3000)]


@pytest.fixture
def redis_client():
    import redis

    client = redis.Redis.from_url(REDIS_URL, decode_responses=True)
    keys = []
    yield client, keys
    if keys:
        client.delete(*keys)
    client.close()


def test_redis_stream_to_redis_stream(cluster, tmp_path, redis_client):
    client, keys = redis_client
    source_stream, sink_stream = f"test-in-{uuid.uuid4().hex}", f"test-out-{uuid.uuid4().hex}"
    keys += [source_stream, sink_stream]
    for i in range(250):
        client.xadd(source_stream, {"value": json.dumps({"n": i})})
    client.xadd(source_stream, {"plain": "field"})
    definition = pipeline([node("in", "source.redis_stream", stream=source_stream, url=REDIS_URL, bounded=True,
                                batch_size=40),
                           node("out", "sink.redis_stream", stream=sink_stream, url=REDIS_URL)],
                          [edge("in", "out")], name="redis", parallelism=2)
    result = cluster.run(definition, timeout=30, checkpoint_dir=str(tmp_path / "c"))
    assert result.status == "FINISHED", result.failure
    written = [json.loads(fields["value"]) for _, fields in client.xrange(sink_stream)]
    assert written == [{"n": i} for i in range(250)] + [{"plain": "field"}]


def test_redis_source_resumes_after_its_checkpointed_id(cluster, tmp_path, redis_client):
    client, keys = redis_client
    stream = f"test-resume-{uuid.uuid4().hex}"
    keys.append(stream)
    for i in range(100):
        client.xadd(stream, {"value": json.dumps(i)})
    source = node("in", "source.redis_stream", stream=stream, url=REDIS_URL)
    handle = cluster.submit(job(source), checkpoint_dir=str(tmp_path / "c"))
    savepoint = handle.trigger_savepoint().result(timeout=20)
    handle.cancel()
    handle.wait(20)
    for i in range(100, 130):
        client.xadd(stream, {"value": json.dumps(i)})
    source["params"]["bounded"] = True
    result = cluster.run(job(source), restore=savepoint, timeout=30, checkpoint_dir=str(tmp_path / "c2"))
    assert result.status == "FINISHED", result.failure
    metadata_position = json.dumps(savepoint)
    assert result.collected["out"][-1] == 129 and metadata_position
    assert result.collected["out"] == list(range(130 - len(result.collected["out"]), 130))


def test_a_bounded_job_ends_without_waiting_out_the_checkpoint_interval(cluster, tmp_path):
    """Its exactly-once sink commits on the checkpoint triggered once the sources finished,
    not on the next periodic one an hour later."""
    write_jsonl(tmp_path / "in", files=2, lines=500)
    source = node("files", "source.file", path=str(tmp_path / "in"))
    sink = node("out", "sink.file", path=str(tmp_path / "out"))
    definition = job(source, sink, parallelism=2, interval_ms=3_600_000)
    result = cluster.run(definition, timeout=60, checkpoint_dir=str(tmp_path / "c"))
    assert result.status == "FINISHED", result.failure
    written = [json.loads(line) for path in sorted((tmp_path / "out").glob("part-*"))
               for line in path.read_text().splitlines()]
    assert sorted((r["f"], r["i"]) for r in written) == [(f, i) for f in range(2) for i in range(500)]
