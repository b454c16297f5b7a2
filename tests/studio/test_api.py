"""REST: operators, pipelines with versions, validation errors as data, runs and cancel."""
import re

import pytest
import redis
from django.conf import settings

from studio.models import Run, RunStatus
from studio.runs.commands import command_key
from studio.runs.events import set_status
from tests.support import simple_pipeline

pytestmark = pytest.mark.django_db


def create_pipeline(api, definition=None, name="doubler"):
    response = api.post("/api/pipelines", {"name": name, "definition": definition or simple_pipeline()},
                        format="json")
    assert response.status_code == 201, response.content
    return response.json()


def test_operator_catalog_lists_the_skeleton_operators_with_schemas(api):
    operators = {op["type"]: op for op in api.get("/api/operators").json()}
    assert {"source.datagen", "transform.map", "sink.collect"} <= operators.keys()
    datagen = operators["source.datagen"]["params_schema"]["properties"]
    assert {"count", "rate"} <= datagen.keys()
    assert operators["transform.map"]["params_schema"]["properties"]["expression"]["format"] == "expression"


def test_create_retrieve_and_update_make_versions(api):
    created = create_pipeline(api)
    assert created["version"] == 1 and created["definition"]["nodes"][0]["id"] == "gen"
    changed = simple_pipeline(expression="x + 1")
    response = api.put(f"/api/pipelines/{created['id']}", {"definition": changed, "message": "add one"},
                       format="json")
    assert response.status_code == 200
    assert response.json()["version"] == 2
    fetched = api.get(f"/api/pipelines/{created['id']}").json()
    assert fetched["definition"]["nodes"][1]["params"]["expression"] == "x + 1"
    assert fetched["owner"] == "alice" and fetched["permissions"] == ["view", "edit", "run", "own"]
    assert [p["id"] for p in api.get("/api/pipelines").json()] == [created["id"]]


@pytest.mark.parametrize("break_it, expected", [
    (lambda d: d["nodes"][1].update(type="transform.nope"), {"node": "double", "edge": None, "field": "type"}),
    (lambda d: d["edges"].append({"id": "e9", "from": "double", "to": "ghost"}),
     {"node": None, "edge": "e9", "field": "to"}),
    (lambda d: d["nodes"][0]["params"].update(count="ten"), {"node": "gen", "edge": None, "field": "params.count"}),
])
def test_bad_pipeline_is_rejected_with_400_naming_the_problem(api, break_it, expected):
    definition = simple_pipeline()
    break_it(definition)
    response = api.post("/api/pipelines", {"name": "bad", "definition": definition}, format="json")
    assert response.status_code == 400
    errors = response.json()["errors"]
    assert [{k: e[k] for k in ("node", "edge", "field")} for e in errors] == [expected]


def test_cycle_is_rejected_with_one_error_per_cycle_edge(api):
    definition = simple_pipeline()
    definition["nodes"].insert(1, {"id": "merge", "type": "transform.union", "params": {}})
    definition["edges"] = [
        {"id": "a", "from": "gen", "to": "merge"}, {"id": "b", "from": "merge", "to": "double"},
        {"id": "c", "from": "double", "to": "merge"}, {"id": "d", "from": "double", "to": "out"},
    ]
    response = api.post("/api/pipelines", {"name": "cyclic", "definition": definition}, format="json")
    assert response.status_code == 400
    assert sorted(e["edge"] for e in response.json()["errors"]) == ["b", "c"]


def test_validate_returns_all_errors_without_saving(api):
    definition = simple_pipeline(expression="x.__class__")
    definition["nodes"][0]["params"]["rate"] = -5
    body = api.post("/api/pipelines/validate", {"definition": definition}, format="json").json()
    assert body["valid"] is False
    assert {(e["node"], e["field"]) for e in body["errors"]} == {("double", "params.expression"),
                                                                  ("gen", "params.rate")}
    assert api.get("/api/pipelines").json() == []


def test_malformed_request_bodies_are_4xx_not_500(api):
    assert api.post("/api/pipelines", "not json", content_type="application/json").status_code == 400
    assert api.post("/api/pipelines", {"name": "x"}, format="json").status_code == 400
    assert api.post("/api/pipelines", {"definition": [1]}, format="json").status_code == 400
    missing_field = api.post("/api/pipelines", {"name": "x"}, format="json").json()
    assert "definition" in missing_field["detail"] and "definition" in missing_field["fields"]
    for path in ("/api/pipelines/999", "/api/runs/999/checkpoints", "/api/nothing/here", "/api/runs/abc"):
        response = api.get(path)
        assert response.status_code == 404 and response["content-type"] == "application/json", path
        assert response.json()["detail"]


