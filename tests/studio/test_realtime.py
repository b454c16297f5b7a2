"""WebSocket run and pipeline events through the real Redis channel layer: stored first, then live, once each."""
import asyncio
import json

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from studio.asgi import application
from studio.models import ApiToken, Pipeline, PipelineVersion, Run
from studio.runs.events import record_event, set_status
from tests.support import simple_pipeline, ws_headers

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def token(user):
    return ApiToken.issue(user, "ws")[1]


@pytest.fixture
def pipeline(user):
    pipeline = Pipeline.objects.create(name="p", owner=user)
    PipelineVersion.objects.create(pipeline=pipeline, number=1, definition=simple_pipeline())
    return pipeline


@pytest.fixture
def run_id(pipeline):
    run = Run.objects.create(pipeline=pipeline, version=pipeline.versions.get())
    set_status(run.id, "CREATED")
    return run.id


async def connect(path: str, token: str | None) -> WebsocketCommunicator:
    communicator = WebsocketCommunicator(application, path, headers=ws_headers(token))
    connected, _ = await communicator.connect(timeout=10)
    assert connected
    return communicator


async def refused(path: str, headers) -> int | None:
    communicator = WebsocketCommunicator(application, path, headers=headers)
    connected, code = await communicator.connect(timeout=10)
    assert not connected
    return code


async def receive(communicator) -> dict:
    return json.loads(await communicator.receive_from(timeout=10))


def test_stored_events_then_live_events_in_sequence(run_id, token):
    async def scenario():
        communicator = await connect(f"/ws/runs/{run_id}/", token)
        first = await receive(communicator)
        await database_sync_to_async(record_event)(run_id, "checkpoint", {"event": "triggered", "id": 1,
                                                                          "trigger_timestamp": 5})
        second = await receive(communicator)
        await communicator.disconnect()
        return first, second

    first, second = async_to_sync(scenario)()
    assert (first["seq"], first["data"]["status"]) == (1, "CREATED")
    assert (second["seq"], second["type"], second["data"]["id"]) == (2, "checkpoint", 1)


def test_reconnect_with_after_receives_exactly_what_was_missed(run_id, token):
    for status in ("SCHEDULING", "RUNNING"):
        set_status(run_id, status)

    async def scenario():
        communicator = await connect(f"/ws/runs/{run_id}/?after=1", token)
        missed = [await receive(communicator), await receive(communicator)]
        nothing_more = await communicator.receive_nothing(timeout=0.3)
        await communicator.disconnect()
        return missed, nothing_more

    missed, nothing_more = async_to_sync(scenario)()
    assert [(e["seq"], e["data"]["status"]) for e in missed] == [(2, "SCHEDULING"), (3, "RUNNING")]
    assert nothing_more


def test_reconnects_under_a_stream_of_events_lose_and_double_nothing(run_id, token):
    """A client that drops and reconnects with ?after=<last seq> while events keep coming sees each once."""
    total = 120

    def publish():
        for number in range(total):
            record_event(run_id, "metrics", {"vertices": {}, "n": number})

    async def scenario():
        seen = []
        publisher = asyncio.get_running_loop().run_in_executor(None, database_sync_to_async(publish).func)
        while len(seen) < total + 1:
            after = seen[-1]["seq"] if seen else 0
            communicator = await connect(f"/ws/runs/{run_id}/?after={after}", token)
            for _ in range(17):  # then drop the connection, mid-stream
                if len(seen) == total + 1:
                    break
                seen.append(await receive(communicator))
            await communicator.disconnect()
        await publisher
        return seen

    seen = async_to_sync(scenario)()
    assert [event["seq"] for event in seen] == list(range(1, total + 2))
    assert [event["data"]["n"] for event in seen[1:]] == list(range(total))


def test_a_consumer_idle_longer_than_the_redis_read_timeout_still_receives(run_id, token):
    """redis-py's asyncio reads time out after 5 s by default; the layer must outlast that."""
    async def scenario():
        communicator = await connect(f"/ws/runs/{run_id}/?after=1", token)
        await asyncio.sleep(6)  # idle, not a timing assertion
        await database_sync_to_async(set_status)(run_id, "RUNNING")
        event = await receive(communicator)
        await communicator.disconnect()
        return event

    assert async_to_sync(scenario)()["data"]["status"] == "RUNNING"


