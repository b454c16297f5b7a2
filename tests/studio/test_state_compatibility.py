"""REST: whether a run's state fits another version (the check before an upgrade or rollback with state)."""
import pytest

from tests.support import simple_pipeline

pytestmark = pytest.mark.django_db


def create(api, name):
    return api.post("/api/pipelines", {"name": name, "definition": simple_pipeline()}, format="json").json()


def start(api, pipeline):
    return api.post(f"/api/pipelines/{pipeline['id']}/runs", {}, format="json").json()


def test_state_compatibility_before_an_upgrade(api):
    pipeline = create(api, "upgrade")
    run = start(api, pipeline)
    reduced = simple_pipeline()
    reduced["nodes"].insert(2, {"id": "sum", "type": "aggregate.reduce", "params": {"function": "sum"}})
    reduced["edges"] = [{"id": "e1", "from": "gen", "to": "double"},
                        {"id": "e2", "from": "double", "to": "sum", "partitioning": "hash", "key": "x % 2"},
                        {"id": "e3", "from": "sum", "to": "out"}]
    saved = api.put(f"/api/pipelines/{pipeline['id']}", {"definition": reduced}, format="json")
    assert saved.status_code == 200, saved.content
    check = api.get(f"/api/runs/{run['id']}/state-compatibility?version=2").json()
    assert (check["from"], check["to"], check["compatible"], check["needs_allow_non_restored_state"]) == (1, 2, True, False)
    assert (check["kept"], check["added"], check["dropped"]) == (["gen", "out"], ["sum"], [])

    summing = api.post(f"/api/pipelines/{pipeline['id']}/runs", {"version": 2}, format="json").json()
    renamed = {**reduced, "nodes": [dict(node) for node in reduced["nodes"]],
               "edges": [dict(edge) for edge in reduced["edges"]]}
    renamed["nodes"][0]["id"] = "source"
    renamed["edges"][0]["from"] = "source"
    renamed["nodes"][2].update(type="window.count", params={"size": 3})
    assert api.put(f"/api/pipelines/{pipeline['id']}", {"definition": renamed}, format="json").status_code == 200
    check = api.get(f"/api/runs/{summing['id']}/state-compatibility?version=3").json()
    assert check["compatible"] is False and check["changed_type"] == ["sum"] and check["dropped"] == ["gen"]
    assert "sum changed operator type" in check["message"]
    assert api.get(f"/api/runs/{run['id']}/state-compatibility?version=9").status_code == 404
    assert api.get(f"/api/runs/{run['id']}/state-compatibility").status_code == 400
