"""The schedules app's models, which were models of the studio app (created by studio's 0004_savepoint_schedules):
only Django's picture of them moves here (their tables keep their names and their rows); the
studio app's 0013 lets go of them."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('studio', '0011_change_tokens'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=[
            migrations.CreateModel(
                name='SavepointSchedule',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('interval_s', models.PositiveIntegerField(blank=True, null=True)),
                    ('cron', models.CharField(blank=True, default='', max_length=100)),
                    ('retain', models.PositiveIntegerField(default=3)),
                    ('enabled', models.BooleanField(default=True)),
                    ('created_at', models.DateTimeField(auto_now_add=True)),
                    ('next_due_at', models.DateTimeField(blank=True, null=True)),
                    ('last_triggered_at', models.DateTimeField(blank=True, null=True)),
                    ('last_error', models.TextField(blank=True, default='')),
                    ('created_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                    ('pipeline', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='savepoint_schedules', to='studio.pipeline')),
                    ('run', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='savepoint_schedules', to='studio.run')),
                ],
                options={
                    'db_table': 'studio_savepointschedule',
                    'ordering': ['id'],
                    'indexes': [models.Index(fields=['enabled', 'next_due_at'], name='schedule_due')],
                    'constraints': [models.CheckConstraint(condition=models.Q(models.Q(('pipeline__isnull', False), ('run__isnull', True)), models.Q(('pipeline__isnull', True), ('run__isnull', False)), _connector='OR'), name='schedule_for_pipeline_or_run'), models.CheckConstraint(condition=models.Q(models.Q(('cron', ''), ('interval_s__isnull', False)), models.Q(('interval_s__isnull', True), models.Q(('cron', ''), _negated=True)), _connector='OR'), name='schedule_interval_or_cron')],
                },
            ),
        ]),
    ]
