"""Test cases over REST (tag "test cases"): a version's test cases run in a budgeted worker and kept per
version, a draft's too; JUnit for CI; exactly-once proofs queued one at a time; badges per version;
everything as the pipeline's sharing says, and every input a second user could aim elsewhere refused."""
from __future__ import annotations

import json
from xml.etree import ElementTree

import pytest
from django.contrib.auth.models import Group

from studio.models import Pipeline, PipelineShare
from studio.testcases.models import Proof, SuiteRun
from tests.support import simple_pipeline

pytestmark = pytest.mark.django_db

ROWS = [1, 2, 3]


def doubling_case(expected=(2, 4, 6), name="doubles", **fields) -> dict:
    return {"name": name, "inputs": {"gen": {"rows": ROWS}},
            "assertions": [{"node": "double", "expect": "rows", "rows": list(expected)},
                           {"node": "out", "expect": "every", "expression": "x % 2 == 0"}], **fields}


def with_tests(*cases, **overrides) -> dict:
    return {**simple_pipeline(), **overrides, "tests": list(cases)}


@pytest.fixture
def workspaces(settings, tmp_path):
    settings.STUDIO_WORKSPACE_ROOT = str(tmp_path / "workspaces")
    return tmp_path / "workspaces"


def create(api, definition, name="tested") -> dict:
    response = api.post("/api/pipelines", {"name": name, "definition": definition}, format="json")
    assert response.status_code == 201, response.content
    return response.json()


def save(api, pipeline: dict, definition: dict) -> None:
    response = api.put(f"/api/pipelines/{pipeline['id']}", {"definition": definition, "message": "next"}, format="json")
    assert response.status_code == 200, response.content


def located(response, field: str) -> list[str]:
    return [error["message"] for error in response.json().get("errors", []) if error["field"] == field]


def test_a_versions_test_cases_run_and_are_kept_with_their_results_and_files(api, workspaces):
    pipeline = create(api, with_tests(doubling_case(), doubling_case((2, 4, 7), name="wrong")))
    response = api.post(f"/api/pipelines/{pipeline['id']}/test-runs", {}, format="json")
    assert response.status_code == 201, response.content
    run = response.json()
    assert (run["version"], run["status"], run["cases"], run["counts"]) == (
        1, "failed", ["doubles", "wrong"], {"passed": 1, "failed": 1, "error": 0})
    passed, failed = run["results"]
    assert passed["status"] == "passed" and passed["modes"] == ["streaming", "batch"]
    assert passed["nodes"]["double"] == {"count": 3, "records": [2, 4, 6], "ports": {}, "status": "passed"}
    assertion = failed["assertions"][0]
    assert not assertion["passed"] and assertion["difference"]["at"] == 2
    assert (assertion["difference"]["expected"], assertion["difference"]["actual"]) == ([7], [6])
    assert failed["nodes"]["double"]["status"] == "failed"

    outputs = workspaces / f"pipeline-{pipeline['id']}" / "tests" / f"suite-{run['id']}" / "case-2" / "outputs"
    assert (outputs / "batch" / "double.jsonl").read_text().split() == ["2", "4", "6"]

    listed = api.get(f"/api/pipelines/{pipeline['id']}/test-runs?version=1").json()
    assert [(item["id"], item["status"]) for item in listed] == [(run["id"], "failed")] and "results" not in listed[0]
    assert api.get(f"/api/pipelines/{pipeline['id']}/test-runs?version=2").json() == []
    assert api.get(f"/api/pipelines/{pipeline['id']}/test-runs/{run['id']}").json()["results"] == run["results"]

    only = api.post(f"/api/pipelines/{pipeline['id']}/test-runs", {"cases": ["doubles"]}, format="json").json()
    assert (only["status"], only["cases"]) == ("passed", ["doubles"])


def test_junit_reports_each_test_case_for_a_ci_job(api, workspaces):
    pipeline = create(api, with_tests(doubling_case(), doubling_case((2, 4, 7), name="wrong")))
    run = api.post(f"/api/pipelines/{pipeline['id']}/test-runs", {}, format="json").json()
    response = api.get(f"/api/pipelines/{pipeline['id']}/test-runs/{run['id']}/junit")
    assert response.status_code == 200 and response["Content-Type"] == "application/xml"
    suite = ElementTree.fromstring(response.content).find("testsuite")
    assert (suite.get("name"), suite.get("tests"), suite.get("failures")) == ("tested v1", "2", "1")
    failure = suite.findall("testcase")[1].find("failure")
    assert "record 3: expected 7, got 6" in failure.text


