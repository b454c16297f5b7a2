"""Savepoints over REST (trigger, poll, list, stop with savepoint, delete) and the driver's side of them."""
import json
import threading
from concurrent.futures import Future
from pathlib import Path

import pytest
import redis
from django.conf import settings

from studio.models import Checkpoint, Pipeline, Run, SavepointRequest
from studio.runs.commands import command_key
from studio.runs.events import record_event, set_status
from tests.support import signed_snapshot, simple_pipeline, wait_until

pytestmark = pytest.mark.django_db


@pytest.fixture
def commands():
    client = redis.Redis.from_url(settings.REDIS_URL)
    yield lambda run_id: [json.loads(item) for item in client.lrange(command_key(Run.objects.get(pk=run_id)), 0, -1)]
    client.close()


@pytest.fixture
def running(api):
    pipeline = api.post("/api/pipelines", {"name": "p", "definition": simple_pipeline()}, format="json").json()
    run = api.post(f"/api/pipelines/{pipeline['id']}/runs", {}, format="json").json()
    redis.Redis.from_url(settings.REDIS_URL).delete(command_key(Run.objects.get(pk=run["id"])))
    set_status(run["id"], "SCHEDULING")
    set_status(run["id"], "RUNNING")
    return run


def savepoint_completed(run_id, checkpoint_id, location, kind="savepoint"):
    record_event(run_id, "checkpoint", {"event": "triggered", "id": checkpoint_id, "kind": kind,
                                        "trigger_timestamp": 5000})
    record_event(run_id, "checkpoint", {"event": "completed", "id": checkpoint_id, "kind": kind,
                                        "end_to_end_duration": 12, "external_path": location})


def test_trigger_answers_a_request_id_at_once_then_the_request_is_polled(api, running, commands, granted_tmp_path):
    response = api.post(f"/api/runs/{running['id']}/savepoints", {"target_directory": str(granted_tmp_path)}, format="json")
    assert response.status_code == 202
    request_id = response.json()["request_id"]
    assert commands(running["id"]) == [{"command": "savepoint", "request_id": request_id,
                                        "target_directory": str(granted_tmp_path)}]
    polled = api.get(f"/api/runs/{running['id']}/savepoints/{request_id}").json()
    assert (polled["status"], polled["location"], polled["kind"]) == ("IN_PROGRESS", None, "savepoint")
    assert polled["target_directory"] == str(granted_tmp_path) and polled["triggered_at"]

    location = str(granted_tmp_path / "savepoint-4-abc")
    savepoint_completed(running["id"], 4, location)
    record_event(running["id"], "savepoint", {"request_id": request_id, "kind": "savepoint", "status": "COMPLETED",
                                              "location": location})
    polled = api.get(f"/api/runs/{running['id']}/savepoints/{request_id}").json()
    checkpoint = Checkpoint.objects.get(run_id=running["id"], checkpoint_id=4)
    assert (polled["status"], polled["location"], polled["checkpoint_id"], polled["checkpoint_pk"]) == (
        "COMPLETED", location, 4, checkpoint.pk)
    assert polled["completed_at"] and polled["failure_cause"] is None
    listed = api.get(f"/api/runs/{running['id']}/savepoints").json()
    assert [r["request_id"] for r in listed] == [request_id]
    assert api.get(f"/api/runs/{running['id']}").json()["savepoint_requests"][0]["status"] == "COMPLETED"
    events = [e for e in api.get(f"/api/runs/{running['id']}/events").json() if e["type"] == "savepoint"]
    assert [e["data"]["status"] for e in events] == ["IN_PROGRESS", "COMPLETED"]


def test_the_request_links_its_checkpoint_whichever_event_comes_first(api, running, granted_tmp_path):
    request_id = api.post(f"/api/runs/{running['id']}/savepoints", {}, format="json").json()["request_id"]
    location = str(granted_tmp_path / "sp")
    record_event(running["id"], "savepoint", {"request_id": request_id, "status": "COMPLETED", "location": location})
    savepoint_completed(running["id"], 2, location)
    assert SavepointRequest.objects.get(request_id=request_id).checkpoint.checkpoint_id == 2


def test_a_failed_savepoint_carries_its_cause(api, running):
    request_id = api.post(f"/api/runs/{running['id']}/savepoints", {}, format="json").json()["request_id"]
    record_event(running["id"], "savepoint", {"request_id": request_id, "status": "FAILED",
                                              "failure_cause": "declined by gen#0: failure: disk full"})
    polled = api.get(f"/api/runs/{running['id']}/savepoints/{request_id}").json()
    assert (polled["status"], polled["failure_cause"], polled["location"]) == (
        "FAILED", "declined by gen#0: failure: disk full", None)


