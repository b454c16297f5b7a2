"""Savepoint schedules: REST (tag "schedules"), permissions, the scheduler's ticks, retention and triggers."""
import json
from datetime import timedelta
from pathlib import Path

import pytest
import redis
from django.conf import settings
from django.contrib.auth.models import Group
from django.utils import timezone

from studio.models import Checkpoint, Pipeline, PipelineShare, PipelineVersion, Run, SavepointRequest
from studio.runs.commands import command_key
from studio.runs.events import record_event, set_status
from studio.schedules.models import SavepointSchedule
from studio.schedules.scheduler import prune_savepoints, run_due_schedules, tick
from tests.support import simple_pipeline, token_client, wait_until

pytestmark = pytest.mark.django_db


def problems(response, field: str) -> str:
    """The messages about ``field`` of a 400: DRF's ``fields``, or ``errors`` for rules past the schema."""
    body = response.json()
    located = [error["message"] for error in body.get("errors", []) if error["field"] == field]
    return json.dumps(body.get("fields", {}).get(field, []) + located)


def running_run(owner, name="p") -> Run:
    """A RUNNING streaming run without a driver (its commands wait in Redis)."""
    pipeline = Pipeline.objects.create(name=name, owner=owner)
    version = PipelineVersion.objects.create(pipeline=pipeline, number=1, definition=simple_pipeline())
    run = Run.objects.create(pipeline=pipeline, version=version, created_by=owner)
    set_status(run.id, "SCHEDULING")
    set_status(run.id, "RUNNING")
    return run


def commands_of(run: Run) -> list[dict]:
    client = redis.Redis.from_url(settings.REDIS_URL)
    try:
        return [json.loads(item) for item in client.lrange(command_key(run), 0, -1)]
    finally:
        client.close()


def complete(request: SavepointRequest, checkpoint_id: int, location: Path) -> None:
    """What the driver reports for a savepoint that completed at ``location`` (a real directory)."""
    location.mkdir(parents=True)
    (location / "_metadata").write_text("{}")
    run_id = request.run_id
    record_event(run_id, "checkpoint", {"event": "triggered", "id": checkpoint_id, "kind": "savepoint",
                                        "trigger_timestamp": 1000 + checkpoint_id})
    record_event(run_id, "checkpoint", {"event": "completed", "id": checkpoint_id, "kind": "savepoint",
                                        "external_path": str(location)})
    record_event(run_id, "savepoint", {"request_id": request.request_id, "kind": "savepoint",
                                       "status": "COMPLETED", "location": str(location)})


def test_a_schedule_is_created_listed_changed_and_deleted(api, user):
    run = running_run(user)
    created = api.post("/api/schedules", {"pipeline": run.pipeline_id, "interval_s": 60, "retain": 2}, format="json")
    assert created.status_code == 201, created.content
    body = created.json()
    assert (body["pipeline"], body["run"], body["interval_s"], body["cron"], body["retain"], body["enabled"]) == (
        run.pipeline_id, None, 60, "", 2, True)
    assert body["next_due_at"] and body["created_by"] == "alice"
    assert [s["id"] for s in api.get("/api/schedules").json()] == [body["id"]]

    changed = api.patch(f"/api/schedules/{body['id']}", {"interval_s": None, "cron": "*/5 * * * *"}, format="json")
    assert changed.status_code == 200, changed.content
    assert (changed.json()["cron"], changed.json()["interval_s"]) == ("*/5 * * * *", None)
    due = SavepointSchedule.objects.get(pk=body["id"]).next_due_at
    assert due.minute % 5 == 0 and due.second == 0

    assert api.delete(f"/api/schedules/{body['id']}").status_code == 204
    assert api.get("/api/schedules").json() == []


def test_a_put_repeats_the_schedules_target_and_may_not_change_it(api, user):
    run = running_run(user)
    other = running_run(user, name="other")
    schedule = api.post("/api/schedules", {"pipeline": run.pipeline_id, "interval_s": 60}, format="json").json()
    put = api.put(f"/api/schedules/{schedule['id']}", {**schedule, "retain": 5}, format="json")  # what GET gave
    assert put.status_code == 200, put.content
    assert (put.json()["pipeline"], put.json()["retain"]) == (run.pipeline_id, 5)
    for target in ({"pipeline": other.pipeline_id}, {"pipeline": None, "run": run.id}):
        moved = api.put(f"/api/schedules/{schedule['id']}", {**schedule, **target}, format="json")
        assert moved.status_code == 400 and "cannot change" in problems(moved, "pipeline")


