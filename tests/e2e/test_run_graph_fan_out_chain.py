"""In a real browser, on Spark: the run page of a window join whose source chain fans out to its two filters
(``events -> event_time -> [clicks, purchases]``, one task) at parallelism 2 draws the chain as the tree it
is, with each hash edge leaving the filter that sends it; the join's input names clear of its figures; no
node figure spilling out of its box (event times three years old make hour-long lags); and a header whose
every part is readable at 1440 px; the hash edges' labels clear of the arrowheads into the join; the app bar on one
line from 1024 px up."""
from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.e2e.browser_steps import api_call
from tests.e2e.run_header import assert_header_readable
from tests.support import wait_until

pytestmark = [pytest.mark.e2e, pytest.mark.spark]

# event times from November 2023: the watermark lags the wall clock by years
EVENT = '{"id": x, "ts": 1700000000000 + x, "user": "u" + str(x % 7), "kind": "click" if x % 3 else "purchase"}'
def fan_out_join() -> dict:
    return {
        "format": 1, "name": "e2e-fan-out-join", "mode": "streaming", "parallelism": 2,
        "checkpointing": {"interval_ms": 1000},
        "nodes": [
            {"id": "events", "type": "source.datagen", "params": {"rate": 2000, "expression": EVENT}},
            {"id": "event_time", "type": "transform.watermark", "params": {"timestamp": 'x["ts"]'}},
            {"id": "clicks", "type": "transform.filter", "params": {"predicate": 'x["kind"] == "click"'}},
            {"id": "purchases", "type": "transform.filter", "params": {"predicate": 'x["kind"] == "purchase"'}},
            {"id": "pairs", "type": "join.window",
             "params": {"size_ms": 100, "output": '[left["user"], left["id"], right["id"]]'}},
            {"id": "out", "type": "sink.collect", "params": {"max_records": 100}},
        ],
        "edges": [
            {"id": "t", "from": "events", "to": "event_time"},
            {"id": "c", "from": "event_time", "to": "clicks"},
            {"id": "p", "from": "event_time", "to": "purchases"},
            {"id": "cj", "from": "clicks", "to": "pairs", "partitioning": "hash", "key": 'x["user"]', "side": "left"},
            {"id": "pj", "from": "purchases", "to": "pairs", "partitioning": "hash", "key": 'x["user"]',
             "side": "right"},
            {"id": "o", "from": "pairs", "to": "out"},
        ],
    }


_BOXES = """() => {
    const box = (element) => { const r = element.getBoundingClientRect(); return {left: r.left, right: r.right, top: r.top, bottom: r.bottom, width: r.width, height: r.height}; };
    const cells = {};
    for (const cell of document.querySelectorAll('.run-cell[data-node]')) {
        cells[cell.dataset.node] = {...box(cell), from: cell.dataset.chainedFrom ?? null};
    }
    return cells;
}"""

_EDGE_STARTS = """() => {
    const starts = {};
    for (const edge of document.querySelectorAll('.react-flow__edge')) {
        const path = edge.querySelector('path.react-flow__edge-path');
        if (!path) continue;
        const point = path.getPointAtLength(0);
        const matrix = path.getScreenCTM();
        starts[edge.dataset.id ?? edge.getAttribute('data-testid')] = {
            x: point.x * matrix.a + point.y * matrix.c + matrix.e, y: point.x * matrix.b + point.y * matrix.d + matrix.f};
    }
    return starts;
}"""

_OVERFLOWS = """() => {
    const out = [];
    for (const cell of document.querySelectorAll('.run-cell[data-node]')) {
        const edge = cell.getBoundingClientRect();
        for (const element of cell.querySelectorAll('span, div')) {
            if (element.children.length || !element.textContent.trim()) continue;
            const box = element.getBoundingClientRect();
            if (box.width === 0) continue;
            const range = document.createRange();
            range.selectNodeContents(element);
            const text = range.getBoundingClientRect();
            // what is drawn: the text's own extent, clipped by an ancestor that hides its overflow
            let right = text.right, left = text.left;
            for (let node = element; node && node !== cell.parentElement; node = node.parentElement) {
                if (getComputedStyle(node).overflowX !== 'visible') {
                    const clip = node.getBoundingClientRect();
                    right = Math.min(right, clip.right);
                    left = Math.max(left, clip.left);
                }
            }
            if (right > edge.right + 0.5 || left < edge.left - 0.5) {
                out.push({node: cell.dataset.node, text: element.textContent, right, cell_right: edge.right});
            }
        }
    }
    return out;
}"""

