"""No silent loss: events the channel layer lost reach the socket from the database, in order.

The channel layer drops messages when a socket's queue is full or expired, and forgets
everything when Redis restarts. These tests lose events on purpose (their fan-out is
skipped) and check that the socket still delivers every seq once, in order: after a later
live event shows the gap, or, when the lost events were the last ones, from the watch.
"""
import json

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from studio.asgi import application
from studio.models import ApiToken, Pipeline, PipelineVersion, Run
from studio.realtime import consumers
from studio.runs import events
from studio.runs.events import record_event, set_status
from tests.support import simple_pipeline, ws_headers

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def run_id(user):
    pipeline = Pipeline.objects.create(name="p", owner=user)
    version = PipelineVersion.objects.create(pipeline=pipeline, number=1, definition=simple_pipeline())
    run = Run.objects.create(pipeline=pipeline, version=version)
    set_status(run.id, "CREATED")
    return run.id


@pytest.fixture
def token(user):
    return ApiToken.issue(user, "ws")[1]


@pytest.fixture
def lossy_fan_out(monkeypatch):
    """``lose(n)``: the next ``n`` recorded events are stored but never reach the channel layer."""
    real_broadcast = events.broadcast
    to_lose = {"count": 0}

    def broadcast(group, message):
        if message.get("type") == "run.event" and to_lose["count"] > 0:
            to_lose["count"] -= 1
            return False
        return real_broadcast(group, message)

    monkeypatch.setattr(events, "broadcast", broadcast)
    return lambda count: to_lose.update(count=count)


def metrics(run_id: int, count: int) -> None:
    for number in range(count):
        record_event(run_id, "metrics", {"vertices": {}, "n": number})


async def receive_seqs(communicator, count: int) -> list[int]:
    return [json.loads(await communicator.receive_from(timeout=10))["seq"] for _ in range(count)]


def test_a_live_event_after_lost_ones_brings_the_lost_ones_first(run_id, token, lossy_fan_out):
    async def scenario():
        communicator = WebsocketCommunicator(application, f"/ws/runs/{run_id}/?after=1", headers=ws_headers(token))
        assert (await communicator.connect(timeout=10))[0]
        lossy_fan_out(3)
        await database_sync_to_async(metrics)(run_id, 5)  # seqs 2..4 lost, 5 and 6 live
        seqs = await receive_seqs(communicator, 5)
        nothing_more = await communicator.receive_nothing(timeout=0.3)
        await communicator.disconnect()
        return seqs, nothing_more

    assert async_to_sync(scenario)() == ([2, 3, 4, 5, 6], True)


def test_lost_last_events_arrive_from_the_watch(run_id, token, lossy_fan_out, monkeypatch):
    monkeypatch.setattr(consumers, "WATCH_INTERVAL_S", 0.2)

    async def scenario():
        communicator = WebsocketCommunicator(application, f"/ws/runs/{run_id}/?after=1", headers=ws_headers(token))
        assert (await communicator.connect(timeout=10))[0]
        lossy_fan_out(2)
        await database_sync_to_async(set_status)(run_id, "SCHEDULING")
        await database_sync_to_async(set_status)(run_id, "FAILED")  # the last events, both lost
        received = [json.loads(await communicator.receive_from(timeout=10)) for _ in range(2)]
        await communicator.disconnect()
        return [(event["seq"], event["data"]["status"]) for event in received]

    assert async_to_sync(scenario)() == [(2, "SCHEDULING"), (3, "FAILED")]


def test_a_socket_whose_group_was_forgotten_joins_again(run_id, token, monkeypatch):
    """A Redis restart forgets group memberships: the watch joins again, and live events flow again."""
    from channels.layers import get_channel_layer

    monkeypatch.setattr(consumers, "WATCH_INTERVAL_S", 0.2)

    async def scenario():
        communicator = WebsocketCommunicator(application, f"/ws/runs/{run_id}/?after=1", headers=ws_headers(token))
        assert (await communicator.connect(timeout=10))[0]
        layer = get_channel_layer()
        connection = layer.connection(layer.consistent_hash(events.run_group(run_id)))
        await connection.delete(layer._group_key(events.run_group(run_id)))  # as a restarted Redis would
        await database_sync_to_async(metrics)(run_id, 3)
        seqs = await receive_seqs(communicator, 3)
        await communicator.disconnect()
        return seqs

    assert async_to_sync(scenario)() == [2, 3, 4]
