"""Auth: sessions with CSRF for the browser, named tokens for scripts, and who may see and do what."""
import pytest
from django.contrib.auth.models import Group
from rest_framework.test import APIClient

from studio.models import ApiToken, Checkpoint
from studio.runs.events import record_event, set_status
from tests.support import simple_pipeline

pytestmark = pytest.mark.django_db


def create_pipeline(api):
    response = api.post("/api/pipelines", {"name": "mine", "definition": simple_pipeline()}, format="json")
    assert response.status_code == 201, response.content
    return response.json()


@pytest.mark.parametrize("method, path", [
    ("get", "/api/operators"), ("get", "/api/pipelines"), ("post", "/api/pipelines"), ("get", "/api/runs"),
    ("get", "/api/runs/1"), ("get", "/api/runs/1/checkpoints"), ("get", "/api/auth/me"),
    ("get", "/api/auth/tokens"), ("post", "/api/preview"), ("delete", "/api/savepoints/1"),
])
def test_anonymous_requests_are_401_with_a_token_challenge(method, path):
    response = getattr(APIClient(), method)(path, {}, format="json")
    assert response.status_code == 401, path
    assert response.json() == {"detail": "Authentication credentials were not provided."}
    assert response["WWW-Authenticate"] == "Token"


def test_health_and_schema_need_no_login():
    assert APIClient().get("/api/health").json() == {"status": "ok",
                                                     "dependencies": {"database": "ok", "redis": "ok"}}
    assert APIClient().get("/api/schema/").status_code == 200


def test_session_login_me_csrf_and_logout(user):
    browser = APIClient(enforce_csrf_checks=True)
    wrong = browser.post("/api/auth/login", {"username": "alice", "password": "nope"}, format="json")
    assert wrong.status_code == 401 and wrong.json()["detail"] == "wrong username or password"
    response = browser.post("/api/auth/login", {"username": "alice", "password": "alice-password"}, format="json")
    assert response.status_code == 200
    assert response.json() == {"id": user.id, "username": "alice", "is_superuser": False, "groups": []}
    assert "sessionid" in response.cookies and "csrftoken" in response.cookies
    assert browser.get("/api/auth/me").json()["username"] == "alice"
    # an unsafe request of a session needs the CSRF token the page read from its cookie
    no_csrf = browser.post("/api/pipelines", {"definition": simple_pipeline()}, format="json")
    assert no_csrf.status_code == 403 and "CSRF" in no_csrf.json()["detail"]
    csrf = browser.cookies["csrftoken"].value
    created = browser.post("/api/pipelines", {"definition": simple_pipeline()}, format="json", HTTP_X_CSRFTOKEN=csrf)
    assert created.status_code == 201
    assert browser.post("/api/auth/logout", HTTP_X_CSRFTOKEN=csrf).status_code == 204
    assert browser.get("/api/auth/me").status_code == 401


def test_login_takes_json_only_and_is_throttled(user, settings):
    settings.STUDIO_THROTTLE_RATES = {**settings.STUDIO_THROTTLE_RATES, "login": "3/min"}
    client = APIClient()
    form = client.post("/api/auth/login", {"username": "alice", "password": "alice-password"})
    assert form.status_code == 415  # a cross-site HTML form cannot log anyone in
    codes = [client.post("/api/auth/login", {"username": "alice", "password": "x"}, format="json").status_code
             for _ in range(3)]
    assert codes == [401, 401, 429]


def test_tokens_are_created_shown_once_listed_and_revoked(user):
    session = APIClient()
    session.force_login(user)
    created = session.post("/api/auth/tokens", {"name": "ci"}, format="json")
    assert created.status_code == 201
    body = created.json()
    assert body["name"] == "ci" and len(body["key"]) == 40 and body["prefix"] == body["key"][:8]
    assert ApiToken.objects.get(pk=body["id"]).key_hash != body["key"]  # only the hash is stored
    listed = session.get("/api/auth/tokens").json()
    assert [(t["id"], t["name"]) for t in listed] == [(body["id"], "ci")] and "key" not in listed[0]
    script = APIClient()
    script.credentials(HTTP_AUTHORIZATION=f"Token {body['key']}")
    assert script.get("/api/auth/me").json()["username"] == "alice"
    assert ApiToken.objects.get(pk=body["id"]).last_used_at is not None
    assert session.delete(f"/api/auth/tokens/{body['id']}").status_code == 204
    revoked = script.get("/api/auth/me")
    assert revoked.status_code == 401 and revoked.json()["detail"] == "Invalid or revoked token."
    assert session.post("/api/auth/tokens", {}, format="json").status_code == 400


def test_a_user_cannot_see_or_revoke_another_users_tokens(api, other_api):
    mine = api.post("/api/auth/tokens", {"name": "mine"}, format="json").json()
    assert all(t["name"] != "mine" for t in other_api.get("/api/auth/tokens").json())
    assert other_api.delete(f"/api/auth/tokens/{mine['id']}").status_code == 404


