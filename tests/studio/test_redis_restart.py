"""Redis restarts mid-run: no stored event is lost, clients catch up from the database, live events resume.

The run's driver (real, on local Spark) and this test's WebSocket consumers use a Redis
server of their own, on its own port, which the test stops and starts again; the rest of
the suite keeps its Redis.
"""
import json
import os
import subprocess
import sys

import pytest
from asgiref.sync import async_to_sync
from channels.testing import WebsocketCommunicator

from studio.asgi import application
from studio.models import Checkpoint, Run, RunEvent
from tests.conftest import ROOT, stop_process_tree
from tests.support import simple_pipeline, wait_until, ws_headers

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.spark]


def completed_checkpoints(run_id: int) -> int:
    return Checkpoint.objects.filter(run_id=run_id, status="COMPLETED").count()


def test_a_redis_restart_mid_run_loses_no_stored_event(redis_server, api, monkeypatch, studio_data_dir):
    from django.db import connection

    from studio.runs.tasks import launch_run

    monkeypatch.setattr(launch_run, "delay", lambda run_id: None)  # this test starts the driver itself
    pipeline = api.post("/api/pipelines", {"name": "through-a-restart", "definition": simple_pipeline(
        count=None, rate=200, interval_ms=300)}, format="json").json()
    run_id = api.post(f"/api/pipelines/{pipeline['id']}/runs", {}, format="json").json()["id"]
    env = {**os.environ, "REDIS_URL": redis_server.url, "PYTHONPATH": str(ROOT), "STUDIO_DATA_DIR": str(studio_data_dir),
           "DATABASE_URL": f"sqlite:///{connection.settings_dict['NAME']}"}
    log = open(studio_data_dir / f"redis-restart-driver-{run_id}.log", "wb")
    driver = subprocess.Popen([sys.executable, "-m", "studio.runs.driver", str(run_id)], cwd=ROOT, env=env, stdout=log,
                              stderr=subprocess.STDOUT)
    try:
        before = async_to_sync(receive_until_checkpoints)(run_id, api.token_key, 0, 1)
        assert before[0]["seq"] == 1

        redis_server.stop()
        stored_while_down = completed_checkpoints(run_id) + 2
        wait_until(lambda: completed_checkpoints(run_id) >= stored_while_down, 60,
                   "checkpoints to complete while Redis is down")
        redis_server.start()

        # reconnect after the last event seen: everything missed comes from the database, then live ones
        missed_until = RunEvent.objects.filter(run_id=run_id).order_by("-seq").first().seq
        after = async_to_sync(receive_until_checkpoints)(run_id, api.token_key, before[-1]["seq"], 1,
                                                         live_after=missed_until)
        seqs = [event["seq"] for event in before + after]
        assert seqs == list(range(1, len(seqs) + 1))  # nothing lost, nothing twice
        stored = {event.seq: event for event in RunEvent.objects.filter(run_id=run_id, seq__lte=seqs[-1])}
        assert [(e["seq"], e["type"], e["data"]) for e in before + after] == [
            (seq, stored[seq].type, stored[seq].data) for seq in seqs]
        assert any(e["type"] == "checkpoint" and e["data"]["event"] == "completed" and e["seq"] > missed_until
                   for e in after)  # the driver fans out again after the restart

        assert api.post(f"/api/runs/{run_id}/cancel").status_code == 202  # commands flow again too
        wait_until(lambda: Run.objects.get(pk=run_id).status == "CANCELED", 60, "the run to be CANCELED")
        driver.wait(60)
    finally:
        stop_process_tree(driver.pid)
        log.close()


async def receive_until_checkpoints(run_id: int, token: str, after: int, count: int, live_after: int = 0) -> list:
    """Events after ``after`` until ``count`` completed checkpoints with a seq above ``live_after`` arrived."""
    communicator = WebsocketCommunicator(application, f"/ws/runs/{run_id}/?after={after}", headers=ws_headers(token))
    connected, _ = await communicator.connect(timeout=10)
    assert connected
    received, completed = [], 0
    try:
        while completed < count:
            event = json.loads(await communicator.receive_from(timeout=120))
            received.append(event)
            if event["type"] == "checkpoint" and event["data"]["event"] == "completed" and event["seq"] > live_after:
                completed += 1
    finally:
        await communicator.disconnect()
    return received
