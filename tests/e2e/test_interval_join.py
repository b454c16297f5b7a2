"""In a real browser: draw two sources into an interval join through its left and right inputs and a
late-records edge from its late_left port, save, run it on Spark, and find the joined pairs and the
late record at their sinks."""
from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.e2e.browser_steps import admin_password, api_call, connect, open_signed_in

pytestmark = [pytest.mark.e2e, pytest.mark.spark]


def test_an_interval_join_is_drawn_with_its_two_sides_and_runs(live_studio, page, tmp_path_factory):
    open_signed_in(page, live_studio, admin_password(tmp_path_factory))
    page.goto(live_studio + "/")
    for operator in ("source.datagen", "source.datagen", "transform.watermark", "transform.watermark",
                     "join.interval", "sink.collect", "sink.collect"):
        page.get_by_test_id(f"palette-{operator}").click()
    nodes = page.locator('[data-testid^="node-"]')
    expect(nodes).to_have_count(7)
    # by id, not by position: positions change with the layout and on the run page's graph
    ids = [nodes.nth(index).get_attribute("data-testid") for index in range(7)]
    orders, clicks, order_time, click_time, join, out, late = (page.get_by_test_id(node_id) for node_id in ids)
    expect(join.get_by_test_id("side-left")).to_be_visible()
    expect(join.get_by_test_id("side-right")).to_be_visible()

    connect(page, orders, order_time)
    connect(page, clicks, click_time)
    connect(page, order_time, join, side="left")
    connect(page, click_time, join, side="right")
    connect(page, join, out)
    connect(page, join, late, port="late_left")
    expect(page.locator(".react-flow__edge")).to_have_count(6)
    page.get_by_test_id("auto-layout").click()  # edge labels clear of the nodes

    # The orders come at 10 a second and the last one is back at time 0. The ten clicks are over at
    # once, so by then only the orders hold event time back, at 27: that order is late.
    for source, count, rate, expression in ((orders, "30", "10", '{"k": x % 3, "t": x if x < 29 else 0}'),
                                            (clicks, "10", "0", '{"k": x % 3, "t": x * 3}')):
        source.click()
        page.get_by_test_id("param-count").fill(count)
        page.get_by_test_id("param-rate").fill(rate)
        page.get_by_test_id("param-expression").fill(expression)
    for assigner in (order_time, click_time):
        assigner.click()
        page.get_by_test_id("param-timestamp").fill('x["t"]')
    join.click()
    page.get_by_test_id("param-lower_ms").fill("0")
    page.get_by_test_id("param-upper_ms").fill("0")
    page.get_by_test_id("param-output").fill('[left["t"], right["t"]]')
    for label in page.locator('[data-testid^="edge-label-"]', has_text="hash").all():
        label.click(force=True)  # a label may sit under the join's input names
        page.get_by_test_id("edge-key").fill('x["k"]')
    expect(page.get_by_test_id("validation-status")).to_have_text("Valid", timeout=10_000)

    page.get_by_test_id("pipeline-name").fill("browser-join")
    page.get_by_test_id("save").click()
    expect(page.get_by_test_id("save-status")).to_contain_text("Saved", timeout=10_000)
    pipelines = api_call(page, live_studio, "GET", "/api/pipelines")
    newest = max(pipelines["results"] if isinstance(pipelines, dict) else pipelines, key=lambda p: p["id"])
    definition = api_call(page, live_studio, "GET", f"/api/pipelines/{newest['id']}")["definition"]
    join_id = join.get_attribute("data-testid").removeprefix("node-")
    sides = {edge["side"] for edge in definition["edges"] if edge["to"] == join_id}
    assert sides == {"left", "right"}

    page.get_by_test_id("run").click()
    expect(page).to_have_url(re.compile(r"/runs/\d+"), timeout=20_000)
    expect(page.get_by_test_id("run-status")).to_have_text("FINISHED", timeout=180_000)
    run_id = re.search(r"/runs/(\d+)", page.url).group(1)
    out_id = out.get_attribute("data-testid").removeprefix("node-")
    collected = api_call(page, live_studio, "GET", f"/api/runs/{run_id}")["collected"][out_id]
    # the keys agree only where the click's x is a multiple of 3: times 0, 9, 18 and 27
    assert sorted(collected) == [[0, 0], [9, 9], [18, 18], [27, 27]]
    late_id = late.get_attribute("data-testid").removeprefix("node-")
    assert api_call(page, live_studio, "GET", f"/api/runs/{run_id}")["collected"][late_id] == [{"k": 2, "t": 0}]
