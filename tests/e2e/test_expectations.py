"""In a real browser, on Spark: an expectation added in the editor's inspector is saved with the node, the
run graph shows its counts growing live on the node, and the drill-down shows them per rule, equal to
what the engine counted."""
import pytest
from playwright.sync_api import expect

from tests.e2e.browser_steps import api_call
from tests.e2e.test_test_cases import save
from tests.support import wait_until

pytestmark = [pytest.mark.e2e, pytest.mark.spark]


def counted_pipeline() -> dict:
    """An unbounded, rate-limited source -> double -> out: a third of the records are multiples of 3."""
    return {
        "format": 1, "name": "e2e-expectations", "mode": "streaming", "parallelism": 1,
        "checkpointing": {"interval_ms": 500},
        "nodes": [
            {"id": "gen", "type": "source.datagen", "params": {"count": None, "rate": 300}, "ui": {"x": 0, "y": 80}},
            {"id": "double", "type": "transform.map", "params": {"expression": "x * 2"}, "ui": {"x": 260, "y": 80}},
            {"id": "out", "type": "sink.collect", "params": {"max_records": 100}, "ui": {"x": 520, "y": 80}},
        ],
        "edges": [{"id": "e1", "from": "gen", "to": "double"}, {"id": "e2", "from": "double", "to": "out"}],
    }


def test_an_expectation_added_in_the_editor_counts_live_on_the_run_graph(live_studio, page, artifacts):
    pipeline = api_call(page, live_studio, "POST", "/api/pipelines",
                        {"name": "e2e-expectations", "definition": counted_pipeline()})
    page.goto(f"{live_studio}/pipelines/{pipeline['id']}")
    expect(page.get_by_test_id("node-double")).to_be_visible(timeout=60_000)
    page.get_by_test_id("node-double").click()
    editor = page.get_by_test_id("expectations-editor")
    editor.get_by_test_id("expectation-add").click()
    row = editor.get_by_test_id("expectation-row")
    expect(row).to_have_count(1)
    row.get_by_test_id("expectation-name").fill("not_multiple_of_6")
    row.get_by_test_id("expectation-rule").fill("x % 6 != 0")
    row.get_by_test_id("expectation-action").select_option("drop")
    expect(page.get_by_test_id("node-double").get_by_test_id("expectation-badge")).to_contain_text("1 expectation")
    expect(page.get_by_test_id("validation-status")).to_have_text("Valid", timeout=10_000)
    page.screenshot(path=str(artifacts / "expectation-editor.png"))
    row.get_by_test_id("expectation-rule").fill("x %")  # a broken rule is named at its field
    expect(row).to_contain_text("invalid rule of expectation 'not_multiple_of_6'", timeout=10_000)
    row.get_by_test_id("expectation-rule").fill("x % 6 != 0")
    expect(page.get_by_test_id("validation-status")).to_have_text("Valid", timeout=10_000)
    save(page, "drop multiples of 6", 2)

    saved = api_call(page, live_studio, "GET", f"/api/pipelines/{pipeline['id']}")
    definition = saved.get("definition") or saved["latest_version"]["definition"]
    double = next(node for node in definition["nodes"] if node["id"] == "double")
    assert double["expectations"] == [{"name": "not_multiple_of_6", "rule": "x % 6 != 0", "action": "drop"}]

    run = api_call(page, live_studio, "POST", f"/api/pipelines/{pipeline['id']}/runs", {})
    page.goto(f"{live_studio}/runs/{run['id']}")
    expect(page.get_by_test_id("run-status")).to_have_text("RUNNING", timeout=240_000)
    counts = page.get_by_test_id("node-double").get_by_test_id("expectation-counts")
    expect(counts).to_be_visible(timeout=60_000)
    first = int(counts.get_attribute("data-records"))
    wait_until(lambda: int(counts.get_attribute("data-records")) > first + 100, 60, "the counts to grow live")
    records, violated = int(counts.get_attribute("data-records")), int(counts.get_attribute("data-violated"))
    assert abs(violated - records / 3) <= 3, (records, violated)  # every third number doubled is a multiple of 6
    page.get_by_test_id("node-double").scroll_into_view_if_needed()
    page.screenshot(path=str(artifacts / "expectation-counts-live.png"))

    page.get_by_test_id("node-double").press("Enter")
    table = page.get_by_test_id("expectation-table")
    expect(table.get_by_test_id("expectation-row")).to_have_attribute("data-rule", "not_multiple_of_6")
    page.screenshot(path=str(artifacts / "expectation-drilldown.png"))
    reported = api_call(page, live_studio, "GET", f"/api/runs/{run['id']}/metrics")["expectations"]["node:double"]
    assert reported["rules"]["not_multiple_of_6"]["action"] == "drop"
    assert reported["dropped"] == reported["rules"]["not_multiple_of_6"]["violated"] > 0
    api_call(page, live_studio, "POST", f"/api/runs/{run['id']}/cancel", {})
    expect(page.get_by_test_id("run-status")).to_have_text("CANCELED", timeout=60_000)
