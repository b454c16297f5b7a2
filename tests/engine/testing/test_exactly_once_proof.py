"""The exactly-once proof finds a real bug, on Spark, and every catalog sink passes it.

A sink that commits at the snapshot, before its checkpoint completed (``sink.eager_commit``,
registered only in tests: ``tests/engine/broken_sinks.py``), fails the proof with records
committed twice, and the same seed fails it again with the same kill schedule. The same
proof -- same seed, same schedule of ten kills, a rescaled restore -- passes for every
exactly-once sink of the catalog, each writing into a real system (files, Parquet,
PostgreSQL, Redis Streams, Kafka) with a target of its own per run. ``sink.collect`` is the
preview's sink, not fault tolerant by design (it shows what flowed through): a proof of a
pipeline ending in one writes through the proof's own file sink instead.
"""
from __future__ import annotations

import json
import os
import uuid
from pathlib import Path

import pytest

from engine.api import Spark, prove_exactly_once
from engine.testing.kill_schedule import draw_kills, phase_tasks
from engine.testing.proof import SinkTargets, _proof_job
from tests.builders import edge, node, pipeline
from tests.engine.broken_sinks import register_broken_sinks

pytestmark = pytest.mark.spark

ROOT = Path(__file__).resolve().parents[3]
KILLS = 10
ROWS = [{"user": i % 7, "n": i} for i in range(700)]
CASE = {"name": "sums", "inputs": {"clicks": {"rows": ROWS}}}


def sums_pipeline(sink: dict) -> dict:
    """clicks -> hash(user) -> running sum -> sink, at parallelism 2."""
    return pipeline([node("clicks", "source.datagen", count=10),
                     node("sum", "aggregate.reduce", function="sum", value="x['n']"), {"id": "out", **sink}],
                    [edge("clicks", "sum", "hash", "x['user']"), edge("sum", "out")], parallelism=2)


def catching_seed(definition: dict, tmp_path: Path) -> int:
    """The first seed whose schedule kills the sink's subtask after its snapshot, before its checkpoint
    completed (uploading or acknowledging it), in the first phase before the kill that ends it: a
    sink that committed at the snapshot has then committed records the restore reads again."""
    from engine.testing.harness import write_inputs

    inputs = write_inputs(definition, CASE, tmp_path / "seed-inputs")
    targets = SinkTargets(tmp_path / "seed")
    jobs = [_proof_job(definition, CASE, inputs, targets, "proof", rescale) for rescale in (0, 1)]
    busy = {(vertex, index) for vertex in ("clicks", "sum") for index in range(3)}
    for seed in range(500):
        first, _ = draw_kills(seed, KILLS, [phase_tasks(job, busy) for job in jobs], mid_batch=False)
        if any(kill.task[0] == "sum" and kill.point in ("async_upload", "before_ack") for kill in first[:-1]):
            return seed
    raise AssertionError("no seed in 500 kills the sink between its snapshot and its checkpoint's completion")


def test_a_sink_committing_before_its_checkpoint_completed_fails_the_proof_with_a_seed_that_replays(
        spark_session, tmp_path):
    broken = sums_pipeline({"type": register_broken_sinks(), "params": {"path": "/nowhere"}})
    seed = catching_seed(broken, tmp_path)
    first = prove_exactly_once(broken, CASE, Spark(session=spark_session), workdir=str(tmp_path / "first"),
                               kills=KILLS, seed=seed)
    assert first["status"] == "failed", first
    assert first["deployment"] == "spark" and first["seed"] == seed
    assert first["sinks"]["out"]["doubled"] > 0 and first["sinks"]["out"]["missing"] == 0
    assert first["difference"]["sink"] == "out" and first["difference"]["unexpected"]
    assert "not expected" in first["message"]
    (ROOT / "test-results").mkdir(exist_ok=True)
    (ROOT / "test-results" / "exactly-once-proof-broken-sink.json").write_text(json.dumps(first, indent=2))

    again = prove_exactly_once(broken, CASE, Spark(session=spark_session), workdir=str(tmp_path / "again"),
                               kills=KILLS, seed=first["replay"]["seed"])
    assert again["status"] == "failed", again
    assert again["planned"] == first["planned"]
    assert again["sinks"]["out"]["doubled"] > 0


