"""Work done later runs as the user who set it up, with the permissions they have when it runs.

alice shares her pipeline with bob's group (with run). bob schedules savepoints of her run and
makes an alert rule with a webhook on her pipeline. Then his access goes: the share deleted
over REST, or by raw SQL that no signal sees, or his account deactivated by a bulk update.
From then on, nothing acts on his behalf: the scheduler's tick (called directly here) takes no
savepoint and deletes nothing, the rule raises no notification and sends no webhook, and a
delivery queued before is refused without a connection. Given the permission back, both go on.
"""
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db import connection

from studio.alerts import webhooks
from studio.alerts.models import AlertRule, Notification, WebhookDelivery
from studio.models import Pipeline, PipelineShare, PipelineVersion, Run, SavepointRequest
from studio.runs.events import set_status
from studio.schedules.models import SavepointSchedule
from studio.schedules.scheduler import run_due_schedules
from tests.studio.test_webhook_boundaries import Listener
from tests.support import simple_pipeline

pytestmark = pytest.mark.django_db(transaction=True)  # alerts are evaluated after each event commits


def delete_share_over_rest(team):
    response = team["alice_api"].delete(f"/api/pipelines/{team['pipeline'].id}/shares/{team['share'].id}")
    assert response.status_code == 204


def delete_share_by_raw_sql(team):
    with connection.cursor() as cursor:
        cursor.execute(f"DELETE FROM {PipelineShare._meta.db_table} WHERE id = %s", [team["share"].id])


def deactivate_by_bulk_update(team):
    get_user_model().objects.filter(pk=team["bob"].pk).update(is_active=False)


REVOCATIONS = [delete_share_over_rest, delete_share_by_raw_sql, deactivate_by_bulk_update]


@pytest.fixture
def team(user, other_user, api, other_api):
    pipeline = Pipeline.objects.create(name="alice's", owner=user)
    version = PipelineVersion.objects.create(pipeline=pipeline, number=1, definition=simple_pipeline())
    group = Group.objects.create(name="operators")
    other_user.groups.add(group)
    share = PipelineShare.objects.create(pipeline=pipeline, group=group, can_run=True)
    run = Run.objects.create(pipeline=pipeline, version=version, created_by=user)
    set_status(run.id, "SCHEDULING")
    set_status(run.id, "RUNNING")
    return {"pipeline": pipeline, "run": run, "share": share, "bob": other_user, "alice_api": api, "bob_api": other_api}


@pytest.mark.parametrize("revoke", REVOCATIONS)
def test_a_schedule_stops_taking_savepoints_when_its_author_may_no_longer_run_the_pipeline(team, revoke):
    created = team["bob_api"].post("/api/schedules", {"run": team["run"].id, "interval_s": 60}, format="json")
    assert created.status_code == 201, created.content
    schedule = SavepointSchedule.objects.get(pk=created.json()["id"])
    moment = schedule.next_due_at + timedelta(seconds=1)
    assert len(run_due_schedules(moment)) == 1  # bob may: a savepoint of alice's run

    revoke(team)
    moment += timedelta(seconds=61)
    assert run_due_schedules(moment) == []
    schedule.refresh_from_db()
    assert "suspended: the schedule runs as its author" in schedule.last_error and "bob" in schedule.last_error
    assert SavepointRequest.objects.filter(schedule=schedule).count() == 1

    PipelineShare.objects.update_or_create(pk=team["share"].pk, defaults={
        "pipeline": team["pipeline"], "group": team["share"].group, "can_run": True})
    get_user_model().objects.filter(pk=team["bob"].pk).update(is_active=True)
    assert len(run_due_schedules(moment + timedelta(seconds=61))) == 1  # permission back: it goes on


@pytest.mark.parametrize("revoke", REVOCATIONS)
def test_an_alert_rule_and_its_webhook_stop_when_its_author_may_no_longer_run_the_pipeline(team, grant, revoke):
    listener = Listener()
    try:
        grant(team["bob"], f"http://127.0.0.1:{listener.port}", kind="url")
        created = team["bob_api"].post("/api/alerts/rules", {
            "pipeline": team["pipeline"].id, "name": "bob's", "kind": "run_restarted",
            "webhook_url": f"http://127.0.0.1:{listener.port}/hook"}, format="json")
        assert created.status_code == 201, created.content
        rule = AlertRule.objects.get(pk=created.json()["id"])
        queued = WebhookDelivery.objects.create(rule=rule, url=rule.webhook_url, payload={"queued": "before"})

        revoke(team)
        set_status(team["run"].id, "RESTARTING", cause="a subtask failed")
        webhooks.attempt(queued)
        tested = team["alice_api"].post(f"/api/alerts/rules/{rule.id}/test")
    finally:
        listener.close()
    assert Notification.objects.filter(rule=rule).count() == 0  # neither bob nor alice hears from bob's rule
    assert list(WebhookDelivery.objects.filter(rule=rule).values_list("pk", flat=True)) == [queued.pk]
    assert (queued.status, listener.accepted) == ("FAILED", 0)
    assert "runs as its author, and bob" in queued.attempts[0]["error"]
    assert tested.status_code == 403 and "runs as its author" in tested.json()["detail"]


def test_a_rule_whose_author_may_act_still_fires(team):
    rule = AlertRule.objects.create(pipeline=team["pipeline"], name="bob's", kind="run_failed",
                                    created_by=team["bob"])
    set_status(team["run"].id, "FAILED", cause="boom")
    assert sorted(Notification.objects.filter(rule=rule).values_list("user__username", flat=True)) == ["alice", "bob"]
