"""Logging in, the current user, and API tokens."""
from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from studio.api.serializers.fields import StrictCharField, StrictModelSerializer
from studio.models import ApiToken


class LoginSerializer(serializers.Serializer):
    username = StrictCharField(max_length=150)
    password = StrictCharField(max_length=4096, style={"input_type": "password"})


class UserSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    username = StrictCharField()
    is_superuser = serializers.BooleanField()
    groups = serializers.SerializerMethodField()

    @extend_schema_field(serializers.ListField(child=StrictCharField()))
    def get_groups(self, user) -> list[str]:
        return sorted(user.groups.values_list("name", flat=True))


class TokenSerializer(StrictModelSerializer):
    class Meta:
        model = ApiToken
        fields = ["id", "name", "prefix", "created_at", "last_used_at"]
        read_only_fields = ["id", "prefix", "created_at", "last_used_at"]


class NewTokenSerializer(TokenSerializer):
    key = StrictCharField(read_only=True, help_text="Shown once: only its hash is stored.")

    class Meta(TokenSerializer.Meta):
        fields = TokenSerializer.Meta.fields + ["key"]
