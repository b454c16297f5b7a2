"""In a real browser, on Spark: a running job is rescaled from 2 to 3 and back with the run page's
Rescale button, and the output stays exact: every input once across the three runs."""

import pytest
from playwright.sync_api import expect

from tests.e2e.browser_steps import api_call, wait_for_run
from tests.support import simple_pipeline

pytestmark = [pytest.mark.e2e, pytest.mark.spark, pytest.mark.timeout(900)]  # three Spark drivers in a row

COUNT = 600


def rescale_on_the_run_page(page, live_studio, run_id: int, parallelism: int, artifacts) -> int:
    """Open the run, click Rescale…, confirm; return the run at the new parallelism once it runs."""
    page.goto(f"{live_studio}/runs/{run_id}")
    expect(page.get_by_test_id("run-status")).to_have_text("RUNNING", timeout=120_000)
    wait_for_run(page, live_studio, run_id,
                 lambda run: (api_call(page, live_studio, "GET", f"/api/runs/{run_id}/checkpoints")
                              ["counts"]["completed"]) >= 1, timeout=240)
    page.get_by_test_id("rescale").click()
    page.get_by_test_id("rescale-parallelism").fill(str(parallelism))
    page.get_by_test_id("rescale-confirm").click()
    progress = page.get_by_test_id("rescale-progress")
    expect(progress).to_have_attribute("data-status", "COMPLETED", timeout=240_000)
    page.screenshot(path=str(artifacts / f"rescale-to-{parallelism}.png"))
    page.get_by_test_id("rescale-next-run").click()
    expect(page.get_by_test_id("restored-from")).to_be_visible(timeout=30_000)
    new_id = int(page.url.rsplit("/", 1)[1])
    assert new_id != run_id
    assert wait_for_run(page, live_studio, run_id, lambda run: run["ended_at"] is not None,
                        timeout=240)["status"] == "FINISHED"
    return new_id


def test_rescale_2_to_3_and_back_from_the_run_page_keeps_the_output_exact(live_studio, page, artifacts):
    definition = simple_pipeline(count=COUNT, rate=10, expression="x * 2", interval_ms=500, parallelism=2,
                                 name="e2e-rescale")
    pipeline = api_call(page, live_studio, "POST", "/api/pipelines", {"name": "e2e-rescale", "definition": definition})
    first = api_call(page, live_studio, "POST", f"/api/pipelines/{pipeline['id']}/runs", {})["id"]
    second = rescale_on_the_run_page(page, live_studio, first, 3, artifacts)
    third = rescale_on_the_run_page(page, live_studio, second, 2, artifacts)

    runs = [wait_for_run(page, live_studio, run_id, lambda run: run["ended_at"] is not None, timeout=400)
            for run_id in (first, second, third)]
    assert [run["status"] for run in runs] == ["FINISHED"] * 3, [run.get("failure_cause") for run in runs]
    versions = [api_call(page, live_studio, "GET", f"/api/pipelines/{pipeline['id']}/versions/{run['version']}")
                ["definition"]["parallelism"] for run in runs]
    assert versions == [2, 3, 2]
    # Each run collected what flowed through it; stopped with savepoints, together they saw each input once.
    seen = [record for run in runs for record in run["collected"]["out"]]
    assert sorted(seen) == [x * 2 for x in range(COUNT)]
