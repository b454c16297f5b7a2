"""Environments and secrets a team owns (``team``): names are unique per owner among personal ones and per team
among a team's.

Reversible: going back deletes the teams' secrets (nobody else may use them) and hands the teams' environments
back to the users who made them, renamed ``<name>-team-<id>`` where the maker has one of that name."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


def hand_back(apps, schema_editor):
    Environment = apps.get_model("environments", "Environment")
    apps.get_model("environments", "Secret").objects.filter(team__isnull=False).delete()
    for environment in Environment.objects.filter(team__isnull=False).order_by("id"):
        name = environment.name
        if Environment.objects.filter(owner_id=environment.owner_id, name=name).exclude(pk=environment.pk).exists():
            name = f"{name}-team-{environment.team_id}"[:100]
        Environment.objects.filter(pk=environment.pk).update(team=None, name=name)


class Migration(migrations.Migration):

    dependencies = [
        ('environments', '0002_approval_role'),
        ('studio', '0016_teams'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name='environment',
            name='unique_environment_name_per_owner',
        ),
        migrations.RemoveConstraint(
            model_name='secret',
            name='unique_secret_name_per_owner',
        ),
        migrations.AddField(
            model_name='environment',
            name='team',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='environments', to='studio.team'),
        ),
        migrations.AddField(
            model_name='secret',
            name='team',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='secrets', to='studio.team'),
        ),
        migrations.RunPython(migrations.RunPython.noop, hand_back),
        migrations.AddConstraint(
            model_name='environment',
            constraint=models.UniqueConstraint(condition=models.Q(('team__isnull', True)), fields=('owner', 'name'), name='unique_environment_name_per_owner'),
        ),
        migrations.AddConstraint(
            model_name='environment',
            constraint=models.UniqueConstraint(condition=models.Q(('team__isnull', False)), fields=('team', 'name'), name='unique_environment_name_per_team'),
        ),
        migrations.AddConstraint(
            model_name='secret',
            constraint=models.UniqueConstraint(condition=models.Q(('team__isnull', True)), fields=('owner', 'name'), name='unique_secret_name_per_owner'),
        ),
        migrations.AddConstraint(
            model_name='secret',
            constraint=models.UniqueConstraint(condition=models.Q(('team__isnull', False)), fields=('team', 'name'), name='unique_secret_name_per_team'),
        ),
    ]
