"""Sockets at the boundary: what a socket starts ends with it on every path, and handshakes are checked.

The leak test runs the studio's ASGI application in uvicorn, as ``make up`` serves it, in a
thread of the test process so that it can count the tasks alive in the server's event loop;
its clients are real TCP sockets that vanish abnormally (a reset while the server sends;
``tests.socket_leak``, which ``make bench-studio`` runs with 50 sockets).
"""
import asyncio
import json

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from studio.asgi import application
from studio.models import ApiToken, Pipeline, PipelineVersion, Run
from studio.realtime import consumers
from studio.runs.events import record_event, set_status
from tests.socket_leak import vanish_while_sending
from tests.support import ThreadedAsgiServer, simple_pipeline, ws_headers

pytestmark = pytest.mark.django_db(transaction=True)
REFUSED = (False, 1000)  # closed before it was accepted: a server answers the handshake with HTTP 403
ABNORMAL_CLOSES = 30


@pytest.fixture
def token(user):
    return ApiToken.issue(user, "ws")[1]


@pytest.fixture
def run_id(user):
    pipeline = Pipeline.objects.create(name="p", owner=user)
    version = PipelineVersion.objects.create(pipeline=pipeline, number=1, definition=simple_pipeline())
    run = Run.objects.create(pipeline=pipeline, version=version)
    set_status(run.id, "RUNNING")
    return run.id


def test_sockets_that_vanish_while_the_server_sends_leave_no_task_and_no_group(run_id, token, monkeypatch):
    """The run socket's watch runs every 20 ms here, so sockets also end while it sends, or while it
    reads the database (where a cancellation does not always stop a task by itself)."""
    monkeypatch.setattr(consumers, "WATCH_INTERVAL_S", 0.02)
    with ThreadedAsgiServer(application) as server:
        assert vanish_while_sending(server, run_id, token, ABNORMAL_CLOSES) == (0, 0)


def test_a_tap_closes_when_its_socket_ends_abnormally(run_id, user, token):
    """The tap's socket ends without a disconnect (the server cancels it): the tap is closed all the same."""
    from studio.taps.models import Tap

    tap = Tap.objects.create(tap_id=Tap.new_tap_id(), run_id=run_id, edge="e1", created_by=user)

    async def scenario():
        communicator = WebsocketCommunicator(application, tap.websocket_path, headers=ws_headers(token))
        assert (await communicator.connect(timeout=10))[0]
        assert json.loads(await communicator.receive_from(timeout=10))["type"] == "opened"
        communicator.future.cancel()  # as a server does with a socket it gives up on
        with pytest.raises(asyncio.CancelledError):
            await communicator.future

    async_to_sync(scenario)()
    assert Tap.objects.get(pk=tap.pk).state == "closed"


def handshake(path: str, headers) -> tuple[bool, int | None]:
    async def scenario():
        communicator = WebsocketCommunicator(application, path, headers=headers)
        outcome = await communicator.connect(timeout=10)
        await communicator.disconnect()
        return outcome

    return async_to_sync(scenario)()


@pytest.mark.parametrize("path", ["/ws/nothing/", "/ws/runs/abc/", "/ws/runs/1/taps/", "/ws/", "/",
                                  "/ws/runs/99999999999999999999999/", "/ws/pipelines/99999999999999999999999/"])
def test_a_socket_path_the_studio_does_not_serve_is_refused_not_an_error(path, token):
    assert handshake(path, ws_headers(token)) == (False, 4404)


@pytest.mark.parametrize("origin", ["http://127.0.0.1:8001", "https://127.0.0.1", "http://evil.example",
                                    "http://127.0.0.1.evil.example", "null", "http://127.0.0.1/path"])
def test_a_page_of_another_origin_may_not_open_sockets_with_the_users_cookie(origin, user, client):
    client.force_login(user)
    headers = [(b"host", b"127.0.0.1"), (b"origin", origin.encode()),
               (b"cookie", f"sessionid={client.cookies['sessionid'].value}".encode())]
    assert handshake("/ws/notifications/", headers) == REFUSED