@pytest.mark.parametrize("body, field, words", [
    ({"interval_s": 10, "cron": "* * * * *"}, "interval_s", "exactly one of interval_s and cron"),
    ({}, "interval_s", "exactly one of interval_s and cron"),
    ({"cron": "every tuesday"}, "cron", "not a cron expression"),
    ({"interval_s": 0}, "interval_s", "greater than or equal to 1"),
    ({"interval_s": 10, "retain": 0}, "retain", "greater than or equal to 1"),
])
def test_bad_schedules_are_400s_naming_the_field(api, user, body, field, words):
    run = running_run(user)
    response = api.post("/api/schedules", {"run": run.id, **body}, format="json")
    assert response.status_code == 400
    assert words in problems(response, field)


def test_a_schedule_needs_exactly_one_target(api, user):
    run = running_run(user)
    for body in ({"interval_s": 5}, {"interval_s": 5, "run": run.id, "pipeline": run.pipeline_id}):
        response = api.post("/api/schedules", body, format="json")
        assert response.status_code == 400 and "exactly one of pipeline and run" in problems(response, "pipeline")


def test_another_users_schedules_are_invisible_and_their_pipelines_unschedulable(api, user, other_user, other_api):
    run = running_run(user)
    mine = api.post("/api/schedules", {"run": run.id, "interval_s": 30}, format="json").json()
    assert other_api.get("/api/schedules").json() == []
    assert other_api.get(f"/api/schedules/{mine['id']}").status_code == 404
    assert other_api.patch(f"/api/schedules/{mine['id']}", {"enabled": False}, format="json").status_code == 404
    assert other_api.delete(f"/api/schedules/{mine['id']}").status_code == 404
    refused = other_api.post("/api/schedules", {"pipeline": run.pipeline_id, "interval_s": 30}, format="json")
    assert refused.status_code == 404 and f"no pipeline {run.pipeline_id}" in refused.json()["detail"]
    assert SavepointSchedule.objects.count() == 1


def test_a_viewer_without_run_permission_may_read_but_not_schedule(api, user, other_user, other_api):
    run = running_run(user)
    group = Group.objects.create(name="viewers")
    other_user.groups.add(group)
    PipelineShare.objects.create(pipeline=run.pipeline, group=group)
    mine = api.post("/api/schedules", {"run": run.id, "interval_s": 30}, format="json").json()
    assert other_api.get(f"/api/schedules/{mine['id']}").status_code == 200
    assert other_api.patch(f"/api/schedules/{mine['id']}", {"enabled": False}, format="json").status_code == 403
    denied = other_api.post("/api/schedules", {"run": run.id, "interval_s": 30}, format="json")
    assert denied.status_code == 403 and f"may not run pipeline {run.pipeline_id}" in denied.json()["detail"]


def test_a_due_schedule_triggers_once_per_moment_with_the_scheduled_trigger(api, user):
    run = running_run(user)
    other = running_run(user, name="other")
    schedule = SavepointSchedule.objects.get(pk=api.post("/api/schedules", {"pipeline": run.pipeline_id,
                                                                            "interval_s": 60}, format="json").json()["id"])
    assert run_due_schedules(timezone.now()) == []  # not due yet
    moment = schedule.next_due_at + timedelta(seconds=1)
    [request] = run_due_schedules(moment)
    assert run_due_schedules(moment) == []  # that moment was taken
    assert (request.run_id, request.trigger, request.schedule_id, request.kind) == (run.id, "scheduled",
                                                                                   schedule.id, "savepoint")
    assert commands_of(run) == [{"command": "savepoint", "request_id": request.request_id, "target_directory": None}]
    assert commands_of(other) == []  # another pipeline's run
    schedule.refresh_from_db()
    assert schedule.next_due_at == moment + timedelta(seconds=60) and schedule.last_triggered_at == moment
    listed = api.get(f"/api/runs/{run.id}/savepoints").json()
    assert [(r["trigger"], r["schedule"]) for r in listed] == [("scheduled", schedule.id)]


