"""Pipelines: create (version 1), list, read, save (a new immutable version), delete, import.

``PipelineViewSet`` composes the pipeline's own actions with its versions'
(``pipeline_versions``), runs' (``pipeline_runs``) and shares' (``pipeline_shares``), each a
mixin with the permissions its actions need.
"""
from __future__ import annotations

from django.db import transaction
from django.db.models import Max
from rest_framework.response import Response
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import mixins, viewsets
from rest_framework.decorators import action
from rest_framework.permissions import IsAuthenticated

from studio.access import EDIT, OWN, pipelines_visible_to
from studio.api.definitions import checked
from studio.api.exceptions import Conflict, rule_violation
from studio.api.permissions import PipelineAccess
from studio.api.pipeline_runs import PipelineRunActions
from studio.api.pipeline_shares import PipelineShareActions
from studio.api.pipeline_teams import PipelineTeamActions, team_for_pipelines
from studio.api.pipeline_versions import PipelineVersionActions, claim_sinks_for
from studio.api.schema import responses
from studio.api.serializers.pipelines import (
    ImportSerializer, IsolationSerializer, PipelineListSerializer, PipelineSerializer, PipelineWriteSerializer,
)
from studio.models import Pipeline
from studio.runs.overview import with_latest_run
from studio.trusted_code import require_code_permission


class PipelineSaveSerializer(PipelineWriteSerializer):
    """Writes: a new pipeline with version 1, or a new version of an existing one."""

    def validate_definition(self, definition):
        require_code_permission(self.context["request"].user, definition, "save")
        return checked(definition, self.context["request"].user, self.instance)

    def create(self, validated):
        request = self.context["request"]
        definition = validated["definition"]
        with transaction.atomic():  # a sink target another pipeline owns undoes the creation
            team = team_for_pipelines(request.user, validated["team"]) if validated.get("team") else None
            pipeline = Pipeline.objects.create(name=_name(validated, definition), owner=request.user, team=team)
            claim_sinks_for(pipeline, definition, request.user)
            pipeline.save_version(definition, validated["message"], request.user)
        return pipeline

    def update(self, pipeline, validated):
        definition = validated["definition"]
        user = self.context["request"].user
        if "team" in validated and validated["team"] != pipeline.team_id:
            raise rule_violation("team", f"a new version does not move the pipeline; POST /api/pipelines/"
                                         f"{pipeline.id}/team does")
        with transaction.atomic():
            claim_sinks_for(pipeline, definition, user)
            pipeline.name = _name(validated, definition, pipeline.name)
            pipeline.save(update_fields=["name", "updated_at"])
            pipeline.save_version(definition, validated["message"], user)
        return pipeline

    def to_representation(self, pipeline):
        return PipelineSerializer(pipeline, context=self.context).data


class PipelineImportSerializer(ImportSerializer, PipelineSaveSerializer):
    pass


def _name(validated: dict, definition: dict, current: str | None = None) -> str:
    return validated.get("name") or current or definition.get("name") or "pipeline"


@extend_schema_view(
    list=extend_schema(summary="Pipelines you may view", responses=responses({200: PipelineListSerializer(many=True)})),
    retrieve=extend_schema(summary="A pipeline with its latest definition",
                           responses=responses({200: PipelineSerializer}, 404)),
    create=extend_schema(summary="Create a pipeline (version 1)", request=PipelineWriteSerializer,
                         responses=responses({201: PipelineSerializer})),
    update=extend_schema(summary="Save a new version", request=PipelineWriteSerializer,
                         responses=responses({200: PipelineSerializer}, 404)),
    destroy=extend_schema(summary="Delete a pipeline with its versions and runs (owner only)",
                          responses=responses({204: None}, 404, 409)),
)
class PipelineViewSet(PipelineVersionActions, PipelineRunActions, PipelineShareActions, PipelineTeamActions,
                      mixins.ListModelMixin, mixins.RetrieveModelMixin, mixins.CreateModelMixin,
                      mixins.UpdateModelMixin, mixins.DestroyModelMixin, viewsets.GenericViewSet):
    """Pipelines; every save writes a new immutable version."""

    permission_classes = [IsAuthenticated, PipelineAccess]
    action_permissions = {"update": EDIT, "destroy": OWN, "isolation": EDIT, **PipelineVersionActions.version_action_permissions,
                          **PipelineRunActions.run_action_permissions, **PipelineShareActions.share_action_permissions,
                          **PipelineTeamActions.team_action_permissions}
    lookup_value_regex = r"\d{1,18}"
    http_method_names = ["get", "post", "put", "delete"]

    def get_queryset(self):
        pipelines = pipelines_visible_to(self.request.user).select_related("owner", "team")
        if self.action == "list":  # the version number without loading every version's definition
            return with_latest_run(pipelines.annotate(latest_number=Max("versions__number")))
        return pipelines

    def get_serializer_class(self):
        if self.action == "list":
            return PipelineListSerializer
        if self.action in ("create", "update"):
            return PipelineSaveSerializer
        if self.action == "import_definition":
            return PipelineImportSerializer
        return PipelineSerializer

    def perform_destroy(self, pipeline):
        active = pipeline.runs.exclude(status__in=("FINISHED", "CANCELED", "FAILED")).values_list("id", flat=True)
        if active:
            raise Conflict(f"pipeline {pipeline.id} has runs that have not ended: {sorted(active)}; cancel them first")
        with transaction.atomic():  # runs first: they protect the versions they ran
            pipeline.runs.all().delete()
            pipeline.delete()

    @extend_schema(summary="Run in the shared session or isolated (the runs started from now on)",
                   request=IsolationSerializer, responses=responses({200: PipelineSerializer}, 404))
    @action(detail=True, methods=["post"])
    def isolation(self, request, pk=None):
        pipeline = self.get_object()
        body = IsolationSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        pipeline.isolated = body.validated_data["isolated"]
        pipeline.save(update_fields=["isolated", "updated_at"])
        return Response(PipelineSerializer(pipeline, context=self.get_serializer_context()).data)

    @extend_schema(summary="Import a definition as a new pipeline", request=ImportSerializer,
                   responses=responses({201: PipelineSerializer}))
    @action(detail=False, methods=["post"], url_path="import")
    def import_definition(self, request):
        return self.create(request)
