"""In a real browser, the editor: validation on the canvas, undo/redo, clipboard, layout, versions
with a visual diff and restore, import/export, the plan overlay, the preview, and a 200-node canvas.

Screenshots go to test-results/ (git-ignored) so a person can look at them.
"""
from __future__ import annotations

import json
import re
import time

import pytest
from playwright.sync_api import expect

from tests.e2e.browser_steps import (
    admin_password,
    api_call,
    draw_keyed_pipeline,
    open_signed_in,
)
from tests.support import grid_pipeline

pytestmark = [pytest.mark.e2e]


@pytest.fixture
def signed_in(live_studio, page, tmp_path_factory):
    open_signed_in(page, live_studio, admin_password(tmp_path_factory))
    return page


def node_ids(page) -> list[str]:
    return [test_id.removeprefix("node-") for test_id in
            page.locator('[data-testid^="node-"]').evaluate_all("els => els.map(e => e.dataset.testid)")]


# -- tests ---------------------------------------------------------------------------------------

def test_edit_with_undo_clipboard_layout_versions_diff_plan_and_preview(live_studio, signed_in, artifacts, tmp_path):
    page = signed_in
    page.goto(live_studio + "/")
    source, mapper, reducer, sink = draw_keyed_pipeline(page, rate=100)
    nodes = page.locator('[data-testid^="node-"]')

    # The edge into the keyed aggregate hashes: its missing key is shown on the edge and listed.
    hash_edge = page.locator('[data-testid^="edge-label-"]', has_text="hash")
    expect(hash_edge).to_have_class(re.compile("has-problems"), timeout=10_000)
    expect(page.get_by_test_id("problem")).to_have_count(1)
    expect(page.get_by_test_id("problem")).to_contain_text("key")
    expect(page.get_by_test_id("run")).to_be_disabled()
    hash_edge.click()
    page.get_by_test_id("edge-key").fill('x["user"]')
    expect(page.get_by_test_id("problem")).to_have_count(0, timeout=10_000)
    expect(page.get_by_test_id("validation-status")).to_have_text("Valid")

    # Undo brings the error back, redo fixes it again; the keyboard does the same.
    page.get_by_test_id("undo").click()
    expect(page.get_by_test_id("problem")).to_have_count(1, timeout=10_000)
    page.get_by_test_id("redo").click()
    expect(page.get_by_test_id("problem")).to_have_count(0, timeout=10_000)

    # Duplicate a node, delete it with the keyboard, undo the delete, undo the duplicate.
    mapper.click()
    page.get_by_test_id("duplicate").click()
    expect(nodes).to_have_count(5)
    expect(page.get_by_test_id(f"node-{node_ids(page)[-1]}")).to_have_class(re.compile("is-selected"))
    page.keyboard.press("Delete")  # the duplicate is the selection
    expect(nodes).to_have_count(4)
    page.keyboard.press("Control+z")
    expect(nodes).to_have_count(5)
    page.keyboard.press("Control+z")
    expect(nodes).to_have_count(4)
    # Copy and paste with the keyboard: a fresh id, then undone.
    mapper.click()
    page.keyboard.press("Control+c")
    page.keyboard.press("Control+v")
    expect(nodes).to_have_count(5)
    page.keyboard.press("Control+z")
    expect(nodes).to_have_count(4)
    expect(page.get_by_test_id("problem")).to_have_count(0, timeout=10_000)

    # Multi-select with Ctrl+click: duplicating two connected nodes copies the edge between them.
    edges = page.locator(".react-flow__edge")
    mapper.click()
    reducer.click(modifiers=["Control"])
    page.keyboard.press("Control+d")
    expect(nodes).to_have_count(6)
    expect(edges).to_have_count(4)
    page.get_by_test_id("undo").click()
    expect(nodes).to_have_count(4)
    expect(edges).to_have_count(3)
    # Select all and delete is one step too.
    page.locator(".react-flow__pane").click(position={"x": 10, "y": 10})
    page.keyboard.press("Control+a")
    page.keyboard.press("Delete")
    expect(nodes).to_have_count(0)
    page.keyboard.press("Control+z")
    expect(nodes).to_have_count(4)
    expect(edges).to_have_count(3)
    expect(page.get_by_test_id("problem")).to_have_count(0, timeout=10_000)
    page.locator(".react-flow__pane").click(position={"x": 10, "y": 10})  # clear the restored selection

    # Auto-layout puts the chain left to right.
    page.get_by_test_id("auto-layout").click()
    page.wait_for_timeout(400)
    xs = [nodes.nth(index).bounding_box()["x"] for index in range(4)]
    assert xs == sorted(xs), f"auto-layout is not left to right: {xs}"

    page.get_by_test_id("pipeline-name").fill("e2e-editor")
    page.get_by_test_id("save-message").fill("first version")
    page.get_by_test_id("save").click()
    expect(page.get_by_test_id("save-status")).to_contain_text("Saved · v1")

    # The plan overlay colours every node by pipelined region and lists the schedule.
    page.get_by_test_id("plan-toggle").click()
    expect(page.get_by_test_id("plan-step").first).to_be_visible(timeout=15_000)
    expect(page.get_by_test_id("region-badge")).to_have_count(4)
    page.screenshot(path=str(artifacts / "editor-plan.png"))

    # A second version with another expression; the diff highlights the changed node.
    mapper.click()
    page.get_by_test_id("param-expression").fill('{"user": x % 7, "n": x}')
    expect(page.get_by_test_id("validation-status")).to_have_text("Valid", timeout=10_000)
    page.get_by_test_id("save-message").fill("seven users")
    page.get_by_test_id("save").click()
    expect(page.get_by_test_id("save-status")).to_contain_text("Saved · v2")
    page.get_by_test_id("tab-history").click()
    expect(page.get_by_test_id("version-row")).to_have_count(2)
    expect(page.get_by_test_id("version-row").first).to_contain_text("seven users")
    page.get_by_test_id("diff-from").select_option("1")
    page.get_by_test_id("diff-to").select_option("2")
    page.get_by_test_id("diff-show").click()
    expect(page.get_by_test_id("diff-view")).to_be_visible()
    changed = page.locator('[data-testid^="diff-node-"][data-diff="changed"]')
    expect(changed).to_have_count(1)
    expect(changed).to_contain_text("params.expression")
    expect(page.locator('[data-testid^="diff-node-"][data-diff="same"]')).to_have_count(3)
    page.screenshot(path=str(artifacts / "editor-diff.png"))
    page.get_by_test_id("diff-close").click()

    # Restore v1 as v3.
    page.locator('[data-testid="version-row"][data-version="1"]').get_by_test_id("restore-version").click()
    page.get_by_test_id("restore-confirm").click()
    expect(page.get_by_test_id("save-status")).to_contain_text("Saved · v3")
    expect(page.get_by_test_id("version-row")).to_have_count(3)
    mapper.click()
    expect(page.get_by_test_id("param-expression")).to_have_value('{"user": x % 5, "n": x}')

    # Export the definition, change the graph, import the file back: the graph returns.
    with page.expect_download() as download:
        page.get_by_test_id("export").click()
    exported = tmp_path / "exported.json"
    download.value.save_as(exported)
    definition = json.loads(exported.read_text())
    assert [node["type"] for node in definition["nodes"]] == [
        "source.datagen", "transform.map", "aggregate.reduce", "sink.collect"]
    assert any(edge["partitioning"] == "hash" and edge["key"] == 'x["user"]' for edge in definition["edges"])
    sink.click()
    page.get_by_test_id("delete-selection").click()
    expect(nodes).to_have_count(3)
    page.get_by_test_id("import-file").set_input_files(str(exported))
    expect(nodes).to_have_count(4)
    expect(page.get_by_test_id("problem")).to_have_count(0, timeout=10_000)

    # Preview: a bounded sample through every node, shown per node.
    page.get_by_test_id("tab-preview").click()
    page.get_by_test_id("preview-run").click()
    expect(page.get_by_test_id("preview-status")).to_contain_text("FINISHED", timeout=60_000)
    collect_id = next(node_id for node_id in node_ids(page) if node_id.startswith("collect"))
    expect(page.get_by_test_id(f"preview-node-{collect_id}").get_by_test_id("preview-record").first).to_be_visible()
    page.screenshot(path=str(artifacts / "editor-preview.png"))


