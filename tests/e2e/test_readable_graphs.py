"""In a real browser: a graph opens at a zoom where node text is readable, with its sources in view,
and the user can still zoom out beyond that to see all of it."""
import re

import pytest
from playwright.sync_api import expect

from tests.e2e.browser_steps import api_call
from tests.support import grid_pipeline

pytestmark = pytest.mark.e2e


def zoom(page) -> float:
    transform = page.locator(".react-flow__viewport").evaluate("element => element.style.transform")
    return float(re.search(r"scale\(([\d.]+)\)", transform).group(1))


def test_a_30_node_graph_opens_readable_and_zooms_out_beyond(live_studio, page, artifacts):
    pipeline = api_call(page, live_studio, "POST", "/api/pipelines",
                        {"name": "thirty", "definition": grid_pipeline(30, name="thirty")})
    page.goto(f"{live_studio}/pipelines/{pipeline['id']}")
    first = page.get_by_test_id("node-n0")
    expect(first).to_be_in_viewport(timeout=20_000)
    page.wait_for_function("() => /scale\\((0\\.9|1)\\b/.test(document.querySelector('.react-flow__viewport').style.transform)")
    assert zoom(page) >= 0.9
    # the smallest node text (its id, 11 px) is at least 10 px on screen
    font_px = first.locator(".operator-node__id").evaluate("element => parseFloat(getComputedStyle(element).fontSize)")
    assert font_px * zoom(page) >= 9.9, (font_px, zoom(page))
    page.screenshot(path=str(artifacts / "editor-30-nodes-readable.png"))

    page.locator(".react-flow__controls-zoomout").click()
    page.locator(".react-flow__controls-zoomout").click()
    page.wait_for_function("() => !/scale\\((0\\.9|1)\\b/.test(document.querySelector('.react-flow__viewport').style.transform)")
    assert zoom(page) < 0.9
