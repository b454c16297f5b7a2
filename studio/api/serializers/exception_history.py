"""A run's exceptions history: subtask failures and restarts (``studio.runs.exception_history``)."""
from __future__ import annotations

from rest_framework import serializers

from studio.api.serializers.fields import StrictCharField


class TaskExceptionSerializer(serializers.Serializer):
    seq = serializers.IntegerField()
    ts = serializers.IntegerField(help_text="epoch milliseconds")
    task = StrictCharField(allow_null=True, help_text='"vertex#subtask"; null when a whole slot was lost')
    vertex = StrictCharField(allow_null=True)
    subtask = serializers.IntegerField(allow_null=True)
    operator = StrictCharField(allow_null=True, help_text="The node the error came from, when known.")
    region = StrictCharField(allow_null=True)
    attempt = serializers.IntegerField(allow_null=True)
    message = StrictCharField()
    record = StrictCharField(allow_null=True, help_text="The record an expression failed on, as JSON cut at 500 "
                                                        "characters; null when no record is known.")
    traceback = StrictCharField(allow_null=True)


class RestartSerializer(serializers.Serializer):
    seq = serializers.IntegerField()
    ts = serializers.IntegerField(help_text="epoch milliseconds")
    cause = StrictCharField(allow_null=True)
    regions = serializers.ListField(child=StrictCharField())
    delay_ms = serializers.IntegerField(allow_null=True)


class ExceptionsSerializer(serializers.Serializer):
    root = StrictCharField(allow_null=True, help_text="Why the run failed, when it did.")
    exceptions = TaskExceptionSerializer(many=True)
    restarts = RestartSerializer(many=True)
