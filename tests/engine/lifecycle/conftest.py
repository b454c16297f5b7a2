"""Fixtures of the job life-cycle tests: a Redis client, and one Spark session per process."""
from __future__ import annotations

import os

import pytest


@pytest.fixture
def redis_client():
    """A client of the test Redis (``REDIS_URL``, exported by the test settings); deletes ``keys`` after."""
    redis = pytest.importorskip("redis")
    client = redis.Redis.from_url(os.environ["REDIS_URL"], decode_responses=True)
    keys: list[str] = []
    yield client, keys
    if keys:
        client.delete(*keys)
    client.close()


@pytest.fixture(scope="session")
def spark_session():
    """The process's local Spark session (shared with ``tests/engine/cluster``: getOrCreate)."""
    from engine.cluster.spark_session import create_spark_session

    session = create_spark_session("engine-tests", "local[4]")
    yield session
    session.stop()
