"""REST: versions, diff, rollback, import/export, plan, delete, shares."""
import pytest

from tests.support import simple_pipeline

pytestmark = pytest.mark.django_db


def create(api, definition=None, name="doubler", message="first"):
    response = api.post("/api/pipelines", {"name": name, "definition": definition or simple_pipeline(),
                                           "message": message}, format="json")
    assert response.status_code == 201, response.content
    return response.json()


def save(api, pipeline_id, definition, message=""):
    response = api.put(f"/api/pipelines/{pipeline_id}", {"definition": definition, "message": message}, format="json")
    assert response.status_code == 200, response.content
    return response.json()


def changed_pipeline():
    definition = simple_pipeline(expression="x + 1")
    definition["parallelism"] = 2
    definition["nodes"].insert(2, {"id": "keep", "type": "transform.filter", "params": {"predicate": "x > 3"}})
    definition["edges"] = [{"id": "e1", "from": "gen", "to": "double"}, {"id": "e3", "from": "double", "to": "keep"},
                           {"id": "e4", "from": "keep", "to": "out", "partitioning": "rebalance"}]
    return definition


def test_versions_are_listed_newest_first_and_each_keeps_its_definition(api):
    pipeline = create(api)
    save(api, pipeline["id"], changed_pipeline(), "add a filter")
    versions = api.get(f"/api/pipelines/{pipeline['id']}/versions").json()
    assert [(v["number"], v["message"], v["created_by"]) for v in versions] == [
        (2, "add a filter", "alice"), (1, "first", "alice")]
    first = api.get(f"/api/pipelines/{pipeline['id']}/versions/1/").json()
    assert first["definition"] == simple_pipeline() and first["number"] == 1
    assert api.get(f"/api/pipelines/{pipeline['id']}/versions/3").status_code == 404


def test_diff_names_nodes_edges_and_settings_added_removed_and_changed(api):
    pipeline = create(api)
    save(api, pipeline["id"], changed_pipeline())
    diff = api.get(f"/api/pipelines/{pipeline['id']}/diff?from=1&to=2").json()
    assert (diff["from"], diff["to"]) == (1, 2)
    assert diff["nodes"] == {"added": ["keep"], "removed": [], "changed": [
        {"id": "double", "changes": [{"path": "params.expression", "from": "x * 2", "to": "x + 1"}]}]}
    assert diff["edges"]["added"] == ["e3", "e4"] and diff["edges"]["removed"] == ["e2"]
    assert diff["edges"]["changed"] == []
    assert diff["settings"]["changed"] == [{"path": "parallelism", "from": 1, "to": 2}]
    # the defaults: the latest version against the one before it
    assert api.get(f"/api/pipelines/{pipeline['id']}/diff").json() == diff
    reverse = api.get(f"/api/pipelines/{pipeline['id']}/diff?from=2&to=1").json()
    assert reverse["nodes"]["removed"] == ["keep"]


def test_diff_of_an_unsaved_draft_and_bad_diff_requests(api):
    draft = simple_pipeline()
    draft["checkpointing"]["interval_ms"] = 5000
    body = api.post("/api/pipelines/diff", {"from": simple_pipeline(), "to": draft}, format="json").json()
    assert body["settings"]["changed"] == [{"path": "checkpointing.interval_ms", "from": 200, "to": 5000}]
    assert body["nodes"] == {"added": [], "removed": [], "changed": []}
    assert api.post("/api/pipelines/diff", {"from": simple_pipeline()}, format="json").status_code == 400
    pipeline = create(api)
    assert api.get(f"/api/pipelines/{pipeline['id']}/diff?from=x").status_code == 400
    assert api.get(f"/api/pipelines/{pipeline['id']}/diff?from=1&to=7").status_code == 404


def test_rollback_writes_a_new_version_equal_to_the_old_one(api):
    pipeline = create(api)
    save(api, pipeline["id"], changed_pipeline())
    response = api.post(f"/api/pipelines/{pipeline['id']}/rollback", {"version": 1}, format="json")
    assert response.status_code == 200
    assert response.json()["version"] == 3 and response.json()["definition"] == simple_pipeline()
    assert api.get(f"/api/pipelines/{pipeline['id']}/versions").json()[0]["message"] == "Rolled back to version 1"
    assert api.post(f"/api/pipelines/{pipeline['id']}/rollback", {"version": 9}, format="json").status_code == 404
    assert api.post(f"/api/pipelines/{pipeline['id']}/rollback", {}, format="json").status_code == 400


def test_export_then_import_round_trips_the_definition(api):
    pipeline = create(api)
    save(api, pipeline["id"], changed_pipeline())
    exported = api.get(f"/api/pipelines/{pipeline['id']}/export?version=1")
    assert exported.status_code == 200
    assert exported["Content-Disposition"] == 'attachment; filename="doubler-v1.json"'
    assert exported.json() == simple_pipeline()
    assert api.get(f"/api/pipelines/{pipeline['id']}/export").json() == changed_pipeline()
    imported = api.post("/api/pipelines/import", {"definition": exported.json()}, format="json")
    assert imported.status_code == 201
    body = imported.json()
    assert body["id"] != pipeline["id"] and body["version"] == 1 and body["definition"] == simple_pipeline()
    assert body["name"] == "doubler"  # from the definition
    assert api.get(f"/api/pipelines/{body['id']}/versions").json()[0]["message"] == "Imported"
    broken = simple_pipeline()
    broken["edges"][0]["to"] = "ghost"
    rejected = api.post("/api/pipelines/import", {"definition": broken}, format="json")
    assert rejected.status_code == 400 and rejected.json()["errors"][0]["edge"] == "e1"
    assert api.get(f"/api/pipelines/{pipeline['id']}/export?version=5").status_code == 404


