"""The run page as a newcomer meets it, in a real browser on the real studio: the graph of a running job
fits its panel and reads at a glance, the checkpoint summary follows the run, Cancel asks first, and an
ended run shows its totals without rates that stopped being true.

Screenshots: test-results/first-hour/ (git-ignored), at 1440×900 and 1280×720.
"""
from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.e2e.browser_steps import api_call, wait_for_run
from tests.e2e.first_hour import (
    READABLE_PX, RUN_GRAPH_NODES, SCREENS, five_node_pipeline, graph_view, hidden_nodes, shot, thirty_node_pipeline,
)
from tests.e2e.run_header import assert_header_readable
from tests.support import simple_pipeline, wait_until

pytestmark = [pytest.mark.e2e, pytest.mark.spark, pytest.mark.timeout(600)]

RUNNING_TIMEOUT_MS = 180_000


def start(page, live_studio: str, definition: dict) -> int:
    pipeline = api_call(page, live_studio, "POST", "/api/pipelines", {"name": definition["name"], "definition": definition})
    return api_call(page, live_studio, "POST", f"/api/pipelines/{pipeline['id']}/runs", {})["id"]


def open_running(page, live_studio: str, run_id: int, nodes: int) -> None:
    """The run's page once it runs and every node shows its numbers."""
    page.goto(f"{live_studio}/runs/{run_id}")
    expect(page.get_by_test_id("run-status")).to_have_text("RUNNING", timeout=RUNNING_TIMEOUT_MS)
    expect(page.locator(RUN_GRAPH_NODES)).to_have_count(nodes, timeout=30_000)
    expect(page.locator(".run-graph").get_by_test_id("vertex-metrics")).to_have_count(nodes, timeout=60_000)


def assert_every_node_readable(page, nodes: int) -> dict:
    view = graph_view(page)
    assert len(view["nodes"]) == nodes
    assert hidden_nodes(view) == [], f"nodes outside the graph panel: {hidden_nodes(view)}"
    assert view["smallest"] >= READABLE_PX, (
        f"node text {view['smallest']:.1f} px on screen ({view['smallestText']!r} at zoom {view['zoom']:.2f})")
    return view


@pytest.mark.parametrize("shape, definition", [("5-node", five_node_pipeline()), ("30-node", thirty_node_pipeline())])
def test_the_run_graph_fits_its_panel_and_reads_at_a_glance(live_studio, page, artifacts, shape, definition):
    nodes = len(definition["nodes"])
    run_id = start(page, live_studio, definition)

    # On load, at either screen size: every node in the panel, its text readable.
    for width, height in SCREENS:
        page.set_viewport_size({"width": width, "height": height})
        open_running(page, live_studio, run_id, nodes)
        shot(artifacts, f"run-graph-{shape}", page)
        assert_every_node_readable(page, nodes)

    # Zoomed in and lost, one click on Fit brings the whole graph back.
    graph = page.locator(".run-graph")
    for _ in range(3):
        graph.get_by_role("button", name=re.compile("zoom in", re.I)).click()
    assert hidden_nodes(graph_view(page)), "zooming in three times should push nodes out of view"
    graph.get_by_role("button", name=re.compile("fit view", re.I)).click()
    try:
        wait_until(lambda: not hidden_nodes(graph_view(page)), 10, "one click on Fit to bring every node back")
    finally:
        shot(artifacts, f"run-graph-{shape}-after-fit", page)
    before = assert_every_node_readable(page, nodes)

    # Opening a node's subtasks and a live tap leaves the graph panel as it was.
    first = definition["nodes"][0]["id"]
    page.locator(".run-graph").get_by_test_id(f"node-{first}").click()
    expect(page.get_by_test_id("node-drilldown")).to_be_visible()
    expect(page.get_by_test_id("node-drilldown")).to_contain_text(first)
    shot(artifacts, f"run-graph-{shape}-drilldown", page)
    assert graph_view(page)["canvas"] == before["canvas"]
    assert_every_node_readable(page, nodes)

    page.get_by_role("tab", name=re.compile("live tap", re.I)).click()
    page.get_by_test_id("tap-open").click()
    expect(page.get_by_test_id("tap-record").first).to_be_visible(timeout=60_000)
    shot(artifacts, f"run-graph-{shape}-tap", page)
    assert graph_view(page)["canvas"] == before["canvas"]
    assert_every_node_readable(page, nodes)
    page.get_by_test_id("tap-close").click()


