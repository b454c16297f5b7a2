"""In a real browser: draw datagen → map → collect, save, run on Spark, see a checkpoint complete."""
import re

import pytest
from playwright.sync_api import expect

from tests.e2e.browser_steps import connect

pytestmark = [pytest.mark.e2e, pytest.mark.spark]


def test_draw_save_run_and_watch_a_checkpoint(live_studio, page, artifacts):
    page.goto(live_studio + "/")
    for operator in ("source.datagen", "transform.map", "sink.collect"):
        page.get_by_test_id(f"palette-{operator}").click()
    nodes = page.locator('[data-testid^="node-"]')
    expect(nodes).to_have_count(3)
    source, mapper, sink = nodes.nth(0), nodes.nth(1), nodes.nth(2)

    source.click()
    page.get_by_test_id("param-count").fill("")
    page.get_by_test_id("param-rate").fill("200")
    mapper.click()
    page.get_by_test_id("param-expression").fill("x * 2")
    connect(page, source, mapper)
    connect(page, mapper, sink)
    expect(page.locator(".react-flow__edge")).to_have_count(2)
    expect(page.get_by_test_id("problem")).to_have_count(0, timeout=10_000)

    page.get_by_test_id("pipeline-name").fill("browser-doubler")
    page.get_by_test_id("checkpoint-interval").fill("500")
    page.get_by_test_id("save").click()
    expect(page.get_by_test_id("save-status")).to_contain_text("Saved")
    page.screenshot(path=str(artifacts / "editor.png"))

    page.get_by_test_id("run").click()
    expect(page).to_have_url(re.compile(r"/runs/\d+"), timeout=20_000)
    expect(page.get_by_test_id("run-status")).to_have_text("RUNNING", timeout=120_000)
    completed = page.locator('[data-testid="checkpoint-row"][data-status="COMPLETED"]')
    expect(completed.first).to_be_visible(timeout=60_000)
    page.screenshot(path=str(artifacts / "run.png"))

    page.get_by_test_id("cancel").click()
    page.get_by_test_id("cancel-confirm").click()  # Cancel asks first: the run stops without a savepoint
    expect(page.get_by_test_id("run-status")).to_have_text("CANCELED", timeout=60_000)
