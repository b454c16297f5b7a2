"""Getting data in, in Chromium: a Kafka connection profile made and tested against the mock cluster, a
topic browsed from the Kafka source's form and its inferred fields offered while an expression is typed,
and a file uploaded from the browser, picked in a file source's form and read by the pipeline's preview.

Screenshots are in ``test-results/data-in/``.
"""
from __future__ import annotations

import json
import re
import uuid

import pytest
from confluent_kafka import Producer
from playwright.sync_api import expect

from tests.e2e.browser_steps import api_call, connect

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(600)]


def look(page, artifacts, name: str) -> None:
    folder = artifacts / "data-in"
    folder.mkdir(exist_ok=True)
    page.screenshot(path=str(folder / f"{name}.png"))


def rest(page, live_studio: str, method: str, path: str, body=None):
    """``api_call``, sent again while the loaded studio sheds it (503), as the app's own client does."""
    from tests.support import wait_until

    def attempt():
        try:
            return (api_call(page, live_studio, method, path, body),)
        except AssertionError as refused:
            if ": 503 " in str(refused):
                return None
            raise

    return wait_until(attempt, 60, f"{method} {path} to be served")[0]


def node_id(node) -> str:
    return node.get_attribute("data-testid").removeprefix("node-")


def add(page, *operators: str):
    for operator in operators:
        page.get_by_test_id(f"palette-{operator}").click()
    nodes = page.locator('[data-testid^="node-"]')
    expect(nodes).to_have_count(len(operators))
    return [nodes.nth(index) for index in range(len(operators))]


@pytest.fixture
def orders(kafka_cluster, live_studio, page) -> tuple[str, str]:
    """A topic of JSON orders on the mock cluster, and the cluster granted to the admin (``(bootstrap, topic)``)."""
    topic = kafka_cluster.create_topic(f"orders-{uuid.uuid4().hex[:6]}", partitions=2)
    producer = Producer({"bootstrap.servers": kafka_cluster.bootstrap})
    for number in range(40):
        producer.produce(topic, json.dumps({"order": number, "user": f"u{number % 4}", "amount": number / 2}).encode(),
                         key=f"u{number % 4}".encode(), partition=number % 2)
    assert producer.flush(10) == 0
    locations = rest(page, live_studio, "GET", "/api/locations")
    if not any(location["prefix"] == f"kafka://{kafka_cluster.bootstrap}" for location in locations):
        rest(page, live_studio, "POST", "/api/locations",
                 {"name": f"kafka-{uuid.uuid4().hex[:6]}", "kind": "kafka", "prefix": f"kafka://{kafka_cluster.bootstrap}",
                  "all_users": True, "description": "the tests' mock Kafka cluster"})
    return kafka_cluster.bootstrap, topic


