"""Alert rules (tag "alerts"): REST, permissions, evaluation on run events, notifications over REST and
WebSocket with the unread badge, and webhooks POSTed to a real local HTTP server, retried with backoff."""
import contextlib
import http.server
import json
import threading

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import Group

from studio.alerts import evaluation, webhooks
from studio.alerts.models import AlertRule, Notification, WebhookDelivery
from studio.asgi import application
from studio.models import ApiToken, Pipeline, PipelineShare, PipelineVersion, Run
from studio.runs.events import record_event, set_status
from tests.support import simple_pipeline, wait_until, ws_headers

pytestmark = pytest.mark.django_db(transaction=True)  # alerts are evaluated after each event commits


def problems(response, field: str) -> str:
    """The messages about ``field`` of a 400: DRF's ``fields``, or ``errors`` for rules past the schema."""
    body = response.json()
    located = [error["message"] for error in body.get("errors", []) if error["field"] == field]
    return json.dumps(body.get("fields", {}).get(field, []) + located)


def running_run(owner, name="p") -> Run:
    pipeline = Pipeline.objects.create(name=name, owner=owner)
    version = PipelineVersion.objects.create(pipeline=pipeline, number=1, definition=simple_pipeline())
    run = Run.objects.create(pipeline=pipeline, version=version, created_by=owner)
    set_status(run.id, "SCHEDULING")
    set_status(run.id, "RUNNING")
    return run


def rule(api, run, **body) -> dict:
    response = api.post("/api/alerts/rules", {"pipeline": run.pipeline_id, "name": "r", **body}, format="json")
    assert response.status_code == 201, response.content
    return response.json()


def checkpoint(run, checkpoint_id, outcome, **extra):
    record_event(run.id, "checkpoint", {"event": "triggered", "id": checkpoint_id, "kind": "checkpoint",
                                        "trigger_timestamp": 1000})
    record_event(run.id, "checkpoint", {"event": outcome, "id": checkpoint_id, "kind": "checkpoint", **extra})


def messages(user) -> list[str]:
    return list(Notification.objects.filter(user=user).order_by("id").values_list("message", flat=True))


class FlakyReceiver:
    """A real HTTP server on a free loopback port: answers 500 to the first ``failures`` POSTs, then 204."""

    def __init__(self, failures: int):
        self.failures = failures
        self.bodies: list[dict] = []
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802
                receiver.bodies.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
                self.send_response(500 if len(receiver.bodies) <= receiver.failures else 204)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.origin = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.url = f"{self.origin}/hook?token=abc"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@contextlib.contextmanager
def flaky_receiver(failures: int):
    receiver = FlakyReceiver(failures)
    try:
        yield receiver
    finally:
        receiver.close()


def test_rules_are_created_listed_changed_and_deleted(api, user, grant):
    grant(user, "https://hooks.example", kind="url")
    run = running_run(user)
    created = rule(api, run, kind="checkpoint_failures", threshold=3, webhook_url="https://hooks.example/x")
    assert (created["kind"], created["threshold"], created["enabled"], created["created_by"]) == (
        "checkpoint_failures", 3, True, "alice")
    assert [r["id"] for r in api.get(f"/api/alerts/rules?pipeline={run.pipeline_id}").json()] == [created["id"]]
    assert api.get("/api/alerts/rules?pipeline=999").json() == []
    changed = api.patch(f"/api/alerts/rules/{created['id']}", {"enabled": False}, format="json")
    assert changed.status_code == 200 and changed.json()["enabled"] is False
    assert api.delete(f"/api/alerts/rules/{created['id']}").status_code == 204


@pytest.mark.parametrize("body, field, words", [
    ({"kind": "run_failed", "webhook_url": "file:///etc/passwd"}, "webhook_url", "only http and https webhooks"),
    ({"kind": "run_failed", "webhook_url": "gopher://127.0.0.1:70/x"}, "webhook_url", "not 'gopher'"),
    ({"kind": "run_failed", "webhook_url": "/relative/path"}, "webhook_url", "without a scheme"),
    ({"kind": "run_failed", "webhook_url": "http://user:pw@hooks.example/"}, "webhook_url", "credentials"),
    ({"kind": "run_failed", "webhook_url": "http:///nohost"}, "webhook_url", "names no host"),
    ({"kind": "checkpoint_failures"}, "threshold", "needs a threshold"),
    ({"kind": "backpressure", "threshold": 2}, "threshold", "between 0 and 1"),
    ({"kind": "sunspots"}, "kind", "is not a valid choice"),
])
def test_bad_rules_are_400s_naming_the_field(api, user, body, field, words):
    response = api.post("/api/alerts/rules", {"pipeline": running_run(user).pipeline_id, "name": "r", **body},
                        format="json")
    assert response.status_code == 400, response.content
    assert words in problems(response, field)
    assert AlertRule.objects.count() == 0


