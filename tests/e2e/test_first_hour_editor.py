"""The editor as a newcomer meets it, in a real browser on the real studio: its header says its whole
status, the user menu closes, auto-layout spreads nodes that are not connected yet, Back asks before the
address changes, and the Deploy dialog says in words what happens to the state.

Screenshots: test-results/first-hour/ (git-ignored), at 1440×900 and 1280×720.
"""
from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.e2e.browser_steps import api_call, connect, wait_for_run
from tests.e2e.first_hour import SCREENS, shot
from tests.support import simple_pipeline, wait_until

pytestmark = [pytest.mark.e2e]


def assert_whole(locator, text: str | re.Pattern) -> None:
    """The element shows `text` and all of it: nothing cut off with an ellipsis."""
    expect(locator).to_have_text(text)
    width, room = locator.evaluate("element => [element.scrollWidth, element.clientWidth]")
    assert width <= room, f"{locator.inner_text()!r} is cut: {width} px of text in {room} px"


def placeholder_fits(locator) -> bool:
    """Whether an input shows its whole placeholder."""
    return locator.evaluate(
        """input => {
          const style = getComputedStyle(input);
          const context = document.createElement('canvas').getContext('2d');
          context.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
          const room = input.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
          return context.measureText(input.placeholder).width <= room;
        }""")


@pytest.mark.parametrize("width, height", SCREENS)
def test_the_editor_header_says_its_whole_status_and_the_user_menu_closes(live_studio, page, artifacts, width, height):
    page.set_viewport_size({"width": width, "height": height})
    page.goto(live_studio + "/")
    status = page.get_by_test_id("save-status")
    expect(page.get_by_test_id("validation-status")).to_be_visible()
    shot(artifacts, "editor-header-draft", page)
    assert_whole(status, "Draft, never saved")
    assert placeholder_fits(page.get_by_test_id("save-message")), "the version message box cuts its placeholder"

    # A map and a filter without their expressions: the server refuses to save them, and says how many problems.
    for operator in ("source.datagen", "transform.map", "transform.filter", "sink.collect"):
        page.get_by_test_id(f"palette-{operator}").click()
    nodes = page.locator('[data-testid^="node-"]')
    expect(nodes).to_have_count(4)
    for index in range(3):
        connect(page, nodes.nth(index), nodes.nth(index + 1))
    page.get_by_test_id("pipeline-name").fill(f"first-hour-header-{width}")
    page.get_by_test_id("save").click()
    expect(status).to_contain_text("Save failed")
    shot(artifacts, "editor-header-save-failed", page)
    assert_whole(status, "Save failed: 2 problems")

    nodes.nth(1).click()
    page.get_by_test_id("param-expression").fill("x + 1")
    nodes.nth(2).click()
    page.get_by_test_id("param-predicate").fill("x % 2 == 0")
    page.get_by_test_id("save-message").fill("a map that adds one to every record")
    page.get_by_test_id("save").click()
    expect(status).to_contain_text("Sav")
    expect(page.get_by_test_id("save")).to_be_disabled()
    shot(artifacts, "editor-header-saved", page)
    assert_whole(status, "Saved · v1")

    # The user menu closes when the user clicks elsewhere or presses Escape.
    menu = page.locator(".user-menu__list")
    page.get_by_test_id("user-menu").click()
    expect(menu).to_be_visible()
    shot(artifacts, "user-menu-open", page)
    page.get_by_test_id("problems").click()  # anywhere else on the page
    expect(menu).to_be_hidden()
    page.get_by_test_id("user-menu").click()
    expect(menu).to_be_visible()
    page.keyboard.press("Escape")
    expect(menu).to_be_hidden()


def test_auto_layout_spreads_nodes_that_are_not_connected_yet(live_studio, page, artifacts):
    page.goto(live_studio + "/")
    for operator in ("source.datagen", "source.datagen", "transform.map", "transform.filter", "sink.collect",
                     "sink.collect"):
        page.get_by_test_id(f"palette-{operator}").click()
    nodes = page.locator('.react-flow__node')
    expect(nodes).to_have_count(6)
    placed = [nodes.nth(index).bounding_box() for index in range(6)]
    page.get_by_test_id("auto-layout").click()
    boxes = settled_boxes(nodes, 6, placed)
    shot(artifacts, "auto-layout-unconnected", page)
    xs, ys = [box["x"] for box in boxes], [box["y"] for box in boxes]
    width, height = max(box["width"] for box in boxes), max(box["height"] for box in boxes)
    assert max(xs) - min(xs) >= width and max(ys) - min(ys) >= height, (
        f"auto-layout put unconnected nodes in one column or row: {boxes}")
    canvas = page.locator(".react-flow").bounding_box()
    for box in boxes:
        assert canvas["x"] <= box["x"] and box["x"] + box["width"] <= canvas["x"] + canvas["width"], box
        assert canvas["y"] <= box["y"] and box["y"] + box["height"] <= canvas["y"] + canvas["height"], box

    # Connected ones still flow from left to right.
    connect(page, page.get_by_test_id("node-datagen-1"), page.get_by_test_id("node-map-3"))
    connect(page, page.get_by_test_id("node-map-3"), page.get_by_test_id("node-collect-5"))
    expect(page.locator(".react-flow__edge")).to_have_count(2)
    page.get_by_test_id("auto-layout").click()
    settled_boxes(nodes, 6, boxes)
    xs = [page.get_by_test_id(f"node-{node}").bounding_box()["x"] for node in ("datagen-1", "map-3", "collect-5")]
    assert xs == sorted(xs) and len(set(xs)) == 3, xs
    shot(artifacts, "auto-layout-mixed", page)


