"""Approvers are a team role on the promoted pipeline (``studio.access.holds_role``), no longer a list of users:
an environment that required approval asks an operator of the pipeline from now on."""
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("environments", "0001_initial"),
    ]

    operations = [
        migrations.RemoveField(model_name="environment", name="approvers"),
        migrations.AddField(
            model_name="environment",
            name="approval_role",
            field=models.CharField(choices=[("viewer", "Viewer"), ("editor", "Editor"), ("operator", "Operator"),
                                            ("admin", "Admin")], default="operator", max_length=16),
        ),
    ]
