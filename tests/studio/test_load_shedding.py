"""Load shedding: past its limit a worker answers 503 + Retry-After at once; health and sockets pass."""
import asyncio
import json
import time

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


async def test_requests_past_the_limit_are_shed_at_once_and_admitted_ones_finish():
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


async def test_websockets_are_never_shed():
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


class Clock:
    """The middleware's clock, moved by the test."""

    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def stale_request(middleware, path: str, waited_s: float, method: str = "GET"):
    """A Django request as the ASGI handler builds it, admitted ``waited_s`` before the middleware's now."""
    from django.test import RequestFactory

    from studio.load_shedding import ADMITTED_AT

    request = RequestFactory().generic(method, path)
    request.scope = {ADMITTED_AT: middleware.clock() - waited_s}
    return request


@pytest.fixture
def stale_middleware(settings):
    from studio.load_shedding import StaleRequestMiddleware

    settings.MAX_QUEUE_WAIT_MS = 100
    settings.QUEUE_WAIT_INTERVAL_MS = 200
    served = []
    middleware = StaleRequestMiddleware(lambda request: served.append(request.path) or "served")
    middleware.clock = Clock()
    return middleware, served


def test_a_stale_read_in_a_standing_queue_is_shed_when_django_gets_to_it(stale_middleware):
    middleware, served = stale_middleware
    # the first stale request starts the interval: served; a second one 0.3 s later, with the queue still
    # above the budget all along, is shed
    assert middleware(stale_request(middleware, "/api/runs/1", waited_s=0.5)) == "served"
    middleware.clock.now += 0.3
    shed = middleware(stale_request(middleware, "/api/runs/2", waited_s=0.5))
    assert shed.status_code == 503 and shed["Retry-After"] == "1" and json.loads(shed.content)["detail"]
    assert served == ["/api/runs/1"]


def test_a_burst_that_drains_sheds_nothing(stale_middleware):
    middleware, served = stale_middleware
    assert middleware(stale_request(middleware, "/api/runs/1", waited_s=0.5)) == "served"
    assert middleware(stale_request(middleware, "/api/runs/2", waited_s=0.0)) == "served"  # the queue drained
    middleware.clock.now += 0.3  # stale again, but the queue stands above the budget only from now on
    assert middleware(stale_request(middleware, "/api/runs/3", waited_s=0.5)) == "served"
    assert served == ["/api/runs/1", "/api/runs/2", "/api/runs/3"]


def test_writes_page_loads_and_health_are_never_shed_for_waiting(stale_middleware):
    middleware, served = stale_middleware
    assert middleware(stale_request(middleware, "/api/runs/1", waited_s=0.5)) == "served"  # the queue stands
    middleware.clock.now += 1.0
    assert middleware(stale_request(middleware, "/api/runs/1/stop", waited_s=0.5, method="POST")) == "served"
    assert middleware(stale_request(middleware, "/runs/1", waited_s=0.5)) == "served"
    assert middleware(stale_request(middleware, "/api/health", waited_s=0.5)) == "served"
    assert middleware(stale_request(middleware, "/api/runs/2", waited_s=0.5)).status_code == 503
    assert served == ["/api/runs/1", "/api/runs/1/stop", "/runs/1", "/api/health"]


async def test_the_admission_stamp_reaches_the_app():
    from studio.load_shedding import ADMITTED_AT

    scopes = []

    async def inner(scope, receive, send):
        scopes.append(scope)
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    before = time.monotonic()
    await request(LoadSheddingMiddleware(inner, limit=1))
    assert before <= scopes[0][ADMITTED_AT] <= time.monotonic()


def test_the_stale_request_check_runs_first_in_django():
    from django.conf import settings

    assert settings.MIDDLEWARE[0] == "studio.load_shedding.StaleRequestMiddleware"
