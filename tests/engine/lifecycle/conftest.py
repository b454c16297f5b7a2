"""Fixtures of the job life-cycle tests: a Redis client (the Spark session is in ``tests/engine/conftest.py``)."""
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