def test_a_plan_says_which_chained_operator_feeds_each_so_a_fan_out_chain_reads_as_a_tree(api):
    definition = simple_pipeline()
    definition["nodes"].append({"id": "copy", "type": "sink.collect", "params": {}})
    definition["edges"].append({"id": "e9", "from": "gen", "to": "copy"})
    plan = api.post("/api/plan", {"definition": definition}, format="json").json()
    [vertex] = plan["job_vertices"]
    fed_by = {operator: vertex["operators"][feeder] if feeder >= 0 else None
              for operator, feeder in zip(vertex["operators"], vertex["chain_inputs"])}
    assert fed_by == {"gen": None, "double": "gen", "out": "double", "copy": "gen"}


def test_plan_of_a_version_and_of_a_draft(api):
    pipeline = create(api)
    save(api, pipeline["id"], changed_pipeline())
    plan = api.get(f"/api/pipelines/{pipeline['id']}/plan?version=1").json()
    assert plan["schedule"] == ["r0"] and plan["node_regions"] == {"gen": ["r0"], "double": ["r0"], "out": ["r0"]}
    assert [v["operators"] for v in plan["job_vertices"]] == [["gen", "double", "out"]]  # chained
    latest = api.get(f"/api/pipelines/{pipeline['id']}/plan").json()
    assert len(latest["job_vertices"]) == 2  # the rebalance edge breaks the chain
    batch = simple_pipeline()
    batch["mode"] = "batch"
    draft = api.post("/api/plan", {"definition": batch}, format="json").json()
    assert draft["counts"]["regions"] >= 1 and draft["regions"][0]["id"] == "r0"
    broken = simple_pipeline(expression="x +")
    response = api.post("/api/plan", {"definition": broken}, format="json")
    assert response.status_code == 400 and response.json()["errors"][0]["field"] == "params.expression"
    fractional = {**simple_pipeline(), "parallelism": 2.0}  # JSON Schema's integer; planning it was a 500
    response = api.post("/api/plan", {"definition": fractional}, format="json")
    assert response.status_code == 400 and response.json()["errors"][0]["field"] == "parallelism"


def test_delete_removes_a_pipeline_unless_a_run_is_active(api):
    pipeline = create(api)
    run = api.post(f"/api/pipelines/{pipeline['id']}/runs", {}, format="json").json()
    conflict = api.delete(f"/api/pipelines/{pipeline['id']}")
    assert conflict.status_code == 409 and str(run["id"]) in conflict.json()["detail"]
    from studio.runs.events import set_status

    set_status(run["id"], "CANCELED")
    assert api.delete(f"/api/pipelines/{pipeline['id']}").status_code == 204
    assert api.get(f"/api/pipelines/{pipeline['id']}").status_code == 404
    assert api.delete(f"/api/pipelines/{pipeline['id']}").status_code == 404


def test_start_run_of_an_older_version_in_batch_mode(api):
    pipeline = create(api)
    save(api, pipeline["id"], changed_pipeline())
    run = api.post(f"/api/pipelines/{pipeline['id']}/runs", {"version": 1, "mode": "batch"}, format="json")
    assert run.status_code == 201
    assert (run.json()["version"], run.json()["mode"]) == (1, "batch")
    assert run.json()["definition"] == simple_pipeline()
    assert api.post(f"/api/pipelines/{pipeline['id']}/runs", {"version": 4}, format="json").status_code == 404
    assert api.post(f"/api/pipelines/{pipeline['id']}/runs", {"mode": "sometimes"}, format="json").status_code == 400


def test_edges_without_ids_get_ids_and_every_other_problem_is_reported(api):
    definition = simple_pipeline()
    definition["edges"] = [{"from": "gen", "to": "double"}, {"id": "e1", "from": "double", "to": "out"}]
    saved = api.post("/api/pipelines", {"name": "no-ids", "definition": definition}, format="json")
    assert saved.status_code == 201, saved.content
    assert [(edge["id"], edge["from"]) for edge in saved.json()["definition"]["edges"]] == [("e2", "gen"), ("e1", "double")]

    broken = simple_pipeline()
    broken["edges"] = [{"from": "gen", "to": "double"}, {"from": "double", "to": "nowhere"}]
    broken["nodes"][1]["params"] = {"expression": "x +"}
    problems = api.post("/api/pipelines/validate", {"definition": broken}, format="json").json()["errors"]
    assert not any("'id' is a required property" in problem["message"] for problem in problems), problems
    assert any(problem["edge"] == "e2" and "nowhere" in problem["message"] for problem in problems), problems
    assert any(problem["node"] == "double" for problem in problems), problems
