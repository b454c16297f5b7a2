"""A shadow run: production's run, a candidate version, the snapshot both start from, the caps, and the diff."""
from __future__ import annotations

from django.conf import settings
from django.db import models

from studio.models import Checkpoint, Pipeline, PipelineVersion, Run


class ShadowStatus(models.TextChoices):
    PENDING = "PENDING"  # queued
    SNAPSHOTTING = "SNAPSHOTTING"  # production takes the savepoint the shadow starts from
    RUNNING = "RUNNING"  # the shadow job runs
    COMPLETED = "COMPLETED"  # ended, the diff is there
    FAILED = "FAILED"
    DISCARDED = "DISCARDED"  # its outputs were deleted
    PROMOTED = "PROMOTED"  # the candidate was deployed with state after it


ENDED = (ShadowStatus.COMPLETED, ShadowStatus.FAILED, ShadowStatus.DISCARDED, ShadowStatus.PROMOTED)


class ShadowRun(models.Model):
    """One shadow run of ``candidate`` beside ``production`` (``studio.shadows.driver`` says how it runs)."""

    production = models.ForeignKey(Run, related_name="shadows", on_delete=models.CASCADE)
    candidate = models.ForeignKey(PipelineVersion, related_name="+", on_delete=models.PROTECT)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, related_name="+", on_delete=models.CASCADE)
    status = models.CharField(max_length=16, choices=ShadowStatus.choices, default=ShadowStatus.PENDING)
    snapshot = models.CharField(max_length=8, default="take")  # take (a savepoint now) | latest (checkpoint)
    checkpoint = models.ForeignKey(Checkpoint, related_name="+", null=True, blank=True, on_delete=models.SET_NULL)
    snapshot_location = models.CharField(max_length=1000, blank=True, default="")
    max_seconds = models.PositiveIntegerField(default=60)
    max_output_bytes = models.BigIntegerField(default=64 * 2 ** 20)
    max_slots = models.PositiveIntegerField(default=4)
    output_dir = models.CharField(max_length=1000, blank=True, default="")
    shared = models.JSONField(default=list, blank=True)  # node ids both versions share (run once)
    sinks = models.JSONField(default=list, blank=True)  # engine.api ShadowJob.sinks
    forks = models.JSONField(default=list, blank=True)  # engine.api SourceFork json: what must be released
    diff = models.JSONField(null=True, blank=True)  # per sink: engine.api.diff_outputs
    ended_by = models.CharField(max_length=16, blank=True, default="")  # input_end | time_budget | output_cap
    failure = models.TextField(blank=True, default="")
    promoted_run = models.ForeignKey(Run, related_name="+", null=True, blank=True, on_delete=models.SET_NULL)
    driver_pid = models.IntegerField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    ended_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    @property
    def owning_pipeline(self) -> Pipeline:
        return self.production.pipeline

    @property
    def is_ended(self) -> bool:
        return self.status in ENDED