def test_a_kafka_profile_is_tested_its_topic_browsed_and_the_inferred_fields_offered_in_an_expression(
        live_studio, page, artifacts, orders):
    bootstrap, topic = orders
    name = f"orders-{uuid.uuid4().hex[:4]}"
    page.goto(f"{live_studio}/connections")
    page.get_by_test_id("connection-name").fill(name)
    page.get_by_test_id("connection-kind").select_option("kafka")
    page.get_by_test_id("connection-address").fill(bootstrap)
    page.get_by_test_id("connection-test-unsaved").click()
    result = page.get_by_test_id("connection-form").get_by_test_id("connection-test-result")
    expect(result).to_contain_text("reached the Kafka cluster", timeout=30_000)
    page.get_by_test_id("connection-save").click()
    row = page.locator(f'[data-testid="connection-row"][data-name="{name}"]')
    expect(row).to_contain_text(f"connection:{name}")
    row.get_by_test_id("connection-test").click()
    expect(row.get_by_test_id("connection-test-result")).to_contain_text("✓ reached the Kafka cluster", timeout=30_000)
    # an address outside the grants is never tried
    page.get_by_test_id("connection-address").fill("127.0.0.1:1")
    page.get_by_test_id("connection-test-unsaved").click()
    expect(result).to_contain_text("not tried", timeout=30_000)
    look(page, artifacts, "1-connection-tested")
    row.get_by_test_id("connection-browse").click()
    expect(page.locator(f'[data-testid="topic-row"][data-topic="{topic}"]')).to_contain_text("40")
    look(page, artifacts, "2-connection-topics")

    page.goto(f"{live_studio}/")
    source, keep, sink = add(page, "source.kafka", "transform.filter", "sink.collect")
    connect(page, source, keep)
    connect(page, keep, sink)
    source.click()
    page.get_by_test_id("location-tools-bootstrap_servers").get_by_test_id("connection-pick").select_option(
        f"connection:{name}")
    expect(page.get_by_test_id("param-bootstrap_servers")).to_have_value(f"connection:{name}")
    page.get_by_test_id("browse-topics").click()
    picker = page.get_by_test_id("topic-picker")
    picker.locator(f'[data-testid="topic-row"][data-topic="{topic}"]').get_by_test_id("topic-open").click()
    expect(picker.get_by_test_id("topic-message")).to_have_count(20, timeout=30_000)
    expect(picker.get_by_test_id("inferred-fields")).to_contain_text("x['value']['user']")
    look(page, artifacts, "3-topic-sampled-with-inferred-fields")
    picker.get_by_test_id("topic-use").click()
    expect(page.get_by_test_id("param-topics")).to_have_value(f'["{topic}"]')

    keep.click()
    predicate = page.get_by_test_id("param-predicate")
    expect(page.get_by_test_id("expression-fields-hint")).to_be_visible()
    predicate.click()
    predicate.press_sequentially("x['value']['u")
    completions = page.get_by_test_id("expression-completion")
    expect(completions).to_have_count(1)
    expect(completions.first).to_have_text("x['value']['user']")
    look(page, artifacts, "4-expression-offers-inferred-fields")
    predicate.press("Enter")
    predicate.press_sequentially(" == 'u1'")
    expect(predicate).to_have_value("x['value']['user'] == 'u1'")

    page.get_by_test_id("tab-preview").click()
    page.get_by_test_id("preview-run").click()
    records = page.get_by_test_id(f"preview-node-{node_id(keep)}").get_by_test_id("preview-record")
    expect(records.first).to_contain_text('"user":"u1"', timeout=60_000)
    look(page, artifacts, "5-preview-through-the-profile")
    assert all('"u1"' in text for text in records.all_inner_texts())


def test_a_file_uploaded_from_the_browser_is_picked_in_a_file_source_and_read_by_the_preview(
        live_studio, page, artifacts, tmp_path):
    rows = tmp_path / "uploaded orders.csv"
    rows.write_text("user,amount\n" + "".join(f"u{n % 3},{n}\n" for n in range(12)))
    folder = f"in-{uuid.uuid4().hex[:4]}"
    page.goto(f"{live_studio}/files")
    expect(page.get_by_test_id("file-place")).to_have_value("user-data")
    page.get_by_test_id("file-upload-directory").fill(folder)
    page.get_by_test_id("file-upload").set_input_files(str(rows))
    expect(page.get_by_test_id("file-upload-status")).to_contain_text("Uploaded uploaded orders.csv", timeout=30_000)
    entry = page.locator('[data-testid="file-entry"][data-name="uploaded orders.csv"]')
    expect(entry).to_contain_text("B")
    entry.get_by_test_id("file-open").click()
    expect(page.get_by_test_id("file-preview")).to_contain_text("u1,1")
    look(page, artifacts, "6-file-uploaded-and-previewed")

    page.goto(f"{live_studio}/")
    source, sink = add(page, "source.file", "sink.collect")
    connect(page, source, sink)
    source.click()
    page.get_by_test_id("browse-files").click()
    picker = page.get_by_test_id("file-picker")
    picker.locator(f'[data-testid="file-entry"][data-name="{folder}"]').get_by_test_id("file-open-directory").click()
    picker.locator('[data-testid="file-entry"][data-name="uploaded orders.csv"]').get_by_test_id("file-pick").click()
    expect(page.get_by_test_id("param-path")).to_have_value(re.compile(rf"/users/admin/{folder}/uploaded orders\.csv$"))
    page.get_by_test_id("param-format").select_option("csv")
    look(page, artifacts, "7-file-source-path-picked")
    page.get_by_test_id("tab-preview").click()
    page.get_by_test_id("preview-run").click()
    records = page.get_by_test_id(f"preview-node-{node_id(source)}").get_by_test_id("preview-record")
    expect(records.first).to_contain_text('"user":"u0"', timeout=60_000)
    look(page, artifacts, "8-uploaded-file-read-by-the-preview")
    assert len(records.all_inner_texts()) >= 10
