"""In a real browser, on Spark: an expectation attached to an edge in the editor (the edge's panel) is
saved with the edge and counts live on the run graph's edge; the run's latency markers (the studio's
runs send them every second) show on the sink's node as "lat p50 / p99" with the hop into it, and in its
drill-down per source subtask, as the run's metrics report them; an exactly-once sink beside it shows
its visible latency (until its commit) on its node and per subtask in its drill-down. Every figure of
both cells can be read as shown: none cut at the cell's edge, none below 9.9 px on screen, none faint,
and the boxes, grown with their figures, do not cover each other."""
import pytest
from playwright.sync_api import expect

from tests.e2e.browser_steps import api_call
from tests.e2e.cell_legibility import figures_of, overlapping_boxes, unreadable
from tests.e2e.test_test_cases import save
from tests.support import wait_until

pytestmark = [pytest.mark.e2e, pytest.mark.spark, pytest.mark.timeout(900)]


def latency_pipeline() -> dict:
    """An unbounded, rate-limited source -> double -rebalance-> out: the sink heads a vertex of its own; double
    -rebalance-> files, an exactly-once file sink (its files committed with each checkpoint)."""
    return {
        "format": 1, "name": "e2e-latency", "mode": "streaming", "parallelism": 1,
        "checkpointing": {"interval_ms": 500},
        "nodes": [
            {"id": "gen", "type": "source.datagen", "params": {"count": None, "rate": 300}, "ui": {"x": 0, "y": 80}},
            {"id": "double", "type": "transform.map", "params": {"expression": "x * 2"}, "ui": {"x": 340, "y": 80}},
            {"id": "out", "type": "sink.collect", "params": {"max_records": 100}, "ui": {"x": 680, "y": 80}},
            {"id": "files", "type": "sink.file", "params": {"path": "visible-latency-out"}, "ui": {"x": 680, "y": 260}},
        ],
        "edges": [{"id": "e1", "from": "gen", "to": "double"},
                  {"id": "e2", "from": "double", "to": "out", "partitioning": "rebalance"},
                  {"id": "e3", "from": "double", "to": "files", "partitioning": "rebalance"}],
    }


SINK_LATENCY = """() => {
    const latency = document.querySelector('[data-testid="node-out"] [data-testid="node-latency"]');
    if (!latency) return null;
    return {text: latency.textContent, p50: Number(latency.dataset.p50), p99: Number(latency.dataset.p99),
            hop: latency.querySelector('[data-testid="hop-latency"]') !== null};
}"""
"""What the sink's cell says about latency, or null while it says nothing."""


