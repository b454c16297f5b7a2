"""In a real browser, on Spark: the run graph shows each operator's own numbers, equal to what the
engine's operators counted, and clicking a node opens its subtasks (records, rates, busy / idle /
backpressured, watermark, checkpoint)."""
import pytest
from playwright.sync_api import expect

from tests.e2e.browser_steps import api_call

pytestmark = [pytest.mark.e2e, pytest.mark.spark]

RECORDS = 2000


def halving_pipeline() -> dict:
    """gen -> double -> even (a filter that drops half) -> out, chained, parallelism 2, bounded."""
    return {
        "format": 1, "name": "e2e-operator-metrics", "mode": "streaming", "parallelism": 2,
        "checkpointing": {"interval_ms": 300}, "restart": {"strategy": "none"},
        "nodes": [
            {"id": "gen", "type": "source.datagen", "params": {"count": RECORDS, "rate": 1000}},
            {"id": "double", "type": "transform.map", "params": {"expression": "x * 2"}},
            {"id": "even", "type": "transform.filter", "params": {"predicate": "x % 4 == 0"}},
            {"id": "out", "type": "sink.collect", "params": {"max_records": 10 * RECORDS}},
        ],
        "edges": [{"id": "e1", "from": "gen", "to": "double"}, {"id": "e2", "from": "double", "to": "even"},
                  {"id": "e3", "from": "even", "to": "out"}],
    }


def engine_counts(page, live_studio: str, run_id: int) -> dict[str, tuple[int, int]]:
    """Per node, records in and out summed over the subtasks' own reports in the last metrics event."""
    events = api_call(page, live_studio, "GET", f"/api/runs/{run_id}/events")
    tasks = [event for event in events if event["type"] == "metrics"][-1]["data"]["tasks"]
    totals: dict[str, tuple[int, int]] = {}
    for report in tasks.values():
        for node, counts in report["operators"].items():
            records_in, records_out = totals.get(node, (0, 0))
            totals[node] = (records_in + counts["records_in"], records_out + counts["records_out"])
    return totals


def test_nodes_show_their_operators_numbers_and_open_their_subtasks(live_studio, page, artifacts):
    pipeline = api_call(page, live_studio, "POST", "/api/pipelines",
                        {"name": "e2e-operator-metrics", "definition": halving_pipeline()})
    run = api_call(page, live_studio, "POST", f"/api/pipelines/{pipeline['id']}/runs", {})
    page.goto(f"{live_studio}/runs/{run['id']}")
    expect(page.get_by_test_id("run-status")).to_have_text("FINISHED", timeout=240_000)

    expected = {"gen": (RECORDS, RECORDS), "double": (RECORDS, RECORDS), "even": (RECORDS, RECORDS // 2),
                "out": (RECORDS // 2, 0)}
    assert engine_counts(page, live_studio, run["id"]) == expected
    for node, (records_in, records_out) in expected.items():  # one chain, yet every node its own numbers
        shown = page.get_by_test_id(f"node-{node}")
        expect(shown.get_by_test_id("vertex-metrics")).to_have_attribute("data-source", "operator", timeout=30_000)
        expect(shown.get_by_test_id("records-in")).to_have_attribute("data-count", str(records_in))
        expect(shown.get_by_test_id("records-out")).to_have_attribute("data-count", str(records_out))
    expect(page.get_by_test_id("node-even").get_by_test_id("node-watermark")).to_have_text("wm end")

    # nodes are buttons: Enter opens a node's subtasks as a click does (a click landed beside the node
    # once on CI, with the graph still settling; the keyboard path does not depend on where it is drawn)
    page.get_by_test_id("node-even").press("Enter")
    drilldown = page.get_by_test_id("node-drilldown")
    expect(drilldown).to_have_attribute("data-node", "even")
    # the tab reads as written, the operator's id as it is: not "Subtasks Of Even"
    assert page.get_by_test_id("run-tab-subtasks").inner_text() == "Subtasks of even"
    assert page.get_by_test_id("run-tab-records").inner_text() == "Collected records"
    rows = drilldown.get_by_test_id("subtask-row")
    expect(rows).to_have_count(2)
    def shown(test_id: str) -> list[int]:
        return [int(rows.nth(i).get_by_test_id(test_id).inner_text().replace(",", "")) for i in range(2)]

    # datagen's subtask i makes the numbers x with x % 2 == i: subtask 1's are all odd, all dropped
    assert shown("subtask-records-in") == [RECORDS // 2, RECORDS // 2]
    assert shown("subtask-records-out") == [RECORDS // 2, 0]
    expect(rows.first.get_by_test_id("subtask-watermark")).to_have_text("end")
    expect(rows.first.get_by_test_id("subtask-checkpoint")).to_contain_text("#")
    page.screenshot(path=str(artifacts / "run-node-drilldown.png"))

    page.get_by_test_id("node-gen").click()  # another node replaces it; clicking it again closes it
    expect(drilldown).to_have_attribute("data-node", "gen")
    page.get_by_test_id("node-gen").press("Enter")
    expect(page.get_by_test_id("node-drilldown")).to_have_count(0)


SLOW_CODE = '''import time


def process(records):
    time.sleep(0.05)  # a sink-side call that keeps the job waiting: 20 batches a second at most
    return records
'''


def test_a_slow_operator_turns_its_upstream_backpressured(live_studio, page, artifacts):
    # gen runs as fast as it can into a rebalance edge; the slow operator behind it takes a batch per 50 ms,
    # so gen spends its time waiting for credit: Flink's picture of a slow sink
    definition = {
        "format": 1, "name": "e2e-backpressure", "mode": "streaming", "parallelism": 1,
        "checkpointing": {"interval_ms": 1000},
        "nodes": [
            {"id": "gen", "type": "source.datagen", "params": {"count": None, "rate": 0}},
            {"id": "slow", "type": "transform.python", "params": {"code": SLOW_CODE}},
            {"id": "out", "type": "sink.collect", "params": {"max_records": 100}},
        ],
        "edges": [{"id": "e1", "from": "gen", "to": "slow", "partitioning": "rebalance"},
                  {"id": "e2", "from": "slow", "to": "out"}],
    }
    pipeline = api_call(page, live_studio, "POST", "/api/pipelines", {"name": "e2e-backpressure",
                                                                      "definition": definition})
    run = api_call(page, live_studio, "POST", f"/api/pipelines/{pipeline['id']}/runs", {})
    page.goto(f"{live_studio}/runs/{run['id']}")
    expect(page.get_by_test_id("run-status")).to_have_text("RUNNING", timeout=240_000)
    expect(page.get_by_test_id("node-gen")).to_have_attribute("data-activity", "backpressured", timeout=60_000)
    expect(page.get_by_test_id("node-slow")).not_to_have_attribute("data-activity", "backpressured")
    page.screenshot(path=str(artifacts / "run-backpressured.png"))
    api_call(page, live_studio, "POST", f"/api/runs/{run['id']}/cancel", {})
    expect(page.get_by_test_id("run-status")).to_have_text("CANCELED", timeout=60_000)
