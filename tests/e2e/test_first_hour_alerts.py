"""Alert rules in the UI, as a newcomer uses them: a page next to the Jobs (and a tab next to the
savepoint schedules on a run's page) where they create a rule, see the studio refuse a bad one at
its field, change it, fire it once as a test, read the webhook's deliveries, switch it off; and a
notification that arrives when a run fails reads clearly, in one line, without a traceback.

The webhook's receiver is a small HTTP server in this test (the outside world). Screenshots:
test-results/first-hour/, at 1440×900 and 1280×720.
"""
from __future__ import annotations

import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from playwright.sync_api import expect

from tests.e2e.browser_steps import api_call, wait_for_run
from tests.e2e.first_hour import SCREENS, shot
from tests.support import simple_pipeline, wait_until

pytestmark = [pytest.mark.e2e]

READABLE_CONTRAST = 4.5
"""WCAG AA for body text: the contrast ratio of a notification's text on its background."""


class Receiver:
    """An HTTP server on loopback that answers 200 to every POST and keeps the JSON bodies."""

    def __init__(self):
        bodies = self.bodies = []

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 (http.server's name)
                length = int(self.headers.get("Content-Length") or 0)
                bodies.append(json.loads(self.rfile.read(length) or b"null"))
                self.send_response(200)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.origin = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def receiver(page, live_studio):
    """The receiver, its address granted to the admin (loopback needs the operator's grant)."""
    receiver = Receiver()
    location = api_call(page, live_studio, "POST", "/api/locations",
                        {"name": f"hooks-{receiver.origin.rsplit(':', 1)[1]}", "kind": "url",
                         "prefix": receiver.origin + "/", "all_users": False})
    api_call(page, live_studio, "POST", f"/api/locations/{location['id']}/grants", {"user": "admin"})
    yield receiver
    receiver.close()
    api_call(page, live_studio, "DELETE", f"/api/locations/{location['id']}")


def contrast(locator) -> float:
    """The contrast ratio of the element's text colour on the background it is drawn on (WCAG)."""
    return locator.evaluate(
        """element => {
          const rgb = (text) => text.match(/[\\d.]+/g).slice(0, 4).map(Number);
          const background = (node) => {
            for (; node; node = node.parentElement) {
              const [r, g, b, a] = rgb(getComputedStyle(node).backgroundColor);
              if (a === undefined || a > 0) return [r, g, b];
            }
            return [255, 255, 255];
          };
          const luminance = ([r, g, b]) => {
            const linear = (c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
            return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
          };
          const text = luminance(rgb(getComputedStyle(element).color));
          const ground = luminance(background(element));
          return (Math.max(text, ground) + 0.05) / (Math.min(text, ground) + 0.05);
        }""")


def test_alert_rules_are_created_changed_tested_and_switched_off_in_the_ui(live_studio, page, artifacts, receiver):
    pipeline = api_call(page, live_studio, "POST", "/api/pipelines",
                        {"name": "first-hour-alerts", "definition": simple_pipeline(name="first-hour-alerts")})
    page.goto(f"{live_studio}/pipelines/")
    page.get_by_test_id("nav-alert-rules").click()
    expect(page).to_have_url(f"{live_studio}/alerts")
    expect(page.get_by_role("heading", name="Alert rules")).to_be_visible()
    page.get_by_test_id("alert-rule-new").click()
    dialog = page.get_by_test_id("alert-rule-dialog")
    expect(dialog).to_be_visible()

    # A first try the studio refuses, each problem at its field.
    dialog.get_by_test_id("alert-rule-save").click()
    expect(dialog.get_by_test_id("alert-rule-problem-pipeline")).to_contain_text("choose the pipeline")
    expect(dialog.get_by_test_id("alert-rule-problem-name")).to_contain_text("give the rule a name")
    dialog.get_by_test_id("alert-rule-pipeline").select_option(label="first-hour-alerts")
    dialog.get_by_test_id("alert-rule-name").fill("checkpoints keep failing")
    dialog.get_by_test_id("alert-rule-kind").select_option(label="Checkpoints failed in a row")
    expect(dialog.get_by_test_id("alert-rule-threshold")).to_have_value("3")
    # A count is whole, and text that Number() would misread (hex) is no number: refused at the field,
    # before anything is sent (the server takes only JSON numbers there, never the text typed).
    for typed, problem in [("2.5", "how many in a row: a whole number of checkpoints"),
                           ("0x10", "how many in a row: a whole number of checkpoints")]:
        dialog.get_by_test_id("alert-rule-threshold").fill(typed)
        dialog.get_by_test_id("alert-rule-save").click()
        expect(dialog.get_by_test_id("alert-rule-problem-threshold")).to_have_text(problem)
    shot(artifacts, "5-alert-rule-whole-count", page)
    dialog.get_by_test_id("alert-rule-threshold").fill("0")
    dialog.get_by_test_id("alert-rule-webhook").fill("http://hooks.elsewhere.example/alert")
    dialog.get_by_test_id("alert-rule-save").click()
    expect(dialog.get_by_test_id("alert-rule-problem-threshold")).to_contain_text("between 1 and 10,000 checkpoints")
    dialog.get_by_test_id("alert-rule-threshold").fill("3")
    dialog.get_by_test_id("alert-rule-save").click()
    refused = dialog.get_by_test_id("alert-rule-problem-webhook_url")
    expect(refused).to_be_visible(timeout=10_000)  # the server's answer: not an address granted to this user
    for width, height in SCREENS:
        page.set_viewport_size({"width": width, "height": height})
        shot(artifacts, "5-alert-rule-refused", page)
    dialog.get_by_test_id("alert-rule-webhook").fill(f"{receiver.origin}/alert")
    with page.expect_request(lambda request: request.method == "POST" and request.url.endswith("/api/alerts/rules")) as sent:
        dialog.get_by_test_id("alert-rule-save").click()
    expect(dialog).to_have_count(0)
    created = json.loads(sent.value.post_data)  # what the form sent: JSON numbers, not the text typed
    assert type(created["threshold"]) is int and created["threshold"] == 3, created
    assert type(created["pipeline"]) is int and created["duration_s"] is None, created

    row = page.get_by_test_id("alert-rule").filter(has_text="checkpoints keep failing")
    expect(row.get_by_test_id("alert-rule-condition")).to_have_text("3 checkpoints failed in a row")
    expect(row).to_contain_text("first-hour-alerts")
    [rule] = api_call(page, live_studio, "GET", f"/api/alerts/rules?pipeline={pipeline['id']}")
    assert (rule["kind"], rule["threshold"], rule["webhook_url"]) == ("checkpoint_failures", 3, f"{receiver.origin}/alert")

    # Changed into a backpressure rule: the percentage a person types is the ratio the server keeps.
    row.get_by_test_id("alert-rule-edit").click()
    expect(dialog.get_by_test_id("alert-rule-name")).to_have_value("checkpoints keep failing")
    dialog.get_by_test_id("alert-rule-name").fill("slow consumer")
    dialog.get_by_test_id("alert-rule-kind").select_option(label="An operator is backpressured")
    dialog.get_by_test_id("alert-rule-threshold").fill("75")
    dialog.get_by_test_id("alert-rule-duration").fill("20")
    shot(artifacts, "5-alert-rule-edit", page)
    with page.expect_request(lambda request: request.method == "PATCH") as sent:
        dialog.get_by_test_id("alert-rule-save").click()
    expect(dialog).to_have_count(0)
    changed = json.loads(sent.value.post_data)
    assert (changed["threshold"], changed["duration_s"]) == (0.75, 20) and type(changed["duration_s"]) is int, changed
    row = page.get_by_test_id("alert-rule").filter(has_text="slow consumer")
    expect(row.get_by_test_id("alert-rule-condition")).to_have_text("any vertex backpressured over 75% for 20 s")
    assert api_call(page, live_studio, "GET", f"/api/alerts/rules/{rule['id']}")["threshold"] == 0.75

    # Test: a notification under Alerts, and the webhook's delivery listed with its HTTP status.
    row.get_by_test_id("alert-rule-test").click()
    expect(page.get_by_test_id("alert-rule-tested")).to_contain_text("1 notification sent")
    deliveries = page.get_by_test_id("alert-delivery")
    expect(deliveries.first).to_have_attribute("data-status", "DELIVERED", timeout=30_000)
    expect(deliveries.first).to_contain_text("HTTP 200")
    wait_until(lambda: receiver.bodies, 10, "the receiver to get the test firing")
    assert receiver.bodies[0]["rule"]["name"] == "slow consumer" and receiver.bodies[0]["data"] == {"test": True}
    expect(page.get_by_test_id("notifications-badge")).to_have_text("1")
    for width, height in SCREENS:
        page.set_viewport_size({"width": width, "height": height})
        shot(artifacts, "5-alert-rules-page", page)

    page.get_by_test_id("notifications-bell").click()
    notification = page.get_by_test_id("notification").first
    expect(notification).to_contain_text("test of alert rule 'slow consumer'")
    shot(artifacts, "5-notification", page)
    assert contrast(notification.locator(":scope > *").first) >= READABLE_CONTRAST
    page.get_by_test_id("notifications-read-all").click()
    expect(page.get_by_test_id("notifications-badge")).to_have_count(0)
    page.get_by_test_id("notifications-rules").click()  # the list leads to the rules
    expect(page).to_have_url(f"{live_studio}/alerts")

    # Switched off in place: kept, but evaluated no more.
    page.get_by_test_id("alert-rule").filter(has_text="slow consumer").get_by_test_id("alert-rule-toggle").uncheck()
    expect(page.get_by_test_id("alert-rule").filter(has_text="slow consumer")).to_have_class(re.compile("is-off"))
    assert api_call(page, live_studio, "GET", f"/api/alerts/rules/{rule['id']}")["enabled"] is False
    page.once("dialog", lambda confirm: confirm.accept())
    page.get_by_test_id("alert-rule").filter(has_text="slow consumer").get_by_test_id("alert-rule-delete").click()
    expect(page.get_by_test_id("alert-rules-empty")).to_be_visible()


@pytest.mark.spark
@pytest.mark.timeout(600)
def test_a_run_that_fails_notifies_in_one_readable_line_set_up_from_the_run_page(live_studio, page, artifacts):
    definition = simple_pipeline(count=None, rate=50, expression="1 // (x - 40)", interval_ms=1000,
                                 name="first-hour-alert-on-failure")
    pipeline = api_call(page, live_studio, "POST", "/api/pipelines", {"name": definition["name"], "definition": definition})
    first = api_call(page, live_studio, "POST", f"/api/pipelines/{pipeline['id']}/runs", {})
    wait_for_run(page, live_studio, first["id"], lambda run: run["ended_at"] is not None)

    # The failed run's Exceptions name the operator that failed (not its chain's head, gen) and the
    # record it failed on, without engine internals first.
    page.goto(f"{live_studio}/runs/{first['id']}")
    expect(page.get_by_test_id("run-status")).to_have_text("FAILED", timeout=30_000)
    page.get_by_test_id("run-tab-exceptions").click()
    failure = page.get_by_test_id("exception").first
    expect(failure.get_by_test_id("exception-message")).to_contain_text(
        re.compile(r"operator 'double' \(transform.map\), subtask 0, failed: ZeroDivisionError"))
    expect(failure.get_by_test_id("exception-record")).to_contain_text("40")
    expect(failure.get_by_test_id("exception-message")).not_to_contain_text("gen#0")
    shot(artifacts, "10-failure-names-operator-and-record", page)

    # Next to the savepoint schedules: the pipeline's alert rules.
    page.get_by_test_id("run-tab-alerts").click()
    expect(page.get_by_test_id("alert-rules-empty")).to_be_visible()
    page.get_by_test_id("alert-rule-new").click()
    dialog = page.get_by_test_id("alert-rule-dialog")
    expect(dialog.get_by_test_id("alert-rule-pipeline")).to_have_count(0)  # the run's pipeline
    dialog.get_by_test_id("alert-rule-name").fill("tell me when it fails")
    dialog.get_by_test_id("alert-rule-save").click()
    expect(page.get_by_test_id("alert-rule-condition")).to_have_text("a run failed")
    shot(artifacts, "5-run-page-alert-rules", page)

    # The next run fails the same way; the notification arrives live, one line naming the operator.
    api_call(page, live_studio, "POST", f"/api/pipelines/{pipeline['id']}/runs", {})
    expect(page.get_by_test_id("notifications-badge")).to_have_text("1", timeout=240_000)
    page.get_by_test_id("notifications-bell").click()
    notification = page.get_by_test_id("notification").first
    expect(notification).to_contain_text(re.compile(r"run \d+ failed: .*'double'.*ZeroDivisionError"))
    for width, height in SCREENS:
        page.set_viewport_size({"width": width, "height": height})
        shot(artifacts, "5-failure-notification", page)
    text = notification.inner_text()
    assert "Traceback" not in text and 'File "' not in text and "\n" not in text.strip(), text
    assert contrast(notification.locator(":scope > *").first) >= READABLE_CONTRAST
    assert notification.bounding_box()["height"] <= 80, "a notification is a line or two, not a page"
