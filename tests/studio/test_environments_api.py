"""Environments, promotions and secrets (tag "environments") over REST: parameters filled in when a run starts
and checked then, promotion with an approval by a second user who holds the environment's approval role on the
pipeline (a team role, as ``studio.access`` says), secrets that are never answered, and hostile second users
(strangers, a viewer of the team, a member of a team the pipeline is shared with as viewer, a member whose role
was lowered) who can neither see, approve nor use any of it."""
from __future__ import annotations

import json

import pytest

from studio.environments.models import EnvironmentRun, PromotedVersion, Secret
from studio.environments.values import SECRETS
from studio.models import PipelineVersion, Run
from studio.secret_box import unseal
from tests.support import simple_pipeline, token_client

pytestmark = pytest.mark.django_db

SECRET_VALUE = "hunter2-S3cr3t/+value"


@pytest.fixture(autouse=True)
def no_launch(monkeypatch):
    """Runs are created, not launched: the driver's part is tested apart (test_environments_live)."""
    from studio.runs.tasks import launch_run

    monkeypatch.setattr(launch_run, "delay", lambda run_id: None)


@pytest.fixture
def approver(django_user_model):
    return django_user_model.objects.create_user("carol", password="carol-password")


@pytest.fixture
def approver_api(approver):
    return token_client(approver)


def into_team(api, pipeline_id: int, members: dict[str, str], name: str = "payments") -> int:
    """A team of the caller's (its admin) with ``members`` ({username: role}), owning the pipeline."""
    team = api.post("/api/teams", {"name": name}, format="json")
    assert team.status_code == 201, team.content
    for username, role in members.items():
        added = api.post(f"/api/teams/{team.json()['id']}/members", {"username": username, "role": role}, format="json")
        assert added.status_code == 201, added.content
    moved = api.post(f"/api/pipelines/{pipeline_id}/team", {"team": team.json()["id"]}, format="json")
    assert moved.status_code == 200, moved.content
    return team.json()["id"]


def parameterised(name: str = "scaled") -> dict:
    """datagen -> map -> collect whose count, factor and parallelism come from the environment."""
    definition = simple_pipeline(count=None, expression="x * ${param:factor}", name=name)
    definition["parallelism"] = "${param:parallelism}"
    definition["nodes"][0]["params"]["count"] = "${param:count}"
    return definition


def environment(api, name: str, position: int, **body) -> dict:
    response = api.post("/api/environments", {"name": name, "position": position, **body}, format="json")
    assert response.status_code == 201, response.content
    return response.json()


def pipeline(api, definition: dict) -> dict:
    response = api.post("/api/pipelines", {"name": definition["name"], "definition": definition}, format="json")
    assert response.status_code == 201, response.content
    return response.json()


def start(api, pipeline_id: int, **body):
    return api.post(f"/api/pipelines/{pipeline_id}/runs", body, format="json")


def errors_of(response) -> list[tuple]:
    return [(error["node"], error["field"], error["message"]) for error in response.json().get("errors", [])]


def test_a_definition_with_parameters_saves_and_runs_only_in_an_environment_that_gives_them(api):
    saved = pipeline(api, parameterised())  # saved as written: the references are checked when a run starts
    assert saved["definition"]["nodes"][0]["params"]["count"] == "${param:count}"

    without = start(api, saved["id"])
    assert without.status_code == 400
    assert ("gen", "params.count", "unknown parameter 'count': start the run in an environment that defines it") \
        in errors_of(without)
    assert (None, "parallelism", "unknown parameter 'parallelism': start the run in an environment that defines "
                                 "it") in errors_of(without)

    environment(api, "dev", 0, parameters={"factor": 3, "count": 50})
    missing = start(api, saved["id"], environment="dev")
    assert missing.status_code == 400
    assert errors_of(missing) == [(None, "parallelism", "unknown parameter 'parallelism': environment 'dev' does not "
                                                        "define it (it defines count, factor)")]

    api.patch(f"/api/environments/{api.get('/api/environments').json()[0]['id']}",
              {"parameters": {"factor": 3, "count": 50, "parallelism": 2}}, format="json")
    started = start(api, saved["id"], environment="dev")
    assert started.status_code == 201, started.content
    run_id = started.json()["id"]
    bound = EnvironmentRun.objects.get(run_id=run_id)
    assert (bound.environment_name, bound.parameters) == ("dev", {"factor": 3, "count": 50, "parallelism": 2})
    assert api.get(f"/api/runs/{run_id}/environment").json() == {
        "environment": "dev", "parameters": {"factor": 3, "count": 50, "parallelism": 2}}
    # the plan is made of the filled-in definition: parallelism 2 from dev
    from studio.run_values import planned_definition

    assert planned_definition(Run.objects.get(pk=run_id))["parallelism"] == 2
    assert [run["run"] for run in api.get(f"/api/environments/{bound.environment_id}/runs").json()] == [run_id]


