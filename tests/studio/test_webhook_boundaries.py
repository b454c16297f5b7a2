"""Alert webhooks are locations like any other: only granted addresses, every hop checked when it is made.

bob is an ordinary user: he may run his own pipeline and make alert rules on it. He tries to
make the studio POST to places nobody granted him (the studio's own Redis, a loopback port,
a host whose name resolves to loopback, a redirect to another port) and to learn from the
delivery log which ports are open. Each target is a real TCP listener that counts the
connections it accepts: a refused hop must never reach it.
"""
import http.server
import socket
import threading

import pytest
from django.conf import settings

from studio import outbound_http
from studio.alerts import webhooks
from studio.alerts.models import AlertRule, WebhookDelivery
from studio.models import Pipeline, PipelineVersion
from tests.support import simple_pipeline, wait_until

pytestmark = pytest.mark.django_db


class Listener:
    """A TCP port that accepts and counts connections (and closes them at once)."""

    def __init__(self):
        self.socket = socket.socket()
        self.socket.bind(("127.0.0.1", 0))
        self.socket.listen(16)
        self.port = self.socket.getsockname()[1]
        self.accepted = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                connection, _ = self.socket.accept()
            except OSError:
                return
            self.accepted += 1
            connection.close()

    def close(self):
        self.socket.close()


class Receiver:
    """A real HTTP server: answers each POST with ``status`` (and ``location`` when given)."""

    def __init__(self, status: int = 204, location: str | None = None):
        receiver = self
        self.posts = 0

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802
                self.rfile.read(int(self.headers["Content-Length"]))
                receiver.posts += 1
                self.send_response(status)
                if location:
                    self.send_header("Location", location)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def listener():
    each = Listener()
    yield each
    each.close()


@pytest.fixture
def bobs_pipeline(other_user):
    pipeline = Pipeline.objects.create(name="bob's", owner=other_user)
    PipelineVersion.objects.create(pipeline=pipeline, number=1, definition=simple_pipeline())
    return pipeline


def rule_of(pipeline, author, url: str) -> AlertRule:
    """A rule as it stands in the database (however its URL got there: saved while granted, an import)."""
    return AlertRule.objects.create(pipeline=pipeline, name="hook", kind="run_failed", webhook_url=url,
                                    created_by=author)


def deliver(rule: AlertRule) -> WebhookDelivery:
    delivery = WebhookDelivery.objects.create(rule=rule, url=rule.webhook_url, payload={"n": 1})
    webhooks.attempt(delivery)
    return delivery


def test_a_rule_may_not_name_the_studios_own_redis_or_any_ungranted_address(other_api, bobs_pipeline, listener):
    redis_port = int(settings.REDIS_URL.rsplit(":", 1)[1].split("/")[0])
    for url in (f"http://127.0.0.1:{redis_port}/", f"http://localhost:{listener.port}/x", "http://[::1]:22/",
                "http://169.254.169.254/latest/meta-data/", "https://hooks.example/x"):
        response = other_api.post("/api/alerts/rules", {"pipeline": bobs_pipeline.id, "name": "r",
                                                        "kind": "run_failed", "webhook_url": url}, format="json")
        assert response.status_code == 400, (url, response.content)
        [error] = response.json()["errors"]
        assert error["field"] == "webhook_url" and "not below an address granted" in error["message"], error
    assert listener.accepted == 0


def test_a_delivery_checks_the_grant_when_it_is_sent_and_never_connects_when_refused(
        other_user, bobs_pipeline, grant, listener):
    url = f"http://127.0.0.1:{listener.port}/hook"
    location = grant(other_user, f"http://127.0.0.1:{listener.port}", kind="url")
    rule = rule_of(bobs_pipeline, other_user, url)
    location.delete()  # the operator took the grant back after the rule was saved
    delivery = deliver(rule)
    assert (delivery.status, listener.accepted) == ("FAILED", 0)
    assert delivery.attempts[0]["error"].startswith("not sent: ") and "not below an address granted" in (
        delivery.attempts[0]["error"])


def test_a_granted_name_that_resolves_to_a_private_address_is_refused_after_resolution(
        other_user, bobs_pipeline, grant, listener, monkeypatch, settings):
    """DNS is the outside world here: a granted name whose owner points it at loopback (rebinding)."""
    grant(other_user, f"http://hooks.example:{listener.port}", kind="url")
    rule = rule_of(bobs_pipeline, other_user, f"http://hooks.example:{listener.port}/hook")
    monkeypatch.setattr(outbound_http, "resolve_host", lambda host, port: ["127.0.0.1"])
    delivery = deliver(rule)
    assert (delivery.status, listener.accepted) == ("FAILED", 0)
    assert "resolves to 127.0.0.1, which is not a public address" in delivery.attempts[0]["error"]

    settings.STUDIO_TRUSTED_NETWORKS = ["127.0.0.0/8"]  # the operator's own network, trusted by the operator
    assert deliver(rule).attempts[0]["error"] == "could not reach the receiver"  # reached: the listener hung up
    assert listener.accepted == 1


def test_a_redirect_to_an_ungranted_port_is_not_followed(other_user, bobs_pipeline, grant, listener):
    redirecting = Receiver(status=302, location=f"http://127.0.0.1:{listener.port}/")
    try:
        grant(other_user, f"http://127.0.0.1:{redirecting.port}", kind="url")  # the operator granted this one
        delivery = deliver(rule_of(bobs_pipeline, other_user, f"http://127.0.0.1:{redirecting.port}/hook"))
    finally:
        redirecting.close()
    assert (redirecting.posts, listener.accepted, delivery.status) == (1, 0, "FAILED")
    assert "not below an address granted" in delivery.attempts[0]["error"]


def test_a_redirect_inside_the_grants_is_followed(other_user, bobs_pipeline, grant):
    final = Receiver(status=204)
    redirecting = Receiver(status=307, location=f"http://127.0.0.1:{final.port}/moved")
    try:
        grant(other_user, f"http://127.0.0.1:{redirecting.port}", kind="url")
        grant(other_user, f"http://127.0.0.1:{final.port}", kind="url")
        delivery = deliver(rule_of(bobs_pipeline, other_user, f"http://127.0.0.1:{redirecting.port}/hook"))
    finally:
        redirecting.close()
        final.close()
    assert (delivery.status, delivery.attempts[0]["status_code"], final.posts) == ("DELIVERED", 204, 1)


def test_the_delivery_log_is_no_port_scanner(other_user, bobs_pipeline, grant, listener):
    """A closed port, a port that hangs up, and a name that does not resolve read the same in the log."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed_port = probe.getsockname()[1]
    errors = []
    for host, port in (("127.0.0.1", closed_port), ("127.0.0.1", listener.port), ("no-such-host.invalid", 80)):
        grant(other_user, f"http://{host}:{port}", kind="url")
        delivery = deliver(rule_of(bobs_pipeline, other_user, f"http://{host}:{port}/hook"))
        errors.append((delivery.status, delivery.attempts[0].get("error")))
    assert errors == [("PENDING", "could not reach the receiver")] * 3  # and each is retried later
    wait_until(lambda: listener.accepted == 1, 10, "the listener to count its connection")
