"""In a real browser, on Spark: the state browser of a running window job's savepoints. The keys and panes the
page shows equal what a plain-Python replay of the input up to the savepoint's source positions computes, one
key's full state too, and the diff of two savepoints shows the replays' difference."""
import json
import time

import pytest
from playwright.sync_api import expect

from tests.e2e.browser_steps import api_call, wait_for_run
from tests.engine.snapshots.replay import emitted, sliding_panes, window_job

pytestmark = [pytest.mark.e2e, pytest.mark.spark, pytest.mark.timeout(600)]


def savepoint(page, live_studio: str, run_id: int) -> int:
    request = api_call(page, live_studio, "POST", f"/api/runs/{run_id}/savepoints", {})
    deadline = time.monotonic() + 120
    while True:
        answer = api_call(page, live_studio, "GET", f"/api/runs/{run_id}/savepoints/{request['request_id']}")
        if answer["status"] != "IN_PROGRESS":
            assert answer["status"] == "COMPLETED", answer
            return answer["checkpoint_id"]
        assert time.monotonic() < deadline, "the savepoint did not complete"
        time.sleep(0.5)


def replay(page, live_studio: str, run_id: int, checkpoint_id: int) -> dict:
    splits = api_call(page, live_studio, "GET", f"/api/runs/{run_id}/checkpoints/{checkpoint_id}/state/operators/gen/"
                                                "keys?limit=100")["rows"]
    return sliding_panes(emitted(splits))


def test_the_state_browser_shows_what_a_replay_computes(live_studio, page, artifacts):
    definition = window_job(rate=200)
    created = api_call(page, live_studio, "POST", "/api/pipelines", {"name": "window-state", "definition": definition})
    run = api_call(page, live_studio, "POST", f"/api/pipelines/{created['id']}/runs", {})
    wait_for_run(page, live_studio, run["id"], lambda answer: answer["status"] == "RUNNING", timeout=300)
    first = savepoint(page, live_studio, run["id"])
    time.sleep(1.0)  # the source moves on: the second savepoint adds keys and changes some
    second = savepoint(page, live_studio, run["id"])
    api_call(page, live_studio, "POST", f"/api/runs/{run['id']}/cancel")
    before, after = replay(page, live_studio, run["id"], first), replay(page, live_studio, run["id"], second)

    page.goto(f"{live_studio}/runs/{run['id']}")
    page.locator(f'[data-testid="checkpoint-row"][data-id="{second}"] [data-testid="checkpoint-browse-state"]').click()
    expect(page.get_by_test_id("state-page")).to_be_visible()
    operators = page.locator('[data-testid="state-operator"][data-node="win"]')
    expect(operators).to_contain_text("windows (panes and timers)")
    expect(operators).to_contain_text(str(len(after)))
    operators.click()
    rows = page.get_by_test_id("state-key-row")
    expect(rows.first).to_be_visible()
    shown = [json.loads(key) for key in rows.evaluate_all("rows => rows.map(row => row.dataset.key)")]
    assert shown == sorted(after)[:25]
    expect(page.get_by_test_id("state-range")).to_contain_text(f"of {len(after)}")
    rows.nth(1).click()
    detail = page.get_by_test_id("state-key-detail")
    expect(detail).to_be_visible()
    assert json.loads(detail.locator("pre").inner_text()) == after[shown[1]]
    page.screenshot(path=str(artifacts / "state-browser-keys.png"), full_page=True)

    page.get_by_test_id("state-expression").fill("key % 2 == 0")
    page.get_by_test_id("state-apply").click()
    expect(page.get_by_test_id("state-range")).to_contain_text(f"of {sum(1 for key in after if key % 2 == 0)}")

    page.get_by_test_id("state-tab-diff").click()
    page.get_by_test_id("state-diff-against").select_option(str(first))
    added = len(set(after) - set(before))
    changed = sum(1 for key in set(after) & set(before) if after[key] != before[key])
    removed = len(set(before) - set(after))
    expect(page.get_by_test_id("state-diff-counts")).to_contain_text(
        f"{added} added · {removed} removed · {changed} changed")
    page.screenshot(path=str(artifacts / "state-browser-diff.png"), full_page=True)
    page.get_by_test_id("state-tab-sizes").click()
    expect(page.get_by_test_id("state-sizes")).to_contain_text(f"{len(after)} rows")
    page.screenshot(path=str(artifacts / "state-browser-sizes.png"), full_page=True)