def test_a_draft_runs_its_own_test_cases_and_is_kept_without_a_version(api, workspaces):
    pipeline = create(api, simple_pipeline())
    draft = with_tests(doubling_case((3, 6, 9)), **{"nodes": [
        *simple_pipeline()["nodes"][:1], {"id": "double", "type": "transform.map", "params": {"expression": "x * 3"}},
        simple_pipeline()["nodes"][2]]})
    draft["tests"][0]["assertions"].pop()  # odd numbers now
    run = api.post(f"/api/pipelines/{pipeline['id']}/test-runs", {"definition": draft}, format="json").json()
    assert (run["status"], run["version"]) == ("passed", None)
    assert SuiteRun.objects.get(pk=run["id"]).version is None
    assert Pipeline.objects.get(pk=pipeline["id"]).versions.count() == 1  # nothing saved


def test_a_test_case_reads_a_json_lines_file_from_the_pipelines_workspace(api, workspaces):
    pipeline = create(api, simple_pipeline())
    workspace = workspaces / f"pipeline-{pipeline['id']}"
    workspace.mkdir(parents=True)
    (workspace / "rows.jsonl").write_text("1\n2\n3\n")
    case = {**doubling_case(), "inputs": {"gen": {"file": "rows.jsonl"}}}
    save(api, pipeline, with_tests(case))
    run = api.post(f"/api/pipelines/{pipeline['id']}/test-runs", {}, format="json").json()
    assert run["status"] == "passed", run["results"][0]["failures"]


@pytest.mark.parametrize("file, message", [
    ("/etc/passwd", "outside the locations granted to you"),
    ("../pipeline-1/rows.jsonl", "'..' is not allowed"),
    ("http://example.com/rows.jsonl", "allowed only below a granted URL prefix"),
])
def test_an_input_file_outside_the_users_locations_is_refused_naming_its_field(api, workspaces, file, message):
    pipeline = create(api, simple_pipeline())
    draft = with_tests({**doubling_case(), "inputs": {"gen": {"file": file}}})
    response = api.post(f"/api/pipelines/{pipeline['id']}/test-runs", {"definition": draft}, format="json")
    assert response.status_code == 400, response.content
    assert message in json.dumps(located(response, "tests.0.inputs.gen.file"))
    assert not SuiteRun.objects.exists()


def test_what_cannot_run_is_a_400_naming_it(api, workspaces):
    pipeline = create(api, simple_pipeline())
    url = f"/api/pipelines/{pipeline['id']}/test-runs"
    none = api.post(url, {}, format="json")
    assert none.status_code == 400 and "has no test cases" in located(none, "definition.tests")[0]
    save(api, pipeline, with_tests(doubling_case()))
    unknown = api.post(url, {"cases": ["doubles", "nope"]}, format="json")
    assert unknown.status_code == 400 and "no test case named 'nope'" in located(unknown, "cases")[0]
    wrong_node = with_tests({**doubling_case(), "assertions": [{"node": "nowhere", "expect": "empty"}]})
    invalid = api.post(url, {"definition": wrong_node}, format="json")
    assert invalid.status_code == 400 and "there is no node 'nowhere'" in located(invalid, "tests.0.assertions.0.node")[0]
    both = api.post(url, {"definition": wrong_node, "version": 1}, format="json")
    assert both.status_code == 400 and located(both, "definition")
    missing = api.post(url, {"version": 9}, format="json")
    assert missing.status_code == 400 and "has no version 9" in located(missing, "version")[0]
    assert not SuiteRun.objects.exists()


