"""The editor's environment picker, in Chromium at 1280×720: a pipeline whose count and factor are
``${param:…}``, two of the user's environments (one lacks ``count``). Chosen with the keyboard, the picker
makes validation name the parameter the environment lacks at its node, the preview says whose values it ran
with (and lists what is missing when it cannot run), and the choice is still there after a reload.

Screenshots are in ``test-results/environments/``.
"""
from __future__ import annotations

import uuid

import pytest
from playwright.sync_api import expect

from tests.e2e.browser_steps import api_call
from tests.support import simple_pipeline

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]


def look(page, artifacts, name: str) -> None:
    folder = artifacts / "environments"
    folder.mkdir(exist_ok=True)
    page.screenshot(path=str(folder / f"{name}.png"))


def choose(page, name: str) -> None:
    """Choose an environment with the keyboard: focus the picker, type its name (the select's type-ahead)."""
    picker = page.get_by_label("Environment", exact=True)
    picker.focus()
    page.keyboard.type(name)
    expect(picker).to_have_value(name)


def header_fits(page) -> None:
    """The editor's header is one row inside the window, nothing of it cut or pushed out."""
    boxes = page.evaluate("""() => [...document.querySelectorAll('.editor > .toolbar > *')]
        .filter((element) => element.getClientRects().length > 0)
        .map((element) => { const box = element.getBoundingClientRect();
                            return {name: element.className || element.tagName, top: box.top, right: box.right}; })""")
    width = page.viewport_size["width"]
    assert all(box["right"] <= width for box in boxes), boxes
    assert len({round(box["top"] / 8) for box in boxes if box["name"] != "toolbar-spacer"}) <= 2, boxes  # one row


@pytest.fixture
def environments_made(live_studio, page):
    """Ids of the environments a test makes, deleted after it: the studio lives for the whole session, and a
    user's environments form one promotion chain, so those left behind would come before another story's."""
    made: list[int] = []
    yield made
    for environment_id in made:
        api_call(page, live_studio, "DELETE", f"/api/environments/{environment_id}")


def test_the_picker_fills_validation_and_preview_with_an_environments_values(live_studio, page, artifacts,
                                                                             environments_made):
    suffix = uuid.uuid4().hex[:4]
    dev, thin = f"picker-dev-{suffix}", f"picker-thin-{suffix}"
    for name, parameters in ((dev, {"factor": 2, "count": 4}), (thin, {"factor": 3})):
        made = api_call(page, live_studio, "POST", "/api/environments", {"name": name, "parameters": parameters})
        environments_made.append(made["id"])
    definition = simple_pipeline(count=None, expression="x * ${param:factor}", name=f"picked-{suffix}")
    definition["nodes"][0]["params"]["count"] = "${param:count}"
    pipeline = api_call(page, live_studio, "POST", "/api/pipelines", {"name": definition["name"], "definition": definition})

    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto(f"{live_studio}/pipelines/{pipeline['id']}")
    picker = page.get_by_label("Environment", exact=True)
    expect(picker).to_have_value("")  # none: the definition as written, its references left to a run
    expect(page.get_by_test_id("validation-status")).to_have_text("Valid")
    expect(picker.locator("option")).to_contain_text(["none", dev, thin])
    header_fits(page)

    # an environment without `count`: validation says so where count is used, and Run waits
    choose(page, thin)
    expect(page.get_by_test_id("validation-status")).to_have_text("1 problem")
    problem = page.get_by_test_id("problem")
    expect(problem).to_contain_text("node gen · params.count")
    expect(problem).to_contain_text(f"unknown parameter 'count': environment '{thin}' does not define it "
                                    "(it defines factor)")
    expect(page.get_by_test_id("problems-environment")).to_have_text(f"checked with environment {thin}'s values")
    expect(page.get_by_test_id("run")).to_be_disabled()
    page.get_by_test_id("tab-preview").click()
    page.get_by_test_id("preview-run").click()
    refusal = page.get_by_test_id("preview-refusal")
    expect(refusal).to_contain_text(f"The preview did not run with environment {thin}'s values")
    expect(refusal.get_by_test_id("preview-problem")).to_contain_text("node gen · params.count unknown parameter 'count'")
    header_fits(page)
    look(page, artifacts, "picker-1-missing-parameter-1280x720")

    # dev gives both: valid, and the preview runs with its values and says so
    choose(page, dev)
    expect(page.get_by_test_id("validation-status")).to_have_text("Valid")
    page.get_by_test_id("preview-run").click()
    expect(page.get_by_test_id("preview-status")).to_contain_text("FINISHED", timeout=60_000)
    expect(page.get_by_test_id("preview-environment")).to_have_text(f"with environment {dev}'s values")
    expect(page.get_by_test_id("preview-node-double").get_by_test_id("preview-record")).to_have_text(["0", "2", "4", "6"])
    look(page, artifacts, "picker-2-preview-in-dev-1280x720")

    # remembered for this pipeline in this browser
    page.reload()
    expect(page.get_by_label("Environment", exact=True)).to_have_value(dev)
    expect(page.get_by_test_id("validation-status")).to_have_text("Valid")
    header_fits(page)