class PostgresTargets(SinkTargets):
    def __init__(self, directory, dsn: str):
        super().__init__(directory)
        self.dsn = dsn

    def sink_node(self, node, run):
        import psycopg

        table = f"sums_{run.replace('-', '_')}"
        with psycopg.connect(self.dsn, autocommit=True) as connection:
            connection.execute(f"CREATE TABLE IF NOT EXISTS {table} (k integer, total bigint)")
        return {"type": "sink.postgres", "params": {**node["params"], "url": self.dsn, "table": table}}

    def read(self, node, run):
        import psycopg

        with psycopg.connect(self.dsn) as connection:
            return [list(row) for row in connection.execute(f"SELECT k, total FROM {node['params']['table']}")]


class RedisTargets(SinkTargets):
    def __init__(self, directory, url: str):
        super().__init__(directory)
        self.url, self.prefix = url, f"proof-{uuid.uuid4().hex[:10]}"

    def sink_node(self, node, run):
        return {"type": "sink.redis_stream", "params": {"url": self.url, "stream": f"{self.prefix}-{run}"}}

    def read(self, node, run):
        import redis

        client = redis.Redis.from_url(self.url, decode_responses=True)
        try:
            return [json.loads(fields["value"]) for _, fields in client.xrange(node["params"]["stream"])]
        finally:
            for key in client.scan_iter(f"{node['params']['stream']}*"):
                client.delete(key)
            client.close()


class KafkaTargets(SinkTargets):
    def __init__(self, directory, cluster):
        super().__init__(directory)
        self.cluster, self.topics = cluster, {}

    def sink_node(self, node, run):
        if run not in self.topics:
            self.topics[run] = self.cluster.create_topic(f"proof-{run}-{uuid.uuid4().hex[:8]}", 3)
        return {"type": "sink.kafka", "params": {"bootstrap_servers": self.cluster.bootstrap,
                                                 "topic": self.topics[run], "key": "x[0]"}}

    def read(self, node, run):
        from tests.kafka_log import committed_values

        return [json.loads(value) for value in committed_values(self.cluster.bootstrap, node["params"]["topic"])]


SINKS = {
    "sink.file": lambda request, directory: ({"type": "sink.file", "params": {"path": "/nowhere"}}, None),
    "sink.parquet": lambda request, directory: (
        {"type": "sink.parquet", "params": {"path": "/nowhere", "row_group_size": 50}}, None),
    "sink.postgres": lambda request, directory: (
        {"type": "sink.postgres", "params": {"url": "postgresql://nowhere/db", "table": "sums",
                                             "columns": {"k": "x[0]", "total": "x[1]"}}},
        PostgresTargets(directory, request.getfixturevalue("postgres_dsn"))),
    "sink.redis_stream": lambda request, directory: (
        {"type": "sink.redis_stream", "params": {"stream": "sums"}}, RedisTargets(directory, os.environ["REDIS_URL"])),
    "sink.kafka": lambda request, directory: (
        {"type": "sink.kafka", "params": {"bootstrap_servers": "localhost:9", "topic": "sums", "key": "x[0]"}},
        KafkaTargets(directory, request.getfixturevalue("kafka_cluster"))),
}


@pytest.mark.parametrize("sink_type", sorted(SINKS))
def test_every_exactly_once_sink_of_the_catalog_passes_the_proof_that_catches_the_broken_one(
        spark_session, request, tmp_path, sink_type):
    from engine.api import OPERATOR_CATALOG

    catalog_sinks = {entry["type"] for entry in OPERATOR_CATALOG if entry["sink"] and not entry.get("plugin")}
    assert catalog_sinks - {"sink.collect"} == set(SINKS)  # a new sink of the catalog is proven here too
    seed = catching_seed(sums_pipeline({"type": register_broken_sinks(), "params": {"path": "/nowhere"}}), tmp_path)
    sink, targets = SINKS[sink_type](request, tmp_path / "proof")
    result = prove_exactly_once(sums_pipeline(sink), CASE, Spark(session=spark_session),
                                workdir=str(tmp_path / "proof"), kills=KILLS, seed=seed, sink_targets=targets)
    assert result["status"] == "passed", result
    assert result["kills_fired"] >= KILLS - 2, result["phases"]
    assert [phase["parallelism"] for phase in result["phases"]] == [2, 3]
    assert result["sinks"]["out"] == {"expected": len(ROWS), "found": len(ROWS), "missing": 0, "doubled": 0}
