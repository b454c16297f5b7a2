"""A storage location may be granted to a team (``LocationGrant.team``): its members' jobs get it by role.

Reversible: going back deletes the team grants first (the old constraint knows only users and groups)."""
import django.db.models.deletion
from django.db import migrations, models


def forget_team_grants(apps, schema_editor):
    apps.get_model("studio", "LocationGrant").objects.filter(team__isnull=False).delete()


class Migration(migrations.Migration):

    dependencies = [
        ("studio", "0016_teams"),
    ]

    operations = [
        migrations.RemoveConstraint(model_name="locationgrant", name="grant_to_user_or_group"),
        migrations.AddField(
            model_name="locationgrant",
            name="team",
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE,
                                    related_name="location_grants", to="studio.team"),
        ),
        migrations.RunPython(migrations.RunPython.noop, forget_team_grants),
        migrations.AddConstraint(
            model_name="locationgrant",
            constraint=models.CheckConstraint(
                condition=models.Q(models.Q(("group__isnull", True), ("team__isnull", True), ("user__isnull", False)),
                                   models.Q(("group__isnull", False), ("team__isnull", True), ("user__isnull", True)),
                                   models.Q(("group__isnull", True), ("team__isnull", False), ("user__isnull", True)),
                                   _connector="OR"),
                name="grant_to_user_group_or_team"),
        ),
    ]