def settled_boxes(nodes, count: int, before: list) -> list:
    """The nodes' boxes once a layout has moved them and the view's fit (animated) has come to rest:
    a drag started while the view still moves misses the handle it aimed at."""
    seen: list = []

    def at_rest():
        boxes = [nodes.nth(index).bounding_box() for index in range(count)]
        resting = boxes != before and boxes == (seen[-1] if seen else None)
        seen.append(boxes)
        return resting and boxes

    return wait_until(at_rest, 10, "the layout to move the nodes and the view to come to rest")


def test_back_asks_before_the_address_changes(live_studio, page, artifacts):
    pipeline = api_call(page, live_studio, "POST", "/api/pipelines",
                        {"name": "first-hour-back", "definition": simple_pipeline(name="first-hour-back")})
    page.goto(f"{live_studio}/pipelines/")
    page.get_by_role("link", name="first-hour-back").click()
    editor_url = f"{live_studio}/pipelines/{pipeline['id']}"
    expect(page).to_have_url(editor_url)
    expect(page.get_by_test_id("pipeline-name")).to_have_value("first-hour-back")
    page.get_by_test_id("pipeline-name").fill("first-hour-back, renamed")
    expect(page.get_by_test_id("save-status")).to_contain_text("Edited since v1")

    asked = []

    def stay(dialog):
        asked.append((dialog.message, page.url))
        dialog.dismiss()

    page.once("dialog", stay)
    page.go_back()
    expect(page.get_by_test_id("pipeline-name")).to_have_value("first-hour-back, renamed")
    shot(artifacts, "back-stays", page)
    assert asked == [("This pipeline has unsaved changes. Leave and lose them?", editor_url)], asked
    expect(page).to_have_url(editor_url)

    page.once("dialog", lambda dialog: (asked.append((dialog.message, page.url)), dialog.accept()))
    page.go_back()
    expect(page).to_have_url(f"{live_studio}/pipelines/")
    assert [url for _, url in asked] == [editor_url, editor_url]
    expect(page.get_by_test_id("pipeline-row").first).to_be_visible()


@pytest.mark.spark
@pytest.mark.timeout(600)
def test_the_deploy_dialog_says_in_words_what_happens_to_the_state(live_studio, page, artifacts):
    definition = {
        "format": 1, "name": "first-hour-deploy", "mode": "streaming", "parallelism": 1,
        "checkpointing": {"interval_ms": 500},
        "nodes": [
            {"id": "gen", "type": "source.datagen", "params": {"count": None, "rate": 50}},
            {"id": "per_key", "type": "aggregate.reduce", "params": {"function": "count"}},
            {"id": "out", "type": "sink.collect", "params": {}},
        ],
        "edges": [{"id": "e1", "from": "gen", "to": "per_key", "partitioning": "hash", "key": "x % 5"},
                  {"id": "e2", "from": "per_key", "to": "out"}],
    }
    pipeline = api_call(page, live_studio, "POST", "/api/pipelines", {"name": definition["name"], "definition": definition})
    run = api_call(page, live_studio, "POST", f"/api/pipelines/{pipeline['id']}/runs", {})
    wait_for_run(page, live_studio, run["id"], lambda current: current["status"] == "RUNNING")
    without_count = {**definition, "nodes": [definition["nodes"][0], definition["nodes"][2]],
                     "edges": [{"id": "e3", "from": "gen", "to": "out"}]}
    api_call(page, live_studio, "PUT", f"/api/pipelines/{pipeline['id']}",
             {"definition": without_count, "message": "no more counting"})

    for width, height in SCREENS:
        page.set_viewport_size({"width": width, "height": height})
        page.goto(f"{live_studio}/pipelines/{pipeline['id']}")
        expect(page.get_by_test_id("save-status")).to_contain_text("Saved · v2")
        page.get_by_test_id("upgrade").click()
        dialog = page.get_by_test_id("upgrade-dialog")
        expect(page.get_by_test_id("state-check")).to_be_visible(timeout=30_000)
        expect(page.get_by_test_id("state-dropped")).to_contain_text("per_key")
        shot(artifacts, "deploy-dialog-dropped-state", page)
        assert "allow_non_restored_state" not in dialog.inner_text()
        expect(dialog).to_contain_text(re.compile(r"per_key.*(not in v2|removed)", re.S))
        expect(page.get_by_test_id("upgrade-confirm")).to_be_disabled()
        page.get_by_test_id("upgrade-allow-dropping").check()
        expect(page.get_by_test_id("upgrade-confirm")).to_be_enabled()
        dialog.get_by_role("button", name="Close").click()
