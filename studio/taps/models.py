"""A tap on an edge of a run: created over REST, open while its WebSocket is connected, closed for good after."""
from __future__ import annotations

import secrets

from django.conf import settings
from django.db import models

from studio.models import Pipeline, Run


class Tap(models.Model):
    """One tap; its limits hold for the whole tap (the engine splits them among the edge's subtasks)."""

    tap_id = models.CharField(max_length=32, unique=True)
    run = models.ForeignKey(Run, related_name="taps", on_delete=models.CASCADE)
    edge = models.CharField(max_length=200)
    records_per_second = models.PositiveIntegerField(default=20)
    bytes_per_second = models.PositiveIntegerField(default=32 * 1024)
    max_record_bytes = models.PositiveIntegerField(default=1024)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, related_name="+", on_delete=models.CASCADE)
    created_at = models.DateTimeField(auto_now_add=True)
    opened_at = models.DateTimeField(null=True, blank=True)
    closed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "studio_tap"  # the table it had as a model of the studio app
        ordering = ["-created_at", "-id"]

    @staticmethod
    def new_tap_id() -> str:
        return secrets.token_hex(12)

    @property
    def owning_pipeline(self) -> Pipeline:
        return self.run.pipeline

    @property
    def state(self) -> str:
        """waiting (for its socket), open, or closed."""
        if self.closed_at is not None:
            return "closed"
        return "open" if self.opened_at is not None else "waiting"

    @property
    def limits(self) -> dict:
        return {"records_per_second": self.records_per_second, "bytes_per_second": self.bytes_per_second,
                "max_record_bytes": self.max_record_bytes}

    @property
    def websocket_path(self) -> str:
        return f"/ws/runs/{self.run_id}/taps/{self.tap_id}/"
