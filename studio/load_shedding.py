"""Load shedding: an overloaded web worker answers 503 at once instead of letting requests time out.

Each web worker process serves its HTTP requests concurrently (Django runs each sync view
in a thread of its own, all sharing one interpreter). Past a handful of requests in
flight, one more only makes every request slower: at ``settings.MAX_REQUESTS_IN_FLIGHT``
the worker answers further requests with ``503`` and ``Retry-After`` (JSON, like every
API error) without touching Django, so a client backs off while the requests already
admitted still finish in time. WebSockets and ``/api/health`` (for supervisors and load
balancers, which must see the worker answer) are never shed.

Threading model: one instance per worker process, used only by that process's event loop,
so the counter needs no lock.
"""
from __future__ import annotations

import json

SHED_BODY = json.dumps({"detail": "the studio is overloaded; retry in a moment"}).encode()
NEVER_SHED = frozenset({"/api/health", "/api/health/"})


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
        try:
            return await self.app(scope, receive, send)
        finally:
            self.in_flight -= 1

    async def _shed(self, send) -> None:
        await send({"type": "http.response.start", "status": 503, "headers": [
            (b"content-type", b"application/json"), (b"retry-after", self.retry_after),
            (b"content-length", str(len(SHED_BODY)).encode())]})
        await send({"type": "http.response.body", "body": SHED_BODY})
