"""The walking skeleton end to end: REST → Celery → driver on local Spark → events → REST/WebSocket.

Everything here is the real thing: a Celery worker process, the run's driver process with
its own Spark JVM, the embedded Redis channel layer, and checkpoint files on disk.
"""
import json
from pathlib import Path

import psutil
import pytest
from asgiref.sync import async_to_sync
from channels.testing import WebsocketCommunicator
from rest_framework.test import APIClient

from studio.asgi import application
from studio.models import Checkpoint, Run
from tests.support import simple_pipeline, wait_until

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.spark]

RUN_START_TIMEOUT = 120


def start_run(definition) -> int:
    api = APIClient()
    pipeline = api.post("/api/pipelines", {"name": definition["name"], "definition": definition}, format="json")
    assert pipeline.status_code == 201, pipeline.content
    run = api.post(f"/api/pipelines/{pipeline.json()['id']}/runs", {}, format="json")
    assert run.status_code == 201, run.content
    return run.json()["id"]


def status_of(run_id: int) -> str:
    return Run.objects.get(pk=run_id).status


def statuses(run_id: int) -> list[str]:
    events = APIClient().get(f"/api/runs/{run_id}/events").json()
    return [event["data"]["status"] for event in events if event["type"] == "status"]


def test_streaming_run_checkpoints_on_disk_and_cancels(celery_worker_process):
    run_id = start_run(simple_pipeline(count=None, rate=500, interval_ms=300, name="endless"))
    wait_until(lambda: status_of(run_id) == "RUNNING", RUN_START_TIMEOUT, "the run to be RUNNING")
    completed = wait_until(lambda: Checkpoint.objects.filter(run_id=run_id, status="COMPLETED").first(),
                           60, "a completed checkpoint")
    assert completed.num_acknowledged_subtasks == completed.num_subtasks > 0
    assert (Path(completed.external_path) / "_metadata").is_file()

    body = APIClient().get(f"/api/runs/{run_id}/checkpoints").json()
    assert body["counts"]["completed"] >= 1
    assert any(row["id"] == completed.checkpoint_id and row["status"] == "COMPLETED" for row in body["history"])

    response = APIClient().post(f"/api/runs/{run_id}/cancel")
    assert response.status_code == 202
    wait_until(lambda: status_of(run_id) == "CANCELED", 60, "the run to be CANCELED")
    assert statuses(run_id) == ["CREATED", "SCHEDULING", "RUNNING", "CANCELING", "CANCELED"]
    driver_pid = Run.objects.get(pk=run_id).driver_pid
    wait_until(lambda: not psutil.pid_exists(driver_pid) or psutil.Process(driver_pid).status() == "zombie",
               30, "the driver process to exit")
    assert APIClient().post(f"/api/runs/{run_id}/cancel").status_code == 409


def test_bounded_run_finishes_with_the_collected_records(celery_worker_process):
    run_id = start_run(simple_pipeline(count=40, expression="x * 2", parallelism=2, name="bounded"))
    wait_until(lambda: status_of(run_id) in ("FINISHED", "FAILED"), RUN_START_TIMEOUT, "the run to end")
    run = APIClient().get(f"/api/runs/{run_id}").json()
    assert run["status"] == "FINISHED", run["failure_cause"]
    assert sorted(run["collected"]["out"]) == [2 * x for x in range(40)]


def test_websocket_streams_a_real_runs_checkpoint_events(celery_worker_process):
    run_id = start_run(simple_pipeline(count=None, rate=200, interval_ms=300, name="watched"))
    received = async_to_sync(_receive_until_checkpoint_completed)(run_id)
    seqs = [event["seq"] for event in received]
    assert seqs == sorted(set(seqs)) and seqs[0] == 1  # the stored events first, in order, once
    assert received[0]["type"] == "status" and received[0]["data"]["status"] == "CREATED"
    completed = received[-1]
    assert completed["type"] == "checkpoint" and completed["data"]["event"] == "completed"

    # A reconnecting client gets exactly what came after the seq it saw.
    replayed = async_to_sync(_receive_events)(run_id, after=seqs[1], count=len(seqs) - 2)
    assert [event["seq"] for event in replayed] == seqs[2:]
    assert APIClient().post(f"/api/runs/{run_id}/cancel").status_code == 202
    wait_until(lambda: status_of(run_id) == "CANCELED", 60, "the run to be CANCELED")


async def _connect(run_id: int, after: int = 0) -> WebsocketCommunicator:
    communicator = WebsocketCommunicator(application, f"/ws/runs/{run_id}/?after={after}",
                                         headers=[(b"origin", b"http://127.0.0.1")])
    connected, _ = await communicator.connect(timeout=10)
    assert connected
    return communicator


async def _receive_until_checkpoint_completed(run_id: int) -> list[dict]:
    communicator = await _connect(run_id)
    received = []
    try:
        while True:
            event = json.loads(await communicator.receive_from(timeout=RUN_START_TIMEOUT))
            received.append(event)
            if event["type"] == "checkpoint" and event["data"].get("event") == "completed":
                return received
    finally:
        await communicator.disconnect()


async def _receive_events(run_id: int, after: int, count: int) -> list[dict]:
    communicator = await _connect(run_id, after=after)
    try:
        return [json.loads(await communicator.receive_from(timeout=10)) for _ in range(count)]
    finally:
        await communicator.disconnect()