def test_a_parameter_that_gives_a_field_a_bad_value_is_a_400_naming_the_node_and_field(api):
    saved = pipeline(api, parameterised())
    environment(api, "dev", 0, parameters={"factor": "'x' +", "count": -5, "parallelism": 1})
    response = start(api, saved["id"], environment="dev")
    assert response.status_code == 400
    located = {(node, field) for node, field, _ in errors_of(response)}
    assert {("gen", "params.count"), ("double", "params.expression")} <= located


def test_unknown_environments_and_other_users_environments_are_404s(api, other_api):
    saved = pipeline(api, parameterised())
    assert start(api, saved["id"], environment="nowhere").status_code == 404
    theirs = environment(other_api, "prod", 0, parameters={"factor": 1, "count": 1, "parallelism": 1})
    assert start(api, saved["id"], environment="prod").status_code == 404
    assert api.get(f"/api/environments/{theirs['id']}").status_code == 404
    assert api.patch(f"/api/environments/{theirs['id']}", {"parameters": {}}, format="json").status_code == 404
    assert api.get("/api/environments").json() == []


@pytest.mark.parametrize("body, field", [
    ({"name": "9 bad"}, "name"),
    ({"name": "dev", "parameters": {"bad name": 1}}, "parameters.bad name"),
    ({"name": "dev", "parameters": {"nested": {"a": 1}}}, "parameters"),  # DRF names the dict, its detail the key
    ({"name": "dev", "parameters": {"chain": "${param:other}"}}, "parameters.chain"),
    ({"name": "dev", "requires_approval": True, "approval_role": "boss"}, "approval_role"),
    ({"name": "dev", "approval_role": 3}, "approval_role"),
])
def test_bad_environments_are_400s_naming_the_field(api, user, body, field):
    response = api.post("/api/environments", body, format="json")
    assert response.status_code == 400, response.content
    answer = response.json()
    named = set(answer.get("fields", {})) | {error["field"] for error in answer.get("errors", [])}
    assert field in named, answer


