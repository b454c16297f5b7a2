"""In a real browser, on Spark: a running pipeline, a candidate v2 that changes its filter, "Shadow first" from the
Deploy dialog; the shadow page shows exactly the rows the change adds and removes (checked against plain Python
from the savepoint's source position, read in the state browser), and production's output is as if no shadow had
run: every record it had shown is still there, and it ends with every record of its own filter exactly once."""
import json
import re

import pytest
from playwright.sync_api import expect

from tests.builders import edge, node, pipeline
from tests.e2e.browser_steps import api_call, wait_for_run

pytestmark = [pytest.mark.e2e, pytest.mark.spark, pytest.mark.timeout(900)]  # production and the shadow on Spark

COUNT, RATE = 6000, 100  # a minute of input: production still runs when the shadow takes its savepoint


def filtering(predicate: str) -> dict:
    return pipeline([node("gen", "source.datagen", count=COUNT, rate=RATE),
                     node("keep", "transform.filter", predicate=predicate),
                     node("out", "sink.collect", max_records=COUNT)],
                    [edge("gen", "keep"), edge("keep", "out")], interval_ms=500, name="e2e-shadow")


def test_shadow_first_shows_what_the_filter_change_does_and_leaves_production_alone(live_studio, page, artifacts):
    created = api_call(page, live_studio, "POST", "/api/pipelines", {"name": "e2e-shadow",
                                                                     "definition": filtering("x % 3 != 0")})
    production = api_call(page, live_studio, "POST", f"/api/pipelines/{created['id']}/runs", {})
    shown_before = wait_for_run(page, live_studio, production["id"],
                                lambda run: len((run["collected"] or {}).get("out", [])) >= 20)["collected"]["out"]

    page.goto(f"{live_studio}/pipelines/{created['id']}")
    page.get_by_test_id("node-keep").click()
    predicate = page.get_by_test_id("param-predicate")
    predicate.click()
    page.keyboard.press("Control+A")
    page.keyboard.type("x % 5 != 0")
    page.get_by_test_id("save-message").fill("drop multiples of 5 instead of 3")
    page.get_by_test_id("save").click()
    expect(page.get_by_test_id("save-status")).to_contain_text("Saved · v2")

    page.get_by_test_id("upgrade").click()
    expect(page.get_by_test_id("upgrade-version")).to_have_value("2")
    expect(page.get_by_test_id("state-check")).to_have_attribute("data-compatible", "true")
    page.screenshot(path=str(artifacts / "shadow-deploy-dialog.png"))
    page.get_by_test_id("upgrade-shadow-first").click()
    expect(page).to_have_url(re.compile(rf"/runs/{production['id']}/shadows/\d+$"), timeout=30_000)
    expect(page.get_by_test_id("shadow-status")).to_have_text("COMPLETED", timeout=600_000)
    page.screenshot(path=str(artifacts / "shadow-diff.png"), full_page=True)

    shadow_id = int(page.url.rsplit("/", 1)[1])
    shadow = api_call(page, live_studio, "GET", f"/api/runs/{production['id']}/shadows/{shadow_id}")
    split = api_call(page, live_studio, "GET", f"/api/runs/{production['id']}/checkpoints/{shadow['checkpoint_id']}"
                                               "/state/operators/gen/keys")["rows"][0]["state"]
    numbers = range(split["next"], COUNT, split["step"])
    ours = {x for x in numbers if x % 3 != 0}
    theirs = {x for x in numbers if x % 5 != 0}
    expected = {"count-production": len(ours), "count-candidate": len(theirs),
                "count-only-production": len(ours - theirs), "count-only-candidate": len(theirs - ours),
                "count-changed": 0, "count-same": len(ours & theirs)}
    for test_id, count in expected.items():
        expect(page.get_by_test_id(test_id)).to_have_text(str(count))
    for test_id, rows in (("samples-only-production", ours - theirs), ("samples-only-candidate", theirs - ours)):
        samples = page.get_by_test_id(test_id).get_by_test_id("sample").all_inner_texts()
        assert [json.loads(text) for text in samples] == sorted(rows, key=json.dumps)[:20]

    # the snapshot both sides started from, in the state browser: production's source position
    page.get_by_test_id("shadow-snapshot").click()
    expect(page.get_by_test_id("state-page")).to_be_visible()
    page.locator('[data-testid="state-operator"][data-node="gen"]').click()
    expect(page.get_by_test_id("state-key-row").first).to_contain_text(f'"next":{split["next"]}')
    page.screenshot(path=str(artifacts / "shadow-snapshot-state.png"), full_page=True)

    # production: what it had shown is still there, and it ends with every record of its filter once
    finished = wait_for_run(page, live_studio, production["id"], lambda run: run["status"] == "FINISHED", timeout=300)
    out = finished["collected"]["out"]
    assert out[:len(shown_before)] == shown_before
    assert out == [x for x in range(COUNT) if x % 3 != 0]
    page.goto(f"{live_studio}/runs/{production['id']}")
    browse = page.get_by_test_id("checkpoint-browse-state").first
    expect(browse).to_be_visible(timeout=30_000)
    browse.scroll_into_view_if_needed()
    page.screenshot(path=str(artifacts / "run-checkpoints-browse-state.png"))

    page.goto(f"{live_studio}/runs/{production['id']}/shadows/{shadow_id}")
    page.get_by_test_id("shadow-discard").click()
    expect(page.get_by_test_id("shadow-status")).to_have_text("DISCARDED")
