"""Alerts, schedules and taps become apps of their own (``alerts``, ``schedules``, ``taps``).

Their tables stay where they are, with their rows and names (``studio_alertrule``, ...): this
migration only lets go of them in Django's picture of the studio app, after each feature's
0001 took them over, and points ``SavepointRequest.schedule`` at ``schedules.SavepointSchedule``
(the same table, so the same foreign key). The content types of the moved models move with
them, so the permissions and admin log entries that point at those content types keep pointing
at the right models.
"""
import django.db.models.deletion
from django.db import migrations, models

MOVED = {"alerts": ["alertrule", "alertstate", "notification", "webhookdelivery"],
         "schedules": ["savepointschedule"],
         "taps": ["tap"]}


def move_content_types(apps, schema_editor, source=None, target=None):
    """Relabel the moved models' content types (``source`` app label to the feature's, or back)."""
    content_types = apps.get_model("contenttypes", "ContentType")
    for app, model_names in MOVED.items():
        old, new = (source or app, target or app)
        for name in model_names:
            if not content_types.objects.filter(app_label=new, model=name).exists():
                content_types.objects.filter(app_label=old, model=name).update(app_label=new)


def forwards(apps, schema_editor):
    move_content_types(apps, schema_editor, source="studio")


def backwards(apps, schema_editor):
    move_content_types(apps, schema_editor, target="studio")


class Migration(migrations.Migration):

    dependencies = [
        ('studio', '0012_location_kind_kafka'),
        ('alerts', '0001_initial'),
        ('schedules', '0001_initial'),
        ('taps', '0001_initial'),
        ('contenttypes', '0002_remove_content_type_name'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=[
            migrations.AlterField(
                model_name='savepointrequest',
                name='schedule',
                field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='requests', to='schedules.savepointschedule'),
            ),
            migrations.DeleteModel(name='WebhookDelivery'),
            migrations.DeleteModel(name='AlertState'),
            migrations.DeleteModel(name='Notification'),
            migrations.DeleteModel(name='AlertRule'),
            migrations.DeleteModel(name='SavepointSchedule'),
            migrations.DeleteModel(name='Tap'),
        ]),
        migrations.RunPython(forwards, backwards),
    ]