def test_the_checkpoint_summary_follows_the_run_in_readable_units(live_studio, page, artifacts):
    # a keyed running sum: its state grows by odd byte counts, so the average size is a fraction
    definition = five_node_pipeline("first-hour-summary")
    run_id = start(page, live_studio, definition)
    page.goto(f"{live_studio}/runs/{run_id}")
    page.get_by_test_id("checkpoint-tab-summary").click()

    size_row = page.get_by_test_id("checkpoint-summary").locator("tbody tr", has_text="Checkpointed data size")
    expect(page.get_by_test_id("run-status")).to_have_text("RUNNING", timeout=RUNNING_TIMEOUT_MS)
    # the summary fills in while the page stays open (no reload): the average size first
    try:
        expect(size_row.locator("td.numeric").nth(1)).not_to_have_text("–", timeout=60_000)
    finally:
        shot(artifacts, "checkpoint-summary-live", page)
    sizes = size_row.locator("td.numeric").all_inner_texts()
    assert len(sizes) == 6
    for size in sizes:
        assert re.fullmatch(r"\d+ B|\d+(\.\d)? (KiB|MiB|GiB)", size), f"not a readable size: {size!r}"
    durations = page.get_by_test_id("checkpoint-summary").locator("tbody tr", has_text="End to end").locator(
        "td.numeric").all_inner_texts()
    for duration in durations:
        assert re.fullmatch(r"\d+ ms|\d+\.\d+ s|\d+ m \d+ s", duration), f"not a readable duration: {duration!r}"


def test_cancel_asks_before_it_throws_the_run_away(live_studio, page, artifacts):
    run_id = start(page, live_studio, simple_pipeline(count=None, rate=50, name="first-hour-cancel"))
    page.goto(f"{live_studio}/runs/{run_id}")
    expect(page.get_by_test_id("run-status")).to_have_text("RUNNING", timeout=RUNNING_TIMEOUT_MS)

    page.get_by_test_id("cancel").click()
    dialog = page.get_by_role("dialog", name=re.compile("cancel", re.I))
    try:
        expect(dialog).to_be_visible()
    finally:
        shot(artifacts, "cancel-asks", page)
    expect(dialog).to_contain_text("Stop with savepoint")  # the way to stop without losing the state
    dialog.get_by_role("button", name="Keep running").click()
    expect(dialog).to_have_count(0)
    assert api_call(page, live_studio, "GET", f"/api/runs/{run_id}")["status"] == "RUNNING"
    expect(page.get_by_test_id("run-status")).to_have_text("RUNNING")

    page.get_by_test_id("cancel").click()
    page.get_by_role("dialog", name=re.compile("cancel", re.I)).get_by_role("button", name="Cancel the run").click()
    expect(page.get_by_test_id("run-status")).to_have_text(re.compile("CANCEL"), timeout=60_000)
    wait_for_run(page, live_studio, run_id, lambda run: run["status"] == "CANCELED", timeout=60)


def test_an_ended_run_shows_its_totals_without_stale_rates(live_studio, page, artifacts):
    run_id = start(page, live_studio, simple_pipeline(count=3000, rate=200, name="first-hour-ended"))
    page.goto(f"{live_studio}/runs/{run_id}")
    graph = page.locator(".run-graph")
    expect(graph.get_by_test_id("records-out").first).to_contain_text(re.compile(r"\d/s"), timeout=RUNNING_TIMEOUT_MS)
    shot(artifacts, "rates-while-running", page)

    expect(page.get_by_test_id("run-status")).to_have_text("FINISHED", timeout=RUNNING_TIMEOUT_MS)
    expect(graph.get_by_test_id("node-out").get_by_test_id("records-in")).to_have_attribute("data-count", "3000",
                                                                                              timeout=30_000)
    expect(graph.get_by_test_id("records-in").first).to_be_visible()
    shot(artifacts, "rates-after-the-end", page)
    assert "/s" not in graph.inner_text(), graph.inner_text()
    graph.get_by_test_id("node-double").click()  # its subtasks: totals, no rates of the last moments
    drilldown = page.get_by_test_id("node-drilldown")
    expect(drilldown.get_by_test_id("node-totals")).to_contain_text("3,000")
    shot(artifacts, "rates-after-the-end-subtasks", page)
    assert "/s" not in drilldown.inner_text() and "busy" not in drilldown.inner_text(), drilldown.inner_text()