def test_promotion_from_dev_to_prod_waits_for_a_second_user_and_only_then_runs_there(
        api, other_api, approver_api, approver):
    saved = pipeline(api, parameterised())
    into_team(api, saved["id"], {"carol": "operator"})
    dev = environment(api, "dev", 0, parameters={"factor": 2, "count": 10, "parallelism": 1})
    prod = environment(api, "prod", 1, parameters={"factor": 5, "count": 1000, "parallelism": 2},
                       requires_approval=True)
    assert prod["approval_role"] == "operator"  # the default
    ask = {"pipeline": saved["id"], "version": 1, "environment": prod["id"]}

    not_in_dev = api.post("/api/promotions", ask, format="json")
    assert not_in_dev.status_code == 409
    assert "not in 'dev', the environment before 'prod'" in not_in_dev.json()["detail"]
    into_dev = api.post("/api/promotions", {**ask, "environment": dev["id"]}, format="json").json()
    assert into_dev["status"] == "APPLIED"  # dev asks nobody

    preview = api.post("/api/promotions/preview", ask, format="json").json()
    assert {change["name"]: (change["source"], change["target"]) for change in preview["parameters"]} == {
        "count": (10, 1000), "factor": (2, 5), "parallelism": (1, 2)}
    asked = api.post("/api/promotions", {**ask, "message": "ship it"}, format="json")
    assert asked.status_code == 201, asked.content
    promotion = asked.json()
    assert (promotion["status"], promotion["source"], promotion["target"], promotion["approval_role"]) == (
        "PENDING", "dev", "prod", "operator")
    assert promotion["diff"]["from_version"] is None and promotion["diff"]["to_version"] == 1

    # not yet in prod: a run there is refused
    refused = start(api, saved["id"], environment="prod")
    assert refused.status_code == 409 and "not promoted to 'prod'" in refused.json()["detail"]
    # the user who asked may not approve; a stranger does not even see it
    mine = api.post(f"/api/promotions/{promotion['id']}/approve", {}, format="json")
    assert mine.status_code == 403 and "second user" in mine.json()["detail"]
    assert other_api.post(f"/api/promotions/{promotion['id']}/approve", {}, format="json").status_code == 404
    assert other_api.get(f"/api/promotions/{promotion['id']}").status_code == 404
    # carol, an operator of the pipeline's team, sees it, with its diff, and approves it
    pending = approver_api.get("/api/promotions", {"status": "PENDING"}).json()
    assert [(item["id"], item["can_decide"]) for item in pending] == [(promotion["id"], True)]
    approved = approver_api.post(f"/api/promotions/{promotion['id']}/approve", {"comment": "looks right"},
                                 format="json")
    assert approved.status_code == 200, approved.content
    assert (approved.json()["status"], approved.json()["decided_by"], approved.json()["comment"]) == (
        "APPLIED", "carol", "looks right")
    assert approver_api.post(f"/api/promotions/{promotion['id']}/approve", {}, format="json").status_code == 409
    # the approver sees prod but may not change it, nor run in it
    assert approver_api.get(f"/api/environments/{prod['id']}").status_code == 200
    assert approver_api.patch(f"/api/environments/{prod['id']}", {"parameters": {}}, format="json").status_code == 403

    assert PromotedVersion.objects.get(environment_id=prod["id"]).version.number == 1
    run = start(api, saved["id"], environment="prod")
    assert run.status_code == 201, run.content
    assert EnvironmentRun.objects.get(run_id=run.json()["id"]).parameters["factor"] == 5  # prod's, not dev's
    # a newer version runs in dev at once, but not in prod until it is promoted and approved
    newer = parameterised()
    newer["nodes"][1]["params"]["expression"] = "x * ${param:factor} + 1"
    api.put(f"/api/pipelines/{saved['id']}", {"definition": newer, "message": "plus one"}, format="json")
    assert start(api, saved["id"], environment="dev").status_code == 201
    assert start(api, saved["id"], environment="prod").status_code == 409
    history = api.get(f"/api/environments/{prod['id']}/versions").json()
    assert [(item["pipeline"], item["version"]) for item in history] == [(saved["id"], 1)]


def test_a_rejected_promotion_changes_nothing_and_says_who_rejected_it(api, approver_api):
    saved = pipeline(api, parameterised())
    into_team(api, saved["id"], {"carol": "admin"})  # a stronger role than asked decides too
    environment(api, "dev", 0, parameters={"factor": 2, "count": 10, "parallelism": 1},
                requires_approval=True, approval_role="operator")
    dev = api.get("/api/environments").json()[0]
    promotion = api.post("/api/promotions", {"pipeline": saved["id"], "version": 1, "environment": dev["id"]},
                         format="json").json()
    rejected = approver_api.post(f"/api/promotions/{promotion['id']}/reject", {"comment": "no"}, format="json").json()
    assert (rejected["status"], rejected["decided_by"]) == ("REJECTED", "carol")
    assert not PromotedVersion.objects.exists()
    assert start(api, saved["id"], environment="dev").status_code == 409


