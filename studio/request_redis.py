"""A Redis client for the request path: short timeouts, and a pause after a failure.

A request that asks Redis for something optional (the access epoch, a cached answer) must
not wait long when Redis is gone: each call has a ``timeout_s`` budget, and after a failure
Redis is not asked again for ``pause_s``, so a hung Redis costs one short timeout, not one
per request. The client is made on first use and shared by the process's threads.
"""
from __future__ import annotations

import threading
import time

import redis
from django.conf import settings


class RequestRedis:
    """The process's client for one purpose; ``client()`` is None while Redis is paused."""

    def __init__(self, timeout_s: float = 0.1, pause_s: float = 1.0):
        self.timeout_s = timeout_s
        self.pause_s = pause_s
        self._lock = threading.Lock()
        self._client: redis.Redis | None = None  # guarded by: self._lock
        self.unreachable_until = 0.0

    def client(self) -> redis.Redis | None:
        if time.monotonic() < self.unreachable_until:
            return None
        return self.client_even_if_paused()

    def client_even_if_paused(self) -> redis.Redis:
        """For a write that must reach Redis if it can (a revocation), pause or not."""
        with self._lock:
            if self._client is None:
                self._client = redis.Redis.from_url(settings.REDIS_URL, socket_timeout=self.timeout_s,
                                                    socket_connect_timeout=self.timeout_s)
            return self._client

    def failed(self) -> None:
        """A call failed: do not ask again for ``pause_s``."""
        self.unreachable_until = time.monotonic() + self.pause_s
