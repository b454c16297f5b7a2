"""Pipelines, their versions and who they are shared with."""
from __future__ import annotations

from django.contrib.auth.models import Group
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from studio.api.serializers.fields import (
    MAX_INT32, DefinitionField, JSONObjectField, RelatedNameField, StrictBooleanField, StrictCharField,
    StrictIntegerField, StrictModelSerializer, StrictSlugRelatedField,
)
from studio.models import Pipeline, PipelineShare, PipelineVersion, Run


class PipelineWriteSerializer(serializers.Serializer):
    name = StrictCharField(max_length=200, required=False)
    team = StrictIntegerField(
        min_value=1, required=False, allow_null=True,
        help_text="A new pipeline: the team that owns it (you must be at least its editor); omitted: you do.")
    definition = DefinitionField()
    message = StrictCharField(max_length=500, required=False, allow_blank=True, default="")


class ImportSerializer(PipelineWriteSerializer):
    message = StrictCharField(max_length=500, required=False, allow_blank=True, default="Imported")


class PipelineSerializer(StrictModelSerializer):
    """``isolated``: its runs get a driver and Spark application of their own instead of the studio's
    shared session (``studio.runs.placement``; runs with Python code always do)."""

    version = serializers.SerializerMethodField()
    definition = serializers.SerializerMethodField()
    owner = RelatedNameField(source="owner.username", help_text="Who created it (who owns it while no team does).")
    team = serializers.IntegerField(source="team_id", read_only=True, allow_null=True,
                                    help_text="The team that owns it, if one does.")
    team_name = RelatedNameField(source="team.name")
    permissions = serializers.SerializerMethodField()
    role = serializers.SerializerMethodField(
        help_text="Your role on it (viewer, editor, operator, admin): from the team that owns it or a team it is "
                  "shared with; admin when it is yours alone; null when only a group share, or nothing, gives you "
                  "access.")
    role_team = serializers.SerializerMethodField(help_text="The team your role comes from (null: none does).")

    class Meta:
        model = Pipeline
        fields = ["id", "name", "version", "definition", "owner", "team", "team_name", "permissions", "role",
                  "role_team", "isolated", "created_at", "updated_at"]
        read_only_fields = ["isolated"]

    def get_version(self, pipeline: Pipeline) -> int:
        return pipeline.latest_version().number

    @extend_schema_field({"type": "object", "additionalProperties": True})
    def get_definition(self, pipeline: Pipeline) -> dict:
        return pipeline.latest_version().definition

    @extend_schema_field({"type": "array", "items": {"type": "string", "enum": ["view", "edit", "run", "own"]}})
    def get_permissions(self, pipeline: Pipeline) -> list[str]:
        from studio.access import PERMISSIONS, pipeline_permissions

        request = self.context.get("request")
        granted = pipeline_permissions(getattr(request, "user", None), pipeline)
        return [name for name in PERMISSIONS if name in granted]

    @extend_schema_field({"type": "string", "enum": ["viewer", "editor", "operator", "admin"], "nullable": True})
    def get_role(self, pipeline: Pipeline) -> str | None:
        return self._role_and_team(pipeline)[0]

    @extend_schema_field({"type": "string", "nullable": True})
    def get_role_team(self, pipeline: Pipeline) -> str | None:
        return self._role_and_team(pipeline)[1]

    def _role_and_team(self, pipeline: Pipeline) -> tuple[str | None, str | None]:
        from studio.access import role_and_team

        cache = self.__dict__.setdefault("_roles", {})
        if pipeline.pk not in cache:
            cache[pipeline.pk] = role_and_team(getattr(self.context.get("request"), "user", None), pipeline)
        return cache[pipeline.pk]


class LatestRunSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    status = serializers.ChoiceField(choices=[choice for choice, _ in Run._meta.get_field("status").choices])


class PipelineListSerializer(PipelineSerializer):
    latest_run = serializers.SerializerMethodField()

    class Meta(PipelineSerializer.Meta):
        fields = ["id", "name", "version", "owner", "team", "team_name", "created_at", "updated_at", "latest_run"]

    @extend_schema_field(LatestRunSerializer(allow_null=True))
    def get_latest_run(self, pipeline: Pipeline) -> dict | None:
        """The newest run (annotated by the list's query; looked up for a single pipeline)."""
        if hasattr(pipeline, "latest_run_id"):
            run_id, status = pipeline.latest_run_id, pipeline.latest_run_status
        else:
            run_id, status = pipeline.runs.order_by("-created_at", "-id").values_list("id", "status").first() or (None, None)
        return {"id": run_id, "status": status} if run_id is not None else None

    def get_version(self, pipeline: Pipeline) -> int:
        number = getattr(pipeline, "latest_number", None)
        return number if number is not None else super().get_version(pipeline)


class VersionSerializer(StrictModelSerializer):
    created_by = StrictCharField(source="created_by.username", read_only=True, allow_null=True, default=None)

    class Meta:
        model = PipelineVersion
        fields = ["number", "message", "created_at", "created_by"]


class VersionDetailSerializer(VersionSerializer):
    definition = JSONObjectField(read_only=True)

    class Meta(VersionSerializer.Meta):
        fields = ["number", "message", "definition", "created_at", "created_by"]


class IsolationSerializer(serializers.Serializer):
    isolated = StrictBooleanField(help_text="True: every run of the pipeline gets a driver and Spark "
                                            "application of its own; false: small runs share the session.")


class PipelineFileSerializer(serializers.Serializer):
    name = StrictCharField(help_text="The file's name, as the CLI and the Git store write it.")
    version = serializers.IntegerField()
    text = StrictCharField(help_text="The file's text (YAML).")


class RollbackSerializer(serializers.Serializer):
    version = StrictIntegerField(min_value=1, max_value=MAX_INT32)
    message = StrictCharField(max_length=500, required=False, allow_blank=True)


class ShareSerializer(StrictModelSerializer):
    group = StrictSlugRelatedField(slug_field="name", queryset=Group.objects.all())
    permissions = serializers.ListField(
        child=serializers.ChoiceField(choices=["view", "edit", "run"]), required=False, default=["view"])

    class Meta:
        model = PipelineShare
        fields = ["id", "group", "permissions", "created_at"]
        read_only_fields = ["id", "created_at"]
        validators = []  # the view answers a second share of the same group with 409

    def to_representation(self, share):
        return {"id": share.id, "group": share.group.name, "permissions": share.permissions,
                "created_at": serializers.DateTimeField().to_representation(share.created_at)}

    def create(self, validated):
        permissions = set(validated.pop("permissions", ["view"]))
        return PipelineShare.objects.create(can_edit="edit" in permissions, can_run="run" in permissions,
                                            **validated)