def test_another_user_sees_no_rules_and_cannot_make_any(api, user, other_user, other_api):
    run = running_run(user)
    mine = rule(api, run, kind="run_failed")
    assert other_api.get("/api/alerts/rules").json() == []
    assert other_api.get(f"/api/alerts/rules/{mine['id']}").status_code == 404
    assert other_api.get(f"/api/alerts/rules/{mine['id']}/deliveries").status_code == 404
    assert other_api.post(f"/api/alerts/rules/{mine['id']}/test").status_code == 404
    refused = other_api.post("/api/alerts/rules", {"pipeline": run.pipeline_id, "name": "x", "kind": "run_failed"},
                             format="json")
    assert refused.status_code == 404 and f"no pipeline {run.pipeline_id}" in refused.json()["detail"]


def test_a_viewer_reads_rules_but_may_not_change_or_test_them(api, user, other_user, other_api):
    run = running_run(user)
    group = Group.objects.create(name="viewers")
    other_user.groups.add(group)
    PipelineShare.objects.create(pipeline=run.pipeline, group=group)
    mine = rule(api, run, kind="run_failed")
    assert other_api.get(f"/api/alerts/rules/{mine['id']}").status_code == 200
    assert other_api.post(f"/api/alerts/rules/{mine['id']}/test").status_code == 403
    assert other_api.delete(f"/api/alerts/rules/{mine['id']}").status_code == 403
    assert other_api.post("/api/alerts/rules", {"pipeline": run.pipeline_id, "name": "x", "kind": "run_failed"},
                          format="json").status_code == 403


def test_checkpoint_failures_in_a_row_fire_once_per_streak(api, user):
    run = running_run(user)
    rule(api, run, kind="checkpoint_failures", threshold=2)
    checkpoint(run, 1, "failed", failure_message="expired before completing")
    assert messages(user) == []
    checkpoint(run, 2, "failed", failure_message="expired before completing")
    assert messages(user) == [f"2 checkpoint(s) of run {run.id} failed in a row; the last, 2: "
                              "expired before completing"]
    checkpoint(run, 3, "failed")
    assert len(messages(user)) == 1  # the same streak
    checkpoint(run, 4, "completed", end_to_end_duration=5)
    checkpoint(run, 5, "failed")
    checkpoint(run, 6, "failed")
    assert len(messages(user)) == 2


def test_a_slow_checkpoint_fires_and_a_fast_one_does_not(api, user):
    run = running_run(user)
    rule(api, run, kind="checkpoint_duration", threshold=100)
    checkpoint(run, 1, "completed", end_to_end_duration=50)
    checkpoint(run, 2, "completed", end_to_end_duration=500)
    assert messages(user) == [f"checkpoint 2 of run {run.id} took 500 ms (over 100 ms)"]


def test_backpressure_fires_after_its_duration_and_again_after_it_cleared(api, user):
    run = running_run(user)
    created = rule(api, run, kind="backpressure", threshold=0.5, duration_s=10, vertex="map")

    def sample(ts, ratio, vertex="map"):
        evaluation.on_event(run.id, run.pipeline_id, "metrics", ts, {"vertices": {vertex: {"backpressured_ratio": ratio}}})

    sample(0, 0.9)
    sample(5_000, 0.9)
    sample(6_000, 0.99, vertex="other")  # the rule watches "map" only
    assert messages(user) == []
    sample(10_000, 0.8)
    assert messages(user) == [f"vertex map of run {run.id} backpressured 80% (over 50%) for 10 s"]
    sample(20_000, 0.95)
    assert len(messages(user)) == 1
    sample(21_000, 0.1)  # cleared: a new streak must last 10 s again
    sample(22_000, 0.9)
    sample(31_000, 0.9)
    assert len(messages(user)) == 1
    sample(32_000, 0.9)
    assert len(messages(user)) == 2
    assert Notification.objects.filter(rule_id=created["id"]).first().data["vertex"] == "map"


