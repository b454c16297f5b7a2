"""Savepoint requests: triggering one, stopping with one, and their progress."""
from __future__ import annotations

from rest_framework import serializers

from studio.api.serializers.fields import (
    StrictBooleanField,
    StrictCharField,
    StrictModelSerializer,
)
from studio.models import SavepointRequest


class SavepointRequestSerializer(StrictModelSerializer):
    checkpoint_id = serializers.IntegerField(source="checkpoint.checkpoint_id", read_only=True, allow_null=True,
                                             default=None)
    checkpoint_pk = serializers.IntegerField(source="checkpoint.pk", read_only=True, allow_null=True, default=None)
    acknowledged_subtasks = serializers.IntegerField(
        source="checkpoint.num_acknowledged_subtasks", read_only=True, allow_null=True, default=None,
        help_text="Subtasks that acknowledged the savepoint so far (null before the engine triggered it).")
    total_subtasks = serializers.IntegerField(source="checkpoint.num_subtasks", read_only=True, allow_null=True,
                                              default=None, help_text="Subtasks that take part in the savepoint.")
    discarded = serializers.BooleanField(
        source="checkpoint.discarded", read_only=True, default=False,
        help_text="Its files were deleted (by a user): it can no longer be restored.")
    location = StrictCharField(allow_null=True)
    target_directory = StrictCharField(allow_null=True)

    class Meta:
        model = SavepointRequest
        fields = ["request_id", "run", "kind", "status", "location", "failure_cause", "checkpoint_id",
                  "checkpoint_pk", "acknowledged_subtasks", "total_subtasks", "discarded", "target_directory", "drain",
                  "trigger", "schedule", "triggered_at", "completed_at"]

    def to_representation(self, request):
        data = super().to_representation(request)
        data["location"] = data["location"] or None
        data["target_directory"] = data["target_directory"] or None
        return data


class SavepointTriggerSerializer(serializers.Serializer):
    target_directory = StrictCharField(required=False, allow_null=True, allow_blank=True, max_length=1000,
                                             help_text="Where to write the savepoint; the run's default if empty.")


class StopSerializer(SavepointTriggerSerializer):
    drain = StrictBooleanField(default=False, help_text="Drain: sources end (max watermark, end of data) "
                                                         "before the savepoint.")


class RequestIdSerializer(serializers.Serializer):
    request_id = StrictCharField()