_LABELS_OVER_TEXT = """(holder) => {
    const cell = document.querySelector(holder);
    const vertex = cell.closest('.react-flow__node');
    const texts = [...cell.querySelectorAll('span, div')].filter((element) => !element.children.length && element.textContent.trim()
        && !element.closest('.operator-node__sides, .operator-node__ports'));
    const hits = [];
    for (const label of vertex.querySelectorAll('.operator-node__side-name')) {
        const a = label.getBoundingClientRect();
        for (const text of texts) {
            const range = document.createRange();
            range.selectNodeContents(text);
            const b = range.getBoundingClientRect();
            if (a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom) {
                hits.push([label.textContent, text.textContent]);
            }
        }
    }
    return hits;
}"""

_LABELS_OVER_ARROWS = """() => {
    // what an edge's arrowhead covers: ARROW flow pixels back from where its path ends, as tall; and every input handle
    const ARROW = 10;
    const ends = [];
    for (const path of document.querySelectorAll('.react-flow__edge path.react-flow__edge-path')) {
        const end = path.getPointAtLength(path.getTotalLength());
        const m = path.getScreenCTM();
        const x = end.x * m.a + end.y * m.c + m.e, y = end.x * m.b + end.y * m.d + m.f, size = ARROW * m.a;
        ends.push({what: 'arrow', left: x - size, right: x, top: y - size / 2, bottom: y + size / 2});
    }
    for (const handle of document.querySelectorAll('.react-flow__handle.target')) {
        const r = handle.getBoundingClientRect();
        ends.push({what: 'handle', left: r.left, right: r.right, top: r.top, bottom: r.bottom});
    }
    const hits = [];
    for (const label of document.querySelectorAll('[data-testid^="run-edge-"]')) {
        const a = label.getBoundingClientRect();
        for (const b of ends) {
            if (a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom) {
                hits.push([label.dataset.testid, label.textContent, b.what, [a.left, a.right, a.top, a.bottom], [b.left, b.right, b.top, b.bottom]]);
            }
        }
    }
    return hits;
}"""

_APP_BAR = """() => {
    const bar = document.querySelector('.app-bar'), nav = document.querySelector('.app-nav');
    const links = [...nav.querySelectorAll('a')].map((a) => { const r = a.getBoundingClientRect(); return {text: a.textContent, height: r.height, right: r.right}; });
    return {navHeight: nav.getBoundingClientRect().height, lineHeight: parseFloat(getComputedStyle(nav.querySelector('a')).lineHeight) || 20,
            barHeight: bar.getBoundingClientRect().height, barOverflow: bar.scrollWidth - bar.clientWidth, links,
            userRight: document.querySelector('[data-testid="user-menu"]').getBoundingClientRect().right, width: window.innerWidth};
}"""


def assert_app_bar_on_one_line(page, width: int) -> None:
    """The app bar's every entry whole, on one line inside the bar, its user menu inside the window."""
    bar = page.evaluate(_APP_BAR)
    assert bar["navHeight"] < 1.5 * bar["lineHeight"], (width, bar)
    assert all(link["height"] < 1.5 * bar["lineHeight"] for link in bar["links"]), (width, bar)
    assert bar["barOverflow"] <= 0 and bar["userRight"] <= bar["width"], (width, bar)
    assert len(bar["links"]) == 8, bar