def test_a_failed_and_a_restarted_run_fire(api, user):
    run = running_run(user)
    rule(api, run, kind="run_restarted")
    rule(api, run, kind="run_failed")
    record_event(run.id, "status", {"status": "RESTARTING", "cause": "slot lost"})
    set_status(run.id, "FAILED", cause="too many restarts")
    assert messages(user) == [f"run {run.id} restarted: slot lost", f"run {run.id} failed: too many restarts"]


def test_a_notification_says_the_error_in_one_line_without_its_traceback_or_record(api, user):
    run = running_run(user)
    rule(api, run, kind="run_failed")
    rule(api, run, kind="checkpoint_failures", threshold=1)
    checkpoint(run, 1, "failed", failure_message="snapshot failed: OSError: disk full\nTraceback (most recent call last):\n"
                                                 '  File "engine/checkpoint/storage.py", line 60')
    set_status(run.id, "FAILED", cause="operator 'double' (transform.map), subtask 0, failed: ZeroDivisionError: "
                                       'division by zero\nrecord: {"card": "4111"}\n  File "<expression: 1 / x>", line 1')
    failed_checkpoints, failed = Notification.objects.filter(user=user).order_by("id")
    assert failed.message == (f"run {run.id} failed: operator 'double' (transform.map), subtask 0, failed: "
                              "ZeroDivisionError: division by zero")
    assert failed.data["cause"] == failed.message.split(": ", 1)[1]
    assert failed_checkpoints.message.endswith("the last, 1: snapshot failed: OSError: disk full")
    for notification in (failed_checkpoints, failed):
        assert "Traceback" not in json.dumps(notification.data) + notification.message
        assert "File" not in notification.message and "4111" not in json.dumps(notification.data)


def test_notifications_are_each_users_own_with_an_unread_count(api, user, other_user, other_api):
    run = running_run(user)
    created = rule(api, run, kind="run_failed")
    set_status(run.id, "FAILED", cause="boom")
    api.post(f"/api/alerts/rules/{created['id']}/test")
    listed = api.get("/api/alerts/notifications").json()
    assert [n["kind"] for n in listed] == ["run_failed", "run_failed"] and listed[0]["data"] == {"test": True}
    assert api.get("/api/alerts/notifications/unread-count").json() == {"unread": 2}
    assert other_api.get("/api/alerts/notifications").json() == []
    assert other_api.post(f"/api/alerts/notifications/{listed[0]['id']}/read").status_code == 404
    assert api.post(f"/api/alerts/notifications/{listed[0]['id']}/read").json() == {"unread": 1}
    assert [n["id"] for n in api.get("/api/alerts/notifications?unread=true").json()] == [listed[1]["id"]]
    assert api.post("/api/alerts/notifications/read-all").json() == {"unread": 0}
    bad = api.get("/api/alerts/notifications?unread=yes")
    assert bad.status_code == 400 and "unread must be true or false" in bad.json()["detail"]


@pytest.mark.django_db(transaction=True)
def test_notifications_arrive_live_with_the_badge_and_only_for_their_user(api, user, other_user):
    run = running_run(user)
    created = rule(api, run, kind="checkpoint_failures", threshold=1)
    mine, theirs = ApiToken.issue(user, "ws")[1], ApiToken.issue(other_user, "ws")[1]

    async def scenario():
        socket = WebsocketCommunicator(application, "/ws/notifications/", headers=ws_headers(mine))
        other = WebsocketCommunicator(application, "/ws/notifications/", headers=ws_headers(theirs))
        assert (await socket.connect(timeout=10))[0] and (await other.connect(timeout=10))[0]
        assert json.loads(await socket.receive_from(timeout=10)) == {"type": "unread", "unread": 0}
        assert json.loads(await other.receive_from(timeout=10)) == {"type": "unread", "unread": 0}
        await database_sync_to_async(checkpoint)(run, 1, "failed", failure_message="declined")
        live = json.loads(await socket.receive_from(timeout=10))
        assert (live["type"], live["unread"], live["notification"]["rule"]) == ("notification", 1, created["id"])
        assert "declined" in live["notification"]["message"]
        await database_sync_to_async(api.post)("/api/alerts/notifications/read-all")
        assert json.loads(await socket.receive_from(timeout=10)) == {"type": "unread", "unread": 0}
        assert await other.receive_nothing(timeout=1)
        await socket.disconnect()
        await other.disconnect()

        anonymous = WebsocketCommunicator(application, "/ws/notifications/", headers=ws_headers())
        assert await anonymous.connect(timeout=10) == (False, 4401)

    import asyncio
    asyncio.run(scenario())


