"""transform.python is for trusted users: without the permission, saving, running and previewing a
pipeline with one is a 403 naming the node; reading, validating and diffing stay open."""
import pytest
from django.contrib.auth.models import Permission

from studio.models import Pipeline
from tests.support import simple_pipeline

pytestmark = pytest.mark.django_db

CODE = "def process(records):\n    return [r + 1 for r in records]\n"


def with_python(code: str = CODE) -> dict:
    definition = simple_pipeline(count=5)
    definition["nodes"][1] = {"id": "double", "type": "transform.python", "params": {"code": code}}
    return definition


def allow(user, allowed: bool = True) -> None:
    permission = Permission.objects.get(codename="run_python_code", content_type__app_label="studio")
    (user.user_permissions.add if allowed else user.user_permissions.remove)(permission)


def assert_refused(response, node: str = "double") -> None:
    assert response.status_code == 403, response.content
    body = response.json()
    assert f"node '{node}'" in body["detail"] and "studio.run_python_code" in body["detail"]
    assert [(e["node"], e["field"]) for e in body["errors"]] == [(node, "type")]
    assert body["errors"][0]["message"].startswith(f"node '{node}' runs Python code")  # what the editor shows


def test_a_user_without_the_permission_may_not_save_a_python_node(api):
    assert_refused(api.post("/api/pipelines", {"name": "py", "definition": with_python()}, format="json"))
    assert not Pipeline.objects.exists()
    assert_refused(api.post("/api/pipelines/import", {"definition": with_python()}, format="json"))


def test_saving_running_and_previewing_need_the_permission_reading_and_diffing_do_not(api, user):
    allow(user)
    created = api.post("/api/pipelines", {"name": "py", "definition": with_python()}, format="json")
    assert created.status_code == 201, created.content
    pipeline = created.json()["id"]
    changed = api.put(f"/api/pipelines/{pipeline}", {"definition": with_python(CODE.replace("+ 1", "+ 2"))},
                      format="json")
    assert changed.status_code == 200, changed.content
    preview = api.post("/api/preview", {"definition": with_python(), "limit": 5}, format="json")
    assert preview.status_code == 200 and preview.json()["nodes"]["double"]["records"] == [1, 2, 3, 4, 5]

    allow(user, False)  # the grant is withdrawn: what runs code is refused, the rest stays open
    assert_refused(api.put(f"/api/pipelines/{pipeline}", {"definition": with_python()}, format="json"))
    assert_refused(api.post(f"/api/pipelines/{pipeline}/runs", {}, format="json"))
    assert_refused(api.post(f"/api/pipelines/{pipeline}/rollback", {"version": 1}, format="json"))
    assert_refused(api.post("/api/preview", {"definition": with_python(), "limit": 5}, format="json"))
    assert api.get(f"/api/pipelines/{pipeline}").status_code == 200
    assert api.post("/api/pipelines/validate", {"definition": with_python()}, format="json").status_code == 200
    diff = api.get(f"/api/pipelines/{pipeline}/diff").json()
    assert "+ 2" in str(diff) and "+ 1" in str(diff)  # the code is stored with the version and diffed
    assert api.get(f"/api/pipelines/{pipeline}/versions/2").json()["definition"]["nodes"][1]["params"]["code"] \
        == CODE.replace("+ 1", "+ 2")


def test_pipelines_without_python_nodes_need_no_permission(api):
    response = api.post("/api/pipelines", {"name": "plain", "definition": simple_pipeline()}, format="json")
    assert response.status_code == 201