def test_other_users_pipelines_runs_and_checkpoints_are_invisible(api, other_api):
    pipeline = create_pipeline(api)
    run = api.post(f"/api/pipelines/{pipeline['id']}/runs", {}, format="json").json()
    record_event(run["id"], "checkpoint", {"event": "triggered", "id": 1, "trigger_timestamp": 1})
    assert other_api.get("/api/pipelines").json() == []
    assert other_api.get("/api/runs").json()["count"] == 0
    for path in (f"/api/pipelines/{pipeline['id']}", f"/api/pipelines/{pipeline['id']}/versions",
                 f"/api/pipelines/{pipeline['id']}/runs", f"/api/pipelines/{pipeline['id']}/export",
                 f"/api/runs/{run['id']}", f"/api/runs/{run['id']}/events", f"/api/runs/{run['id']}/checkpoints",
                 f"/api/runs/{run['id']}/checkpoints/1", f"/api/runs/{run['id']}/metrics",
                 f"/api/runs/{run['id']}/savepoints"):
        assert other_api.get(path).status_code == 404, path
    assert other_api.put(f"/api/pipelines/{pipeline['id']}", {"definition": simple_pipeline()},
                         format="json").status_code == 404
    assert other_api.post(f"/api/runs/{run['id']}/cancel").status_code == 404
    assert other_api.post(f"/api/pipelines/{pipeline['id']}/runs", {}, format="json").status_code == 404
    assert other_api.delete(f"/api/pipelines/{pipeline['id']}").status_code == 404


def test_restoring_from_another_users_checkpoint_is_refused(api, other_api, tmp_path):
    pipeline = create_pipeline(api)
    run = api.post(f"/api/pipelines/{pipeline['id']}/runs", {}, format="json").json()
    checkpoint = Checkpoint.objects.create(run_id=run["id"], checkpoint_id=1, status="COMPLETED",
                                           trigger_timestamp=1, external_path=str(tmp_path))
    theirs = create_pipeline(other_api)
    response = other_api.post(f"/api/pipelines/{theirs['id']}/runs", {"restore_from": {"pk": checkpoint.pk}},
                              format="json")
    assert response.status_code == 400 and "no checkpoint" in response.json()["detail"]


@pytest.mark.parametrize("permissions, can_edit, can_run", [
    (["view"], False, False), (["view", "edit"], True, False), (["run"], False, True),
    (["edit", "run"], True, True),
])
def test_sharing_with_a_group_grants_view_and_optionally_edit_and_run(api, other_api, other_user, permissions,
                                                                      can_edit, can_run):
    pipeline = create_pipeline(api)
    run = api.post(f"/api/pipelines/{pipeline['id']}/runs", {}, format="json").json()
    group = Group.objects.create(name="team")
    other_user.groups.add(group)
    share = api.post(f"/api/pipelines/{pipeline['id']}/shares", {"group": "team", "permissions": permissions},
                     format="json")
    assert share.status_code == 201 and set(share.json()["permissions"]) == {"view", *permissions}

    assert [p["id"] for p in other_api.get("/api/pipelines").json()] == [pipeline["id"]]
    seen = other_api.get(f"/api/pipelines/{pipeline['id']}").json()
    assert set(seen["permissions"]) == {"view", *permissions} and seen["owner"] == "alice"
    assert other_api.get(f"/api/runs/{run['id']}").status_code == 200
    saved = other_api.put(f"/api/pipelines/{pipeline['id']}", {"definition": simple_pipeline()}, format="json")
    assert saved.status_code == (200 if can_edit else 403)
    rolled = other_api.post(f"/api/pipelines/{pipeline['id']}/rollback", {"version": 1}, format="json")
    assert rolled.status_code == (200 if can_edit else 403)
    started = other_api.post(f"/api/pipelines/{pipeline['id']}/runs", {}, format="json")
    assert started.status_code == (201 if can_run else 403)
    cancelled = other_api.post(f"/api/runs/{run['id']}/cancel")
    assert cancelled.status_code == (202 if can_run else 403)
    if not can_run:
        assert cancelled.json()["detail"] == f"you may not run pipeline {pipeline['id']}"
    # only the owner deletes and shares
    denied = other_api.delete(f"/api/pipelines/{pipeline['id']}")
    assert denied.status_code == 403 and "owner" in denied.json()["detail"]
    assert other_api.post(f"/api/pipelines/{pipeline['id']}/shares", {"group": "team"},
                          format="json").status_code == 403


def test_shares_are_listed_unique_and_removable(api, other_api, other_user):
    pipeline = create_pipeline(api)
    Group.objects.create(name="team").user_set.add(other_user)
    share = api.post(f"/api/pipelines/{pipeline['id']}/shares", {"group": "team"}, format="json").json()
    assert share["permissions"] == ["view"]
    assert api.post(f"/api/pipelines/{pipeline['id']}/shares", {"group": "team"}, format="json").status_code == 409
    assert api.post(f"/api/pipelines/{pipeline['id']}/shares", {"group": "nobody"}, format="json").status_code == 400
    assert [s["group"] for s in api.get(f"/api/pipelines/{pipeline['id']}/shares").json()] == ["team"]
    assert api.delete(f"/api/pipelines/{pipeline['id']}/shares/{share['id']}").status_code == 204
    assert other_api.get(f"/api/pipelines/{pipeline['id']}").status_code == 404


def test_superuser_sees_everything(api, django_user_model):
    from tests.support import token_client

    pipeline = create_pipeline(api)
    root = token_client(django_user_model.objects.create_superuser("root", password="x"))
    assert [p["id"] for p in root.get("/api/pipelines").json()] == [pipeline["id"]]
    run = root.post(f"/api/pipelines/{pipeline['id']}/runs", {}, format="json")
    assert run.status_code == 201
    set_status(run.json()["id"], "CANCELED")
