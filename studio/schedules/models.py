"""A savepoint schedule: when (an interval or a cron expression), for what (a pipeline's runs or one run),
and how many of its savepoints to keep."""
from __future__ import annotations

from datetime import datetime, timedelta

from croniter import croniter
from django.conf import settings
from django.db import models

from studio.models import Pipeline, Run, RunStatus


class SavepointSchedule(models.Model):
    """Savepoints every ``interval_s`` seconds or at each ``cron`` moment (UTC), for every RUNNING run of
    ``pipeline`` or for ``run`` alone; the newest ``retain`` completed ones are kept, older ones deleted."""

    pipeline = models.ForeignKey(Pipeline, related_name="savepoint_schedules", null=True, blank=True,
                                 on_delete=models.CASCADE)
    run = models.ForeignKey(Run, related_name="savepoint_schedules", null=True, blank=True,
                            on_delete=models.CASCADE)
    interval_s = models.PositiveIntegerField(null=True, blank=True)
    cron = models.CharField(max_length=100, blank=True, default="")
    retain = models.PositiveIntegerField(default=3)
    enabled = models.BooleanField(default=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, related_name="+", null=True, blank=True,
                                   on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)
    next_due_at = models.DateTimeField(null=True, blank=True)
    last_triggered_at = models.DateTimeField(null=True, blank=True)
    last_error = models.TextField(blank=True, default="")

    class Meta:
        db_table = "studio_savepointschedule"  # the table it had as a model of the studio app
        ordering = ["id"]
        constraints = [
            models.CheckConstraint(condition=models.Q(pipeline__isnull=False, run__isnull=True)
                                   | models.Q(pipeline__isnull=True, run__isnull=False),
                                   name="schedule_for_pipeline_or_run"),
            models.CheckConstraint(condition=models.Q(interval_s__isnull=False, cron="")
                                   | (models.Q(interval_s__isnull=True) & ~models.Q(cron="")),
                                   name="schedule_interval_or_cron"),
        ]
        indexes = [models.Index(fields=["enabled", "next_due_at"], name="schedule_due")]

    @property
    def owning_pipeline(self) -> Pipeline:
        return self.pipeline if self.pipeline_id else self.run.pipeline

    def next_after(self, moment: datetime) -> datetime:
        """The first due moment after ``moment``."""
        if self.interval_s:
            return moment + timedelta(seconds=self.interval_s)
        return croniter(self.cron, moment).get_next(datetime)

    def target_runs(self) -> models.QuerySet[Run]:
        """The runs a due moment takes a savepoint of: RUNNING streaming runs."""
        runs = Run.objects.filter(pk=self.run_id) if self.run_id else Run.objects.filter(pipeline_id=self.pipeline_id)
        return runs.filter(status=RunStatus.RUNNING, mode="streaming")
