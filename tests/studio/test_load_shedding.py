"""Load shedding: past its limit a worker answers 503 + Retry-After at once; health and sockets pass."""
import asyncio
import json

import pytest

from studio.load_shedding import LoadSheddingMiddleware


class HeldApp:
    """An ASGI app whose HTTP requests stay in flight until ``release`` is set."""

    def __init__(self):
        self.release = asyncio.Event()
        self.started = 0

    async def __call__(self, scope, receive, send):
        self.started += 1
        await self.release.wait()
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})


async def request(app, path: str = "/api/runs/1", kind: str = "http") -> dict:
    sent = []

    async def send(message):
        sent.append(message)

    async def receive():
        return {"type": "http.request", "body": b""}

    await app({"type": kind, "path": path}, receive, send)
    start = next(message for message in sent if message["type"] == "http.response.start")
    body = b"".join(message.get("body", b"") for message in sent if message["type"] == "http.response.body")
    return {"status": start["status"], "headers": dict(start["headers"]), "body": body}


def test_requests_past_the_limit_are_shed_at_once_and_admitted_ones_finish():
    asyncio.run(_past_the_limit())


async def _past_the_limit():
    inner = HeldApp()
    app = LoadSheddingMiddleware(inner, limit=3, retry_after_s=2)
    admitted = [asyncio.create_task(request(app)) for _ in range(3)]
    while inner.started < 3:
        await asyncio.sleep(0)
    shed = await request(app)  # answered while the three are still held
    assert shed["status"] == 503
    assert shed["headers"][b"retry-after"] == b"2" and shed["headers"][b"content-type"] == b"application/json"
    assert json.loads(shed["body"])["detail"]
    health = asyncio.create_task(request(app, "/api/health"))  # never shed
    while inner.started < 4:
        await asyncio.sleep(0)
    inner.release.set()
    assert [answer["status"] for answer in await asyncio.gather(*admitted, health)] == [200, 200, 200, 200]
    assert (await request(app))["status"] == 200  # capacity is back once they finished
    assert (app.in_flight, app.shed) == (0, 1)


def test_websockets_are_never_shed():
    asyncio.run(_websocket())


async def _websocket():
    seen = []

    async def inner(scope, receive, send):
        seen.append(scope["type"])

    app = LoadSheddingMiddleware(inner, limit=1)
    app.in_flight = 1  # as if one HTTP request were being served
    await app({"type": "websocket", "path": "/ws/runs/1/"}, None, None)
    assert seen == ["websocket"]


def test_a_limit_below_one_is_refused():
    with pytest.raises(ValueError, match="at least 1"):
        LoadSheddingMiddleware(HeldApp(), limit=0)