def test_open_requests_fail_when_the_run_ends(api, running):
    request_id = api.post(f"/api/runs/{running['id']}/savepoints", {}, format="json").json()["request_id"]
    set_status(running["id"], "FAILED", cause="driver lost")
    polled = api.get(f"/api/runs/{running['id']}/savepoints/{request_id}").json()
    assert polled["status"] == "FAILED" and "ended (FAILED)" in polled["failure_cause"]


def test_savepoints_need_a_running_streaming_run(api, running, commands):
    assert api.get(f"/api/runs/{running['id']}/savepoints/abc123").status_code == 404
    assert api.post(f"/api/runs/{running['id']}/savepoints", {"target_directory": "http://x/y"},
                    format="json").status_code == 400
    pipeline_id = running["pipeline"]
    created = api.post(f"/api/pipelines/{pipeline_id}/runs", {}, format="json").json()
    conflict = api.post(f"/api/runs/{created['id']}/savepoints", {}, format="json")
    assert conflict.status_code == 409 and "CREATED" in conflict.json()["detail"]
    batch = api.post(f"/api/pipelines/{pipeline_id}/runs", {"mode": "batch"}, format="json").json()
    set_status(batch["id"], "RUNNING")
    assert "batch" in api.post(f"/api/runs/{batch['id']}/savepoints", {}, format="json").json()["detail"]
    set_status(running["id"], "FINISHED")
    assert api.post(f"/api/runs/{running['id']}/savepoints", {}, format="json").status_code == 409
    assert api.post(f"/api/runs/{running['id']}/stop", {"drain": True}, format="json").status_code == 409
    assert commands(running["id"]) == []
    assert api.get("/api/runs/999/savepoints").status_code == 404


def test_stop_with_savepoint_sends_drain_and_is_tracked_as_a_sync_savepoint(api, running, commands, granted_tmp_path):
    response = api.post(f"/api/runs/{running['id']}/stop", {"drain": True}, format="json")
    assert response.status_code == 202
    request_id = response.json()["request_id"]
    assert commands(running["id"]) == [{"command": "stop", "request_id": request_id, "drain": True,
                                        "target_directory": None}]
    again = api.post(f"/api/runs/{running['id']}/stop", {}, format="json")
    assert again.status_code == 409 and "already stopping" in again.json()["detail"]
    location = str(granted_tmp_path / "savepoint-9")
    record_event(running["id"], "savepoint", {"request_id": request_id, "kind": "sync-savepoint",
                                              "status": "COMPLETED", "location": location})
    savepoint_completed(running["id"], 9, location)
    set_status(running["id"], "FINISHED")
    polled = api.get(f"/api/runs/{running['id']}/savepoints/{request_id}").json()
    assert (polled["status"], polled["kind"], polled["drain"], polled["checkpoint_id"]) == (
        "COMPLETED", "sync-savepoint", True, 9)
    row = api.get(f"/api/runs/{running['id']}/checkpoints/9").json()
    assert row["kind"] == "sync-savepoint" and row["is_savepoint"] is True


def test_delete_removes_the_files_unless_a_run_restores_from_it(api, running, other_api, granted_tmp_path):
    location = Path(signed_snapshot(granted_tmp_path / "savepoint-3", Pipeline.objects.get(pk=running["pipeline"]),
                                    checkpoint_id=3, operators=()))
    savepoint_completed(running["id"], 3, str(location))
    savepoint = Checkpoint.objects.get(run_id=running["id"], checkpoint_id=3)
    restored = api.post(f"/api/pipelines/{running['pipeline']}/runs", {"restore_from": {"pk": savepoint.pk}},
                        format="json").json()
    conflict = api.delete(f"/api/savepoints/{savepoint.pk}")
    assert conflict.status_code == 409 and str(restored["id"]) in conflict.json()["detail"]
    assert other_api.delete(f"/api/savepoints/{savepoint.pk}").status_code == 404
    set_status(restored["id"], "CANCELED")
    assert api.delete(f"/api/savepoints/{savepoint.pk}").status_code == 204
    assert not location.exists()
    savepoint.refresh_from_db()
    assert savepoint.discarded
    refused = api.post(f"/api/pipelines/{running['pipeline']}/runs", {"restore_from": {"pk": savepoint.pk}},
                       format="json")
    assert refused.status_code == 409
    checkpoint = Checkpoint.objects.create(run_id=running["id"], checkpoint_id=77, status="COMPLETED",
                                           trigger_timestamp=1)
    assert api.delete(f"/api/savepoints/{checkpoint.pk}").status_code == 404  # a checkpoint, not a savepoint