def test_a_fan_out_chain_is_drawn_as_a_tree_and_the_run_page_stays_readable(live_studio, page, artifacts):
    pipeline = api_call(page, live_studio, "POST", "/api/pipelines", {"name": "e2e-fan-out-join", "definition": fan_out_join()})
    run = api_call(page, live_studio, "POST", f"/api/pipelines/{pipeline['id']}/runs", {})
    page.goto(f"{live_studio}/runs/{run['id']}")
    expect(page.get_by_test_id("run-status")).to_have_text("RUNNING", timeout=240_000)
    plan = api_call(page, live_studio, "GET", f"/api/runs/{run['id']}")["plan"]
    assert [vertex["operators"] for vertex in plan["job_vertices"]] == [
        ["events", "event_time", "clicks", "purchases"], ["pairs", "out"]]

    # the figures the lead saw: the join's counts and latency, the source chain's years-long watermark lag
    expect(page.get_by_test_id("node-pairs").get_by_test_id("records-in")).not_to_have_text("in –", timeout=120_000)
    lag = page.get_by_test_id("node-clicks").get_by_test_id("watermark-lag")
    expect(lag).to_be_visible(timeout=120_000)
    wait_until(lambda: page.get_by_test_id("node-pairs").get_by_test_id("node-latency").count() > 0, 120,
               "the join's latency figures")
    page.wait_for_timeout(1500)  # the boxes measured and laid out again with their grown heights
    page.screenshot(path=str(artifacts / "run-graph-fan-out-chain.png"))
    page.locator(".react-flow__node", has=page.get_by_test_id("node-events")).screenshot(
        path=str(artifacts / "run-graph-fan-out-chain-box.png"))
    page.locator(".run-header").screenshot(path=str(artifacts / "run-header-1440.png"))

    # 1. a tree: both filters fed by event_time, stacked in one column, neither after the other
    cells = page.evaluate(_BOXES)
    assert cells["purchases"]["from"] == "event_time", cells
    assert cells["clicks"]["from"] == "event_time", cells
    assert abs(cells["purchases"]["left"] - cells["clicks"]["left"]) < 1, cells  # one column, not one after another
    assert abs(cells["purchases"]["left"] - cells["event_time"]["right"]) < 2, cells
    assert cells["clicks"]["bottom"] <= cells["purchases"]["top"] + 1, cells
    for arrow in page.locator('.run-cell[data-node="purchases"] .run-cell__from').all():
        assert arrow.get_attribute("data-from") == "event_time"
    # ... and each hash edge leaves the filter that sends it, at its own height
    starts = page.evaluate(_EDGE_STARTS)
    for edge_id, sender in (("cj", "clicks"), ("pj", "purchases")):
        start, cell = starts[edge_id], cells[sender]
        assert cell["top"] <= start["y"] <= cell["bottom"], (edge_id, start, cell)
        assert abs(start["x"] - cell["right"]) < 12, (edge_id, start, cell)

    # ... and their labels (hash(x["user"]), as long as the gap between the boxes) clear of the arrowheads into the join
    assert page.evaluate(_LABELS_OVER_ARROWS) == []
    label = page.get_by_test_id("run-edge-cj")
    assert label.get_attribute("title") == 'hash(x["user"])'
    page.locator(".react-flow__node", has=page.get_by_test_id("node-pairs")).screenshot(
        path=str(artifacts / "run-graph-join-inputs.png"))
    join = page.get_by_test_id("node-pairs").bounding_box()
    page.screenshot(path=str(artifacts / "run-graph-join-labels.png"),
                    clip={"x": max(0, join["x"] - 300), "y": max(0, join["y"] - 120), "width": 480, "height": 320})

    # 2. the join's "left" and "right" clear of its figures
    assert page.evaluate(_LABELS_OVER_TEXT, '.run-cell[data-node="pairs"]') == []
    # 3. no figure spills out of its cell; a years-long lag in days and hours
    assert page.evaluate(_OVERFLOWS) == []
    assert " d " in lag.inner_text(), lag.inner_text()
    # 4. every part of the header readable, on one row at 1440 px and at 1280 px (the graph keeps its height)
    for width, height in ((1440, 900), (1280, 720)):
        page.set_viewport_size({"width": width, "height": height})
        page.wait_for_timeout(300)
        assert_header_readable(page)
    # ... and the app bar on one line, every entry of it whole, down to 1024 px
    for width in (1440, 1280, 1024):
        page.set_viewport_size({"width": width, "height": 768})
        page.wait_for_timeout(300)
        assert_app_bar_on_one_line(page, width)
        page.locator(".app-bar").screenshot(path=str(artifacts / f"app-bar-{width}.png"))
    page.set_viewport_size({"width": 1440, "height": 900})

    # 5. the checkpoints' configuration: each value inside the panel (a long directory URL wraps in its cell)
    page.get_by_test_id("checkpoint-tab-config").click()
    config = page.get_by_test_id("checkpoint-config")
    expect(config).to_be_visible()
    panel = page.locator(".checkpoint-panel").bounding_box()
    for value in config.locator("td.numeric code").all():
        box = value.bounding_box()
        assert box["x"] + box["width"] <= panel["x"] + panel["width"] + 0.5, (value.inner_text(), box, panel)
    page.locator(".checkpoint-panel").screenshot(path=str(artifacts / "run-checkpoint-config.png"))

    api_call(page, live_studio, "POST", f"/api/runs/{run['id']}/cancel", {})
    expect(page.get_by_test_id("run-status")).to_have_text("CANCELED", timeout=60_000)


def test_the_editors_plan_names_a_fan_out_chain_as_a_tree(live_studio, page, artifacts):
    pipeline = api_call(page, live_studio, "POST", "/api/pipelines", {"name": "e2e-fan-out-plan", "definition": fan_out_join()})
    page.goto(f"{live_studio}/pipelines/{pipeline['id']}")
    page.get_by_test_id("tab-plan").click()
    page.get_by_test_id("plan-show").click()
    expect(page.get_by_test_id("plan-chain").first).to_have_text("events → event_time → [clicks, purchases]")
    # the two filters are both the chain's third step, neither after the other
    for node in ("clicks", "purchases"):
        expect(page.get_by_test_id(f"node-{node}").get_by_test_id("region-badge")).to_contain_text("chain 3/3")
    page.screenshot(path=str(artifacts / "editor-plan-fan-out-chain.png"))
    # the join's "left" and "right" beside its title and id, not over them
    expect(page.get_by_test_id("node-pairs").get_by_test_id("side-left")).to_be_attached()
    assert page.evaluate(_LABELS_OVER_TEXT, '[data-testid="node-pairs"]') == []