def test_a_200_node_pipeline_becomes_interactive(live_studio, signed_in, artifacts):
    page = signed_in
    pipeline = api_call(page, live_studio, "POST", "/api/pipelines",
                        {"name": "two-hundred", "definition": grid_pipeline(name="two-hundred")})

    started = time.monotonic()
    page.goto(f"{live_studio}/pipelines/{pipeline['id']}")
    # Interactive: the nodes in view rendered and measured (React Flow shows a node once it knows its
    # size; a graph this large opens at a readable zoom, so only its upper left is in view).
    rendered_at = page.wait_for_function(
        """() => {
            const nodes = document.querySelectorAll('.react-flow__node');
            if (nodes.length === 0 || !document.querySelector('[data-testid="node-n0"]')) return false;
            for (const node of nodes) if (getComputedStyle(node).visibility === 'hidden') return false;
            return performance.now();
        }""", timeout=60_000, polling="raf").json_value()
    wall_ms = (time.monotonic() - started) * 1000

    # A drag works: the node follows the pointer, and the move is undoable.
    target = page.get_by_test_id("node-n0")
    before = target.bounding_box()
    drag_started = time.monotonic()
    page.mouse.move(before["x"] + 30, before["y"] + 10)
    page.mouse.down()
    page.mouse.move(before["x"] + 90, before["y"] + 70, steps=5)
    page.mouse.up()
    expect(page.get_by_test_id("undo")).to_be_enabled()
    after = target.bounding_box()
    drag_ms = (time.monotonic() - drag_started) * 1000
    assert after["x"] > before["x"] + 20 and after["y"] > before["y"] + 20, (before, after)
    page.screenshot(path=str(artifacts / "editor-200-nodes.png"))

    measurement = {"tti_ms_200_nodes": round(rendered_at), "wall_ms_goto_to_rendered": round(wall_ms),
                   "drag_ms": round(drag_ms), "nodes": 200, "edges": 180,
                   "measured_at": time.strftime("%Y-%m-%dT%H:%M:%S")}
    (artifacts / "frontend-tti.json").write_text(json.dumps(measurement, indent=2) + "\n")
    print("200-node time to interactive:", measurement)


