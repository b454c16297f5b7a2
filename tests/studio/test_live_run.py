"""The studio end to end: REST → Celery → driver on local Spark → events → REST/WebSocket.

Everything here is the real thing: a Celery worker process, the run's driver process with
its own Spark JVM, the embedded Redis channel layer, and checkpoint files on disk.
"""
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import psutil
import pytest
from asgiref.sync import async_to_sync
from channels.testing import WebsocketCommunicator

from studio.asgi import application
from studio.models import Checkpoint, PipelineVersion, Run
from tests.conftest import ROOT, stop_process_tree
from tests.support import simple_pipeline, wait_until, ws_headers

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.spark]

RUN_START_TIMEOUT = 240  # bounds a hang; Spark starts slowly on a loaded 2-core machine


def create_pipeline(api, definition) -> int:
    response = api.post("/api/pipelines", {"name": definition["name"], "definition": definition}, format="json")
    assert response.status_code == 201, response.content
    return response.json()["id"]


def start_run(api, definition, **body) -> int:
    pipeline_id = create_pipeline(api, definition)
    run = api.post(f"/api/pipelines/{pipeline_id}/runs", body, format="json")
    assert run.status_code == 201, run.content
    return run.json()["id"]


def status_of(run_id: int) -> str:
    return Run.objects.get(pk=run_id).status


def statuses(api, run_id: int) -> list[str]:
    return [change["status"] for change in api.get(f"/api/runs/{run_id}").json()["status_history"]]


def wait_for_driver_exit(run_id: int) -> None:
    pid = Run.objects.get(pk=run_id).driver_pid
    wait_until(lambda: not psutil.pid_exists(pid) or psutil.Process(pid).status() == "zombie", 30,
               "the driver process to exit")


def test_streaming_run_checkpoints_on_disk_and_cancels(celery_worker_process, api):
    run_id = start_run(api, simple_pipeline(count=None, rate=500, interval_ms=300, name="endless"))
    wait_until(lambda: status_of(run_id) == "RUNNING", RUN_START_TIMEOUT, "the run to be RUNNING")
    completed = wait_until(lambda: Checkpoint.objects.filter(run_id=run_id, status="COMPLETED").first(),
                           60, "a completed checkpoint")
    assert completed.num_acknowledged_subtasks == completed.num_subtasks > 0
    assert (Path(completed.external_path) / "_metadata").is_file()

    body = api.get(f"/api/runs/{run_id}/checkpoints").json()
    assert body["counts"]["completed"] >= 1 and body["summary"]["end_to_end_duration"]["max"] is not None
    assert any(row["id"] == completed.checkpoint_id and row["status"] == "COMPLETED" for row in body["history"])
    details = api.get(f"/api/runs/{run_id}/checkpoints/{completed.checkpoint_id}").json()
    assert details["vertices"] and all(s["status"] != "pending" for v in details["vertices"] for s in v["subtasks"])
    metrics = wait_until(lambda: (lambda m: m if len(m["samples"]) >= 2 else None)(
        api.get(f"/api/runs/{run_id}/metrics").json()), 30, "two metrics samples")
    vertex = next(iter(metrics["vertices"].values()))  # gen -> double -> out, chained: no records cross it
    assert vertex["operators"] == ["gen", "double", "out"] and vertex["parallelism"] == 1
    assert vertex["records_out_per_second"] is not None  # a rate from the last two samples
    assert all(0 <= vertex[ratio] <= 1 for ratio in ("busy_ratio", "idle_ratio", "backpressured_ratio"))
    node = wait_until(lambda: api.get(f"/api/runs/{run_id}/metrics").json()["nodes"]["double"]["subtasks"][0]
                      ["checkpoint"], 30, "a node's subtask with its part of a completed checkpoint")
    assert node["id"] >= completed.checkpoint_id and node["state_size"] is not None

    response = api.post(f"/api/runs/{run_id}/cancel")
    assert response.status_code == 202
    wait_until(lambda: status_of(run_id) == "CANCELED", 60, "the run to be CANCELED")
    assert statuses(api, run_id) == ["CREATED", "SCHEDULING", "RUNNING", "CANCELING", "CANCELED"]
    wait_for_driver_exit(run_id)
    assert api.post(f"/api/runs/{run_id}/cancel").status_code == 409


