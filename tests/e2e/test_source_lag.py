"""In a real browser, on Spark: a Kafka source read by a slow step shows its lag live on the run graph (records
behind, shrinking as it drains), per partition in the drill-down, equal to what the run's metrics say; the window
after it shows how long after their ends its results leave. What is behind stays readable on the busy (red)
source's node: the contrast of every figure of its cell against what it is drawn on is at least 4.5:1."""
import json
import time
import uuid

import pytest
from confluent_kafka import Producer
from playwright.sync_api import expect

from tests.e2e.browser_steps import api_call
from tests.e2e.cell_legibility import figures_of, unreadable
from tests.support import wait_until

pytestmark = [pytest.mark.e2e, pytest.mark.spark]

EVENTS = 40_000
SLOW_STEP = """import time


def process(records):
    time.sleep(0.001 * len(records))  # a thousand records a second: the source (chained to it) falls behind
    return records
"""


def lagging_pipeline(bootstrap: str, topic: str) -> dict:
    """Kafka (per-partition watermarks from the records' times) -> a slow Python step (chained: the source reads
    only as fast as it) -> 1 s windows -> out."""
    return {
        "format": 1, "name": "e2e-source-lag", "mode": "streaming", "parallelism": 1,
        "checkpointing": {"interval_ms": 1000},
        "nodes": [
            {"id": "orders", "type": "source.kafka", "ui": {"x": 0, "y": 80},
             "params": {"bootstrap_servers": bootstrap, "topics": [topic], "emit": "value", "watermarks": True,
                        "timestamp": "x['ts']"}},
            {"id": "slow", "type": "transform.python", "params": {"code": SLOW_STEP}, "ui": {"x": 260, "y": 80}},
            {"id": "window", "type": "window.tumbling", "params": {"size_ms": 1000, "function": "count"},
             "ui": {"x": 520, "y": 80}},
            {"id": "out", "type": "sink.collect", "params": {"max_records": 100}, "ui": {"x": 780, "y": 80}},
        ],
        "edges": [{"id": "e1", "from": "orders", "to": "slow"},
                  {"id": "e2", "from": "slow", "to": "window", "partitioning": "hash", "key": "x['user']"},
                  {"id": "e3", "from": "window", "to": "out"}],
    }


@pytest.fixture
def orders(kafka_cluster, live_studio, page) -> tuple[str, str]:
    """A topic of ``EVENTS`` orders stamped with the time they were written, the cluster granted to everyone."""
    topic = kafka_cluster.create_topic(f"lag-{uuid.uuid4().hex[:6]}", partitions=2)
    producer = Producer({"bootstrap.servers": kafka_cluster.bootstrap, "linger.ms": 5})
    now = int(time.time() * 1000)
    for number in range(EVENTS):
        producer.produce(topic, json.dumps({"order": number, "user": f"u{number % 4}", "ts": now + number}).encode(),
                         partition=number % 2)
        if number % 2000 == 0:
            producer.poll(0)
    assert producer.flush(30) == 0
    prefix = f"kafka://{kafka_cluster.bootstrap}"
    if not any(location["prefix"] == prefix for location in api_call(page, live_studio, "GET", "/api/locations")):
        api_call(page, live_studio, "POST", "/api/locations",
                 {"name": f"kafka-{uuid.uuid4().hex[:6]}", "kind": "kafka", "prefix": prefix, "all_users": True,
                  "description": "the tests' mock Kafka cluster"})
    return kafka_cluster.bootstrap, topic


def test_a_kafka_sources_lag_shrinks_live_on_the_run_graph_and_per_partition_in_the_drilldown(
        live_studio, page, artifacts, orders):
    bootstrap, topic = orders
    pipeline = api_call(page, live_studio, "POST", "/api/pipelines",
                        {"name": "e2e-source-lag", "definition": lagging_pipeline(bootstrap, topic)})
    run = api_call(page, live_studio, "POST", f"/api/pipelines/{pipeline['id']}/runs", {})
    page.goto(f"{live_studio}/runs/{run['id']}")
    expect(page.get_by_test_id("run-status")).to_have_text("RUNNING", timeout=240_000)

    lag = page.get_by_test_id("node-orders").get_by_test_id("source-lag")
    wait_until(lambda: lag.is_visible() and int(lag.get_attribute("data-records") or 0) > 0, 120,
               "the source's records behind on its node")
    first = int(lag.get_attribute("data-records"))
    expect(lag).to_contain_text("behind")
    wait_until(lambda: page.locator('.run-vertex[data-activity="busy"] [data-testid="node-orders"]').count(), 60,
               "the source's vertex to be busy (red): the slow step chained to it")
    figures = figures_of(page, "orders")
    assert any("behind" in figure["text"] for figure in figures), figures
    assert not unreadable(figures), unreadable(figures)
    page.get_by_test_id("node-orders").scroll_into_view_if_needed()
    page.screenshot(path=str(artifacts / "source-lag-on-the-run-graph.png"))
    page.get_by_test_id("node-orders").screenshot(path=str(artifacts / "source-lag-node.png"))
    wait_until(lambda: int(lag.get_attribute("data-records") or first) < first - 500, 120,
               "the lag to shrink as the slow step works through it")

    reported = api_call(page, live_studio, "GET", f"/api/runs/{run['id']}/metrics")["nodes"]["orders"]["lag"]
    assert sorted(split["split"] for split in reported["splits"]) == [f"{topic}/0", f"{topic}/1"]
    assert reported["records_behind"] == sum(split["records_behind"] for split in reported["splits"]) > 0
    assert reported["records_behind"] <= EVENTS

    page.get_by_test_id("node-orders").press("Enter")
    table = page.get_by_test_id("lag-table")
    expect(table.get_by_test_id("lag-split-row")).to_have_count(2)
    expect(table).to_contain_text(f"{topic}/0")
    page.screenshot(path=str(artifacts / "source-lag-drilldown.png"))

    delay = page.get_by_test_id("node-window").get_by_test_id("emit-delay")
    expect(delay).to_be_visible(timeout=60_000)
    assert float(delay.get_attribute("data-ms")) > 0
    page.get_by_test_id("node-window").screenshot(path=str(artifacts / "emit-delay-node.png"))
    api_call(page, live_studio, "POST", f"/api/runs/{run['id']}/cancel", {})
    expect(page.get_by_test_id("run-status")).to_have_text("CANCELED", timeout=60_000)