def test_approval_is_a_team_role_on_the_pipeline_and_hostile_users_cannot_approve(
        api, approver, approver_api, other_api, django_user_model):
    """Only a user holding the approval role on the promoted pipeline decides, checked at every decision."""
    users = {name: django_user_model.objects.create_user(name, password=f"{name}-password")
             for name in ("dave", "erin", "mallory")}
    dave, erin, mallory = (token_client(users[name]) for name in ("dave", "erin", "mallory"))
    saved = pipeline(api, parameterised())
    team_id = into_team(api, saved["id"], {"carol": "operator", "dave": "viewer"})
    auditors = api.post("/api/teams", {"name": "auditors"}, format="json").json()["id"]
    assert api.post(f"/api/teams/{auditors}/members", {"username": "erin", "role": "admin"},
                    format="json").status_code == 201
    shared = api.post(f"/api/pipelines/{saved['id']}/team-shares", {"team": "auditors", "role": "viewer"},
                      format="json")
    assert shared.status_code == 201, shared.content  # erin: admin of a team the pipeline is shared with as viewer
    prod = environment(api, "prod", 0, parameters={"factor": 5, "count": 10, "parallelism": 1},
                       requires_approval=True, approval_role="operator")
    promotion = api.post("/api/promotions", {"pipeline": saved["id"], "version": 1, "environment": prod["id"]},
                         format="json").json()
    url = f"/api/promotions/{promotion['id']}"

    for hostile in (other_api, dave, erin, mallory):  # none of them holds operator on the pipeline
        assert hostile.get(url).status_code == 404
        assert hostile.get(f"/api/environments/{prod['id']}").status_code == 404
        assert hostile.post(f"{url}/approve", {}, format="json").status_code == 404
        assert hostile.post(f"{url}/reject", {}, format="json").status_code == 404
        assert hostile.get("/api/promotions").json() == []
    mine = api.post(f"{url}/approve", {}, format="json")  # the owner holds admin, but asked
    assert mine.status_code == 403 and "second user" in mine.json()["detail"]
    assert approver_api.get(url).json()["can_decide"] is True

    # carol's role lowered to viewer after she saw it: the next request decides nothing
    member = next(item for item in api.get(f"/api/teams/{team_id}/members").json() if item["username"] == "carol")
    assert api.put(f"/api/teams/{team_id}/members/{member['id']}", {"role": "viewer"}, format="json").status_code == 200
    assert approver_api.post(f"{url}/approve", {}, format="json").status_code == 404
    # an environment asking only an editor: a viewer still may not, but with the role back she may
    api.patch(f"/api/environments/{prod['id']}", {"approval_role": "editor"}, format="json")
    assert approver_api.post(f"{url}/approve", {}, format="json").status_code == 404
    assert api.put(f"/api/teams/{team_id}/members/{member['id']}", {"role": "editor"}, format="json").status_code == 200
    approved = approver_api.post(f"{url}/approve", {"comment": "ok"}, format="json")
    assert approved.status_code == 200 and approved.json()["decided_by"] == "carol", approved.content
    assert PromotedVersion.objects.get(environment_id=prod["id"]).version.number == 1
    assert all(PromotedVersion.objects.filter(promotion__decided_by=user).count() == 0 for user in users.values())


def test_a_user_who_sees_the_pipeline_but_lacks_the_role_is_told_why(api, approver, approver_api):
    saved = pipeline(api, parameterised())
    into_team(api, saved["id"], {"carol": "operator"})
    prod = environment(api, "prod", 0, parameters={"factor": 5, "count": 10, "parallelism": 1},
                       requires_approval=True, approval_role="admin")
    promotion = api.post("/api/promotions", {"pipeline": saved["id"], "version": 1, "environment": prod["id"]},
                         format="json").json()
    api.patch(f"/api/environments/{prod['id']}", {"approval_role": "operator"}, format="json")
    assert approver_api.get(f"/api/promotions/{promotion['id']}").status_code == 200
    api.patch(f"/api/environments/{prod['id']}", {"approval_role": "admin"}, format="json")
    from studio.environments.access import may_approve
    from studio.environments.models import Promotion

    why = may_approve(approver, Promotion.objects.get(pk=promotion["id"]))
    assert why == ("deciding a promotion into 'prod' needs the admin role (or a stronger one) on pipeline 'scaled'; "
                   "you hold the operator role there")


def test_a_promotion_into_an_environment_without_a_parameter_the_version_names_is_a_400(api):
    saved = pipeline(api, parameterised())
    dev = environment(api, "dev", 0, parameters={"factor": 2})
    response = api.post("/api/promotions", {"pipeline": saved["id"], "version": 1, "environment": dev["id"]},
                        format="json")
    assert response.status_code == 400
    assert ("gen", "params.count", "environment 'dev' has no parameter 'count'") in errors_of(response)


# --- secrets ----------------------------------------------------------------------------------