def test_bounded_run_finishes_with_the_collected_records(celery_worker_process, api):
    run_id = start_run(api, simple_pipeline(count=40, expression="x * 2", parallelism=2, name="bounded"))
    wait_until(lambda: status_of(run_id) in ("FINISHED", "FAILED"), RUN_START_TIMEOUT, "the run to end")
    run = api.get(f"/api/runs/{run_id}").json()
    assert run["status"] == "FINISHED", run["failure_cause"]
    assert sorted(run["collected"]["out"]) == [2 * x for x in range(40)]
    nodes = api.get(f"/api/runs/{run_id}/metrics").json()["nodes"]  # the subtasks' final reports
    assert {node: (figures["records_in"], figures["records_out"]) for node, figures in nodes.items()} == {
        "gen": (40, 40), "double": (40, 40), "out": (40, 0)}
    assert [len(figures["subtasks"]) for figures in nodes.values()] == [2, 2, 2]


def test_websocket_streams_a_real_runs_checkpoint_events(celery_worker_process, api):
    run_id = start_run(api, simple_pipeline(count=None, rate=200, interval_ms=300, name="watched"))
    received = async_to_sync(_receive_until_checkpoint_completed)(run_id, api.token_key)
    seqs = [event["seq"] for event in received]
    assert seqs == sorted(set(seqs)) and seqs[0] == 1  # the stored events first, in order, once
    assert received[0]["type"] == "status" and received[0]["data"]["status"] == "CREATED"
    completed = received[-1]
    assert completed["type"] == "checkpoint" and completed["data"]["event"] == "completed"
    assert completed["data"]["subtasks"] and "alignment_duration" in completed["data"]["subtasks"][0]

    # A reconnecting client gets exactly what came after the seq it saw.
    replayed = async_to_sync(_receive_events)(run_id, api.token_key, after=seqs[1], count=len(seqs) - 2)
    assert [event["seq"] for event in replayed] == seqs[2:]
    assert api.post(f"/api/runs/{run_id}/cancel").status_code == 202
    wait_until(lambda: status_of(run_id) == "CANCELED", 60, "the run to be CANCELED")


def committed_records(directory: Path) -> list:
    """What an exactly-once file sink made visible: the committed part files only."""
    return [json.loads(line) for path in sorted(directory.glob("part-*.jsonl")) for line in path.read_text().splitlines()]


def test_rest_only_savepoint_stop_and_restore_continues_exactly_once(celery_worker_process, api, granted_tmp_path):
    """create → run → 3 checkpoints → savepoint → COMPLETED → stop with savepoint → new run from it."""
    output = granted_tmp_path / "out"
    definition = {
        "format": 1, "name": "exactly-once", "parallelism": 2, "checkpointing": {"interval_ms": 300},
        "nodes": [{"id": "gen", "type": "source.datagen", "params": {"count": None, "rate": 400}},
                  {"id": "double", "type": "transform.map", "params": {"expression": "x * 2"}},
                  {"id": "files", "type": "sink.file", "params": {"path": str(output)}}],
        "edges": [{"id": "e1", "from": "gen", "to": "double"}, {"id": "e2", "from": "double", "to": "files"}]}
    pipeline_id = create_pipeline(api, definition)
    first = api.post(f"/api/pipelines/{pipeline_id}/runs", {}, format="json").json()["id"]
    wait_until(lambda: api.get(f"/api/runs/{first}/checkpoints").json()["counts"]["completed"] >= 3,
               RUN_START_TIMEOUT, "three completed checkpoints")

    triggered = api.post(f"/api/runs/{first}/savepoints", {"target_directory": str(granted_tmp_path / "savepoints")},
                         format="json")
    assert triggered.status_code == 202
    request_id = triggered.json()["request_id"]
    savepoint = wait_until(lambda: _settled(api, first, request_id), 60, "the savepoint to complete")
    assert savepoint["status"] == "COMPLETED", savepoint["failure_cause"]
    assert savepoint["location"].startswith(str(granted_tmp_path / "savepoints"))
    assert (Path(savepoint["location"]) / "_metadata").is_file()

    stop = api.post(f"/api/runs/{first}/stop", {"drain": False}, format="json")
    assert stop.status_code == 202
    stopped = wait_until(lambda: _settled(api, first, stop.json()["request_id"]), 60, "stop with savepoint")
    assert stopped["status"] == "COMPLETED" and stopped["kind"] == "sync-savepoint", stopped["failure_cause"]
    wait_until(lambda: status_of(first) == "FINISHED", 60, "the first run to finish after its savepoint")
    before = committed_records(output)
    assert before
    assert_each_number_once_and_no_gaps(before, parallelism=2)

    second = api.post(f"/api/pipelines/{pipeline_id}/runs", {"restore_from": {"pk": stopped["checkpoint_pk"]}},
                      format="json")
    assert second.status_code == 201, second.content
    second_id = second.json()["id"]
    assert second.json()["restored_from"]["path"] == stopped["location"]
    wait_until(lambda: api.get(f"/api/runs/{second_id}/checkpoints").json()["counts"]["completed"] >= 2,
               RUN_START_TIMEOUT, "the restored run's checkpoints")
    assert api.get(f"/api/runs/{second_id}/checkpoints").json()["counts"]["restored"] == 1
    assert api.post(f"/api/runs/{second_id}/cancel").status_code == 202
    wait_until(lambda: status_of(second_id) == "CANCELED", 60, "the second run to be CANCELED")
    after = committed_records(output)
    assert len(after) > len(before) and set(before) <= set(after)
    assert_each_number_once_and_no_gaps(after, parallelism=2)  # it went on where the savepoint was, once each