class FakeJobMaster:
    """Stands in for the run's JobMaster: records calls, hands out futures the test completes."""

    def __init__(self):
        self.calls, self.futures, self.cancelled = [], [], False

    def trigger_savepoint(self, target):
        self.calls.append(("savepoint", target))
        self.futures.append(Future())
        return self.futures[-1]

    def stop_with_savepoint(self, drain, target):
        self.calls.append(("stop", drain, target))
        self.futures.append(Future())
        return self.futures[-1]

    def cancel(self):
        self.cancelled = True


@pytest.mark.django_db(transaction=True)  # outcomes are recorded from the futures' threads
def test_driver_executes_commands_and_reports_each_outcome_once(api, running, granted_tmp_path):
    from studio.runs.driver import SavepointReporter, _execute

    target = str(granted_tmp_path / "sp")

    first = api.post(f"/api/runs/{running['id']}/savepoints", {}, format="json").json()["request_id"]
    second = api.post(f"/api/runs/{running['id']}/stop", {"drain": False, "target_directory": target},
                      format="json").json()["request_id"]
    job_master, reporter = FakeJobMaster(), SavepointReporter(running["id"])
    _execute({"command": "savepoint", "request_id": first, "target_directory": None}, running["id"], job_master,
             reporter)
    _execute({"command": "stop", "request_id": second, "drain": False, "target_directory": target},
             running["id"], job_master, reporter)
    assert job_master.calls == [("savepoint", None), ("stop", False, target)]
    job_master.futures[0].set_exception(RuntimeError("declined by gen#0: failure: boom"))
    job_master.futures[1].set_result(f"{target}/savepoint-5-x")
    reporter.flush(timeout=5)
    reporter.flush(timeout=5)  # nothing twice
    wait_until(lambda: not SavepointRequest.objects.filter(status="IN_PROGRESS").exists(), 10, "both outcomes")
    first_request, second_request = (SavepointRequest.objects.get(request_id=r) for r in (first, second))
    assert (first_request.status, first_request.failure_cause) == ("FAILED", "declined by gen#0: failure: boom")
    assert (second_request.status, second_request.location) == ("COMPLETED", f"{target}/savepoint-5-x")
    outcomes = [e for e in api.get(f"/api/runs/{running['id']}/events").json()
                if e["type"] == "savepoint" and e["data"]["status"] != "IN_PROGRESS"]
    assert len(outcomes) == 2
    _execute({"command": "cancel"}, running["id"], job_master, reporter)
    assert job_master.cancelled


@pytest.mark.django_db(transaction=True)
def test_driver_reports_failure_when_the_engine_refuses_a_savepoint(api, running):
    from studio.runs.driver import SavepointReporter, _execute

    class RefusingJob:
        def trigger_savepoint(self, target=None):
            raise RuntimeError("the job is finishing: no more savepoints")

    request_id = api.post(f"/api/runs/{running['id']}/savepoints", {}, format="json").json()["request_id"]
    reporter = SavepointReporter(running["id"])
    _execute({"command": "savepoint", "request_id": request_id}, running["id"], RefusingJob(), reporter)
    reporter.flush(timeout=5)
    wait_until(lambda: SavepointRequest.objects.get(request_id=request_id).status != "IN_PROGRESS", 10, "the outcome")
    request = SavepointRequest.objects.get(request_id=request_id)
    assert (request.status, request.failure_cause) == ("FAILED", "the job is finishing: no more savepoints")


def test_a_flush_waits_for_an_outcome_a_future_thread_is_recording(monkeypatch):
    """The FINISHED of a stop is published after a flush: a report the future's own thread began
    (request already taken out of the open ones) must be recorded before the flush returns."""
    import studio.runs.events
    from studio.runs.driver import SavepointReporter

    recording, release, recorded = threading.Event(), threading.Event(), []

    def slow_record_event(run_id, event_type, data, driver_token=None):
        recording.set()
        release.wait(10)
        recorded.append(data["status"])

    monkeypatch.setattr(studio.runs.events, "record_event", slow_record_event)
    reporter = SavepointReporter(run_id=1)
    outcome = Future()
    reporter.track("request-1", "sync-savepoint", outcome)
    outcome.set_result("/savepoints/savepoint-3")
    assert recording.wait(10)
    flush = threading.Thread(target=reporter.flush, args=(5,))
    flush.start()
    flush.join(0.3)
    assert flush.is_alive(), "the flush returned while the outcome was still being recorded"
    release.set()
    flush.join(10)
    assert not flush.is_alive() and recorded == ["COMPLETED"]
