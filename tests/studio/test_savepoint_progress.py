"""Savepoint progress: acknowledged / total subtasks of a savepoint request, over REST and live on the run's
WebSocket, as the coordinator's acknowledgements arrive."""
import asyncio
import json

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.utils import timezone

from studio.asgi import application
from studio.models import Pipeline, PipelineVersion, Run
from studio.runs.events import record_event, set_status
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


def engine_reports(run, checkpoint_id, event, acknowledged, kind="savepoint", **extra):
    # the driver this test plays beats as a real one does: on a loaded machine the session's Celery
    # worker would otherwise declare it lost (no sign of life for 15 s) in the middle of the test
    Run.objects.filter(pk=run.id).update(heartbeat_at=timezone.now())
    record_event(run.id, "checkpoint", {"event": event, "id": checkpoint_id, "kind": kind, "trigger_timestamp": 7,
                                        "num_subtasks": 3, "num_acknowledged_subtasks": acknowledged, **extra})


def progress_events(api, run) -> list[tuple]:
    return [(e["data"]["request_id"], e["data"]["acknowledged"], e["data"]["total"])
            for e in api.get(f"/api/runs/{run.id}/events").json()
            if e["type"] == "savepoint_progress"]


def test_progress_counts_acknowledged_subtasks_of_the_request(api, other_api, run):
    request_id = api.post(f"/api/runs/{run.id}/savepoints", {}, format="json").json()["request_id"]
    polled = api.get(f"/api/runs/{run.id}/savepoints/{request_id}").json()
    assert (polled["acknowledged_subtasks"], polled["total_subtasks"]) == (None, None)  # not triggered yet

    engine_reports(run, 1, "triggered", 0, kind="checkpoint")  # a periodic checkpoint is no savepoint's
    engine_reports(run, 2, "triggered", 0)
    engine_reports(run, 2, "acknowledged", 1)
    engine_reports(run, 2, "acknowledged", 2)
    polled = api.get(f"/api/runs/{run.id}/savepoints/{request_id}").json()
    assert (polled["checkpoint_id"], polled["acknowledged_subtasks"], polled["total_subtasks"]) == (2, 2, 3)
    assert progress_events(api, run) == [(request_id, 0, 3), (request_id, 1, 3), (request_id, 2, 3)]

    engine_reports(run, 2, "completed", 3, external_path="/tmp/sp-2")
    record_event(run.id, "savepoint", {"request_id": request_id, "status": "COMPLETED", "location": "/tmp/sp-2"})
    engine_reports(run, 2, "acknowledged", 3)  # late: the request is done, no more progress
    assert len(progress_events(api, run)) == 3
    assert api.get(f"/api/runs/{run.id}/savepoints/{request_id}").json()["acknowledged_subtasks"] == 3
    assert other_api.get(f"/api/runs/{run.id}/savepoints/{request_id}").status_code == 404


def test_two_savepoints_in_flight_are_matched_in_the_order_they_were_asked_for(api, run):
    first = api.post(f"/api/runs/{run.id}/savepoints", {}, format="json").json()["request_id"]
    stop = api.post(f"/api/runs/{run.id}/stop", {"drain": False}, format="json").json()["request_id"]
    second = api.post(f"/api/runs/{run.id}/savepoints", {}, format="json").json()["request_id"]
    engine_reports(run, 5, "triggered", 0)
    engine_reports(run, 6, "triggered", 0, synchronous=True)
    engine_reports(run, 7, "triggered", 0)
    assert [(request, total) for request, _, total in progress_events(api, run)] == [(first, 3), (stop, 3), (second, 3)]
    assert api.get(f"/api/runs/{run.id}/savepoints/{stop}").json()["checkpoint_id"] == 6


def test_progress_arrives_live_on_the_runs_socket_and_not_for_another_user(api, other_api, run):
    request_id = api.post(f"/api/runs/{run.id}/savepoints", {}, format="json").json()["request_id"]
    last_seq = api.get(f"/api/runs/{run.id}/events").json()[-1]["seq"]

    async def scenario():
        socket = WebsocketCommunicator(application, f"/ws/runs/{run.id}/?after={last_seq}",
                                       headers=ws_headers(api.token_key))
        assert (await socket.connect(timeout=10))[0]
        await database_sync_to_async(engine_reports)(run, 3, "triggered", 0)
        await database_sync_to_async(engine_reports)(run, 3, "acknowledged", 1)
        seen = []
        while len(seen) < 2:
            event = json.loads(await socket.receive_from(timeout=10))
            if event["type"] == "savepoint_progress":
                seen.append((event["data"]["request_id"], event["data"]["acknowledged"], event["data"]["total"]))
        assert seen == [(request_id, 0, 3), (request_id, 1, 3)]
        await socket.disconnect()
        denied = WebsocketCommunicator(application, f"/ws/runs/{run.id}/", headers=ws_headers(other_api.token_key))
        assert await denied.connect(timeout=10) == (False, 4404)

    asyncio.run(scenario())
