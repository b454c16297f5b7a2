"""Upgrade a database of a studio from before the feature apps, with a row in every moved table.

``python -m tests.studio.feature_apps_upgrade`` on the database of ``DATABASE_URL`` (empty):
migrates it as a studio before the feature apps had it (the alerts', schedules' and taps' models
inside the studio app, their content types and permissions made as ``migrate`` makes them),
writes rows through the models as they were then, migrates to the newest schema, reads the
rows back through today's models, then migrates back and reads them again. Prints what it
saw as one JSON object (``tests/studio/test_feature_apps_migration.py`` checks it).
"""
from __future__ import annotations

import json
import os

BEFORE = ("studio", "0012_location_kind_kafka")  # the newest schema before the feature apps
MOVED_TABLES = ["studio_alertrule", "studio_alertstate", "studio_notification", "studio_webhookdelivery",
                "studio_savepointschedule", "studio_tap"]


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "studio.settings")
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    call_command("migrate", *BEFORE, verbosity=0)
    written = write_rows(MigrationExecutor(connection).loader.project_state([BEFORE]).apps)
    call_command("migrate", verbosity=0)
    seen = {"written": written, "after": read_rows(written)}
    for app in ("alerts", "schedules", "taps"):
        call_command("migrate", app, "zero", verbosity=0)
    seen["back"] = read_back(MigrationExecutor(connection).loader.project_state([BEFORE]).apps, written)
    print(json.dumps(seen))


def write_rows(old) -> dict:
    """One row in every moved table (and what points at them), through the models as they were then."""
    user = old.get_model("auth", "User").objects.create(username="ada")
    group = old.get_model("auth", "Group").objects.create(name="operators")
    permission = old.get_model("auth", "Permission").objects.get(content_type__app_label="studio",
                                                                 codename="view_alertrule")
    group.permissions.add(permission)
    pipeline = old.get_model("studio", "Pipeline").objects.create(name="orders", owner=user)
    version = old.get_model("studio", "PipelineVersion").objects.create(pipeline=pipeline, number=1, definition={})
    run = old.get_model("studio", "Run").objects.create(pipeline=pipeline, version=version, status="RUNNING")
    rule = old.get_model("studio", "AlertRule").objects.create(pipeline=pipeline, name="late", kind="run_failed",
                                                               created_by=user)
    old.get_model("studio", "AlertState").objects.create(rule=rule, run=run, key="v", active=True, since=5)
    notification = old.get_model("studio", "Notification").objects.create(
        user=user, rule=rule, run=run, pipeline=pipeline, kind="run_failed", message="run failed", data={"n": 1})
    delivery = old.get_model("studio", "WebhookDelivery").objects.create(
        rule=rule, url="https://hooks.example/a", payload={"p": 1}, attempts=[{"at": 1}])
    schedule = old.get_model("studio", "SavepointSchedule").objects.create(pipeline=pipeline, interval_s=60, retain=2)
    request = old.get_model("studio", "SavepointRequest").objects.create(
        request_id="r1", run=run, trigger="scheduled", schedule=schedule)
    tap = old.get_model("studio", "Tap").objects.create(tap_id="t1", run=run, edge="e", created_by=user)
    content_type = old.get_model("contenttypes", "ContentType").objects.get(app_label="studio", model="alertrule")
    return {"pipeline": pipeline.pk, "run": run.pk, "rule": rule.pk, "notification": notification.pk,
            "delivery": delivery.pk, "schedule": schedule.pk, "request": request.pk, "tap": tap.pk,
            "group": group.pk, "alertrule_content_type": content_type.pk}


def read_rows(written: dict) -> dict:
    """The rows as today's models (in their own apps) read them."""
    from django.contrib.auth.models import Group
    from django.contrib.contenttypes.models import ContentType

    from studio.alerts.models import AlertRule, AlertState, Notification, WebhookDelivery
    from studio.models import Pipeline, Run, SavepointRequest
    from studio.schedules.models import SavepointSchedule
    from studio.taps.models import Tap

    rule = AlertRule.objects.get(pk=written["rule"])
    run = Run.objects.get(pk=written["run"])
    state = AlertState.objects.get(rule=rule)
    seen = {
        "rule": [rule.name, rule.kind, rule.created_by.username, rule.pipeline_id],
        "state": [state.run_id, state.key, state.active, state.since],
        "notification": Notification.objects.filter(pk=written["notification"], rule=rule).values_list(
            "message", "data").get(),
        "delivery": WebhookDelivery.objects.filter(pk=written["delivery"]).values_list("url", "attempts").get(),
        "schedule_requests": list(SavepointSchedule.objects.get(pk=written["schedule"]).requests.values_list(
            "request_id", flat=True)),
        "request_schedule": SavepointRequest.objects.get(pk=written["request"]).schedule_id,
        "taps_of_run": list(run.taps.values_list("tap_id", flat=True)),
        "tap_user": Tap.objects.get(pk=written["tap"]).created_by.username,
        "alertrule_content_type": ContentType.objects.get_for_model(AlertRule).pk,
        "studio_content_types": sorted(ContentType.objects.filter(
            app_label="studio", model__in=["alertrule", "alertstate", "notification", "webhookdelivery",
                                           "savepointschedule", "tap"]).values_list("model", flat=True)),
        "group_permissions": sorted(f"{p.content_type.app_label}.{p.codename}"
                                    for p in Group.objects.get(pk=written["group"]).permissions.all()),
    }
    Pipeline.objects.get(pk=written["pipeline"]).runs.all().delete()  # cascades into the feature apps' tables
    seen["left_after_deleting_the_runs"] = {
        "states": AlertState.objects.count(), "taps": Tap.objects.count(), "rules": AlertRule.objects.count()}
    return seen


def read_back(old, written: dict) -> dict:
    """After migrating back: the feature models are the studio app's again, with their rows."""
    from django.db import connection

    with connection.cursor() as cursor:
        counts = {}
        for table in MOVED_TABLES:
            cursor.execute(f"SELECT count(*) FROM {table}")
            counts[table] = cursor.fetchone()[0]
    content_type = old.get_model("contenttypes", "ContentType").objects.get(app_label="studio", model="alertrule")
    return {"rows": counts, "rule": old.get_model("studio", "AlertRule").objects.get(pk=written["rule"]).name,
            "alertrule_content_type": content_type.pk}


if __name__ == "__main__":
    main()
