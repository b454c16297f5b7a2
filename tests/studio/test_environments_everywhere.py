"""Environments filled in wherever a definition is executed, through the one path a run's start takes
(``studio.run_values.fill_values``): a preview and test cases in the environment a request names, a shadow
run in its production run's environment, the state browser reading a snapshot with the parameters its run
ran with, and a run restored from another run's checkpoint going on in that run's environment. Secrets are
filled in for the user's own previews and tests and masked in every answer; another user's environment is
a 404 wherever it is named."""
from __future__ import annotations

import base64
import json
import time
from urllib.parse import quote

import pytest

from engine.api import InProcess, load_checkpoint_metadata, submit
from studio.environments.models import EnvironmentRun
from studio.models import Checkpoint, Run
from studio.secret_masking import MASK
from studio.shadows.models import ShadowRun
from tests.engine.snapshots.replay import SIZE_MS, emitted, sliding_panes, window_job
from tests.support import signed_snapshot, simple_pipeline, wait_until

pytestmark = [pytest.mark.django_db, pytest.mark.timeout(300)]

SECRET_VALUE = "hunter2-S3cr3t/+value"
FORMS = {SECRET_VALUE, quote(SECRET_VALUE, safe=""), base64.b64encode(SECRET_VALUE.encode()).decode().rstrip("=")}


@pytest.fixture(autouse=True)
def no_launch(monkeypatch):
    from studio.runs.tasks import launch_run

    monkeypatch.setattr(launch_run, "delay", lambda run_id: None)


@pytest.fixture
def environments(api):
    """dev and prod with different parameters, and a secret of the user's."""
    assert api.post("/api/secrets", {"name": "token", "value": SECRET_VALUE}, format="json").status_code == 201
    for name, position, parameters in (("dev", 0, {"factor": 2, "count": 4, "size": 500}),
                                       ("prod", 1, {"factor": 5, "count": 6, "size": SIZE_MS})):
        response = api.post("/api/environments", {"name": name, "position": position, "parameters": parameters},
                            format="json")
        assert response.status_code == 201, response.content
    return api


def parameterised(name: str = "scaled", expression: str = "x * ${param:factor}") -> dict:
    definition = simple_pipeline(count=None, expression=expression, name=name)
    definition["nodes"][0]["params"]["count"] = "${param:count}"
    return definition


def leaks(text: str) -> list[str]:
    return [form for form in FORMS if form in text]


def located(response) -> list[tuple]:
    return [(error["node"], error["field"]) for error in response.json().get("errors", [])]


# --- preview ---------------------------------------------------------------------------------------


def test_a_preview_runs_with_the_parameters_of_the_environment_it_names(environments):
    api = environments
    prod = api.post("/api/preview", {"definition": parameterised(), "limit": 10, "environment": "prod"},
                    format="json")
    assert prod.status_code == 200, prod.content
    assert prod.json()["nodes"]["double"] == {"records": [0, 5, 10, 15, 20, 25], "count": 6}  # prod's count, factor
    dev = api.post("/api/preview", {"definition": parameterised(), "limit": 10, "environment": "dev"}, format="json")
    assert dev.json()["nodes"]["double"]["records"] == [0, 2, 4, 6]

    without = api.post("/api/preview", {"definition": parameterised(), "limit": 10}, format="json")
    assert without.status_code == 400
    assert set(located(without)) == {("gen", "params.count"), ("double", "params.expression")}
    assert "unknown parameter 'count'" in without.json()["errors"][0]["message"]