def test_a_secret_is_kept_encrypted_and_no_answer_ever_carries_it(api, user):
    created = api.post("/api/secrets", {"name": "token", "value": SECRET_VALUE, "description": "the API token"},
                       format="json")
    assert created.status_code == 201, created.content
    assert created.json()["reference"] == "${secret:token}"
    secret = Secret.objects.get(owner=user, name="token")
    assert SECRET_VALUE not in secret.sealed and unseal(secret.sealed, SECRETS) == SECRET_VALUE
    answers = [created, api.get("/api/secrets"), api.get(f"/api/secrets/{secret.pk}"),
               api.patch(f"/api/secrets/{secret.pk}", {"value": SECRET_VALUE + "2"}, format="json"),
               api.patch(f"/api/secrets/{secret.pk}", {"description": "rotated"}, format="json")]
    for answer in answers:
        assert answer.status_code in (200, 201)
        assert "value" not in json.dumps(answer.json()).replace('"name"', ""), answer.json()
        assert SECRET_VALUE not in answer.content.decode()
    assert unseal(Secret.objects.get(pk=secret.pk).sealed, SECRETS) == SECRET_VALUE + "2"


@pytest.mark.parametrize("body, field", [
    ({"name": "token"}, "value"),
    ({"name": "token", "value": ""}, "value"),
    ({"name": "bad name", "value": "x"}, "name"),
    ({"name": "token", "value": 5}, "value"),
])
def test_bad_secrets_are_400s_naming_the_field(api, body, field):
    response = api.post("/api/secrets", body, format="json")
    assert response.status_code == 400, response.content
    answer = response.json()
    assert field in set(answer.get("fields", {})) | {error["field"] for error in answer.get("errors", [])}


def test_another_user_can_neither_read_change_nor_use_my_secret(api, other_api, other_user):
    mine = api.post("/api/secrets", {"name": "token", "value": SECRET_VALUE}, format="json").json()
    assert other_api.get(f"/api/secrets/{mine['id']}").status_code == 404
    assert other_api.patch(f"/api/secrets/{mine['id']}", {"value": "x"}, format="json").status_code == 404
    assert other_api.delete(f"/api/secrets/{mine['id']}").status_code == 404
    assert other_api.get("/api/secrets").json() == []
    # their pipeline naming my secret does not start: the name is looked up among their own secrets only
    definition = simple_pipeline(expression="x if '${secret:token}' != '' else 0", name="thief")
    theirs = pipeline(other_api, definition)
    refused = start(other_api, theirs["id"])
    assert refused.status_code == 400
    assert errors_of(refused) == [("double", "params.expression", "unknown secret 'token': no secret of that name "
                                                                  "is yours")]
    # nor through an environment's parameter
    environment(other_api, "prod", 0, parameters={"password": "${secret:token}"})
    uses_parameter = simple_pipeline(expression="x if '${param:password}' != '' else 0", name="thief2")
    refused = start(other_api, pipeline(other_api, uses_parameter)["id"], environment="prod")
    assert refused.status_code == 400 and "unknown secret 'token'" in refused.content.decode()
    # and a run of my pipeline that they may run gets their secrets, not mine
    from studio.run_values import ValuesRefused, driver_definition

    mine_pipeline = pipeline(api, definition)
    version = PipelineVersion.objects.get(pipeline_id=mine_pipeline["id"])
    run = Run.objects.create(pipeline_id=mine_pipeline["id"], version=version, created_by=other_user)
    with pytest.raises(ValuesRefused, match="unknown secret 'token'"):
        driver_definition(run)


def test_the_driver_alone_fills_secrets_in_and_masks_them(api, user):
    from studio.run_values import driver_definition, planned_definition
    from studio.secret_masking import MASK, SecretMask

    api.post("/api/secrets", {"name": "token", "value": SECRET_VALUE}, format="json")
    environment(api, "dev", 0, parameters={"auth": "Bearer ${secret:token}"})
    definition = simple_pipeline(expression="x if len('${param:auth}') > 0 else 0", name="authed")
    saved = pipeline(api, definition)
    run_id = start(api, saved["id"], environment="dev").json()["id"]
    run = Run.objects.get(pk=run_id)
    assert SECRET_VALUE not in json.dumps(planned_definition(run))
    filled, values = driver_definition(run)
    assert filled["nodes"][1]["params"]["expression"] == f"x if len('Bearer {SECRET_VALUE}') > 0 else 0"
    assert values == [SECRET_VALUE]
    assert SecretMask(values).data({"cause": f"failed on Bearer {SECRET_VALUE}"}) == {"cause": f"failed on Bearer {MASK}"}
    assert SECRET_VALUE not in api.get(f"/api/runs/{run_id}").content.decode()
