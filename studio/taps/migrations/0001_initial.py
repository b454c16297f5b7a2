"""The taps app's models, which were models of the studio app (created by studio's 0006_taps):
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
                name='Tap',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('tap_id', models.CharField(max_length=32, unique=True)),
                    ('edge', models.CharField(max_length=200)),
                    ('records_per_second', models.PositiveIntegerField(default=20)),
                    ('bytes_per_second', models.PositiveIntegerField(default=32768)),
                    ('max_record_bytes', models.PositiveIntegerField(default=1024)),
                    ('created_at', models.DateTimeField(auto_now_add=True)),
                    ('opened_at', models.DateTimeField(blank=True, null=True)),
                    ('closed_at', models.DateTimeField(blank=True, null=True)),
                    ('created_by', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to=settings.AUTH_USER_MODEL)),
                    ('run', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='taps', to='studio.run')),
                ],
                options={
                    'db_table': 'studio_tap',
                    'ordering': ['-created_at', '-id'],
                },
            ),
        ]),
    ]
