"""Operating a running job in a real browser against the real studio (Celery, Redis, local Spark):
open a live tap and see records, see a scheduled savepoint appear in the history, and see an alert fire
with its badge when checkpoints are forced to fail.

Screenshots go to test-results/ (git-ignored).
"""
from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.support import simple_pipeline

pytestmark = [pytest.mark.e2e, pytest.mark.spark]

RUNNING_TIMEOUT_MS = 180_000


def post(page, url: str, data: dict) -> dict:
    """A REST call with the page's session, as the browser's own client sends it (CSRF token included)."""
    token = next(cookie["value"] for cookie in page.context.cookies() if cookie["name"] == "csrftoken")
    response = page.context.request.post(url, data=data, headers={"X-CSRFToken": token, "Referer": url})
    assert response.ok, response.text()
    return response.json()


def start_run(page, live_studio: str, definition: dict) -> tuple[int, int]:
    page.goto(live_studio + "/")  # sets the CSRF cookie
    page.wait_for_load_state("networkidle")
    pipeline = post(page, f"{live_studio}/api/pipelines", {"name": definition["name"], "definition": definition})
    return pipeline["id"], post(page, f"{live_studio}/api/pipelines/{pipeline['id']}/runs", {})["id"]


def cancel(page, live_studio: str, run_id: int) -> None:
    post(page, f"{live_studio}/api/runs/{run_id}/cancel", {})
    expect(page.get_by_test_id("run-status")).to_have_text(re.compile("CANCEL"), timeout=60_000)


def test_a_live_tap_shows_records_and_a_scheduled_savepoint_appears_in_the_history(live_studio, page, artifacts):
    _, run_id = start_run(page, live_studio, simple_pipeline(count=None, rate=200, interval_ms=1000, name="e2e-tap"))
    page.goto(f"{live_studio}/runs/{run_id}")
    expect(page.get_by_test_id("run-status")).to_have_text("RUNNING", timeout=RUNNING_TIMEOUT_MS)

    page.get_by_role("tab", name="Savepoint schedules").click()
    page.get_by_test_id("schedule-interval").fill("2")
    page.get_by_test_id("schedule-retain").fill("2")
    page.get_by_test_id("schedule-add").click()
    expect(page.get_by_test_id("schedule")).to_contain_text("every 2 s · keeps 2")

    page.get_by_role("tab", name="Live tap").click()
    page.get_by_test_id("tap-edge").select_option("e2")
    page.get_by_test_id("tap-open").click()
    expect(page.get_by_test_id("tap-record").first).to_be_visible(timeout=60_000)
    assert re.fullmatch(r"-?\d+", page.get_by_test_id("tap-record").first.locator("code").inner_text())
    page.screenshot(path=str(artifacts / "run-live-tap.png"))
    page.get_by_test_id("tap-close").click()

    scheduled = page.locator('[data-testid="checkpoint-row"]', has=page.get_by_test_id("checkpoint-trigger"))
    expect(scheduled.first).to_be_visible(timeout=60_000)
    expect(scheduled.first.get_by_test_id("checkpoint-trigger")).to_have_text("scheduled")
    expect(scheduled.first).to_have_attribute("data-status", "COMPLETED", timeout=60_000)
    page.screenshot(path=str(artifacts / "run-scheduled-savepoint.png"))
    cancel(page, live_studio, run_id)


def test_an_alert_fires_on_a_forced_checkpoint_failure_and_shows_its_badge(live_studio, page, artifacts):
    # every record is a key of its own, so the keyed state grows by thousands of keys a second: once it holds
    # tens of thousands, no snapshot of it is written and acknowledged within 1 ms, on any machine (a tiny
    # state's is, on a quiet one). The job tolerates the failures and runs on.
    definition = {
        "format": 1, "name": "e2e-alert", "mode": "streaming", "parallelism": 1,
        "checkpointing": {"interval_ms": 300, "timeout_ms": 1, "tolerable_failures": 10_000},
        "nodes": [
            {"id": "gen", "type": "source.datagen", "params": {"count": None, "rate": 20_000}},
            {"id": "sum", "type": "aggregate.reduce", "params": {"function": "count"}},
            {"id": "out", "type": "sink.collect", "params": {"max_records": 1000}},
        ],
        "edges": [{"id": "e1", "from": "gen", "to": "sum", "partitioning": "hash", "key": "x"},
                  {"id": "e2", "from": "sum", "to": "out"}],
    }
    page.goto(live_studio + "/")
    page.wait_for_load_state("networkidle")
    pipeline = post(page, f"{live_studio}/api/pipelines", {"name": definition["name"], "definition": definition})
    post(page, f"{live_studio}/api/alerts/rules", {"pipeline": pipeline["id"], "name": "checkpoints failing",
                                                   "kind": "checkpoint_failures", "threshold": 1})
    run_id = post(page, f"{live_studio}/api/pipelines/{pipeline['id']}/runs", {})["id"]
    page.goto(f"{live_studio}/runs/{run_id}")
    expect(page.get_by_test_id("run-status")).to_have_text("RUNNING", timeout=RUNNING_TIMEOUT_MS)

    expect(page.get_by_test_id("notifications-badge")).to_have_text(re.compile(r"^[1-9]\d*$"), timeout=60_000)
    page.get_by_test_id("notifications-bell").click()
    expect(page.get_by_test_id("notification").first).to_contain_text("failed in a row")
    page.screenshot(path=str(artifacts / "alert-badge.png"))
    cancel(page, live_studio, run_id)