def test_a_schedule_skips_runs_that_do_not_run_and_says_so_for_one_that_cannot(api, user):
    run = running_run(user)
    schedule = SavepointSchedule.objects.create(run=run, interval_s=5, next_due_at=timezone.now(), created_by=user)
    set_status(run.id, "CANCELED")
    assert run_due_schedules(timezone.now() + timedelta(seconds=1)) == []
    batch = running_run(user, name="batch")
    Run.objects.filter(pk=batch.pk).update(mode="batch")
    SavepointSchedule.objects.create(run=batch, interval_s=5, next_due_at=timezone.now(), created_by=user)
    assert run_due_schedules(timezone.now() + timedelta(seconds=1)) == []  # only streaming runs are targets
    schedule.refresh_from_db()
    assert schedule.last_error == ""


def test_retention_deletes_the_oldest_scheduled_savepoints_files_and_rows(api, user, tmp_path):
    run = running_run(user)
    schedule = SavepointSchedule.objects.create(run=run, interval_s=1, retain=2, next_due_at=timezone.now(),
                                                created_by=user)
    manual = api.post(f"/api/runs/{run.id}/savepoints", {}, format="json").json()["request_id"]
    complete(SavepointRequest.objects.get(request_id=manual), 1, tmp_path / "manual")
    locations = []
    for number in range(3):
        [request] = run_due_schedules(schedule.next_after(timezone.now()) + timedelta(seconds=number * 2))
        schedule.refresh_from_db()
        locations.append(tmp_path / f"scheduled-{number}")
        complete(request, 2 + number, locations[-1])
    deleted = prune_savepoints(schedule)

    assert len(deleted) == 1 and not locations[0].exists() and locations[1].exists() and locations[2].exists()
    assert (tmp_path / "manual").exists()
    history = api.get(f"/api/runs/{run.id}/checkpoints").json()["history"]
    assert [(row["id"], row["trigger"]) for row in history] == [(4, "scheduled"), (3, "scheduled"), (1, "manual")]
    assert [r["trigger"] for r in api.get(f"/api/runs/{run.id}/savepoints").json()] == ["scheduled", "scheduled",
                                                                                         "manual"]
    assert prune_savepoints(schedule) == []


def test_retention_keeps_a_savepoint_a_running_run_restored_from(api, user, tmp_path):
    run = running_run(user)
    schedule = SavepointSchedule.objects.create(run=run, interval_s=1, retain=1, next_due_at=timezone.now(),
                                                created_by=user)
    [first] = run_due_schedules(timezone.now() + timedelta(seconds=2))
    complete(first, 1, tmp_path / "first")
    restored = running_run(user, name="restored")
    Run.objects.filter(pk=restored.pk).update(restored_from=Checkpoint.objects.get(run=run, checkpoint_id=1))
    [second] = run_due_schedules(timezone.now() + timedelta(seconds=10))
    complete(second, 2, tmp_path / "second")
    assert prune_savepoints(schedule) == [] and (tmp_path / "first").exists()
    set_status(restored.id, "CANCELED")
    assert len(prune_savepoints(schedule)) == 1 and not (tmp_path / "first").exists()


def test_a_stop_shows_the_stop_trigger(api, user):
    run = running_run(user)
    request_id = api.post(f"/api/runs/{run.id}/stop", {"drain": False}, format="json").json()["request_id"]
    assert SavepointRequest.objects.get(request_id=request_id).trigger == "stop"


def test_schedules_are_under_their_tag_in_the_schema(api):
    paths = api.get("/api/schema/?format=json").json()["paths"]
    operations = [operation for path, item in paths.items() if path.startswith("/api/schedules")
                  for operation in item.values() if isinstance(operation, dict)]
    assert operations and all(operation["tags"] == ["schedules"] for operation in operations)


@pytest.mark.django_db(transaction=True)
def test_the_celery_worker_takes_scheduled_savepoints(celery_worker_process, user):
    """``make up`` runs the scheduler inside the Celery worker: no command of its own."""
    run = running_run(user)
    SavepointSchedule.objects.create(run=run, interval_s=1, next_due_at=timezone.now(), created_by=user)
    # the worker's scheduler ticks every second; at load 30 on two cores two ticks took over 30 s
    wait_until(lambda: SavepointRequest.objects.filter(run=run, trigger="scheduled").count() >= 2, 120,
               "two scheduled savepoint requests")
    assert all(command["command"] == "savepoint" for command in commands_of(run))
