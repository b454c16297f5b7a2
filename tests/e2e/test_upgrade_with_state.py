"""In a real browser, on Spark: a running pipeline is upgraded from v1 to v2 with its state from the
editor (the state check shown first), and the output across both versions is exact: every input
once, v1's function before the savepoint, v2's after."""
import re

import pytest
from playwright.sync_api import expect

from tests.e2e.browser_steps import api_call, wait_for_run
from tests.support import simple_pipeline

pytestmark = [pytest.mark.e2e, pytest.mark.spark, pytest.mark.timeout(600)]  # two Spark drivers, one after the other

COUNT = 400


def test_upgrade_v1_to_v2_with_state_keeps_the_output_exact(live_studio, page, artifacts):
    definition = simple_pipeline(count=COUNT, rate=40, expression="x * 2", interval_ms=500, name="e2e-upgrade")
    pipeline = api_call(page, live_studio, "POST", "/api/pipelines", {"name": "e2e-upgrade", "definition": definition,
                                                                       "message": "doubles"})
    first = api_call(page, live_studio, "POST", f"/api/pipelines/{pipeline['id']}/runs", {})
    wait_for_run(page, live_studio, first["id"], lambda run: len((run["collected"] or {}).get("out", [])) >= 20)

    page.goto(f"{live_studio}/pipelines/{pipeline['id']}")
    page.get_by_test_id("node-double").click()
    page.get_by_test_id("param-expression").fill("x * 3")
    page.get_by_test_id("save-message").fill("triples")
    page.get_by_test_id("save").click()
    expect(page.get_by_test_id("save-status")).to_contain_text("Saved · v2")

    page.get_by_test_id("upgrade").click()
    dialog = page.get_by_test_id("upgrade-dialog")
    expect(dialog).to_contain_text(f"Stop run #{first['id']} (v1)")
    expect(page.get_by_test_id("state-check")).to_have_attribute("data-compatible", "true")
    expect(page.get_by_test_id("state-kept")).to_contain_text("gen")
    expect(page.get_by_test_id("upgrade-version")).to_have_value("2")
    page.screenshot(path=str(artifacts / "upgrade-with-state.png"))
    page.get_by_test_id("upgrade-confirm").click()
    expect(page).to_have_url(re.compile(r"/runs/\d+$"), timeout=120_000)
    second_id = int(page.url.rsplit("/", 1)[1])
    assert second_id != first["id"]
    expect(page.get_by_test_id("restored-from")).to_be_visible(timeout=30_000)

    stopped = wait_for_run(page, live_studio, first["id"], lambda run: run["ended_at"] is not None)
    second = wait_for_run(page, live_studio, second_id, lambda run: run["status"] in ("FINISHED", "FAILED", "CANCELED"))
    assert (stopped["status"], second["status"], second["version"]) == ("FINISHED", "FINISHED", 2), second
    before = stopped["collected"]["out"]
    after = second["collected"]["out"]
    if after[:len(before)] == before:  # the collect sink restored what it had shown
        after = after[len(before):]
    split = len(before)
    assert 0 < split < COUNT
    assert before + after == [x * 2 for x in range(split)] + [x * 3 for x in range(split, COUNT)]
