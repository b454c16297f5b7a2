"""Alert rules, the state that keeps a rule from firing twice for one condition, notifications and webhook
deliveries."""
from __future__ import annotations

from django.conf import settings
from django.db import models

from studio.access import RUN, why_owner_may_not
from studio.models import Pipeline, Run


class AlertKind(models.TextChoices):
    CHECKPOINT_FAILURES = "checkpoint_failures", "checkpoints failed in a row (threshold: how many)"
    CHECKPOINT_DURATION = "checkpoint_duration", "a checkpoint took longer than threshold ms"
    BACKPRESSURE = "backpressure", "a vertex backpressured over threshold (0..1) for duration_s seconds"
    RUN_FAILED = "run_failed", "a run failed"
    RUN_RESTARTED = "run_restarted", "a run restarted (failover)"
    VIOLATION_RATE = "violation_rate", ("an expectation's violations over threshold (0..1) of the records it checked "
                                        "(vertex: a node or edge id, or any)")


class AlertRule(models.Model):
    """A condition on every run of ``pipeline``; when it holds the rule notifies (and calls its webhook)."""

    pipeline = models.ForeignKey(Pipeline, related_name="alert_rules", on_delete=models.CASCADE)
    name = models.CharField(max_length=200)
    kind = models.CharField(max_length=32, choices=AlertKind.choices)
    threshold = models.FloatField(null=True, blank=True)
    duration_s = models.PositiveIntegerField(null=True, blank=True)
    vertex = models.CharField(max_length=200, blank=True, default="")  # backpressure: one vertex; violation_rate:
    # a checked node or edge; or any
    webhook_url = models.CharField(max_length=2000, blank=True, default="")
    enabled = models.BooleanField(default=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, related_name="+", null=True, blank=True,
                                   on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "studio_alertrule"  # the table it had as a model of the studio app
        ordering = ["id"]
        indexes = [models.Index(fields=["pipeline", "enabled"], name="alert_rule_pipeline")]

    @property
    def owning_pipeline(self) -> Pipeline:
        return self.pipeline

    def suspension(self) -> str | None:
        """Why the rule may not act now, or None: it runs as its author, with the author's permissions
        as they are now (``studio.access.why_owner_may_not``), and acting on the pipeline's runs needs run."""
        reason = why_owner_may_not(self.created_by, RUN, self.pipeline)
        return None if reason is None else f"alert rule {self.pk} runs as its author, and {reason}"


class AlertState(models.Model):
    """Whether a rule's condition holds now for one run (and vertex): a rule fires when it starts to hold,
    not again while it keeps holding. ``since`` (ms) is when a backpressure streak began."""

    rule = models.ForeignKey(AlertRule, related_name="states", on_delete=models.CASCADE)
    run = models.ForeignKey(Run, related_name="+", on_delete=models.CASCADE)
    key = models.CharField(max_length=200, default="")
    active = models.BooleanField(default=False)
    since = models.BigIntegerField(null=True, blank=True)

    class Meta:
        db_table = "studio_alertstate"  # the table it had as a model of the studio app
        constraints = [models.UniqueConstraint(fields=["rule", "run", "key"], name="unique_alert_state")]


class Notification(models.Model):
    """One firing of a rule, for one user to read."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, related_name="notifications", on_delete=models.CASCADE)
    rule = models.ForeignKey(AlertRule, related_name="notifications", null=True, blank=True,
                             on_delete=models.SET_NULL)
    run = models.ForeignKey(Run, related_name="+", null=True, blank=True, on_delete=models.SET_NULL)
    pipeline = models.ForeignKey(Pipeline, related_name="+", null=True, blank=True, on_delete=models.CASCADE)
    kind = models.CharField(max_length=32)
    message = models.TextField()
    data = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    read_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "studio_notification"  # the table it had as a model of the studio app
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["user", "read_at"], name="notification_unread")]


class DeliveryStatus(models.TextChoices):
    PENDING = "PENDING"
    DELIVERED = "DELIVERED"
    FAILED = "FAILED"


class WebhookDelivery(models.Model):
    """One POST of a firing to a rule's webhook, with every attempt (retried with backoff)."""

    rule = models.ForeignKey(AlertRule, related_name="deliveries", on_delete=models.CASCADE)
    url = models.CharField(max_length=2000)
    payload = models.JSONField(default=dict)
    status = models.CharField(max_length=16, choices=DeliveryStatus.choices, default=DeliveryStatus.PENDING)
    attempts = models.JSONField(default=list, blank=True)  # [{"at": ms, "status_code"?: int, "error"?: str}]
    created_at = models.DateTimeField(auto_now_add=True)
    delivered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "studio_webhookdelivery"  # the table it had as a model of the studio app
        ordering = ["-created_at", "-id"]
