"""In a real browser, on Spark: a failing operator is marked in the run graph, its exceptions (vertex,
subtask, attempt, message, traceback) are listed in the run's Exceptions tab, the restart too; the jobs
overview and the pipelines list show the failed run."""
import re

import pytest
from playwright.sync_api import expect

from tests.e2e.browser_steps import api_call
from tests.support import simple_pipeline

pytestmark = [pytest.mark.e2e, pytest.mark.spark]


def test_a_failing_operator_is_marked_and_its_exceptions_listed(live_studio, page, artifacts):
    definition = simple_pipeline(count=None, rate=50, expression="1 // (x - 20)", interval_ms=1000, name="e2e-failing")
    definition["restart"] = {"strategy": "fixed_delay", "attempts": 1, "delay_ms": 200}
    pipeline = api_call(page, live_studio, "POST", "/api/pipelines", {"name": "e2e-failing", "definition": definition})
    run = api_call(page, live_studio, "POST", f"/api/pipelines/{pipeline['id']}/runs", {})

    page.goto(f"{live_studio}/runs/{run['id']}")
    # every replay reaches x = 20 again: one restart, then the run fails
    expect(page.get_by_test_id("run-status")).to_have_text("FAILED", timeout=180_000)
    failed_node = page.get_by_test_id("node-double")
    expect(failed_node).to_have_attribute("data-failed", "true")
    expect(failed_node.get_by_test_id("failure-mark")).to_contain_text("subtask 0")
    expect(page.get_by_test_id("node-gen")).not_to_have_attribute("data-failed", "true")

    page.get_by_test_id("run-tab-exceptions").click()
    expect(page.get_by_test_id("run-tab-exceptions")).to_contain_text("Exceptions (2) · 1 restart")
    exceptions = page.get_by_test_id("exception")
    expect(exceptions).to_have_count(2)
    expect(exceptions.first.get_by_test_id("exception-message")).to_contain_text(
        re.compile(r"operator 'double' \(transform.map\), subtask 0, failed: ZeroDivisionError"))
    expect(exceptions.first).to_contain_text("attempt 2")
    expect(exceptions.nth(1)).to_contain_text("attempt 1")
    exceptions.first.get_by_role("button", name="Traceback").click()
    expect(exceptions.first.get_by_test_id("exception-traceback")).to_contain_text("File")
    expect(page.get_by_test_id("restart-entry")).to_have_count(1)
    expect(page.get_by_test_id("exceptions-root")).to_contain_text("ZeroDivisionError")
    page.screenshot(path=str(artifacts / "run-failures.png"))

    history = api_call(page, live_studio, "GET", f"/api/runs/{run['id']}/exceptions")
    assert [(entry["operator"], entry["subtask"], entry["attempt"]) for entry in history["exceptions"]] == [
        ("double", 0, 2), ("double", 0, 1)]
    assert history["restarts"][0]["regions"] and history["restarts"][0]["delay_ms"] == 200

    # The jobs overview and the pipelines list tell the same story.
    page.locator(".app-nav").get_by_text("Jobs").click()
    row = page.locator(f'[data-testid="job-row"][data-run="{run["id"]}"]')
    expect(row).to_have_attribute("data-status", "FAILED")
    expect(row.get_by_test_id("job-restarts")).to_have_text("1")
    expect(row.get_by_test_id("job-uptime")).to_have_text(re.compile(r"^\d+ s$"))
    page.screenshot(path=str(artifacts / "jobs-overview.png"))
    page.locator(".app-nav").get_by_text("Pipelines").click()
    listed = page.get_by_test_id("pipeline-row").filter(has_text="e2e-failing")
    expect(listed.get_by_test_id("pipeline-latest-run")).to_have_text("FAILED")