def test_a_delivery_is_retried_with_backoff_until_the_receiver_takes_it(api, user, settings, grant):
    settings.WEBHOOK_MAX_ATTEMPTS = 5
    settings.WEBHOOK_BACKOFF_S = 2
    run = running_run(user)
    with flaky_receiver(failures=2) as receiver:
        grant(user, receiver.origin, kind="url")  # a receiver on loopback: the operator grants it
        created = rule(api, run, kind="run_failed", webhook_url=receiver.url)
        delivery = WebhookDelivery.objects.create(rule_id=created["id"], url=receiver.url, payload={"n": 1})
        assert [webhooks.attempt(delivery), webhooks.attempt(delivery), webhooks.attempt(delivery)] == [2, 4, None]
    assert [a.get("status_code") for a in delivery.attempts] == [500, 500, 204]
    assert delivery.status == "DELIVERED" and receiver.bodies == [{"n": 1}] * 3


def test_a_delivery_gives_up_after_its_attempts(api, user, settings, grant):
    settings.WEBHOOK_MAX_ATTEMPTS = 2
    run = running_run(user)
    with flaky_receiver(failures=10) as receiver:
        grant(user, receiver.origin, kind="url")
        created = rule(api, run, kind="run_failed", webhook_url=receiver.url)
        delivery = WebhookDelivery.objects.create(rule_id=created["id"], url=receiver.url, payload={})
        assert [webhooks.attempt(delivery), webhooks.attempt(delivery)] == [settings.WEBHOOK_BACKOFF_S, None]
    assert delivery.status == "FAILED" and len(delivery.attempts) == 2
    unreachable = WebhookDelivery.objects.create(rule_id=created["id"], url=receiver.url, payload={})
    webhooks.attempt(unreachable)  # the server is closed now
    assert "error" in unreachable.attempts[0] and "status_code" not in unreachable.attempts[0]


@pytest.mark.django_db(transaction=True)
def test_a_forced_checkpoint_failure_posts_the_webhook_through_the_celery_worker(celery_worker_process, api, user,
                                                                                grant):
    run = running_run(user)
    with flaky_receiver(failures=1) as receiver:
        grant(user, receiver.origin, kind="url")
        created = rule(api, run, kind="checkpoint_failures", threshold=1, webhook_url=receiver.url)
        checkpoint(run, 1, "failed", failure_message="expired")
        delivered = wait_until(lambda: WebhookDelivery.objects.filter(rule_id=created["id"], status="DELIVERED").first(),
                               60, "the webhook delivered after a retry")
    assert [a.get("status_code") for a in delivered.attempts] == [500, 204]
    assert receiver.bodies[-1]["rule"] == {"id": created["id"], "name": "r", "kind": "checkpoint_failures"}
    assert receiver.bodies[-1]["run"] == run.id and "expired" in receiver.bodies[-1]["message"]
    listed = api.get(f"/api/alerts/rules/{created['id']}/deliveries").json()
    assert [(d["status"], len(d["attempts"])) for d in listed] == [("DELIVERED", 2)]


def test_alerts_are_under_their_tag_in_the_schema(api):
    paths = api.get("/api/schema/?format=json").json()["paths"]
    operations = [operation for path, item in paths.items() if path.startswith("/api/alerts")
                  for operation in item.values() if isinstance(operation, dict)]
    assert len(operations) >= 10 and all(operation["tags"] == ["alerts"] for operation in operations)


def test_a_batch_of_many_runs_events_reads_the_alert_rules_once_and_each_rule_fires(api, user):
    """A session's runs send a metrics event and a completed checkpoint a second each; stored in one batch, their
    pipelines' rules are read in one query, not one per event, and each run's rule fires as alone."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from studio.runs.events import record_events

    runs = [running_run(user, name=f"p{index}") for index in range(3)]
    for run in runs:
        rule(api, run, kind="checkpoint_failures", threshold=1)
    batch = [event for run in runs for event in (
        (run.id, "metrics", {"vertices": {}}, None),
        (run.id, "checkpoint", {"event": "triggered", "id": 1, "kind": "checkpoint", "trigger_timestamp": 1000}, None),
        (run.id, "checkpoint", {"event": "failed", "id": 1, "kind": "checkpoint", "failure_message": "disk full"},
         None))]
    with CaptureQueriesContext(connection) as queries:
        record_events(batch)
    assert len([query for query in queries if 'FROM "studio_alertrule"' in query["sql"]]) == 1
    fired = messages(user)
    assert len(fired) == 3 and all(any(f"run {run.id}" in message for message in fired) for run in runs), fired
