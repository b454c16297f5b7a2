"""In a real browser: leaving the editor with unsaved edits asks first (in-app links, Back, closing the
tab), and Run with unsaved edits asks for the new version's message."""
import re

import pytest
from playwright.sync_api import expect

from tests.e2e.browser_steps import api_call, connect

pytestmark = [pytest.mark.e2e, pytest.mark.spark]


def test_unsaved_edits_are_not_lost_and_run_asks_for_the_version_message(live_studio, page, artifacts):
    dialogs = []

    def answer(dialog, accept):
        dialogs.append((dialog.type, dialog.message))
        dialog.accept() if accept else dialog.dismiss()

    page.goto(live_studio + "/")
    for operator in ("source.datagen", "sink.collect"):
        page.get_by_test_id(f"palette-{operator}").click()
    nodes = page.locator('[data-testid^="node-"]')
    expect(nodes).to_have_count(2)
    connect(page, nodes.nth(0), nodes.nth(1))
    page.get_by_test_id("pipeline-name").fill("e2e-unsaved")

    # Staying keeps the draft; the link went nowhere.
    page.once("dialog", lambda dialog: answer(dialog, accept=False))
    page.locator(".app-nav").get_by_text("Pipelines").click()
    expect(page).to_have_url(live_studio + "/")
    expect(nodes).to_have_count(2)
    assert dialogs == [("confirm", "This pipeline has unsaved changes. Leave and lose them?")]

    # Run with unsaved edits: the version message is asked for, then saved with the version.
    expect(page.get_by_test_id("run")).to_be_enabled(timeout=10_000)
    page.get_by_test_id("run").click()
    expect(page.get_by_test_id("save-and-run-dialog")).to_be_visible()
    page.screenshot(path=str(artifacts / "save-and-run.png"))
    page.get_by_test_id("run-version-message").fill("first draft, straight to a run")
    page.get_by_test_id("save-and-run").click()
    expect(page).to_have_url(re.compile(r"/runs/\d+$"), timeout=20_000)
    run = api_call(page, live_studio, "GET", "/api/runs/" + page.url.rsplit("/", 1)[1])
    versions = api_call(page, live_studio, "GET", f"/api/pipelines/{run['pipeline']}/versions")
    assert [(v["number"], v["message"]) for v in versions] == [(1, "first draft, straight to a run")]

    # Back in the editor, an edit, then Back in the browser: staying puts the editor back.
    page.get_by_role("link", name="e2e-unsaved").click()
    expect(page).to_have_url(f"{live_studio}/pipelines/{run['pipeline']}")
    page.get_by_test_id("pipeline-name").fill("e2e-unsaved, renamed")
    expect(page.get_by_test_id("save-status")).to_contain_text("Edited since v1")
    page.once("dialog", lambda dialog: answer(dialog, accept=False))
    page.go_back()
    expect(page).to_have_url(f"{live_studio}/pipelines/{run['pipeline']}")
    expect(page.get_by_test_id("pipeline-name")).to_have_value("e2e-unsaved, renamed")
    assert len(dialogs) == 2

    # Leaving when the user says so; the same pipeline opens again with its edits.
    page.once("dialog", lambda dialog: answer(dialog, accept=True))
    page.locator(".app-nav").get_by_text("Pipelines").click()
    expect(page).to_have_url(live_studio + "/pipelines/")
    assert len(dialogs) == 3

    # Closing the tab with unsaved edits: the browser's own prompt (beforeunload).
    page.goto(f"{live_studio}/pipelines/{run['pipeline']}")
    # the saved pipeline first (an edit typed before it loads would be replaced by it, leaving nothing unsaved)
    expect(page.get_by_test_id("pipeline-name")).to_have_value("e2e-unsaved")
    page.get_by_test_id("pipeline-name").fill("closing with edits")
    expect(page.get_by_test_id("save-status")).to_contain_text("Edited since v1")
    unload = []
    page.on("dialog", lambda dialog: (unload.append(dialog.type), dialog.accept()))
    page.close(run_before_unload=True)
    page.wait_for_event("close")
    assert unload == ["beforeunload"]
