"""Load shedding: an overloaded web worker answers 503 at once instead of letting requests time out.

Each web worker process serves its HTTP requests concurrently (Django's ASGI handler runs
each request's sync code in a thread of that request, all sharing one interpreter). Past a handful of requests in
flight, one more only makes every request slower: at ``settings.MAX_REQUESTS_IN_FLIGHT``
the worker answers further requests with ``503`` and ``Retry-After`` (JSON, like every
API error) without touching Django, so a client backs off while the requests already
admitted still finish in time. WebSockets and ``/api/health`` (for supervisors and load
balancers, which must see the worker answer) are never shed.

A count alone does not bound latency: the admitted requests' threads share one
interpreter lock and the worker's CPU time, so an admitted request still waits behind the
others, and when other processes take the CPUs (a run's driver, Spark) they all drain
slower. So the middleware stamps each admitted request with the moment it was admitted,
and :class:`StaleRequestMiddleware` -- the first thing the request's thread runs -- sheds
reads that waited there too long, the way CoDel drops packets: a queue that stands above
``settings.MAX_QUEUE_WAIT_MS`` for a whole ``settings.QUEUE_WAIT_INTERVAL_MS`` is an
overload, and its stale GETs get 503 at once (an answer that would come late anyway costs
nothing more, and the ones behind it are served sooner); one slow request or a short burst
makes no standing queue and sheds nothing. Only GET and HEAD under ``/api/`` are shed this
way: a write (start, stop, savepoint) or a page load waits its turn rather than being lost,
and the frontend's client retries a shed GET after its Retry-After.

Threading model: one instance per worker process, used only by that process's event loop,
so the counter needs no lock.
"""
from __future__ import annotations

import json
import time

SHED_BODY = json.dumps({"detail": "the studio is overloaded; retry in a moment"}).encode()
NEVER_SHED = frozenset({"/api/health", "/api/health/"})
ADMITTED_AT = "studio.admitted_at"
"""The scope key holding when the request was admitted (``time.monotonic()``)."""


class LoadSheddingMiddleware:
    """ASGI middleware: at most ``limit`` HTTP requests in flight; 503 + Retry-After beyond."""

    def __init__(self, app, limit: int, retry_after_s: int = 1):
        if limit < 1:
            raise ValueError(f"LoadSheddingMiddleware needs a limit of at least 1, not {limit}")
        self.app = app
        self.limit = limit
        self.retry_after = str(retry_after_s).encode()
        self.in_flight = 0
        self.shed = 0

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope["path"] in NEVER_SHED:
            return await self.app(scope, receive, send)
        if self.in_flight >= self.limit:
            self.shed += 1
            return await self._shed(send)
        self.in_flight += 1
        scope[ADMITTED_AT] = time.monotonic()
        try:
            return await self.app(scope, receive, send)
        finally:
            self.in_flight -= 1

    async def _shed(self, send) -> None:
        await send({"type": "http.response.start", "status": 503, "headers": [
            (b"content-type", b"application/json"), (b"retry-after", self.retry_after),
            (b"content-length", str(len(SHED_BODY)).encode())]})
        await send({"type": "http.response.body", "body": SHED_BODY})


class StaleRequestMiddleware:
    """Django middleware (first in the chain): 503 + Retry-After for an API read that waited in
    the worker's queue past ``settings.MAX_QUEUE_WAIT_MS`` while the queue has stood above that
    for ``settings.QUEUE_WAIT_INTERVAL_MS`` (a standing queue, not a burst).

    Threading model: Django runs sync middleware in the worker's one sync thread, so the
    standing-queue state needs no lock."""

    SHEDDABLE_METHODS = frozenset({"GET", "HEAD"})

    def __init__(self, get_response):
        from django.conf import settings

        self.get_response = get_response
        self.max_wait_s = settings.MAX_QUEUE_WAIT_MS / 1000.0
        self.interval_s = settings.QUEUE_WAIT_INTERVAL_MS / 1000.0
        self.retry_after = "1"
        self.clock = time.monotonic
        self._above_since: float | None = None
        """When the queue wait last went above ``max_wait_s`` and stayed there (None: it is below)."""

    def __call__(self, request):
        admitted_at = getattr(request, "scope", {}).get(ADMITTED_AT)
        if admitted_at is not None and self._is_overloaded(self.clock(), admitted_at) \
                and request.method in self.SHEDDABLE_METHODS and request.path.startswith("/api/") \
                and request.path not in NEVER_SHED:
            from django.http import HttpResponse

            response = HttpResponse(SHED_BODY, status=503, content_type="application/json")
            response["Retry-After"] = self.retry_after
            return response
        return self.get_response(request)

    def _is_overloaded(self, now: float, admitted_at: float) -> bool:
        """Whether this request waited too long in a queue that has stood too long (CoDel's test)."""
        if now - admitted_at <= self.max_wait_s:
            self._above_since = None
            return False
        if self._above_since is None:
            self._above_since = now
        return now - self._above_since >= self.interval_s