def test_a_preview_fills_the_users_secret_in_and_masks_it_in_the_answer(environments):
    api = environments
    definition = parameterised(expression="'${secret:token}' + str(x)")
    response = api.post("/api/preview", {"definition": definition, "limit": 3, "environment": "dev"}, format="json")
    assert response.status_code == 200, response.content
    assert response.json()["nodes"]["double"]["records"] == [f"{MASK}0", f"{MASK}1", f"{MASK}2"]
    assert leaks(response.content.decode()) == []

    failing = parameterised(expression="int('${secret:token}' + str(x))")  # the failure quotes the value
    response = api.post("/api/preview", {"definition": failing, "limit": 3, "environment": "dev"}, format="json")
    assert response.status_code == 200 and MASK in response.json()["failure"], response.content
    assert leaks(response.content.decode()) == []

    unknown = parameterised(expression="'${secret:nope}' + str(x)")
    response = api.post("/api/preview", {"definition": unknown, "limit": 3, "environment": "dev"}, format="json")
    assert response.status_code == 400 and located(response) == [("double", "params.expression")]
    assert "no secret of that name is yours" in response.json()["errors"][0]["message"]


def test_another_users_environment_and_secret_are_not_there_for_a_preview(environments, other_api):
    response = other_api.post("/api/preview", {"definition": parameterised(), "limit": 3, "environment": "prod"},
                              format="json")
    assert response.status_code == 404 and "no environment 'prod'" in response.json()["detail"]
    theirs = simple_pipeline(count=3, expression="'${secret:token}' + str(x)")
    response = other_api.post("/api/preview", {"definition": theirs, "limit": 3}, format="json")
    assert response.status_code == 400 and located(response) == [("double", "params.expression")]
    assert leaks(response.content.decode()) == []
    too_long = other_api.post("/api/preview", {"definition": theirs, "environment": "x" * 101}, format="json")
    assert too_long.status_code == 400 and "environment" in too_long.json()["fields"]


# --- test cases ------------------------------------------------------------------------------------


def with_case(definition: dict, expected: list) -> dict:
    return {**definition, "tests": [{"name": "scales", "inputs": {"gen": {"rows": [1, 2, 3]}},
                                     "assertions": [{"node": "double", "expect": "rows", "rows": expected}]}]}


def test_test_cases_run_with_the_environments_parameters_and_mask_the_users_secret(environments, settings, tmp_path):
    settings.STUDIO_WORKSPACE_ROOT = str(tmp_path / "workspaces")
    api = environments
    created = api.post("/api/pipelines", {"name": "tested", "definition": with_case(parameterised(), [5, 10, 15])},
                       format="json").json()
    runs = f"/api/pipelines/{created['id']}/test-runs"
    prod = api.post(runs, {"environment": "prod"}, format="json")
    assert prod.status_code == 201, prod.content
    assert prod.json()["status"] == "passed", prod.json()["results"]
    assert api.post(runs, {"environment": "dev"}, format="json").json()["status"] == "failed"  # dev doubles
    without = api.post(runs, {}, format="json")
    assert without.status_code == 400 and ("double", "params.expression") in located(without)

    quoting = with_case(parameterised(expression="'${secret:token}' + str(x * ${param:factor})"), ["wrong"])
    draft = api.post(runs, {"definition": quoting, "environment": "prod"}, format="json")
    assert draft.status_code == 201, draft.content
    assert draft.json()["status"] == "failed"
    assert f"{MASK}5" in json.dumps(draft.json()["results"])  # the first difference shows the record, masked
    kept = api.get(f"{runs}/{draft.json()['id']}").content.decode()
    assert leaks(draft.content.decode()) == [] and leaks(kept) == []