def test_the_studios_own_origin_and_the_trusted_ones_may(user, client, settings):
    client.force_login(user)
    cookie = (b"cookie", f"sessionid={client.cookies['sessionid'].value}".encode())
    settings.CSRF_TRUSTED_ORIGINS = ["https://studio.example"]
    assert [handshake("/ws/notifications/", [(b"host", host), (b"origin", origin), cookie])[0]
            for host, origin in ((b"127.0.0.1:8001", b"http://127.0.0.1:8001"), (b"localhost", b"http://LOCALHOST:80"),
                                 (b"127.0.0.1:8001", b"https://studio.example"))] == [True, True, True]
    settings.ALLOWED_HOSTS = ["localhost"]  # a Host the studio does not serve is no origin of its own
    assert handshake("/ws/notifications/", [(b"host", b"evil.example"), (b"origin", b"http://evil.example"),
                                            cookie]) == REFUSED


def test_a_script_with_a_token_and_no_origin_is_accepted_and_its_cookie_ignored(user, token, client):
    client.force_login(user)
    cookie = (b"cookie", f"sessionid={client.cookies['sessionid'].value}".encode())
    assert handshake("/ws/notifications/", [(b"authorization", f"Token {token}".encode())]) == (True, None)
    assert handshake(f"/ws/notifications/?token={token}", []) == (True, None)
    assert handshake("/ws/notifications/", [cookie]) == (False, 4401)  # no browser sends no Origin
    assert handshake("/ws/notifications/", [(b"authorization", b"Token not-a-token")]) == (False, 4401)


def test_handshakes_succeed_right_after_a_redis_restart(redis_server, run_id, token):
    """The channel layer's pooled connections all died with the old Redis: the first handshakes after the
    restart must not fail on them."""
    async def scenario():
        sockets = [WebsocketCommunicator(application, f"/ws/runs/{run_id}/", headers=ws_headers(token))
                   for _ in range(4)]
        for communicator in sockets:  # four pooled connections to the Redis about to restart
            assert (await communicator.connect(timeout=10))[0]
        for communicator in sockets:
            await communicator.disconnect()
        await asyncio.to_thread(redis_server.stop)
        await asyncio.to_thread(redis_server.start)
        outcomes = []
        for _ in range(4):
            communicator = WebsocketCommunicator(application, f"/ws/runs/{run_id}/", headers=ws_headers(token))
            try:
                outcomes.append((await communicator.connect(timeout=10))[0])
            except Exception as error:  # the handshake failed inside the application: a 500
                outcomes.append(type(error).__name__)
            await communicator.disconnect()
        live = WebsocketCommunicator(application, f"/ws/runs/{run_id}/?after=1", headers=ws_headers(token))
        assert (await live.connect(timeout=10))[0]
        await database_sync_to_async(record_event)(run_id, "metrics", {"vertices": {}})
        event = json.loads(await live.receive_from(timeout=10))
        await live.disconnect()
        return outcomes, event["type"]

    assert async_to_sync(scenario)() == ([True] * 4, "metrics")


def test_an_event_holding_nan_reaches_sockets_and_rest_as_json(run_id, token, api):
    """A run's records may hold NaN or infinities: the socket and REST send JSON (their names), not tokens
    a browser's JSON.parse refuses."""
    async def scenario():
        communicator = WebsocketCommunicator(application, f"/ws/runs/{run_id}/?after=1", headers=ws_headers(token))
        assert (await communicator.connect(timeout=10))[0]
        await database_sync_to_async(record_event)(run_id, "finished", {"collected": {"out": [
            float("nan"), float("inf"), -float("inf"), 1.5]}})
        text = (await communicator.receive_output(timeout=10))["text"]
        await communicator.disconnect()
        return text

    text = async_to_sync(scenario)()
    assert json.loads(text, parse_constant=reject)["data"]["collected"]["out"] == ["NaN", "Infinity", "-Infinity", 1.5]
    response = api.get(f"/api/runs/{run_id}/events")
    assert response.status_code == 200
    events = json.loads(response.content, parse_constant=reject)
    events = events["results"] if isinstance(events, dict) else events
    assert events[-1]["data"]["collected"]["out"] == ["NaN", "Infinity", "-Infinity", 1.5]


def reject(constant: str):
    raise ValueError(f"{constant} is not JSON")
