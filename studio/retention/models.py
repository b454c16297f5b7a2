"""What retention knows of a run: its disk use, as last measured, and when its files were swept."""
from __future__ import annotations

from django.db import models

from studio.models import Pipeline, Run


class RunDiskUsage(models.Model):
    """Bytes a run holds on disk (``studio.retention.files.measure``), as of ``measured_at``."""

    run = models.OneToOneField(Run, related_name="disk_usage", on_delete=models.CASCADE)
    checkpoint_bytes = models.BigIntegerField(default=0)
    checkpoint_count = models.PositiveIntegerField(default=0)
    savepoint_bytes = models.BigIntegerField(default=0)
    savepoint_count = models.PositiveIntegerField(default=0)
    log_bytes = models.BigIntegerField(default=0)
    measured_at = models.DateTimeField()
    checkpoints_swept_at = models.DateTimeField(null=True, blank=True)  # an ended run's checkpoints deleted

    @property
    def owning_pipeline(self) -> Pipeline:
        return self.run.pipeline

    @property
    def total_bytes(self) -> int:
        return self.checkpoint_bytes + self.savepoint_bytes + self.log_bytes