def test_pipeline_stream_reports_runs_created_and_changing_status(pipeline, token, api, monkeypatch):
    from studio.runs.tasks import launch_run

    monkeypatch.setattr(launch_run, "delay", lambda run_id: None)  # no driver: the test sets the statuses

    async def scenario():
        communicator = await connect(f"/ws/pipelines/{pipeline.id}/", token)
        response = await database_sync_to_async(api.post)(f"/api/pipelines/{pipeline.id}/runs", {}, format="json")
        run_id = response.json()["id"]
        created = await receive(communicator)
        await database_sync_to_async(set_status)(run_id, "SCHEDULING")
        scheduling = await receive(communicator)
        await database_sync_to_async(record_event)(run_id, "metrics", {"vertices": {}})
        quiet = await communicator.receive_nothing(timeout=0.3)  # only run changes, not every event
        await communicator.disconnect()
        return run_id, created, scheduling, quiet

    run_id, created, scheduling, quiet = async_to_sync(scenario)()
    assert created["type"] == "run" and created["data"]["id"] == run_id and created["data"]["status"] == "CREATED"
    assert scheduling["data"]["status"] == "SCHEDULING" and scheduling["data"]["pipeline"] == pipeline.id
    assert quiet


def test_anonymous_unknown_and_foreign_sockets_are_refused(run_id, pipeline, token, other_user):
    stranger = ApiToken.issue(other_user, "ws")[1]

    async def scenario():
        return [
            await refused(f"/ws/runs/{run_id}/", ws_headers()),  # no credentials
            await refused(f"/ws/runs/{run_id}/", ws_headers("not-a-token")),
            await refused("/ws/runs/999999/", ws_headers(token)),
            await refused(f"/ws/runs/{run_id}/", ws_headers(stranger)),  # bob may not see alice's run
            await refused(f"/ws/pipelines/{pipeline.id}/", ws_headers(stranger)),
        ]

    assert async_to_sync(scenario)() == [4401, 4401, 4404, 4404, 4404]


def test_token_in_the_query_string_and_session_cookie_authenticate(run_id, token, user, client):
    client.force_login(user)
    cookie = f"sessionid={client.cookies['sessionid'].value}".encode()

    async def scenario():
        by_query = await connect(f"/ws/runs/{run_id}/?token={token}", None)
        first = await receive(by_query)
        await by_query.disconnect()
        by_cookie = WebsocketCommunicator(application, f"/ws/runs/{run_id}/",
                                          headers=[*ws_headers(), (b"cookie", cookie)])
        connected, _ = await by_cookie.connect(timeout=10)
        second = await receive(by_cookie)
        await by_cookie.disconnect()
        return first, connected, second

    first, connected, second = async_to_sync(scenario)()
    assert first["seq"] == 1 and connected and second["seq"] == 1


def test_foreign_origin_is_refused(run_id, token):
    async def scenario():
        communicator = WebsocketCommunicator(application, f"/ws/runs/{run_id}/",
                                             headers=[(b"origin", b"http://evil.example"),
                                                      (b"authorization", f"Token {token}".encode())])
        connected, _ = await communicator.connect(timeout=10)
        return connected

    assert async_to_sync(scenario)() is False


def test_a_batch_of_events_stored_together_arrives_live_once_each_in_order(run_id, token, monkeypatch):
    from studio import fanout
    from studio.runs.events import record_events

    group_sends = []
    send = fanout.broadcast_many

    def counted(messages):
        group_sends.extend(message["type"] for _, message in messages)
        return send(messages)

    monkeypatch.setattr("studio.runs.events.broadcast_many", counted)

    async def scenario():
        communicator = await connect(f"/ws/runs/{run_id}/", token)
        await receive(communicator)  # CREATED, stored before
        batch = [(run_id, "checkpoint", {"event": "triggered", "id": n, "trigger_timestamp": 5}, None)
                 for n in range(1, 5)]
        await database_sync_to_async(record_events)(batch)
        live = [await receive(communicator) for _ in range(4)]
        nothing_more = await communicator.receive_nothing(timeout=0.3)
        await communicator.disconnect()
        return live, nothing_more

    live, nothing_more = async_to_sync(scenario)()
    assert [(event["seq"], event["data"]["id"]) for event in live] == [(2, 1), (3, 2), (4, 3), (5, 4)]
    assert nothing_more
    assert group_sends == ["run.events"], "one message to the run's sockets for the batch"
