"""A live tap end to end: REST → the run's driver on local Spark samples the edge → Redis → WebSocket."""
import asyncio
import json

import pytest
from channels.testing import WebsocketCommunicator

from studio.asgi import application
from studio.models import Run
from studio.taps.models import Tap
from tests.studio.test_live_run import RUN_START_TIMEOUT, start_run, status_of
from tests.support import simple_pipeline, wait_until, ws_headers

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.spark]


def test_a_tap_shows_the_records_of_a_running_edge_until_its_socket_closes(celery_worker_process, api):
    definition = simple_pipeline(count=None, rate=500, interval_ms=1000, name="tapped")
    run_id = start_run(api, definition)
    wait_until(lambda: status_of(run_id) == "RUNNING", RUN_START_TIMEOUT, "the run to be RUNNING")
    tap = api.post(f"/api/runs/{run_id}/taps", {"edge": "e1", "records_per_second": 5}, format="json").json()

    async def follow() -> list:
        socket = WebsocketCommunicator(application, tap["websocket"], headers=ws_headers(api.token_key))
        assert (await socket.connect(timeout=10))[0]
        assert json.loads(await socket.receive_from(timeout=10))["type"] == "opened"
        samples = []
        while sum(len(sample["records"]) for sample in samples) < 10:
            samples.append(json.loads(await socket.receive_from(timeout=60)))
        await socket.disconnect()
        return samples

    samples = asyncio.run(follow())
    assert {sample["type"] for sample in samples} == {"records"} and {s["task"] for s in samples} == {"gen#0"}
    values = [json.loads(text) for sample in samples for text, cut in sample["records"]]
    assert all(isinstance(value, int) and value >= 0 for value in values)  # e1 leaves gen: raw numbers
    assert all(len(sample["records"]) <= 5 for sample in samples)
    assert Tap.objects.get(tap_id=tap["tap_id"]).state == "closed"
    api.post(f"/api/runs/{run_id}/cancel")
    wait_until(lambda: Run.objects.get(pk=run_id).is_terminal, 60, "the run to end")
