"""``lookup.redis`` against the real Redis server (the suite's, from ``REDIS_URL``)."""
from __future__ import annotations

import json
import os
import uuid

import pytest

from engine.cluster.local import LocalCluster
from engine.runtime.operators.connectors.lookup_redis import RedisLookupOperator
from tests.engine.async_io.support import OperatorHarness

REDIS_URL = os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/15"


@pytest.fixture
def redis_keys():
    """A fresh key prefix; every key under it is deleted afterwards."""
    import redis

    client = redis.Redis.from_url(REDIS_URL, decode_responses=True)
    prefix = f"test-lookup-{uuid.uuid4().hex[:8]}"
    yield client, prefix
    keys = list(client.scan_iter(f"{prefix}:*"))
    if keys:
        client.delete(*keys)
    client.close()


def test_a_job_enriches_records_with_get_and_hgetall(redis_keys, tmp_path):
    client, prefix = redis_keys
    for user in range(8):  # users 8 and 9 are missing
        client.set(f"{prefix}:name:{user}", f"name-{user}")
        client.hset(f"{prefix}:profile:{user}", mapping={"tier": "gold" if user % 2 else "silver", "id": user})
    definition = {
        "format": 1, "name": "redis-lookup", "parallelism": 2, "checkpointing": {"interval_ms": 100},
        "nodes": [
            {"id": "gen", "type": "source.datagen", "params": {"count": 40}},
            {"id": "users", "type": "transform.map", "params": {"expression": '{"user": x % 10, "n": x}'}},
            {"id": "name", "type": "lookup.redis",
             "params": {"url": REDIS_URL, "key": f"f\"{prefix}:name:{{x['user']}}\"", "field": "name"}},
            {"id": "profile", "type": "lookup.redis",
             "params": {"url": REDIS_URL, "key": f"f\"{prefix}:profile:{{x['user']}}\"", "command": "hgetall",
                        "field": "profile", "output_mode": "unordered", "capacity": 5}},
            {"id": "out", "type": "sink.collect", "params": {"max_records": 100}},
        ],
        "edges": [{"id": "e1", "from": "gen", "to": "users"}, {"id": "e2", "from": "users", "to": "name"},
                  {"id": "e3", "from": "name", "to": "profile", "partitioning": "rebalance"},
                  {"id": "e4", "from": "profile", "to": "out"}],
    }
    result = LocalCluster().run(definition, timeout=60, checkpoint_dir=str(tmp_path / "chk"))
    assert result.status == "FINISHED", result.failure
    records = sorted(result.collected["out"], key=lambda record: record["n"])
    assert [record["n"] for record in records] == list(range(40))
    for record in records:
        user = record["user"]
        if user < 8:
            assert record["name"] == f"name-{user}"
            assert record["profile"] == {"tier": "gold" if user % 2 else "silver", "id": str(user)}
        else:
            assert record["name"] is None and record["profile"] is None


def test_json_values_are_decoded_and_non_dict_records_become_pairs(redis_keys):
    client, prefix = redis_keys
    client.set(f"{prefix}:7", json.dumps({"score": 0.5}))
    harness = OperatorHarness(RedisLookupOperator, {"url": REDIS_URL, "key": f"f\"{prefix}:{{x}}\"",
                                                    "decode": "json"}, node_type="lookup.redis")
    try:
        harness.operator.process_batch([7, 8])
        harness.completed(2)
        assert harness.records == [[7, {"score": 0.5}], [8, None]]
    finally:
        harness.close()
