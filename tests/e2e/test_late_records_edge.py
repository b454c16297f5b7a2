"""In a real browser: an event-time window shows its second output port, "late", and a user draws a
late-records edge from it to a sink of its own; the saved definition names the port."""
from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.e2e.browser_steps import admin_password, api_call, connect, open_signed_in

pytestmark = [pytest.mark.e2e]


def test_a_late_records_edge_is_drawn_from_the_windows_late_port(live_studio, page, tmp_path_factory):
    open_signed_in(page, live_studio, admin_password(tmp_path_factory))
    page.goto(live_studio + "/")
    for operator in ("source.datagen", "transform.watermark", "window.session", "sink.collect", "sink.collect"):
        page.get_by_test_id(f"palette-{operator}").click()
    nodes = page.locator('[data-testid^="node-"]')
    expect(nodes).to_have_count(5)
    source, time, window, out, late = (nodes.nth(index) for index in range(5))

    expect(window.get_by_test_id("port-late")).to_be_visible()
    expect(out.locator(".port-handle")).to_have_count(0)  # only operators with ports show them
    connect(page, source, time)
    connect(page, time, window)
    connect(page, window, out)
    connect(page, window, late, port="late")
    expect(page.locator(".react-flow__edge")).to_have_count(4)
    late_label = page.locator('[data-testid^="edge-label-"]', has_text="late")
    expect(late_label).to_have_count(1)
    late_label.click()
    expect(page.get_by_test_id("edge-port")).to_contain_text("late")

    time.click()
    page.get_by_test_id("param-timestamp").fill("x * 10")
    window.click()
    page.get_by_test_id("param-gap_ms").fill("50")
    page.locator('[data-testid^="edge-label-"]', has_text="hash").click()
    page.get_by_test_id("edge-key").fill("x % 3")
    expect(page.get_by_test_id("validation-status")).to_have_text("Valid", timeout=10_000)

    page.get_by_test_id("save").click()
    expect(page.get_by_test_id("save-status")).to_contain_text("Saved", timeout=10_000)
    pipelines = api_call(page, live_studio, "GET", "/api/pipelines")
    newest = max(pipelines["results"] if isinstance(pipelines, dict) else pipelines, key=lambda p: p["id"])
    version = api_call(page, live_studio, "GET", f"/api/pipelines/{newest['id']}")
    definition = version.get("definition") or version["latest_version"]["definition"]
    late_edges = [edge for edge in definition["edges"] if edge.get("from_port") == "late"]
    window_id = window.get_attribute("data-testid").removeprefix("node-")
    late_id = late.get_attribute("data-testid").removeprefix("node-")
    assert [(edge["from"], edge["to"]) for edge in late_edges] == [(window_id, late_id)]
