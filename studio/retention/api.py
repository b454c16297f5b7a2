"""``/api/runs/<run>/disk``: the bytes a run holds on disk, as the retention loop last measured them.

Reading needs what reading the run needs (*view*). A run never measured yet is measured now
(one directory walk of its own checkpoints); afterwards the answer is one row, whatever the
run's age.
"""
from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, viewsets
from rest_framework.response import Response

from studio.api.nested import RunNestedMixin
from studio.api.schema import RUN_ID, responses
from studio.retention.files import measure
from studio.retention.models import RunDiskUsage

TAG = ["retention"]


class DiskUsageSerializer(serializers.ModelSerializer):
    total_bytes = serializers.IntegerField(read_only=True, help_text="Checkpoints, savepoints and the log.")
    checkpoint_bytes = serializers.IntegerField(help_text="Retained checkpoints in the run's checkpoint directory.")
    checkpoint_count = serializers.IntegerField(help_text="Checkpoint directories there.")
    savepoint_bytes = serializers.IntegerField(help_text="The run's savepoints whose files are there (local ones).")
    savepoint_count = serializers.IntegerField()
    log_bytes = serializers.IntegerField(help_text="The run's driver log.")
    checkpoints_swept_at = serializers.DateTimeField(
        allow_null=True, help_text="When retention deleted the checkpoints of the ended run (savepoints stay).")

    class Meta:
        model = RunDiskUsage
        fields = ["run", "total_bytes", "checkpoint_bytes", "checkpoint_count", "savepoint_bytes", "savepoint_count",
                  "log_bytes", "measured_at", "checkpoints_swept_at"]


class DiskUsageViewSet(RunNestedMixin, viewsets.GenericViewSet):
    action_permissions = {}

    @extend_schema(tags=TAG, summary="The bytes the run holds on disk: retained checkpoints, savepoints, its log",
                   parameters=[RUN_ID], responses=responses({200: DiskUsageSerializer}, 404))
    def retrieve(self, request, **kwargs):
        usage = RunDiskUsage.objects.filter(run=self.run).first() or measure(self.run)
        return Response(DiskUsageSerializer(usage).data)