def test_start_run_creates_a_run_with_a_created_event(api, django_capture_on_commit_callbacks, monkeypatch):
    from studio.runs.tasks import launch_run

    launched = []
    monkeypatch.setattr(launch_run, "delay", launched.append)
    pipeline = create_pipeline(api)
    with django_capture_on_commit_callbacks(execute=True):
        response = api.post(f"/api/pipelines/{pipeline['id']}/runs", {}, format="json")
    assert response.status_code == 201
    run = response.json()
    assert run["status"] == "CREATED" and run["version"] == 1 and run["mode"] == "streaming"
    assert run["created_by"] == "alice" and [c["status"] for c in run["status_history"]] == ["CREATED"]
    assert launched == [run["id"]]  # enqueued once the run and its CREATED event are committed
    events = api.get(f"/api/runs/{run['id']}/events").json()
    assert [(e["seq"], e["type"], e["data"]["status"]) for e in events] == [(1, "status", "CREATED")]
    assert [r["id"] for r in api.get(f"/api/pipelines/{pipeline['id']}/runs").json()] == [run["id"]]


def test_cancel_sends_the_command_and_a_finished_run_is_a_409(api):
    pipeline = create_pipeline(api)
    run = api.post(f"/api/pipelines/{pipeline['id']}/runs", {}, format="json").json()
    client = redis.Redis.from_url(settings.REDIS_URL)
    key = command_key(Run.objects.get(pk=run["id"]))
    client.delete(key)
    response = api.post(f"/api/runs/{run['id']}/cancel")
    assert response.status_code == 202 and response.json()["status"] == "CANCELING"
    assert client.lrange(key, 0, -1) == [b'{"command": "cancel"}']
    set_status(run["id"], RunStatus.CANCELED)
    conflict = api.post(f"/api/runs/{run['id']}/cancel")
    assert conflict.status_code == 409
    assert "CANCELED" in conflict.json()["detail"]


def test_terminal_status_is_final(api):
    pipeline = create_pipeline(api)
    run_id = api.post(f"/api/pipelines/{pipeline['id']}/runs", {}, format="json").json()["id"]
    set_status(run_id, RunStatus.FAILED, cause="boom")
    set_status(run_id, RunStatus.RUNNING)
    run = Run.objects.get(pk=run_id)
    assert (run.status, run.failure_cause) == ("FAILED", "boom")
    assert run.ended_at is not None


def test_checkpoint_events_fill_the_history(api):
    pipeline = create_pipeline(api)
    run_id = api.post(f"/api/pipelines/{pipeline['id']}/runs", {}, format="json").json()["id"]
    from studio.runs.events import record_event

    record_event(run_id, "checkpoint", {"event": "triggered", "id": 1, "kind": "checkpoint",
                                        "trigger_timestamp": 1000, "num_subtasks": 3})
    record_event(run_id, "checkpoint", {"event": "completed", "id": 1, "end_to_end_duration": 42,
                                        "state_size": 300, "num_acknowledged_subtasks": 3,
                                        "external_path": "/tmp/chk-1"})
    record_event(run_id, "checkpoint", {"event": "triggered", "id": 2, "trigger_timestamp": 2000})
    body = api.get(f"/api/runs/{run_id}/checkpoints").json()
    assert body["counts"] == {"total": 2, "in_progress": 1, "completed": 1, "failed": 0, "restored": 0}
    latest, first = body["history"]
    assert (latest["id"], latest["status"]) == (2, "IN_PROGRESS")
    assert (first["id"], first["status"], first["end_to_end_duration"], first["num_subtasks"]) == (1, "COMPLETED", 42, 3)


def test_openapi_schema_and_swagger_ui_are_served_without_login(client):
    response = client.get("/api/schema/", HTTP_ACCEPT="application/json")
    assert response.status_code == 200
    assert "/api/pipelines/{id}/runs/" in response.json()["paths"]
    assert client.get("/api/docs/").status_code == 200


def test_swagger_ui_is_served_by_the_studio_itself(client):
    page = client.get("/api/docs/").content.decode()
    assets = re.findall(r'(?:src|href)="([^"]+)"', page)
    assert any(asset.endswith("swagger-ui-bundle.js") for asset in assets), assets
    assert all(asset.startswith("/") and not asset.startswith("//") for asset in assets), assets
