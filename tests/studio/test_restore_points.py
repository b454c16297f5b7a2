"""What a run can be restarted from: only checkpoints and savepoints that still exist, newest first,
with their time and size; a deleted one is a clear 409 or 400 (never the storage's "no _metadata"),
and its deletion is an event the run page hears."""
from __future__ import annotations

import shutil
from datetime import timedelta
from pathlib import Path

import pytest
from django.conf import settings
from django.utils import timezone

from studio.models import Checkpoint, RunEvent, SavepointRequest
from studio.schedules.models import SavepointSchedule
from studio.schedules.scheduler import prune_savepoints, run_due_schedules
from tests.studio.test_schedules_api import complete, running_run

pytestmark = pytest.mark.django_db


def completed_checkpoint(run, checkpoint_id: int, location: Path, kind: str = "checkpoint", size: int = 100):
    location.mkdir(parents=True)
    (location / "_metadata").write_text('{"tasks": {}}')
    return Checkpoint.objects.create(run=run, checkpoint_id=checkpoint_id, kind=kind, status="COMPLETED",
                                     trigger_timestamp=1_000 * checkpoint_id,
                                     latest_ack_timestamp=1_000 * checkpoint_id + 40, state_size=size,
                                     external_path=str(location))


def test_restore_points_are_the_existing_ones_newest_first_with_time_and_size(api, user, tmp_path):
    run = running_run(user)
    completed_checkpoint(run, 1, tmp_path / "chk-1")
    completed_checkpoint(run, 2, tmp_path / "savepoint-2", kind="savepoint", size=2048)
    gone = completed_checkpoint(run, 3, tmp_path / "chk-3")
    shutil.rmtree(gone.external_path)  # deleted outside the studio
    discarded = completed_checkpoint(run, 4, tmp_path / "chk-4")
    Checkpoint.objects.filter(pk=discarded.pk).update(discarded=True)
    Checkpoint.objects.create(run=run, checkpoint_id=5, status="IN_PROGRESS", trigger_timestamp=5_000)

    points = api.get(f"/api/runs/{run.id}/restore-points").json()
    assert [(point["checkpoint_id"], point["kind"]) for point in points] == [(2, "savepoint"), (1, "checkpoint")]
    assert points[0] == {"pk": points[0]["pk"], "run": run.id, "checkpoint_id": 2, "kind": "savepoint", "trigger": None,
                         "trigger_timestamp": 2_000, "completed_timestamp": 2_040, "state_size": 2048,
                         "location": str(tmp_path / "savepoint-2")}


def test_restoring_a_deleted_one_is_a_clear_4xx(api, user, tmp_path):
    run = running_run(user)
    gone = completed_checkpoint(run, 3, Path(settings.CHECKPOINT_ROOT) / "restore-points" / "chk-3")
    shutil.rmtree(gone.external_path)
    start = f"/api/pipelines/{run.pipeline_id}/runs"
    by_row = api.post(start, {"restore_from": {"pk": gone.pk}}, format="json")
    assert by_row.status_code == 409
    assert by_row.json()["detail"] == (f"checkpoint #3 of run {run.id} no longer exists: its files at "
                                       f"{gone.external_path} were deleted")
    by_path = api.post(start, {"restore_from": {"path": gone.external_path}}, format="json")
    assert by_path.status_code == 400 and "_metadata" not in str(by_path.json())
    assert "there is no completed checkpoint or savepoint at" in str(by_path.json())
    by_lost_row = api.post(start, {"restore_from": {"pk": 999_999}}, format="json")
    assert by_lost_row.status_code == 400 and "it was deleted" in str(by_lost_row.json())


def test_retention_announces_what_it_deletes_and_the_list_leaves_it_out(api, user, tmp_path):
    run = running_run(user)
    schedule = SavepointSchedule.objects.create(run=run, interval_s=1, retain=1, next_due_at=timezone.now(),
                                                created_by=user)
    [first] = run_due_schedules(timezone.now() + timedelta(seconds=2))
    complete(first, 1, tmp_path / "first")
    [second] = run_due_schedules(timezone.now() + timedelta(seconds=10))
    complete(second, 2, tmp_path / "second")
    deleted_pk = Checkpoint.objects.get(run=run, checkpoint_id=1).pk

    assert prune_savepoints(schedule) == [deleted_pk]
    assert [point["checkpoint_id"] for point in api.get(f"/api/runs/{run.id}/restore-points").json()] == [2]
    [announced] = [event.data for event in RunEvent.objects.filter(run=run, type="checkpoint")
                   if event.data.get("event") == "discarded"]
    assert announced == {"id": 1, "event": "discarded", "discarded": True, "kind": "savepoint", "pk": deleted_pk,
                         "external_path": str(tmp_path / "first"),
                         "reason": f"deleted by the retention of schedule {schedule.pk} (it keeps 1)"}
    assert not SavepointRequest.objects.filter(pk=first.pk).exists()


def test_a_savepoint_a_user_deleted_is_marked_in_its_request_and_announced(api, user, tmp_path):
    run = running_run(user)
    request_id = api.post(f"/api/runs/{run.id}/savepoints", {}, format="json").json()["request_id"]
    complete(SavepointRequest.objects.get(request_id=request_id), 1, tmp_path / "manual")
    pk = Checkpoint.objects.get(run=run, checkpoint_id=1).pk
    assert api.delete(f"/api/savepoints/{pk}").status_code == 204
    [request] = api.get(f"/api/runs/{run.id}/savepoints").json()
    assert request["discarded"] is True and not (tmp_path / "manual").exists()
    assert api.get(f"/api/runs/{run.id}/restore-points").json() == []
    event = RunEvent.objects.filter(run=run, type="checkpoint").order_by("-seq").first()
    assert event.data["event"] == "discarded" and event.data["reason"] == f"deleted by {user.username}"
