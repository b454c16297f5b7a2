"""Rescale in one click, driven by the run's events: stop with savepoint, new run from it, rollback."""
from pathlib import Path

import pytest

from studio.models import PipelineVersion, Rescale, Run, SavepointRequest
from studio.runs.events import record_event, set_status
from tests.support import signed_snapshot, simple_pipeline

pytestmark = pytest.mark.django_db(transaction=True)  # the rescale follows events after their commit


@pytest.fixture(autouse=True)
def _no_launches(monkeypatch):
    """These tests play the drivers themselves: a live worker launching the runs would race them."""
    from studio.runs.tasks import launch_run

    monkeypatch.setattr(launch_run, "delay", lambda run_id: None)


@pytest.fixture
def run(api):
    pipeline = api.post("/api/pipelines", {"name": "p", "definition": simple_pipeline(parallelism=2, count=None)},
                        format="json").json()
    run = api.post(f"/api/pipelines/{pipeline['id']}/runs", {}, format="json").json()
    set_status(run["id"], "RUNNING")
    return run


def savepoint_completes(run_id: int, tmp_path) -> str:
    """What the driver reports when the stop's savepoint completed and the run ended."""
    request = SavepointRequest.objects.get(run_id=run_id, kind="sync-savepoint")
    location = Path(signed_snapshot(tmp_path / "sp-1", Run.objects.get(pk=run_id).pipeline, checkpoint_id=1,
                                    operators=()))
    record_event(run_id, "checkpoint", {"event": "triggered", "id": 1, "kind": "savepoint", "synchronous": True,
                                        "trigger_timestamp": 1000, "num_subtasks": 1})
    record_event(run_id, "checkpoint", {"event": "completed", "id": 1, "kind": "savepoint", "synchronous": True,
                                        "trigger_timestamp": 1000, "external_path": str(location),
                                        "num_subtasks": 1, "num_acknowledged_subtasks": 1})
    record_event(run_id, "savepoint", {"request_id": request.request_id, "status": "COMPLETED",
                                       "location": str(location)})
    set_status(run_id, "FINISHED")
    return str(location)


def test_rescale_stops_with_a_savepoint_then_starts_the_rescaled_version_from_it(api, run, tmp_path, settings):
    response = api.post(f"/api/runs/{run['id']}/rescale", {"parallelism": 3}, format="json")
    assert response.status_code == 202, response.content
    body = response.json()
    assert body["status"] == "STOPPING" and body["parallelism"] == 3 and body["savepoint_request_id"]
    new_version = PipelineVersion.objects.get(pipeline_id=run["pipeline"], number=body["to_version"])
    assert new_version.definition["parallelism"] == 3 and new_version.message == "rescale: parallelism 2 -> 3"
    assert api.post(f"/api/runs/{run['id']}/rescale", {"parallelism": 4}, format="json").status_code == 409

    location = savepoint_completes(run["id"], tmp_path)
    rescale = Rescale.objects.get(pk=body["id"])
    assert rescale.status == "STARTING" and rescale.new_run is not None, rescale.message
    assert rescale.new_run.version_id == new_version.id and rescale.new_run.restore_path == location
    set_status(rescale.new_run_id, "RUNNING")
    assert Rescale.objects.get(pk=body["id"]).status == "COMPLETED"
    events = [e["data"]["status"] for e in api.get(f"/api/runs/{run['id']}/events").json() if e["type"] == "rescale"]
    assert events == ["STOPPING", "STARTING", "COMPLETED"]
    assert api.get(f"/api/runs/{run['id']}/rescales").json()[0]["new_run"] == rescale.new_run_id


def test_a_failing_rescaled_run_rolls_back_to_the_old_parallelism_from_the_same_savepoint(api, run, tmp_path):
    body = api.post(f"/api/runs/{run['id']}/rescale", {"nodes": {"gen": 4, "double": 4, "out": 4}},
                    format="json").json()
    location = savepoint_completes(run["id"], tmp_path)
    new_run = Rescale.objects.get(pk=body["id"]).new_run
    assert PipelineVersion.objects.get(pk=new_run.version_id).definition["nodes"][1]["parallelism"] == 4
    set_status(new_run.id, "FAILED", cause="no slots")
    rescale = Rescale.objects.get(pk=body["id"])
    assert rescale.status == "ROLLED_BACK" and "no slots" in rescale.message
    rollback = rescale.rollback_run
    assert rollback.version_id == Run.objects.get(pk=run["id"]).version_id and rollback.restore_path == location


def test_a_failed_savepoint_leaves_the_run_going_and_bad_requests_name_the_problem(api, run):
    assert api.post(f"/api/runs/{run['id']}/rescale", {}, format="json").status_code == 400
    unknown = api.post(f"/api/runs/{run['id']}/rescale", {"nodes": {"nope": 2}}, format="json")
    assert unknown.status_code == 400 and "nope" in unknown.content.decode()
    assert api.post(f"/api/runs/{run['id']}/rescale", {"parallelism": 0}, format="json").status_code == 400
    forward = api.post(f"/api/runs/{run['id']}/rescale", {"nodes": {"double": 4}}, format="json")
    assert forward.status_code == 400 and '"e1"' in forward.content.decode()  # a forward edge needs equal parallelism
    body = api.post(f"/api/runs/{run['id']}/rescale", {"parallelism": 3}, format="json").json()
    request = SavepointRequest.objects.get(run_id=run["id"], kind="sync-savepoint")
    record_event(run["id"], "savepoint", {"request_id": request.request_id, "status": "FAILED",
                                          "failure_cause": "declined"})
    rescale = Rescale.objects.get(pk=body["id"])
    assert rescale.status == "FAILED" and "old parallelism" in rescale.message and rescale.new_run is None
