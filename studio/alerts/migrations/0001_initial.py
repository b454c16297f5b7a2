"""The alerts app's models, which were models of the studio app (created by studio's 0005_alerts):
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
                name='AlertRule',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('name', models.CharField(max_length=200)),
                    ('kind', models.CharField(choices=[('checkpoint_failures', 'checkpoints failed in a row (threshold: how many)'), ('checkpoint_duration', 'a checkpoint took longer than threshold ms'), ('backpressure', 'a vertex backpressured over threshold (0..1) for duration_s seconds'), ('run_failed', 'a run failed'), ('run_restarted', 'a run restarted (failover)')], max_length=32)),
                    ('threshold', models.FloatField(blank=True, null=True)),
                    ('duration_s', models.PositiveIntegerField(blank=True, null=True)),
                    ('vertex', models.CharField(blank=True, default='', max_length=200)),
                    ('webhook_url', models.CharField(blank=True, default='', max_length=2000)),
                    ('enabled', models.BooleanField(default=True)),
                    ('created_at', models.DateTimeField(auto_now_add=True)),
                    ('created_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                    ('pipeline', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='alert_rules', to='studio.pipeline')),
                ],
                options={
                    'db_table': 'studio_alertrule',
                    'ordering': ['id'],
                },
            ),
            migrations.CreateModel(
                name='AlertState',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('key', models.CharField(default='', max_length=200)),
                    ('active', models.BooleanField(default=False)),
                    ('since', models.BigIntegerField(blank=True, null=True)),
                    ('rule', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='states', to='alerts.alertrule')),
                    ('run', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='studio.run')),
                ],
                options={
                    'db_table': 'studio_alertstate',
                },
            ),
            migrations.CreateModel(
                name='Notification',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('kind', models.CharField(max_length=32)),
                    ('message', models.TextField()),
                    ('data', models.JSONField(blank=True, default=dict)),
                    ('created_at', models.DateTimeField(auto_now_add=True)),
                    ('read_at', models.DateTimeField(blank=True, null=True)),
                    ('pipeline', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='+', to='studio.pipeline')),
                    ('rule', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='notifications', to='alerts.alertrule')),
                    ('run', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='studio.run')),
                    ('user', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='notifications', to=settings.AUTH_USER_MODEL)),
                ],
                options={
                    'db_table': 'studio_notification',
                    'ordering': ['-created_at', '-id'],
                },
            ),
            migrations.CreateModel(
                name='WebhookDelivery',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('url', models.CharField(max_length=2000)),
                    ('payload', models.JSONField(default=dict)),
                    ('status', models.CharField(choices=[('PENDING', 'Pending'), ('DELIVERED', 'Delivered'), ('FAILED', 'Failed')], default='PENDING', max_length=16)),
                    ('attempts', models.JSONField(blank=True, default=list)),
                    ('created_at', models.DateTimeField(auto_now_add=True)),
                    ('delivered_at', models.DateTimeField(blank=True, null=True)),
                    ('rule', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='deliveries', to='alerts.alertrule')),
                ],
                options={
                    'db_table': 'studio_webhookdelivery',
                    'ordering': ['-created_at', '-id'],
                },
            ),
            migrations.AddIndex(
                model_name='alertrule',
                index=models.Index(fields=['pipeline', 'enabled'], name='alert_rule_pipeline'),
            ),
            migrations.AddConstraint(
                model_name='alertstate',
                constraint=models.UniqueConstraint(fields=('rule', 'run', 'key'), name='unique_alert_state'),
            ),
            migrations.AddIndex(
                model_name='notification',
                index=models.Index(fields=['user', 'read_at'], name='notification_unread'),
            ),
        ]),
    ]
