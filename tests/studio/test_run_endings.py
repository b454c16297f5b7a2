"""How a run ended, in the run and in every list: a rescaled or upgraded run names the run the
job continues as (and the old run's cached answer says so as soon as that run exists); other
runs say whether they were stopped, canceled, failed or ran out of input."""
from __future__ import annotations

import pytest

from studio.models import Checkpoint, PipelineVersion, Rescale, RescaleStatus, Run, SavepointRequest
from studio.runs.events import set_status
from tests.studio.test_schedules_api import running_run
from tests.support import signed_snapshot, simple_pipeline

pytestmark = pytest.mark.django_db


def stopped_with_savepoint(run: Run, tmp_path) -> Checkpoint:
    location = signed_snapshot(tmp_path / f"savepoint-{run.id}", run.pipeline, checkpoint_id=1, run=run)
    savepoint = Checkpoint.objects.create(run=run, checkpoint_id=1, kind="sync-savepoint", status="COMPLETED",
                                          trigger_timestamp=1, external_path=location)
    SavepointRequest.objects.create(request_id=f"{run.id:032x}", run=run, kind="sync-savepoint", trigger="stop",
                                    status="COMPLETED", location=location, checkpoint=savepoint)
    set_status(run.id, "FINISHED")
    return savepoint


def start_from(api, run: Run, savepoint: Checkpoint, version: int | None = None) -> int:
    body = {"restore_from": {"pk": savepoint.pk}, **({"version": version} if version else {})}
    response = api.post(f"/api/pipelines/{run.pipeline_id}/runs", body, format="json")
    assert response.status_code == 201, response.content
    return response.json()["id"]


def test_an_upgraded_run_names_the_run_it_continues_as_even_from_the_cache(api, user, tmp_path):
    run = running_run(user)
    savepoint = stopped_with_savepoint(run, tmp_path)
    assert api.get(f"/api/runs/{run.id}").json()["ended_by"] == {"how": "stop", "continued_as": None, "detail": ""}
    PipelineVersion.objects.create(pipeline=run.pipeline, number=2, definition=simple_pipeline(expression="x + 1"))
    successor = start_from(api, run, savepoint, version=2)
    # the old run's answer was cached before: the new run moved its token
    assert api.get(f"/api/runs/{run.id}").json()["ended_by"] == {"how": "upgrade", "continued_as": successor,
                                                                 "detail": "v1 -> v2"}
    listed = {row["id"]: row["ended_by"] for row in api.get(f"/api/pipelines/{run.pipeline_id}/runs").json()}
    assert listed[run.id]["continued_as"] == successor and listed[successor] is None
    everywhere = {row["id"]: row["ended_by"] for row in api.get("/api/runs").json()["results"]}
    assert everywhere[run.id]["how"] == "upgrade"


def test_a_rescaled_run_says_so_with_the_new_parallelism(api, user, tmp_path):
    run = running_run(user)
    savepoint = stopped_with_savepoint(run, tmp_path)
    Rescale.objects.create(run=run, from_version=run.version, to_version=run.version, status=RescaleStatus.STARTING,
                           message="rescale: parallelism 1 -> 2")
    successor = start_from(api, run, savepoint)
    assert api.get(f"/api/runs/{run.id}").json()["ended_by"] == {"how": "rescale", "continued_as": successor,
                                                                 "detail": "parallelism 1 -> 2"}


def test_canceled_failed_and_finished_runs_say_how(api, user):
    canceled, failed, finished = (running_run(user, name=name) for name in ("c", "f", "e"))
    set_status(canceled.id, "CANCELED")
    set_status(failed.id, "FAILED", cause="ValueError: boom\nTraceback ...")
    set_status(finished.id, "FINISHED")
    endings = {row["id"]: row["ended_by"] for row in api.get("/api/runs").json()["results"]}
    assert endings[canceled.id]["how"] == "cancel"
    assert endings[failed.id] == {"how": "failure", "continued_as": None, "detail": "ValueError: boom"}
    assert endings[finished.id]["how"] == "end_of_input"


def test_a_run_of_another_users_pipeline_restored_from_mine_is_not_named(api, other_api, user, other_user, tmp_path):
    run = running_run(user)
    savepoint = stopped_with_savepoint(run, tmp_path)
    theirs = running_run(other_user, name="theirs")
    Run.objects.filter(pk=theirs.pk).update(restored_from=savepoint)
    assert api.get(f"/api/runs/{run.id}").json()["ended_by"]["continued_as"] is None