def test_a_test_run_keeps_the_environment_and_parameters_it_ran_with(environments, settings, tmp_path):
    """What a kept test run (and the version's badge, its JUnit report) says it ran with, as it was then."""
    from xml.etree import ElementTree

    settings.STUDIO_WORKSPACE_ROOT = str(tmp_path / "workspaces")
    api = environments
    created = api.post("/api/pipelines", {"name": "tested", "definition": with_case(parameterised(), [5, 10, 15])},
                       format="json").json()
    runs = f"/api/pipelines/{created['id']}/test-runs"
    prod = api.post(runs, {"environment": "prod"}, format="json")
    assert prod.status_code == 201, prod.content
    ran_with = {"factor": 5, "count": 6, "size": SIZE_MS}
    assert (prod.json()["environment"], prod.json()["parameters"]) == ("prod", ran_with)
    changed = api.get("/api/environments").json()
    prod_id = next(row["id"] for row in changed if row["name"] == "prod")
    assert api.patch(f"/api/environments/{prod_id}", {"parameters": {**ran_with, "factor": 7}},
                     format="json").status_code == 200
    kept = api.get(f"{runs}/{prod.json()['id']}").json()
    assert (kept["environment"], kept["parameters"]) == ("prod", ran_with), "as it was when it ran"
    assert [(row["environment"], row["parameters"]) for row in api.get(runs).json()] == [("prod", ran_with)]
    badge = api.get(f"/api/pipelines/{created['id']}/test-badges").json()[0]["tests"]
    assert (badge["id"], badge["environment"]) == (prod.json()["id"], "prod")
    junit = api.get(f"{runs}/{prod.json()['id']}/junit").content.decode()
    assert ElementTree.fromstring(junit).find("testsuite").get("name") == "tested v1 in prod"

    plain = api.post(runs, {"definition": with_case(simple_pipeline(), [2, 4, 6])}, format="json")
    assert plain.status_code == 201, plain.content
    assert (plain.json()["environment"], plain.json()["parameters"]) == (None, {})
    assert api.get(f"/api/pipelines/{created['id']}/test-badges").json()[0]["tests"]["environment"] == "prod"


# --- restore ---------------------------------------------------------------------------------------


def test_a_run_restored_from_a_checkpoint_runs_in_the_environment_its_run_ran_in(environments, tmp_path):
    api = environments
    created = api.post("/api/pipelines", {"name": "restored", "definition": parameterised()}, format="json").json()
    first = api.post(f"/api/pipelines/{created['id']}/runs", {"environment": "prod"}, format="json")
    assert first.status_code == 201, first.content
    run = Run.objects.get(pk=first.json()["id"])
    location = signed_snapshot(tmp_path / "sp-7", run.pipeline, run=run)
    savepoint = Checkpoint.objects.create(run=run, checkpoint_id=7, kind="savepoint", status="COMPLETED",
                                          trigger_timestamp=1, external_path=location)
    runs = f"/api/pipelines/{created['id']}/runs"

    for restore_from in ({"pk": savepoint.pk}, {"checkpoint": 7}, {"path": location}):
        restored = api.post(runs, {"restore_from": restore_from}, format="json")
        assert restored.status_code == 201, restored.content
        bound = EnvironmentRun.objects.get(run_id=restored.json()["id"])
        assert (bound.environment_name, bound.parameters["factor"]) == ("prod", 5), restore_from
        assert restored.json()["environment"] == "prod"  # the runs API says where it runs
        assert api.get(f"/api/runs/{restored.json()['id']}").json()["environment"] == "prod"
    elsewhere = api.post(runs, {"restore_from": {"pk": savepoint.pk}, "environment": "dev"}, format="json")
    assert EnvironmentRun.objects.get(run_id=elsewhere.json()["id"]).environment_name == "dev"  # named: it wins
    plain = api.post("/api/pipelines", {"name": "plain", "definition": simple_pipeline()}, format="json").json()
    nowhere = api.post(f"/api/pipelines/{plain['id']}/runs", {}, format="json").json()
    assert nowhere["environment"] is None and api.get(f"/api/runs/{nowhere['id']}").json()["environment"] is None


# --- shadows ---------------------------------------------------------------------------------------


