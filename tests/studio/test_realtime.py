"""WebSocket run events through the real Redis channel layer: stored first, then live, once each."""
import asyncio
import json

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from studio.asgi import application
from studio.models import Pipeline, PipelineVersion, Run
from studio.realtime.events import record_event, set_status
from tests.support import simple_pipeline

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def run_id():
    pipeline = Pipeline.objects.create(name="p")
    version = PipelineVersion.objects.create(pipeline=pipeline, number=1, definition=simple_pipeline())
    run = Run.objects.create(pipeline=pipeline, version=version)
    set_status(run.id, "CREATED")
    return run.id


async def connect(path: str) -> WebsocketCommunicator:
    communicator = WebsocketCommunicator(application, path, headers=[(b"origin", b"http://127.0.0.1")])
    connected, _ = await communicator.connect(timeout=10)
    assert connected
    return communicator


async def receive(communicator) -> dict:
    return json.loads(await communicator.receive_from(timeout=10))


def test_stored_events_then_live_events_in_sequence(run_id):
    async def scenario():
        communicator = await connect(f"/ws/runs/{run_id}/")
        first = await receive(communicator)
        await database_sync_to_async(record_event)(run_id, "checkpoint", {"event": "triggered", "id": 1,
                                                                          "trigger_timestamp": 5})
        second = await receive(communicator)
        await communicator.disconnect()
        return first, second

    first, second = async_to_sync(scenario)()
    assert (first["seq"], first["data"]["status"]) == (1, "CREATED")
    assert (second["seq"], second["type"], second["data"]["id"]) == (2, "checkpoint", 1)


def test_reconnect_with_after_receives_exactly_what_was_missed(run_id):
    for status in ("SCHEDULING", "RUNNING"):
        set_status(run_id, status)

    async def scenario():
        communicator = await connect(f"/ws/runs/{run_id}/?after=1")
        missed = [await receive(communicator), await receive(communicator)]
        nothing_more = await communicator.receive_nothing(timeout=0.3)
        await communicator.disconnect()
        return missed, nothing_more

    missed, nothing_more = async_to_sync(scenario)()
    assert [(e["seq"], e["data"]["status"]) for e in missed] == [(2, "SCHEDULING"), (3, "RUNNING")]
    assert nothing_more


def test_a_consumer_idle_longer_than_the_redis_read_timeout_still_receives(run_id):
    """redis-py's asyncio reads time out after 5 s by default; the layer must outlast that."""
    async def scenario():
        communicator = await connect(f"/ws/runs/{run_id}/?after=1")
        await asyncio.sleep(6)  # idle, not a timing assertion
        await database_sync_to_async(set_status)(run_id, "RUNNING")
        event = await receive(communicator)
        await communicator.disconnect()
        return event

    assert async_to_sync(scenario)()["data"]["status"] == "RUNNING"


def test_unknown_run_is_refused(run_id):
    async def scenario():
        communicator = WebsocketCommunicator(application, "/ws/runs/999999/",
                                             headers=[(b"origin", b"http://127.0.0.1")])
        connected, code = await communicator.connect(timeout=10)
        return connected, code

    connected, code = async_to_sync(scenario)()
    assert not connected and code == 4404


def test_foreign_origin_is_refused(run_id):
    async def scenario():
        communicator = WebsocketCommunicator(application, f"/ws/runs/{run_id}/",
                                             headers=[(b"origin", b"http://evil.example")])
        connected, _ = await communicator.connect(timeout=10)
        return connected

    assert async_to_sync(scenario)() is False
