"""Taps over REST and WebSocket (tag "taps"): created on an edge of a RUNNING run, opened in the driver when
their socket connects, closed for good when it disconnects; only their creator's, on a run they may view."""
import asyncio
import json

import pytest
import redis
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.contrib.auth.models import Group

from studio.asgi import application
from studio.fanout import broadcast
from studio.models import Pipeline, PipelineShare, PipelineVersion, Run
from studio.runs.commands import command_key
from studio.runs.events import set_status
from studio.taps.control import tap_group
from studio.taps.models import Tap
from tests.support import simple_pipeline, ws_headers

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def run(user):
    pipeline = Pipeline.objects.create(name="p", owner=user)
    version = PipelineVersion.objects.create(pipeline=pipeline, number=1, definition=simple_pipeline())
    run = Run.objects.create(pipeline=pipeline, version=version, created_by=user)
    set_status(run.id, "SCHEDULING")
    set_status(run.id, "RUNNING")
    return run


def commands_of(run) -> list[dict]:
    client = redis.Redis.from_url(settings.REDIS_URL)
    try:
        return [json.loads(item) for item in client.lrange(command_key(run), 0, -1)]
    finally:
        client.close()


def create_tap(api, run, **body) -> dict:
    response = api.post(f"/api/runs/{run.id}/taps", {"edge": "e1", **body}, format="json")
    assert response.status_code == 201, response.content
    return response.json()


async def connect(path, token):
    socket = WebsocketCommunicator(application, path, headers=ws_headers(token))
    return socket, await socket.connect(timeout=10)


def test_a_tap_is_created_on_an_edge_and_listed_for_its_creator(api, run):
    tap = create_tap(api, run, records_per_second=5)
    assert (tap["edge"], tap["state"], tap["records_per_second"], tap["max_record_bytes"]) == ("e1", "waiting", 5, 1024)
    assert tap["websocket"] == f"/ws/runs/{run.id}/taps/{tap['tap_id']}/"
    assert [t["tap_id"] for t in api.get(f"/api/runs/{run.id}/taps").json()] == [tap["tap_id"]]
    assert commands_of(run) == []  # nothing is sampled before a socket listens


def test_bad_taps_are_refused_with_the_reason(api, run):
    unknown = api.post(f"/api/runs/{run.id}/taps", {"edge": "e9"}, format="json")
    assert unknown.status_code == 400
    assert unknown.json()["errors"][0]["field"] == "edge"
    assert "edge 'e9' is not an edge of run" in unknown.json()["detail"] and "e1, e2" in unknown.json()["detail"]
    assert api.post(f"/api/runs/{run.id}/taps", {"edge": "e1", "records_per_second": 0},
                    format="json").json()["fields"]["records_per_second"]
    set_status(run.id, "CANCELED")
    ended = api.post(f"/api/runs/{run.id}/taps", {"edge": "e1"}, format="json")
    assert ended.status_code == 409 and "taps need a RUNNING run" in ended.json()["detail"]


def test_another_user_can_neither_tap_nor_see_nor_attach(api, other_api, other_user, run):
    tap = create_tap(api, run)
    assert other_api.post(f"/api/runs/{run.id}/taps", {"edge": "e1"}, format="json").status_code == 404
    assert other_api.get(f"/api/runs/{run.id}/taps/{tap['tap_id']}").status_code == 404
    assert other_api.delete(f"/api/runs/{run.id}/taps/{tap['tap_id']}").status_code == 404
    group = Group.objects.create(name="viewers")  # a viewer may tap the run, but not attach to alice's tap
    other_user.groups.add(group)
    PipelineShare.objects.create(pipeline=run.pipeline, group=group)
    assert other_api.get(f"/api/runs/{run.id}/taps").json() == []
    assert other_api.post(f"/api/runs/{run.id}/taps", {"edge": "e2"}, format="json").status_code == 201

    async def scenario():
        socket, outcome = await connect(tap["websocket"], other_api.token_key)
        assert outcome == (False, 4404)
        socket, outcome = await connect(tap["websocket"], None)
        assert outcome == (False, 4401)

    asyncio.run(scenario())
    assert Tap.objects.get(tap_id=tap["tap_id"]).state == "waiting"


def test_the_socket_opens_the_tap_in_the_driver_relays_samples_and_closes_it(api, run):
    tap = create_tap(api, run, records_per_second=7)

    async def scenario():
        socket, outcome = await connect(tap["websocket"], api.token_key)
        assert outcome[0]
        assert json.loads(await socket.receive_from(timeout=10)) == {"type": "opened", "tap": tap["tap_id"],
                                                                     "edge": "e1"}
        assert commands_of(run) == [{"command": "tap_open", "tap_id": tap["tap_id"], "edge": "e1", "limits": {
            "records_per_second": 7, "bytes_per_second": 32768, "max_record_bytes": 1024}}]
        sample = {"tap": tap["tap_id"], "edge": "e1", "task": "gen#0", "records": [["2", False]], "dropped": 40,
                  "ts": 123.5}
        await database_sync_to_async(broadcast)(tap_group(tap["tap_id"]), {"type": "tap.records", "sample": sample})
        assert json.loads(await socket.receive_from(timeout=10)) == {
            "type": "records", "task": "gen#0", "records": [["2", False]], "dropped": 40, "ts": 123.5}
        await socket.disconnect()

    asyncio.run(scenario())
    assert commands_of(run)[-1] == {"command": "tap_close", "tap_id": tap["tap_id"]}
    assert api.get(f"/api/runs/{run.id}/taps/{tap['tap_id']}").json()["state"] == "closed"

    async def reconnect():
        return (await connect(tap["websocket"], api.token_key))[1]

    assert asyncio.run(reconnect()) == (False, 4410)


def test_closing_over_rest_closes_the_socket(api, run):
    tap = create_tap(api, run)

    async def scenario():
        socket, outcome = await connect(tap["websocket"], api.token_key)
        assert outcome[0]
        await socket.receive_from(timeout=10)
        response = await database_sync_to_async(api.delete)(f"/api/runs/{run.id}/taps/{tap['tap_id']}")
        assert response.status_code == 204
        assert (await socket.receive_output(timeout=10))["type"] == "websocket.close"

    asyncio.run(scenario())
    assert [c["command"] for c in commands_of(run)] == ["tap_open", "tap_close"]


def test_a_socket_on_an_ended_run_is_refused_and_closes_the_tap(api, run):
    tap = create_tap(api, run)
    set_status(run.id, "FINISHED")

    async def scenario():
        return (await connect(tap["websocket"], api.token_key))[1]

    assert asyncio.run(scenario()) == (False, 4409)
    assert Tap.objects.get(tap_id=tap["tap_id"]).state == "closed"


def test_taps_are_under_their_tag_in_the_schema(api):
    paths = api.get("/api/schema/?format=json").json()["paths"]
    operations = [operation for path, item in paths.items() if "/taps" in path
                  for operation in item.values() if isinstance(operation, dict)]
    assert len(operations) == 4 and all(operation["tags"] == ["taps"] for operation in operations)
