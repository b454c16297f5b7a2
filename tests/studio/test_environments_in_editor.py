"""What the editor's environment picker asks of the API: the environments a user may use (not those he only
approves for), validation of a draft with an environment's values filled in (a parameter the environment lacks
is a problem naming it and the environment, at its node and field; a value of the wrong type is the field's
problem), and a preview that says whose values it ran with."""
from __future__ import annotations

import pytest

from tests.support import simple_pipeline, token_client

pytestmark = [pytest.mark.django_db, pytest.mark.timeout(120)]


def parameterised() -> dict:
    definition = simple_pipeline(count=None, expression="x * ${param:factor}", name="scaled")
    definition["parallelism"] = "${param:parallelism}"
    definition["nodes"][0]["params"]["count"] = "${param:count}"
    return definition


def environment(api, name: str, position: int = 0, **body) -> dict:
    response = api.post("/api/environments", {"name": name, "position": position, **body}, format="json")
    assert response.status_code == 201, response.content
    return response.json()


def validate(api, definition: dict, **body):
    return api.post("/api/pipelines/validate", {"definition": definition, **body}, format="json")


def errors_of(response) -> list[tuple]:
    return [(error["node"], error["field"], error["message"]) for error in response.json().get("errors", [])]


def test_the_picker_lists_the_environments_a_user_may_use_not_those_he_only_approves_for(api, django_user_model):
    carol = django_user_model.objects.create_user("carol", password="carol-password")
    carol_api = token_client(carol)
    definition = parameterised()
    saved = api.post("/api/pipelines", {"name": "scaled", "definition": definition}, format="json").json()
    team = api.post("/api/teams", {"name": "payments"}, format="json").json()
    api.post(f"/api/teams/{team['id']}/members", {"username": "carol", "role": "operator"}, format="json")
    api.post(f"/api/pipelines/{saved['id']}/team", {"team": team["id"]}, format="json")
    dev = environment(api, "dev", 0, parameters={"factor": 2, "count": 3, "parallelism": 1})
    prod = environment(api, "prod", 1, parameters={"factor": 5, "count": 3, "parallelism": 1}, requires_approval=True)
    for target in (dev, prod):
        asked = api.post("/api/promotions", {"pipeline": saved["id"], "version": 1, "environment": target["id"]},
                         format="json")
        assert asked.status_code == 201, asked.content

    assert [found["name"] for found in api.get("/api/environments", {"usable": "true"}).json()] == ["dev", "prod"]
    assert [found["name"] for found in carol_api.get("/api/environments").json()] == ["prod"]  # she approves for it
    assert carol_api.get("/api/environments", {"usable": "true"}).json() == []  # but may not run in it
    refused = api.get("/api/environments", {"usable": "maybe"})
    assert refused.status_code == 400 and "usable" in refused.json()["detail"]


def test_validation_in_an_environment_names_each_parameter_it_lacks_and_checks_the_values(api, other_api):
    definition = parameterised()
    environment(api, "dev", 0, parameters={"factor": 2, "count": 10, "parallelism": 1})
    environment(api, "thin", 1, parameters={"factor": 2})
    environment(api, "typo", 2, parameters={"factor": 2, "count": "ten", "parallelism": 1})

    as_written = validate(api, definition)
    assert as_written.json()["valid"] is True, as_written.content  # references are left to a run
    assert validate(api, definition, environment="").json()["valid"] is True
    in_dev = validate(api, definition, environment="dev")
    assert in_dev.status_code == 200 and in_dev.json()["valid"] is True, in_dev.content

    thin = validate(api, definition, environment="thin")
    assert thin.status_code == 200 and thin.json()["valid"] is False
    assert sorted(errors_of(thin), key=str) == sorted([
        (None, "parallelism", "unknown parameter 'parallelism': environment 'thin' does not define it "
                              "(it defines factor)"),
        ("gen", "params.count", "unknown parameter 'count': environment 'thin' does not define it (it defines factor)"),
    ], key=str)

    typo = validate(api, definition, environment="typo")  # filled in, the value is checked where it is used
    assert typo.json()["valid"] is False
    assert [(node, field) for node, field, _ in errors_of(typo)] == [("gen", "params.count")]

    unknown = validate(api, definition, environment="staging")
    assert unknown.status_code == 404 and "no environment 'staging'" in unknown.json()["detail"]
    theirs = validate(other_api, definition, environment="dev")
    assert theirs.status_code == 404 and "no environment 'dev'" in theirs.json()["detail"]


def test_validation_in_an_environment_checks_the_secrets_its_values_name_are_yours(api):
    environment(api, "dev", 0, parameters={"factor": 2, "count": 3, "parallelism": 1, "auth": "${secret:nope}"})
    definition = parameterised()
    definition["nodes"][1]["params"]["expression"] = "x * ${param:factor} if '${param:auth}' else 0"
    answer = validate(api, definition, environment="dev")
    assert answer.json()["valid"] is False
    assert [(node, field) for node, field, _ in errors_of(answer)] == [("double", "params.expression")]
    assert "no secret of that name is yours" in errors_of(answer)[0][2]


def test_a_preview_says_whose_values_it_ran_with(api):
    environment(api, "dev", 0, parameters={"factor": 2, "count": 4, "parallelism": 1})
    in_dev = api.post("/api/preview", {"definition": parameterised(), "limit": 10, "environment": "dev"},
                      format="json")
    assert in_dev.status_code == 200, in_dev.content
    assert in_dev.json()["environment"] == "dev" and in_dev.json()["nodes"]["double"]["records"] == [0, 2, 4, 6]
    plain = api.post("/api/preview", {"definition": simple_pipeline(count=2), "limit": 10}, format="json")
    assert plain.status_code == 200 and plain.json()["environment"] is None