def test_an_edge_expectation_from_the_editor_counts_live_and_the_sink_shows_its_latency(live_studio, page, artifacts):
    pipeline = api_call(page, live_studio, "POST", "/api/pipelines",
                        {"name": "e2e-latency", "definition": latency_pipeline()})
    page.goto(f"{live_studio}/pipelines/{pipeline['id']}")
    expect(page.get_by_test_id("node-double")).to_be_visible(timeout=60_000)
    page.get_by_test_id("edge-label-e2").click()
    editor = page.locator('[data-testid="expectations-editor"][data-holder="edge"]')
    expect(editor).to_be_visible()
    editor.get_by_test_id("expectation-add").click()
    row = editor.get_by_test_id("expectation-row")
    expect(row).to_have_count(1)
    row.get_by_test_id("expectation-name").fill("not_multiple_of_4")
    row.get_by_test_id("expectation-rule").fill("x % 4 != 0")
    expect(page.get_by_test_id("edge-label-e2")).to_contain_text("1 rule")
    expect(page.get_by_test_id("validation-status")).to_have_text("Valid", timeout=10_000)
    row.get_by_test_id("expectation-rule").fill("x %")  # a broken rule is named at its field, on the edge
    expect(row).to_contain_text("invalid rule of expectation 'not_multiple_of_4'", timeout=10_000)
    row.get_by_test_id("expectation-rule").fill("x % 4 != 0")
    expect(page.get_by_test_id("validation-status")).to_have_text("Valid", timeout=10_000)
    page.screenshot(path=str(artifacts / "edge-expectation-editor.png"))
    save(page, "check what reaches the sink", 2)

    saved = api_call(page, live_studio, "GET", f"/api/pipelines/{pipeline['id']}")
    definition = saved.get("definition") or saved["latest_version"]["definition"]
    e2 = next(edge for edge in definition["edges"] if edge["id"] == "e2")
    assert e2["expectations"] == [{"name": "not_multiple_of_4", "rule": "x % 4 != 0", "action": "warn"}]

    run = api_call(page, live_studio, "POST", f"/api/pipelines/{pipeline['id']}/runs", {})
    page.goto(f"{live_studio}/runs/{run['id']}")
    expect(page.get_by_test_id("run-status")).to_have_text("RUNNING", timeout=240_000)
    counts = page.get_by_test_id("run-edge-e2").get_by_test_id("edge-expectation-counts")
    expect(counts).to_be_visible(timeout=60_000)
    first = int(counts.get_attribute("data-records"))
    wait_until(lambda: int(counts.get_attribute("data-records")) > first + 100, 60, "the edge's counts to grow live")
    # both figures of one render (two reads could straddle an update)
    records, violated = page.evaluate("""() => {
        const counts = document.querySelector('[data-testid="run-edge-e2"] [data-testid="edge-expectation-counts"]');
        return [Number(counts.dataset.records), Number(counts.dataset.violated)];
    }""")
    assert abs(violated - records / 2) <= 2, (records, violated)  # an even number doubled is a multiple of 4

    # one render's figures, read when the sink's cell shows them (a busy page re-renders it every report)
    shown = wait_until(lambda: page.evaluate(SINK_LATENCY), 60, "the sink's latency on its node")
    assert shown["text"].startswith("lat ") and " / " in shown["text"] and shown["hop"], shown  # "lat p50 / p99"
    assert shown["p50"] <= shown["p99"], shown
    expect(page.get_by_test_id("node-gen").get_by_test_id("node-latency")).to_have_count(0)  # a source has none
    expect(page.get_by_test_id("node-out").get_by_test_id("visible-latency")).to_have_count(0)  # it writes at once
    visible = page.get_by_test_id("node-files").get_by_test_id("visible-latency")
    expect(visible).to_be_visible(timeout=60_000)
    assert visible.get_attribute("data-from") == "source", "latency markers reach it: source to commit"
    assert float(visible.get_attribute("data-p50")) <= float(visible.get_attribute("data-p99"))
    page.get_by_test_id("node-out").scroll_into_view_if_needed()
    # the two sinks stacked in one column grew with their figures: laid out again, apart
    wait_until(lambda: not overlapping_boxes(page), 30, "the grown boxes to stop covering each other")
    for node_id in ("out", "files"):
        figures = figures_of(page, node_id)
        assert any(" / " in figure["text"] for figure in figures), figures  # p50 / p99 among them
        assert not unreadable(figures), (node_id, unreadable(figures))
        page.get_by_test_id(f"node-{node_id}").screenshot(path=str(artifacts / f"latency-node-{node_id}.png"))
    page.screenshot(path=str(artifacts / "latency-on-the-run-graph.png"))

    page.get_by_test_id("node-out").press("Enter")
    table = page.get_by_test_id("latency-table")
    expect(table.get_by_test_id("latency-source-row")).to_have_attribute("data-source", "gen#0")
    expect(table.get_by_test_id("latency-hop-row")).to_have_count(1)
    page.screenshot(path=str(artifacts / "latency-drilldown.png"))
    page.get_by_test_id("node-files").press("Enter")
    rows = page.get_by_test_id("latency-table").get_by_test_id("visible-latency-row")
    expect(rows).to_have_count(2)  # source to commit, arrival to commit: one subtask
    rows.last.scroll_into_view_if_needed()
    page.screenshot(path=str(artifacts / "visible-latency-drilldown.png"))

    reported = api_call(page, live_studio, "GET", f"/api/runs/{run['id']}/metrics")
    out = reported["nodes"]["out"]
    assert out["latency_markers"] > 0 and out["latency_p50_ms"] <= out["latency_p99_ms"]
    assert set(out["latency_sources"]) == {"gen#0"}
    files = reported["nodes"]["files"]
    assert files["visible_latency_records"] > 0 and files["source_visible_latency_markers"] > 0
    assert files["source_visible_latency_p99_ms"] >= files["latency_p50_ms"], "the commit comes after the arrival"
    assert "visible_latency_p50_ms" not in out
    checked = reported["expectations"]["edge:e2"]
    assert abs(checked["rules"]["not_multiple_of_4"]["violated"] - checked["records"] / 2) <= 2, checked
    api_call(page, live_studio, "POST", f"/api/runs/{run['id']}/cancel", {})
    expect(page.get_by_test_id("run-status")).to_have_text("CANCELED", timeout=60_000)
