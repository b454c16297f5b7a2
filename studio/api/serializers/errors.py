"""The shapes of error answers (``studio.api.exceptions``), for the schema."""
from __future__ import annotations

from rest_framework import serializers

from studio.api.serializers.fields import StrictCharField


class ErrorSerializer(serializers.Serializer):
    detail = StrictCharField()


class ProblemSerializer(serializers.Serializer):
    node = StrictCharField(allow_null=True)
    edge = StrictCharField(allow_null=True)
    field = StrictCharField(allow_null=True)
    message = StrictCharField()


class DefinitionErrorSerializer(serializers.Serializer):
    detail = StrictCharField()
    errors = ProblemSerializer(many=True, required=False)


class FieldErrorsSerializer(serializers.Serializer):
    """A request body that did not match: ``{"detail"}`` or one list of messages per field."""

    detail = StrictCharField(required=False)