def test_a_second_user_sees_nothing_of_another_pipeline_and_a_viewer_may_not_run(api, other_api, other_user,
                                                                                  workspaces):
    pipeline = create(api, with_tests(doubling_case()))
    run = api.post(f"/api/pipelines/{pipeline['id']}/test-runs", {}, format="json").json()
    base = f"/api/pipelines/{pipeline['id']}"
    for path in ("test-runs", f"test-runs/{run['id']}", f"test-runs/{run['id']}/junit", "proofs", "test-badges"):
        assert other_api.get(f"{base}/{path}").status_code == 404, path
    assert other_api.post(f"{base}/test-runs", {}, format="json").status_code == 404
    assert other_api.post(f"{base}/proofs", {}, format="json").status_code == 404

    mine = create(other_api, with_tests(doubling_case()), name="bobs")
    assert other_api.get(f"/api/pipelines/{mine['id']}/test-runs/{run['id']}").status_code == 404  # not under his

    viewers = Group.objects.create(name="viewers")
    other_user.groups.add(viewers)
    PipelineShare.objects.create(pipeline=Pipeline.objects.get(pk=pipeline["id"]), group=viewers)
    assert other_api.get(f"{base}/test-runs/{run['id']}").json()["status"] == "passed"
    refused = other_api.post(f"{base}/test-runs", {}, format="json")
    assert refused.status_code == 403 and "you may not run" in refused.json()["detail"]
    assert other_api.post(f"{base}/proofs", {}, format="json").status_code == 403
    PipelineShare.objects.filter(group=viewers).update(can_run=True)
    assert other_api.post(f"{base}/test-runs", {}, format="json").status_code == 201


def test_a_proof_is_queued_with_its_seed_one_at_a_time_and_badges_show_each_versions_latest(
        api, workspaces, monkeypatch, django_capture_on_commit_callbacks):
    from studio.testcases import tasks

    queued = []
    monkeypatch.setattr(tasks.prove, "delay", queued.append)
    pipeline = create(api, with_tests(doubling_case(), doubling_case(name="second")))
    url = f"/api/pipelines/{pipeline['id']}/proofs"
    assert "no test case named 'nope'" in located(api.post(url, {"test_case": "nope"}, format="json"), "test_case")[0]
    assert api.post(url, {"kills": 0}, format="json").status_code == 400

    with django_capture_on_commit_callbacks(execute=True):
        response = api.post(url, {"test_case": "second", "seed": 42, "kills": 4}, format="json")
    assert response.status_code == 202, response.content
    proof = response.json()
    assert (proof["status"], proof["version"], proof["test_case"], proof["seed"], proof["kills"], proof["rescale"]) == (
        "queued", 1, "second", 42, 4, True)
    assert queued == [proof["id"]]
    busy = api.post(url, {}, format="json")
    assert busy.status_code == 409 and f"proof {proof['id']}" in busy.json()["detail"]

    Proof.objects.filter(pk=proof["id"]).update(status="failed", message="sink 'out': 3 not expected")
    again = api.post(url, {}, format="json").json()
    assert again["test_case"] == "doubles" and 0 <= again["seed"] < 2 ** 31
    Proof.objects.filter(pk=again["id"]).update(status="passed")
    save(api, pipeline, with_tests(doubling_case()))
    tests = api.post(f"/api/pipelines/{pipeline['id']}/test-runs", {}, format="json").json()

    badges = api.get(f"/api/pipelines/{pipeline['id']}/test-badges").json()
    assert [badge["version"] for badge in badges] == [2, 1]
    assert badges[0]["tests"]["id"] == tests["id"] and badges[0]["proof"] is None
    assert (badges[1]["tests"], badges[1]["proof"]["id"], badges[1]["proof"]["status"]) == (None, again["id"], "passed")
    history = api.get(f"{url}?version=1").json()
    assert [(item["id"], item["status"]) for item in history] == [(again["id"], "passed"), (proof["id"], "failed")]


def test_test_cases_that_overrun_their_budget_are_stopped_and_kept_as_an_error_naming_where(api, workspaces,
                                                                                             settings):
    settings.STUDIO_TEST_BUDGET_S = 1.0
    # ~1.7 ms of work a record here (sorting 90,000 numbers), 17 s for the rows: over the budget on any machine
    # (100,000 plain rows once finished inside it on a quick one)
    heavy = {"name": "heavy", "inputs": {"gen": {"rows": list(range(10_000))}},
             "assertions": [{"node": "double", "expect": "count", "min": 0}]}
    pipeline = create(api, {**simple_pipeline(expression="sum(sorted([x] * 90000)) + x"), "tests": [heavy]})
    response = api.post(f"/api/pipelines/{pipeline['id']}/test-runs", {}, format="json")
    assert response.status_code == 201, response.content
    run = response.json()
    assert run["status"] == "error" and "exceeded their 1 s budget and were stopped" in run["error"], run
    junit = api.get(f"/api/pipelines/{pipeline['id']}/test-runs/{run['id']}/junit").content.decode()
    assert "exceeded their 1 s budget" in junit
