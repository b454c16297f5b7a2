"""Pipelines, their immutable versions, runs, checkpoints and the stored run events."""
from __future__ import annotations

from django.db import models
from django.utils import timezone


class Pipeline(models.Model):
    """A named pipeline; its definition lives in immutable versions."""

    name = models.CharField(max_length=200)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-updated_at"]

    def latest_version(self) -> "PipelineVersion":
        return self.versions.order_by("-number").first()


class PipelineVersion(models.Model):
    """One saved definition of a pipeline; never changed after it is written."""

    pipeline = models.ForeignKey(Pipeline, related_name="versions", on_delete=models.CASCADE)
    number = models.PositiveIntegerField()
    definition = models.JSONField()
    message = models.CharField(max_length=500, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-number"]
        constraints = [models.UniqueConstraint(fields=["pipeline", "number"], name="unique_version_number")]


class RunStatus(models.TextChoices):
    CREATED = "CREATED"
    SCHEDULING = "SCHEDULING"
    RUNNING = "RUNNING"
    FINISHING = "FINISHING"
    FINISHED = "FINISHED"
    CANCELING = "CANCELING"
    CANCELED = "CANCELED"
    FAILING = "FAILING"
    FAILED = "FAILED"
    RESTARTING = "RESTARTING"


TERMINAL_STATUSES = frozenset({RunStatus.FINISHED, RunStatus.CANCELED, RunStatus.FAILED})


class Run(models.Model):
    """One execution of a pipeline version; its status mirrors the driver's reports."""

    pipeline = models.ForeignKey(Pipeline, related_name="runs", on_delete=models.CASCADE)
    version = models.ForeignKey(PipelineVersion, related_name="runs", on_delete=models.PROTECT)
    mode = models.CharField(max_length=16, default="streaming")
    status = models.CharField(max_length=16, choices=RunStatus.choices, default=RunStatus.CREATED)
    failure_cause = models.TextField(null=True, blank=True)
    plan = models.JSONField(null=True, blank=True)
    collected = models.JSONField(default=dict, blank=True)
    driver_pid = models.IntegerField(null=True, blank=True)
    spark_app_id = models.CharField(max_length=200, blank=True, default="")
    checkpoint_dir = models.CharField(max_length=1000, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    ended_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    @property
    def is_terminal(self) -> bool:
        return self.status in TERMINAL_STATUSES


class Checkpoint(models.Model):
    """A checkpoint or savepoint of a run, with Flink's statistics field names."""

    run = models.ForeignKey(Run, related_name="checkpoints", on_delete=models.CASCADE)
    checkpoint_id = models.PositiveIntegerField()
    kind = models.CharField(max_length=16, default="checkpoint")
    status = models.CharField(max_length=16, default="IN_PROGRESS")
    trigger_timestamp = models.BigIntegerField()
    latest_ack_timestamp = models.BigIntegerField(null=True, blank=True)
    end_to_end_duration = models.BigIntegerField(null=True, blank=True)
    state_size = models.BigIntegerField(default=0)
    num_acknowledged_subtasks = models.PositiveIntegerField(default=0)
    num_subtasks = models.PositiveIntegerField(default=0)
    external_path = models.CharField(max_length=1000, blank=True, default="")
    failure_message = models.TextField(null=True, blank=True)
    subtasks = models.JSONField(default=list, blank=True)

    class Meta:
        ordering = ["-checkpoint_id"]
        constraints = [models.UniqueConstraint(fields=["run", "checkpoint_id"], name="unique_checkpoint_per_run")]


class RunEvent(models.Model):
    """Everything a run reported, in order; stored before it is fanned out to WebSockets."""

    run = models.ForeignKey(Run, related_name="events", on_delete=models.CASCADE)
    seq = models.PositiveIntegerField()
    type = models.CharField(max_length=32)
    ts = models.BigIntegerField()
    data = models.JSONField(default=dict)

    class Meta:
        ordering = ["seq"]
        constraints = [models.UniqueConstraint(fields=["run", "seq"], name="unique_event_seq_per_run")]


def now_ms() -> int:
    return int(timezone.now().timestamp() * 1000)
