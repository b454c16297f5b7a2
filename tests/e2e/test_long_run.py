"""In a real browser, on Spark: a run checkpointing every 100 ms keeps a bounded history. Once the retention
loop of the studio's Celery worker folded its older checkpoints, the checkpoint summary says so (they are
counted, percentiles within 1%), the history shows the newest ones, and the header shows the run's disk use."""
import re

import pytest
from playwright.sync_api import expect

from tests.e2e.browser_steps import api_call
from tests.support import simple_pipeline, wait_until

pytestmark = [pytest.mark.e2e, pytest.mark.spark]


def test_a_long_run_shows_its_folded_checkpoints_and_its_disk_use(live_studio, page, artifacts):
    definition = simple_pipeline(count=None, rate=200, interval_ms=100, parallelism=2, name="e2e-long-run")
    pipeline = api_call(page, live_studio, "POST", "/api/pipelines", {"name": "e2e-long-run", "definition": definition})
    run = api_call(page, live_studio, "POST", f"/api/pipelines/{pipeline['id']}/runs", {})
    checkpoints = f"/api/runs/{run['id']}/checkpoints"
    # more than the 100 kept in detail, then one pass of the worker's retention loop (every 30 s)
    wait_until(lambda: api_call(page, live_studio, "GET", f"{checkpoints}?limit=0")["folded"], 240,
               "the retention loop to fold the run's older checkpoints", interval=2)

    page.goto(f"{live_studio}/runs/{run['id']}")
    expect(page.get_by_test_id("run-status")).to_have_text("RUNNING", timeout=60_000)
    expect(page.get_by_test_id("run-disk")).to_contain_text(re.compile(r"disk \d"), timeout=60_000)
    page.get_by_test_id("checkpoint-tab-summary").click()
    expect(page.get_by_test_id("checkpoints-folded")).to_contain_text(
        re.compile(r"Includes \d+ older checkpoints .*percentiles within 1%"), timeout=60_000)
    page.screenshot(path=str(artifacts / "long-run-folded-summary.png"))

    overview = api_call(page, live_studio, "GET", checkpoints)
    assert overview["counts"]["completed"] >= overview["folded"]["completed"] + 100
    assert len(overview["history"]) <= 100 + 10
    disk = api_call(page, live_studio, "GET", f"/api/runs/{run['id']}/disk")
    assert disk["checkpoint_count"] >= 1 and disk["total_bytes"] > 0
    timeline = api_call(page, live_studio, "GET", f"{checkpoints}/timeline")
    assert sum(bucket["completed"] for bucket in timeline["buckets"]) >= overview["folded"]["completed"]
    assert timeline["buckets"] and timeline["buckets"][0]["start"] >= timeline["buckets"][-1]["start"]
    api_call(page, live_studio, "POST", f"/api/runs/{run['id']}/cancel", {})
    expect(page.get_by_test_id("run-status")).to_have_text("CANCELED", timeout=60_000)
