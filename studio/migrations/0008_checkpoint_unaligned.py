"""Checkpoints record whether they were unaligned and the in-flight bytes they persisted."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('studio', '0007_storage_locations'),
    ]

    operations = [
        migrations.AddField(
            model_name='checkpoint',
            name='unaligned',
            field=models.BooleanField(default=False),
        ),
        migrations.AddField(
            model_name='checkpoint',
            name='persisted_data',
            field=models.BigIntegerField(default=0),
        ),
    ]
