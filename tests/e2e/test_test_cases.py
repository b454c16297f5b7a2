"""In a real browser, on Spark: a newcomer's running pipeline gets a test case whose input is a live tap's
sample; an assertion is edited to fail, the canvas marks the node and the panel shows the first
differing rows side by side, then it is fixed; `studio test` (the CLI a CI job runs, over REST with a
token) exits 1 on the failing version and 0 on the fixed one; Deploy with state offers the test cases
first, and the history shows each version's verdict."""
import json
import subprocess
import sys
from xml.etree import ElementTree

import pytest
from playwright.sync_api import expect

from tests.e2e.browser_steps import api_call, wait_for_run
from tests.e2e.first_hour import five_node_pipeline

pytestmark = [pytest.mark.e2e, pytest.mark.spark, pytest.mark.timeout(600)]

ROOT = __import__("pathlib").Path(__file__).resolve().parents[2]


def studio_test(live_studio: str, key: str, pipeline: int, junit) -> subprocess.CompletedProcess:
    """What a CI job runs: ``python -m studio test PIPELINE --junit FILE`` with a token."""
    return subprocess.run([sys.executable, "-m", "studio", "--url", live_studio, "--token", key, "test", str(pipeline),
                           "--junit", str(junit)], cwd=ROOT, capture_output=True, text=True, timeout=180)


def save(page, message: str, version: int) -> None:
    page.get_by_test_id("save-message").fill(message)
    page.get_by_test_id("save").click()
    expect(page.get_by_test_id("save-status")).to_contain_text(f"Saved · v{version}", timeout=30_000)


def run_tests(page, verdict: str) -> None:
    page.get_by_test_id("tests-run").click()
    expect(page.get_by_test_id("test-results")).to_have_attribute("data-verdict", verdict, timeout=90_000)


def test_a_tap_sample_becomes_a_test_case_that_fails_on_the_canvas_and_in_ci_then_passes(live_studio, page, artifacts,
                                                                                         tmp_path):
    pipeline = api_call(page, live_studio, "POST", "/api/pipelines", {
        "name": "e2e-tests", "definition": five_node_pipeline("e2e-tests"), "message": "a newcomer's pipeline"})
    run = api_call(page, live_studio, "POST", f"/api/pipelines/{pipeline['id']}/runs", {})
    wait_for_run(page, live_studio, run["id"], lambda r: r["status"] == "RUNNING")
    key = api_call(page, live_studio, "POST", "/api/auth/tokens", {"name": "ci"})["key"]

    page.goto(f"{live_studio}/pipelines/{pipeline['id']}")
    expect(page.get_by_test_id("node-clicks")).to_be_visible(timeout=60_000)
    page.get_by_test_id("tab-tests").click()
    page.get_by_test_id("test-case-new").click()
    page.get_by_test_id("test-input-clicks-tap").click()
    expect(page.get_by_test_id("test-input-clicks-note")).to_contain_text("rows from a live tap", timeout=60_000)
    sampled = page.get_by_test_id("test-input-clicks-table").locator("tbody tr").count()
    assert sampled > 0

    page.get_by_test_id("test-add-assertion").click()
    page.get_by_test_id("test-assertion-0-node").select_option("enrich")
    run_tests(page, "failed")  # no rows expected yet: what enrich emitted is offered
    page.get_by_test_id("test-assertion-0-use-emitted").click()
    page.get_by_test_id("test-add-assertion").click()
    page.get_by_test_id("test-assertion-1-node").select_option("valid")
    page.get_by_test_id("test-assertion-1-expect").select_option("every")
    page.get_by_test_id("test-assertion-1-expression").fill('x["n"] % 3 != 0')
    run_tests(page, "passed")
    expect(page.get_by_test_id("node-enrich")).to_have_attribute("data-test", "passed")
    save(page, "a test case from a tap sample", 2)
    page.screenshot(path=str(artifacts / "test-cases-passing.png"))
    passing = studio_test(live_studio, key, pipeline["id"], tmp_path / "v2.xml")
    assert passing.returncode == 0, passing.stdout + passing.stderr

    rows = page.get_by_test_id("test-assertion-0-rows")
    first = json.loads(rows.input_value().splitlines()[0])
    rows.fill("\n".join([json.dumps({**first, "n": first["n"] + 1})] + rows.input_value().splitlines()[1:]))
    rows.blur()
    run_tests(page, "failed")
    expect(page.get_by_test_id("node-enrich")).to_have_attribute("data-test", "failed")
    expect(page.get_by_test_id("node-enrich").get_by_test_id("test-badge")).to_contain_text("test failed")
    expect(page.get_by_test_id("node-valid")).to_have_attribute("data-test", "passed")
    difference = page.get_by_test_id("test-difference")
    expect(difference.get_by_test_id("difference-expected")).to_contain_text(str(first["n"] + 1))
    expect(difference.get_by_test_id("difference-actual")).to_contain_text(str(first["n"]))
    save(page, "an assertion that does not hold", 3)
    difference.scroll_into_view_if_needed()
    page.screenshot(path=str(artifacts / "test-cases-failing.png"))
    failing = studio_test(live_studio, key, pipeline["id"], tmp_path / "v3.xml")
    assert failing.returncode == 1, failing.stdout + failing.stderr
    assert "FAILED" in failing.stdout and "record 1: expected" in failing.stdout
    assert ElementTree.parse(tmp_path / "v3.xml").getroot().get("failures") == "1"

    page.get_by_test_id("test-assertion-0-use-emitted").click()
    run_tests(page, "passed")
    expect(page.get_by_test_id("node-enrich")).to_have_attribute("data-test", "passed")
    save(page, "fixed", 4)
    fixed = studio_test(live_studio, key, pipeline["id"], tmp_path / "v4.xml")
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr

    page.get_by_test_id("upgrade").click()
    page.get_by_test_id("tests-first-run").click()
    expect(page.get_by_test_id("tests-first-verdict")).to_have_attribute("data-status", "passed", timeout=90_000)
    page.screenshot(path=str(artifacts / "test-cases-deploy-offers-tests.png"))
    page.keyboard.press("Escape")

    page.get_by_test_id("tab-history").click()
    expect(page.locator('[data-testid="version-row"][data-version="4"]').get_by_test_id("version-tests-badge")).to_have_text(
        "tests passed", timeout=30_000)
    badges = {row.get_attribute("data-version"): row.get_by_test_id("version-tests-badge").inner_text()
              for row in page.get_by_test_id("version-row").all() if row.get_by_test_id("version-tests-badge").count()}
    assert badges == {"4": "tests passed", "3": "tests failed", "2": "tests passed"}, badges
    page.screenshot(path=str(artifacts / "test-cases-history-badges.png"))
    api_call(page, live_studio, "POST", f"/api/runs/{run['id']}/cancel")
