"""``studio test PIPELINE`` against a live studio, over REST with a token: a summary per test case, an exit
code a CI job gates a deploy on, and a JUnit XML report."""
import io
from xml.etree import ElementTree

import pytest

from studio.cli import main
from tests.support import simple_pipeline, token_client

pytestmark = pytest.mark.django_db(transaction=True)


def definition(expected: list) -> dict:
    return {**simple_pipeline(name="ci"), "tests": [
        {"name": "doubles", "inputs": {"gen": {"rows": [1, 2, 3]}},
         "assertions": [{"node": "double", "expect": "rows", "rows": expected}]},
        {"name": "even", "inputs": {"gen": {"rows": [5]}},
         "assertions": [{"node": "out", "expect": "every", "expression": "x % 2 == 0"}]}]}


@pytest.fixture
def studio_test(live_server, user, settings, tmp_path):
    settings.STUDIO_WORKSPACE_ROOT = str(tmp_path / "workspaces")
    key = token_client(user).token_key

    def run(*args):
        out = io.StringIO()
        code = main(["--url", live_server.url, "--token", key, "test", *args], out=out)
        return code, out.getvalue()

    return run


def test_the_exit_code_says_whether_every_test_case_passed_and_junit_says_which(studio_test, user, tmp_path):
    client = token_client(user)
    pipeline = client.post("/api/pipelines", {"name": "ci", "definition": definition([2, 4, 7])},
                           format="json").json()
    report = tmp_path / "junit.xml"
    code, text = studio_test("ci", "--junit", str(report))
    assert code == 1, text
    assert "FAILED  doubles" in text and "record 3: expected 7, got 6" in text and "PASSED  even" in text
    assert "FAILED: 1 passed, 1 failed, 0 errors" in text
    suite = ElementTree.parse(report).getroot().find("testsuite")
    assert (suite.get("tests"), suite.get("failures")) == ("2", "1")

    client.put(f"/api/pipelines/{pipeline['id']}", {"definition": definition([2, 4, 6]), "message": "fixed"},
               format="json")
    code, text = studio_test(str(pipeline["id"]), "--junit", str(report))
    assert code == 0 and "PASSED: 2 passed, 0 failed, 0 errors" in text and " v2 " in text, text
    assert ElementTree.parse(report).getroot().get("failures") == "0"

    assert studio_test("ci", "--version", "1", "--case", "even")[0] == 0  # the failing case left out
    assert studio_test("ci", "--version", "1")[0] == 1


def test_a_pipeline_that_is_not_there_or_not_yours_is_an_error_not_a_pass(studio_test, other_user, capsys):
    assert studio_test("nowhere")[0] == 2
    assert "no pipeline named 'nowhere'" in capsys.readouterr().err
    theirs = token_client(other_user).post("/api/pipelines", {"name": "theirs", "definition": definition([2, 4, 6])},
                                           format="json").json()
    assert studio_test(str(theirs["id"]))[0] == 1
    assert "HTTP 404" in capsys.readouterr().err


def test_the_test_cases_run_with_an_environments_parameters_and_the_summary_names_it(studio_test, user):
    client = token_client(user)
    assert client.post("/api/environments", {"name": "prod", "parameters": {"factor": 2}},
                       format="json").status_code == 201
    scaled = definition([2, 4, 6])
    scaled["nodes"][1]["params"]["expression"] = "x * ${param:factor}"
    client.post("/api/pipelines", {"name": "ci", "definition": scaled}, format="json")
    code, text = studio_test("ci", "--environment", "prod")
    assert code == 0 and "PASSED: 2 passed, 0 failed, 0 errors" in text and " · environment prod · " in text, text
