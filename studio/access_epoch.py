"""The access epoch: one counter in Redis that moves whenever access may have been taken away.

Answers that depend on who may do what (a token's user, above all) are worth keeping for a
moment in each web process: looking a token up costs more than the rest of a small GET.
Keeping them is safe only if a revocation reaches every process at once. The signals that
tell open sockets to check their access (``studio.realtime.revocation``) also increment
this counter, before they tell the sockets; a process keeps an answer only together with
the epoch it was computed in, and asks Redis for the current epoch on every request (one
round trip on a kept connection), so a deleted token or share stops working everywhere at
the next request.

When Redis does not answer, there is no epoch and nothing kept is trusted: callers compute
from the database as if nothing were kept. After a failure Redis is not asked again for
``RETRY_AFTER_S``, so a hung Redis costs one short timeout, not one per request. Kept
answers also expire after ``MAX_AGE_S`` (see ``EpochCache``): changes made around the ORM
(``QuerySet.update``) move no epoch, as they reach no socket either.
"""
from __future__ import annotations

import threading
import time
import weakref
from typing import Any, Hashable

import redis

from studio.request_redis import RequestRedis

KEY = "studio:access-epoch"
TIMEOUT_S = 0.1
RETRY_AFTER_S = 1.0

_redis = RequestRedis(TIMEOUT_S, RETRY_AFTER_S)


def current() -> int | None:
    """The epoch now, or None when Redis does not answer (then trust nothing kept)."""
    client = _redis.client()
    if client is None:
        return None
    try:
        value = client.get(KEY)
    except redis.RedisError:
        _redis.failed()
        return None
    return int(value or 0)


def advance() -> bool:
    """Move the epoch: everything kept so far is stale. False when Redis did not take it.
    Tried even while reads pause after a failure: a revocation must reach Redis if it can."""
    try:
        _redis.client_even_if_paused().incr(KEY)
        return True
    except redis.RedisError:
        _redis.failed()
        return False


_caches: "weakref.WeakSet[EpochCache]" = weakref.WeakSet()


def forget_here() -> None:
    """Drop everything kept in this process, at once.

    For the change's own process, before its transaction commits: the epoch moves only on
    commit (``advance``), and a test's transaction, rolled back at its end, never commits."""
    for cache in list(_caches):
        cache.clear()


class EpochCache:
    """Answers kept per key for the epoch they were computed in, and at most ``MAX_AGE_S``.

    Small and per process: ``maximum`` entries, the oldest dropped first when full.
    """

    MAX_AGE_S = 10.0

    def __init__(self, maximum: int = 10_000):
        self.maximum = maximum
        self._entries: dict[Hashable, tuple[int, float, Any]] = {}
        self._lock = threading.Lock()
        _caches.add(self)

    def get(self, key: Hashable, epoch: int | None) -> Any | None:
        if epoch is None:
            return None
        entry = self._entries.get(key)
        if entry is None or entry[0] != epoch or time.monotonic() - entry[1] > self.MAX_AGE_S:
            return None
        return entry[2]

    def put(self, key: Hashable, epoch: int | None, value: Any) -> None:
        if epoch is None:
            return
        with self._lock:
            if len(self._entries) >= self.maximum:
                self._entries.pop(next(iter(self._entries)))
            self._entries[key] = (epoch, time.monotonic(), value)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