def test_a_windows_input_matches_its_upstreams_output_and_its_late_records_are_said(live_studio, page, artifacts):
    """The window once showed fewer records in than its upstream sent out, with nothing to say why (it
    counted the partial aggregates that crossed the exchange): now its "in" is its upstream's "out",
    and the records it dropped as late are said in words on the node."""
    definition = {
        "format": 1, "name": "first-hour-late", "mode": "streaming", "parallelism": 2,
        "checkpointing": {"interval_ms": 1000},
        "nodes": [
            {"id": "gen", "type": "source.datagen", "params": {"count": 20000}},
            {"id": "time", "type": "transform.watermark",  # two of every thousand a minute late
             "params": {"timestamp": "x * 10 - (60000 if x % 1000 >= 998 else 0)", "max_out_of_orderness_ms": 0}},
            {"id": "per_key", "type": "window.tumbling", "params": {"size_ms": 500, "function": "count"}},
            {"id": "out", "type": "sink.collect", "params": {"max_records": 20000}},
        ],
        "edges": [{"id": "e1", "from": "gen", "to": "time"},
                  {"id": "e2", "from": "time", "to": "per_key", "partitioning": "hash", "key": "x % 3"},
                  {"id": "e3", "from": "per_key", "to": "out"}],
    }
    run_id = start(page, live_studio, definition)
    page.goto(f"{live_studio}/runs/{run_id}")
    expect(page.get_by_test_id("run-status")).to_have_text("FINISHED", timeout=RUNNING_TIMEOUT_MS)
    graph = page.locator(".run-graph")
    window_in = graph.get_by_test_id("node-per_key").get_by_test_id("records-in")
    expect(window_in).to_have_attribute("data-count", "20000", timeout=30_000)
    expect(graph.get_by_test_id("node-time").get_by_test_id("records-out")).to_have_attribute("data-count", "20000")
    late = graph.get_by_test_id("node-per_key").get_by_test_id("late-records")
    expect(late).to_contain_text(re.compile(r"^late \d+$"))
    expect(late).to_have_attribute("title", re.compile(r"came after the watermark had closed their window"))
    for width, height in SCREENS:
        page.set_viewport_size({"width": width, "height": height})
        page.wait_for_timeout(300)  # the graph fits itself to the new size
        shot(artifacts, "10-window-late-records", page)
    assert_every_node_readable(page, 4)
    dropped = int(late.get_attribute("data-count"))
    counted = sum(record[2] for record in wait_for_run(page, live_studio, run_id, lambda run: True)["collected"]["out"])
    assert 0 < dropped <= 40 and counted == 20000 - dropped


def test_a_run_that_waits_for_spark_says_so(live_studio, page, artifacts):
    """The first Run after the studio started took 8.4 s with nothing to say why: its warm driver's
    Spark session was not up yet. Two runs started at once: the studio keeps one warm driver, so one
    of them waits for a Spark session to start, and its page says so while it waits and after."""
    definition = simple_pipeline(count=None, rate=20, name="first-hour-startup")
    pipeline = api_call(page, live_studio, "POST", "/api/pipelines", {"name": definition["name"], "definition": definition})
    runs = [api_call(page, live_studio, "POST", f"/api/pipelines/{pipeline['id']}/runs", {})["id"] for _ in range(2)]
    page.goto(f"{live_studio}/runs/{runs[1]}")
    starting = page.get_by_test_id("run-starting")
    if starting.count():
        shot(artifacts, "10-run-starting", page)
    for run_id in runs:
        wait_for_run(page, live_studio, run_id, lambda run: run["status"] == "RUNNING", timeout=RUNNING_TIMEOUT_MS / 1000)
    startups = {run_id: [event["data"] for event in api_call(page, live_studio, "GET", f"/api/runs/{run_id}/events")
                         if event["type"] == "startup"] for run_id in runs}
    assert all(len(events) == 1 for events in startups.values()), startups
    waited = [run_id for run_id, [startup] in startups.items() if startup["spark"] == "starting"]
    assert waited, f"two runs at once, one warm driver: one run must have waited for Spark ({startups})"

    page.goto(f"{live_studio}/runs/{waited[0]}")
    expect(page.get_by_test_id("run-status")).to_have_text("RUNNING")
    expect(page.get_by_test_id("run-starting")).to_have_count(0)
    note = page.get_by_test_id("run-started-late")
    expect(note).to_contain_text(re.compile("waited for Spark to start|started its own Spark session"))
    for width, height in SCREENS:
        page.set_viewport_size({"width": width, "height": height})
        shot(artifacts, "10-run-started-late", page)
        assert_header_readable(page)  # the note once cut the header's times line at 1280 px


def test_a_tap_names_the_operator_whose_output_it_shows(live_studio, page, artifacts):
    """gen -> double -> out run in one chain, whose head is gen: a tap on double's output said
    "gen#0". It names the operator whose records they are."""
    run_id = start(page, live_studio, simple_pipeline(count=None, rate=50, name="first-hour-tap"))
    page.goto(f"{live_studio}/runs/{run_id}")
    expect(page.get_by_test_id("run-status")).to_have_text("RUNNING", timeout=RUNNING_TIMEOUT_MS)
    page.get_by_test_id("run-tab-tap").click()
    page.get_by_test_id("tap-edge").select_option("e2")  # double -> out
    page.get_by_test_id("tap-open").click()
    record = page.get_by_test_id("tap-record").first
    expect(record).to_be_visible(timeout=60_000)
    shot(artifacts, "10-tap-names-operator", page)
    assert record.locator(".muted").inner_text().startswith("double#"), record.inner_text()
    assert int(record.locator("code").inner_text()) % 2 == 0  # double's output, not gen's
    page.get_by_test_id("tap-close").click()
