"""Shadow runs over REST as a hostile second user and with bad input: 404s for what is not yours, 403 without the
permission to run, 400s naming the field, 409s for what the shadow's or the run's state does not allow."""
from __future__ import annotations

import pytest
from django.contrib.auth.models import Group

from studio.models import Checkpoint, Pipeline, Run
from studio.shadows.models import ShadowRun
from tests.builders import edge, node, pipeline

pytestmark = pytest.mark.django_db


def filtering(predicate: str) -> dict:
    return pipeline([node("gen", "source.datagen", count=100), node("keep", "transform.filter", predicate=predicate),
                     node("out", "sink.collect")], [edge("gen", "keep"), edge("keep", "out")], name="filtered")


@pytest.fixture
def production(api, user):
    created = api.post("/api/pipelines", {"name": "filtered", "definition": filtering("x > 1")}, format="json").json()
    api.put(f"/api/pipelines/{created['id']}", {"name": "filtered", "definition": filtering("x > 2")}, format="json")
    pipeline_ = Pipeline.objects.get(pk=created["id"])
    return Run.objects.create(pipeline=pipeline_, version=pipeline_.versions.get(number=1), created_by=user,
                              status="RUNNING")


def test_another_users_run_has_no_shadows_and_takes_none(other_api, production):
    shadow = ShadowRun.objects.create(production=production, candidate=production.pipeline.versions.get(number=2),
                                      created_by=production.created_by, status="COMPLETED")
    base = f"/api/runs/{production.pk}/shadows"
    assert other_api.get(base).status_code == 404
    assert other_api.post(base, {"candidate_version": 2}, format="json").status_code == 404
    for path in (f"{base}/{shadow.pk}", f"{base}/{shadow.pk}/outputs/out?side=production"):
        assert other_api.get(path).status_code == 404
    for path in (f"{base}/{shadow.pk}/discard", f"{base}/{shadow.pk}/promote"):
        assert other_api.post(path, {"run": production.pk}, format="json").status_code == 404
    assert ShadowRun.objects.get(pk=shadow.pk).status == "COMPLETED"


def test_viewing_is_not_enough_to_start_or_discard_one(api, other_api, other_user, production):
    group = Group.objects.create(name="viewers")
    group.user_set.add(other_user)
    assert api.post(f"/api/pipelines/{production.pipeline_id}/shares", {"group": "viewers", "permissions": ["view"]},
                    format="json").status_code == 201
    base = f"/api/runs/{production.pk}/shadows"
    assert other_api.get(base).status_code == 200
    response = other_api.post(base, {"candidate_version": 2}, format="json")
    assert response.status_code == 403 and "run" in response.json()["detail"]
    shadow = ShadowRun.objects.create(production=production, candidate=production.pipeline.versions.get(number=2),
                                      created_by=production.created_by, status="COMPLETED")
    assert other_api.post(f"{base}/{shadow.pk}/discard").status_code == 403


def test_bad_requests_name_their_field(api, production):
    base = f"/api/runs/{production.pk}/shadows"
    for body, field in [({}, "candidate_version"), ({"candidate_version": 9}, "candidate_version"),
                        ({"candidate_version": 2, "snapshot": "yesterday"}, "snapshot"),
                        ({"candidate_version": 2, "max_seconds": 10 ** 6}, "max_seconds"),
                        ({"candidate_version": 2, "max_slots": 0}, "max_slots"),
                        ({"candidate_version": 2, "max_output_bytes": 10}, "max_output_bytes")]:
        response = api.post(base, body, format="json")
        assert response.status_code == 400, (body, response.content)
        assert field in response.content.decode(), (body, response.content)
    assert not ShadowRun.objects.exists()


def test_the_runs_state_decides_what_snapshot_a_shadow_may_start_from(api, production):
    base = f"/api/runs/{production.pk}/shadows"
    Run.objects.filter(pk=production.pk).update(status="FINISHED")
    response = api.post(base, {"candidate_version": 2}, format="json")
    assert response.status_code == 409 and "RUNNING" in response.json()["detail"]
    response = api.post(base, {"candidate_version": 2, "snapshot": "latest"}, format="json")
    assert response.status_code == 409 and "no completed checkpoint" in response.json()["detail"]
    Run.objects.filter(pk=production.pk).update(status="RUNNING")
    ShadowRun.objects.create(production=production, candidate=production.pipeline.versions.get(number=2),
                             created_by=production.created_by, status="RUNNING")
    response = api.post(base, {"candidate_version": 2}, format="json")
    assert response.status_code == 409 and "already has a shadow" in response.json()["detail"]


def test_promote_records_the_candidates_run_from_productions_savepoint_and_discard_ends_it(api, user, production,
                                                                                         tmp_path):
    candidate = production.pipeline.versions.get(number=2)
    output = tmp_path / "shadows" / "shadow-x"
    output.mkdir(parents=True)
    shadow = ShadowRun.objects.create(production=production, candidate=candidate, created_by=user, status="RUNNING",
                                      output_dir=str(output))
    base = f"/api/runs/{production.pk}/shadows/{shadow.pk}"
    assert api.post(f"{base}/promote", {"run": production.pk}, format="json").status_code == 409  # not COMPLETED
    ShadowRun.objects.filter(pk=shadow.pk).update(status="COMPLETED")
    savepoint = Checkpoint.objects.create(run=production, checkpoint_id=4, kind="sync-savepoint", status="COMPLETED",
                                          trigger_timestamp=1, external_path=str(tmp_path / "sp"))
    unrelated = Run.objects.create(pipeline=production.pipeline, version=candidate, created_by=user)
    response = api.post(f"{base}/promote", {"run": unrelated.pk}, format="json")
    assert response.status_code == 400 and "run" in response.json()["detail"]
    deployed = Run.objects.create(pipeline=production.pipeline, version=candidate, created_by=user,
                                  restored_from=savepoint)
    promoted = api.post(f"{base}/promote", {"run": deployed.pk}, format="json").json()
    assert (promoted["status"], promoted["promoted_run"]) == ("PROMOTED", deployed.pk)

    assert api.get(f"{base}/outputs/out", {"side": "elsewhere"}).status_code == 400
    assert api.get(f"{base}/outputs/out", {"side": "production"}).status_code == 404  # no such sink recorded
    assert api.post(f"{base}/discard").json()["status"] == "DISCARDED"
    assert output.exists()  # not below the pipeline's workspace: the studio deletes only its own directories
    assert api.post(f"{base}/discard").status_code == 409
    assert api.get(f"{base}/outputs/out", {"side": "production"}).status_code == 409