def test_login_returns_to_the_page_and_tokens_are_shown_once(live_studio, browser, tmp_path_factory):
    context = browser.new_context(viewport={"width": 1440, "height": 900})  # anonymous, unlike `page`
    page = context.new_page()
    pipeline_path = "/pipelines/"
    page.goto(live_studio + pipeline_path)
    expect(page).to_have_url(re.compile(r"/login\?next=%2Fpipelines%2F"), timeout=15_000)
    page.get_by_test_id("login-password").fill("not-the-password")
    page.get_by_test_id("login-submit").click()
    expect(page.get_by_test_id("login-error")).to_be_visible()
    page.get_by_test_id("login-password").fill(admin_password(tmp_path_factory))
    page.get_by_test_id("login-submit").click()
    expect(page).to_have_url(live_studio + pipeline_path, timeout=15_000)

    # The owner deletes a pipeline from the list (after confirming).
    doomed = api_call(page, live_studio, "POST", "/api/pipelines", {"name": "to-delete", "definition": grid_pipeline(20, name="to-delete")})
    page.reload()
    row = page.get_by_test_id("pipeline-row").filter(has_text="to-delete")
    expect(row).to_have_count(1)
    row.get_by_test_id("pipeline-delete").click()
    row.get_by_test_id("pipeline-delete-confirm").click()
    expect(page.get_by_test_id("pipeline-row").filter(has_text="to-delete")).to_have_count(0)
    assert page.request.get(f"{live_studio}/api/pipelines/{doomed['id']}").status == 404

    page.get_by_test_id("user-menu").click()
    page.get_by_role("menuitem", name="API tokens").click()
    expect(page).to_have_url(re.compile(r"/tokens$"))
    page.get_by_test_id("token-name").fill("e2e script")
    page.get_by_test_id("token-create").click()
    key = page.get_by_test_id("token-key").inner_text()
    assert len(key) >= 20
    row = page.get_by_test_id("token-row").filter(has_text="e2e script")
    expect(row).to_have_count(1)
    # The key works for scripts, without the browser's session.
    import urllib.request

    request = urllib.request.Request(live_studio + "/api/pipelines", headers={"Authorization": f"Token {key}"})
    with urllib.request.urlopen(request, timeout=10) as answer:
        assert answer.status == 200
    row.get_by_test_id("token-revoke").click()
    expect(row).to_have_count(0)

    page.get_by_test_id("user-menu").click()
    page.get_by_test_id("logout").click()
    expect(page).to_have_url(re.compile(r"/login"))
    page.goto(live_studio + "/")
    expect(page).to_have_url(re.compile(r"/login\?next="), timeout=15_000)
    context.close()