def assert_each_number_once_and_no_gaps(records: list, parallelism: int) -> None:
    """Subtask i of the source emits i, i + p, i + 2p ...: each subtask's numbers arrived as a prefix, once."""
    numbers = [record // 2 for record in records]
    assert len(numbers) == len(set(numbers)), "a record was written twice"
    for index in range(parallelism):
        mine = sorted(number for number in numbers if number % parallelism == index)
        assert mine == list(range(index, index + parallelism * len(mine), parallelism)), f"a gap in subtask {index}"


def _settled(api, run_id, request_id):
    request = api.get(f"/api/runs/{run_id}/savepoints/{request_id}").json()
    return request if request["status"] != "IN_PROGRESS" else None


def test_a_worker_restart_leaves_no_run_stuck_in_running(api, user, studio_data_dir):
    """Kill a worker and its driver mid-run (a crashed machine); the next worker marks the run lost."""
    from django.db import connection

    from studio.runs.tasks import launch_run

    env = {**os.environ, "DATABASE_URL": f"sqlite:///{connection.settings_dict['NAME']}", "PYTHONPATH": str(ROOT),
           "STUDIO_DATA_DIR": str(studio_data_dir), "STUDIO_HEARTBEAT_TIMEOUT": "6",
           "STUDIO_HEARTBEAT_CHECK_INTERVAL": "1"}
    command = [sys.executable, "-m", "celery", "-A", "studio", "worker", "--pool", "threads", "--concurrency", "2",
               "-Q", "worker-restart-test", "--loglevel", "WARNING", "--without-gossip", "--without-mingle",
               "--without-heartbeat"]
    pipeline_id = create_pipeline(api, simple_pipeline(count=None, rate=100, name="orphaned"))
    run_id = Run.objects.create(pipeline_id=pipeline_id, created_by=user,  # its launch checks its owner may run it
                                version=PipelineVersion.objects.get(pipeline_id=pipeline_id)).id
    first_worker = subprocess.Popen(command, cwd=ROOT, env=env)
    try:
        launch_run.apply_async((run_id,), queue="worker-restart-test")
        wait_until(lambda: status_of(run_id) == "RUNNING", RUN_START_TIMEOUT, "the run to be RUNNING")
        for process in [psutil.Process(first_worker.pid), *psutil.Process(first_worker.pid).children(recursive=True)]:
            process.send_signal(signal.SIGKILL)
        first_worker.wait(10)
        assert status_of(run_id) == "RUNNING"  # nobody is left to say otherwise, yet
    finally:
        stop_process_tree(first_worker.pid)
    second_worker = subprocess.Popen(command, cwd=ROOT, env=env)
    try:
        wait_until(lambda: status_of(run_id) == "FAILED", 60, "the new worker to mark the run lost")
        run = api.get(f"/api/runs/{run_id}").json()
        assert run["failure_cause"] == "driver lost" and run["status_history"][-1]["status"] == "FAILED"
        assert api.post(f"/api/runs/{run_id}/cancel").status_code == 409
    finally:
        stop_process_tree(second_worker.pid)


async def _connect(run_id: int, token: str, after: int = 0) -> WebsocketCommunicator:
    communicator = WebsocketCommunicator(application, f"/ws/runs/{run_id}/?after={after}", headers=ws_headers(token))
    connected, _ = await communicator.connect(timeout=10)
    assert connected
    return communicator


async def _receive_until_checkpoint_completed(run_id: int, token: str) -> list[dict]:
    communicator = await _connect(run_id, token)
    received = []
    try:
        while True:
            event = json.loads(await communicator.receive_from(timeout=RUN_START_TIMEOUT))
            received.append(event)
            if event["type"] == "checkpoint" and event["data"].get("event") == "completed":
                return received
    finally:
        await communicator.disconnect()


async def _receive_events(run_id: int, token: str, after: int, count: int) -> list[dict]:
    communicator = await _connect(run_id, token, after=after)
    try:
        return [json.loads(await communicator.receive_from(timeout=10)) for _ in range(count)]
    finally:
        await communicator.disconnect()