def test_a_shadow_runs_both_versions_with_productions_parameters_and_the_users_secret_masked(environments, user,
                                                                                           monkeypatch):
    import studio.secret_masking
    from studio.shadows import driver

    api = environments
    created = api.post("/api/pipelines", {"name": "shadowed", "definition": parameterised()}, format="json").json()
    candidate = parameterised(expression="'${secret:token}' + str(x * ${param:factor})")
    assert api.put(f"/api/pipelines/{created['id']}", {"definition": candidate}, format="json").status_code == 200
    production = api.post(f"/api/pipelines/{created['id']}/runs", {"environment": "prod", "version": 1},
                          format="json").json()
    run = Run.objects.get(pk=production["id"])
    Run.objects.filter(pk=run.pk).update(status="RUNNING")
    shadow = ShadowRun.objects.create(production=run, candidate=run.pipeline.versions.get(number=2), created_by=user,
                                      snapshot="take", output_dir=str(run.pipeline.pk))
    masks = []
    monkeypatch.setattr(studio.secret_masking, "mask_output", masks.append)  # this test's output stays its own
    monkeypatch.setattr(studio.secret_masking, "_active", studio.secret_masking.SecretMask())  # restored after

    production_definition, candidate_definition, _ = driver._definitions(shadow)

    nodes = {node["id"]: node for node in candidate_definition["nodes"]}
    assert production_definition["nodes"][0]["params"]["count"] == 6  # prod's, as production was started
    assert nodes["double"]["params"]["expression"] == f"'{SECRET_VALUE}' + str(x * 5)"
    assert [mask.text(SECRET_VALUE) for mask in masks] == [MASK]  # the driver's output, Spark's included
    driver._end(shadow, "FAILED", failure=f"the candidate failed: {SECRET_VALUE!r}")
    assert ShadowRun.objects.get(pk=shadow.pk).failure == f"the candidate failed: '{MASK}'"

    unknown = parameterised(expression="'${secret:nope}' + str(x)")
    assert api.put(f"/api/pipelines/{created['id']}", {"definition": unknown}, format="json").status_code == 200
    refused = api.post(f"/api/runs/{run.pk}/shadows", {"candidate_version": 3}, format="json")
    assert refused.status_code == 400 and located(refused) == [("double", "params.expression")]


# --- the state browser ------------------------------------------------------------------------------


def test_the_state_browser_reads_a_snapshot_with_the_parameters_its_run_ran_with(environments, user, tmp_path):
    from studio.run_values import run_definition
    from studio.runs.snapshots import signer_for

    api = environments
    definition = window_job()
    windowed = next(node for node in definition["nodes"] if node["id"] == "win")
    windowed["params"]["size_ms"] = "${param:size}"
    created = api.post("/api/pipelines", {"name": "sized", "definition": definition}, format="json")
    assert created.status_code == 201, created.content
    started = api.post(f"/api/pipelines/{created.json()['id']}/runs", {"environment": "prod"}, format="json")
    assert started.status_code == 201, started.content
    run = Run.objects.get(pk=started.json()["id"])
    events: list[dict] = []
    handle = submit(run_definition(run), InProcess(), checkpoint_dir=str(tmp_path / "run"), on_event=events.append,
                    signer=signer_for(run))
    try:
        wait_until(lambda: any(event.get("status") == "RUNNING" for event in events), 120, "the job to run")
        time.sleep(0.4)  # let the source move on: the savepoint holds windows
        location = handle.trigger_savepoint(str(tmp_path / "savepoints")).result(timeout=120)
    finally:
        handle.cancel()
        handle.wait(120)
    checkpoint_id = load_checkpoint_metadata(location)["checkpoint_id"]
    Checkpoint.objects.create(run=run, checkpoint_id=checkpoint_id, kind="savepoint", status="COMPLETED",
                              trigger_timestamp=1, external_path=location)
    state = f"/api/runs/{run.pk}/checkpoints/{checkpoint_id}/state/operators"
    splits = api.get(f"{state}/gen/keys", {"limit": 1000}).json()["rows"]
    shown = api.get(f"{state}/win/keys", {"limit": 1000}).json()["rows"]
    assert shown and {row["key"]: row["state"] for row in shown} == sliding_panes(emitted(splits))
    assert all(pane["window"][1] - pane["window"][0] == SIZE_MS for row in shown for pane in row["state"]["panes"])
