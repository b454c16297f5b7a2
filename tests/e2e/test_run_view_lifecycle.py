"""In a real browser against the real studio, Celery, Redis and local Spark, the whole story:
draw a 4-node pipeline with a hash edge, see the validation error and fix it, undo/redo, save,
run, watch checkpoints appear in the timeline, open one's Gantt chart, trigger a savepoint and
see its location, stop with a savepoint, and restart from it.

Screenshots of the editor and the run view go to test-results/ (git-ignored).
"""
from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.e2e.browser_steps import admin_password, draw_keyed_pipeline

pytestmark = [pytest.mark.e2e, pytest.mark.spark]


def test_draw_run_checkpoint_savepoint_stop_and_restart(live_studio, page, artifacts, tmp_path_factory):
    page.goto(live_studio + "/")
    page.wait_for_load_state("networkidle")
    if "/login" in page.url:  # the `page` fixture may not have signed in
        page.get_by_test_id("login-password").fill(admin_password(tmp_path_factory))
        page.get_by_test_id("login-submit").click()
        expect(page).to_have_url(live_studio + "/", timeout=15_000)
    expect(page.get_by_test_id("user-menu")).to_contain_text("admin")

    source, mapper, reducer, sink = draw_keyed_pipeline(page, rate=200)

    # The hash edge into the keyed aggregate has no key yet: a validation error on the edge.
    hash_edge = page.locator('[data-testid^="edge-label-"]', has_text="hash")
    expect(hash_edge).to_have_class(re.compile("has-problems"), timeout=10_000)
    # the edge is marked by any answer since the hash edge was drawn, the list may still hold an earlier
    # answer's problems (of nodes not yet configured then): wait for the latest, which has only the edge's
    expect(page.get_by_test_id("problem")).to_have_count(1, timeout=30_000)
    expect(page.get_by_test_id("problem")).to_contain_text("key")
    expect(page.get_by_test_id("run")).to_be_disabled()
    hash_edge.click()
    page.get_by_test_id("edge-key").fill('x["user"]')
    expect(page.get_by_test_id("problem")).to_have_count(0, timeout=10_000)
    page.get_by_test_id("undo").click()
    expect(page.get_by_test_id("problem")).to_have_count(1, timeout=10_000)
    page.get_by_test_id("redo").click()
    expect(page.get_by_test_id("problem")).to_have_count(0, timeout=10_000)
    expect(page.get_by_test_id("run")).to_be_enabled()

    page.get_by_test_id("pipeline-name").fill("e2e-lifecycle")
    page.get_by_test_id("checkpoint-interval").fill("500")
    page.get_by_test_id("save-message").fill("keyed sums")
    page.get_by_test_id("save").click()
    expect(page.get_by_test_id("save-status")).to_contain_text("Saved")
    page.screenshot(path=str(artifacts / "editor-lifecycle.png"))

    page.get_by_test_id("run").click()
    expect(page).to_have_url(re.compile(r"/runs/\d+$"), timeout=20_000)
    first_run_url = page.url
    expect(page.get_by_test_id("run-status")).to_have_text("RUNNING", timeout=120_000)

    # Checkpoints appear in the timeline as they complete; open one's Gantt chart.
    completed = page.locator('[data-testid="timeline-bar"][data-tone="completed"]')
    expect(completed.first).to_be_visible(timeout=60_000)
    expect(page.locator('[data-testid="checkpoint-row"][data-status="COMPLETED"]').first).to_be_visible()
    completed.first.click()
    expect(page.get_by_test_id("checkpoint-details")).to_be_visible()
    expect(page.get_by_test_id("gantt-row").first).to_be_visible(timeout=15_000)
    # Live metrics reach the nodes of every chain.
    expect(page.get_by_test_id("vertex-metrics")).to_have_count(4, timeout=30_000)
    page.screenshot(path=str(artifacts / "run-view.png"))

    page.get_by_test_id("checkpoint-tab-summary").click()
    expect(page.get_by_test_id("checkpoint-summary")).to_be_visible()
    page.get_by_test_id("checkpoint-tab-config").click()
    expect(page.get_by_test_id("checkpoint-config")).to_contain_text("500")
    page.get_by_test_id("checkpoint-tab-history").click()

    # A savepoint: progress, then where it was written; it shows in the timeline.
    page.get_by_test_id("trigger-savepoint").click()
    status = page.get_by_test_id("savepoint-status")
    expect(status).to_have_attribute("data-status", "COMPLETED", timeout=60_000)
    expect(page.get_by_test_id("savepoint-location")).to_contain_text("savepoint")
    expect(page.locator('[data-testid="timeline-bar"][data-tone="savepoint"]').first).to_be_visible(timeout=20_000)
    page.screenshot(path=str(artifacts / "run-savepoint.png"))

    # Stop with a savepoint: the run ends, the savepoint's location is shown.
    page.get_by_test_id("stop-with-savepoint").click()
    page.get_by_test_id("stop-confirm").click()
    expect(status).to_have_attribute("data-kind", "stop", timeout=10_000)
    expect(status).to_have_attribute("data-status", "COMPLETED", timeout=60_000)
    stop_location = page.get_by_test_id("savepoint-location").inner_text()
    expect(page.get_by_test_id("run-status")).to_have_text(re.compile("FINISHED|CANCELED"), timeout=60_000)

    # Restart from that savepoint (the picker offers it first).
    page.get_by_test_id("restart").click()
    offered = page.get_by_test_id("restore-option")
    expect(offered.first).to_be_visible()
    expect(offered.first).to_contain_text(stop_location.rsplit("/", 1)[-1])
    page.screenshot(path=str(artifacts / "run-restart-picker.png"))
    page.get_by_test_id("restart-confirm").click()
    expect(page).not_to_have_url(first_run_url, timeout=20_000)
    expect(page).to_have_url(re.compile(r"/runs/\d+$"))
    expect(page.get_by_test_id("restored-from")).to_contain_text(stop_location.rsplit("/", 1)[-1], timeout=15_000)
    expect(page.get_by_test_id("run-status")).to_have_text("RUNNING", timeout=120_000)
    expect(page.locator('[data-testid="checkpoint-row"][data-status="COMPLETED"]').first).to_be_visible(timeout=60_000)
    page.screenshot(path=str(artifacts / "run-restored.png"))

    page.get_by_test_id("cancel").click()
    page.get_by_test_id("cancel-confirm").click()  # Cancel asks first: the run stops without a savepoint
    expect(page.get_by_test_id("run-status")).to_have_text("CANCELED", timeout=60_000)
