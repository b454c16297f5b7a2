"""A pipeline's versions: list, read one, diff two, roll back to one, export one, read one as a file, plan one.

``PipelineVersionActions`` is a mixin of ``PipelineViewSet`` (its routes hang under
``pipelines/<id>/``); every version is immutable, so a rollback saves a new one.
"""
from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound
from rest_framework.response import Response

from studio.access import EDIT
from studio.api.definitions import checked, plan_of
from studio.api.exceptions import InvalidDefinition
from studio.api.parameters import version_number
from studio.api.schema import VERSION_PARAMETER, bounded_int, responses
from studio.api.serializers.definitions import DiffSerializer, PlanSerializer
from studio.api.serializers.pipelines import (
    PipelineFileSerializer, PipelineSerializer, RollbackSerializer, VersionDetailSerializer, VersionSerializer,
)
from studio.locations import claim_sinks, policy_for, sink_uses
from studio.models import Pipeline, PipelineVersion
from studio.trusted_code import require_code_permission
from studio.versions_diff import diff_definitions

VERSION_NUMBER = OpenApiParameter("number", int, OpenApiParameter.PATH, description="A version number.")
DIFF_PARAMETERS = [
    OpenApiParameter("from", bounded_int(), description="The older version; the one before `to` when omitted."),
    OpenApiParameter("to", bounded_int(), description="The newer version; the latest when omitted."),
]


def version_of(pipeline: Pipeline, number: int | None) -> PipelineVersion:
    """The version ``number`` (the latest when None); 404 when there is none, named in the body or the URL."""
    if number is None:
        return pipeline.latest_version()
    version = pipeline.versions.filter(number=number).first()
    if version is None:
        raise NotFound(f"pipeline {pipeline.id} has no version {number}")
    return version


def claim_sinks_for(pipeline: Pipeline, definition: dict, user) -> None:
    """Make ``pipeline`` the owner of its sink targets; a 400 naming the node when another pipeline owns one."""
    problems = claim_sinks(pipeline, sink_uses(definition, policy_for(user, pipeline)))
    if problems:
        raise InvalidDefinition(problems)


class PipelineVersionActions:
    """The version actions of a pipeline viewset (``self.get_object()`` is the pipeline)."""

    version_action_permissions = {"rollback": EDIT}

    @extend_schema(summary="Versions, newest first", responses=responses({200: VersionSerializer(many=True)}, 404))
    @action(detail=True, methods=["get"])
    def versions(self, request, pk=None):
        pipeline = self.get_object()
        versions = pipeline.versions.select_related("created_by").order_by("-number")
        return Response(VersionSerializer(versions, many=True).data)

    @extend_schema(summary="One version with its definition", parameters=[VERSION_NUMBER],
                   responses=responses({200: VersionDetailSerializer}, 404))
    @action(detail=True, methods=["get"], url_path=r"versions/(?P<number>\d+)")
    def version(self, request, pk=None, number=None):
        return Response(VersionDetailSerializer(version_of(self.get_object(), number)).data)

    @extend_schema(summary="What changed between two versions", parameters=DIFF_PARAMETERS,
                   responses=responses({200: DiffSerializer}, 404))
    @action(detail=True, methods=["get"])
    def diff(self, request, pk=None):
        pipeline = self.get_object()
        to = version_of(pipeline, version_number(request, "to"))
        before = version_number(request, "from")
        if before is None:
            before = to.number - 1
        source = version_of(pipeline, before) if before >= 1 else None
        return Response({"from": source.number if source else None, "to": to.number,
                         **diff_definitions(source.definition if source else {}, to.definition)})

    @extend_schema(summary="Save a new version equal to an older one", request=RollbackSerializer,
                   responses=responses({200: PipelineSerializer}, 404))
    @action(detail=True, methods=["post"])
    def rollback(self, request, pk=None):
        pipeline = self.get_object()
        body = RollbackSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        number = body.validated_data["version"]
        version = version_of(pipeline, number)
        message = body.validated_data.get("message") or f"Rolled back to version {number}"
        require_code_permission(request.user, version.definition, "save")
        definition = checked(version.definition, request.user, pipeline)  # grants may have changed since
        claim_sinks_for(pipeline, definition, request.user)
        pipeline.save_version(definition, message, request.user)
        return Response(PipelineSerializer(pipeline, context=self.get_serializer_context()).data)

    @extend_schema(summary="Download a version's definition (JSON attachment)", parameters=[VERSION_PARAMETER],
                   responses=responses({(200, "application/json"): OpenApiTypes.OBJECT}, 404))
    @action(detail=True, methods=["get"])
    def export(self, request, pk=None):
        pipeline = self.get_object()
        version = version_of(pipeline, version_number(request, "version"))
        filename = "".join(c if c.isalnum() or c in "-_." else "-" for c in pipeline.name) or "pipeline"
        return Response(version.definition, headers={
            "Content-Disposition": f'attachment; filename="{filename}-v{version.number}.json"'})

    @extend_schema(summary="A version as a pipeline file (YAML, the layout in a section of its own)",
                   parameters=[VERSION_PARAMETER], responses=responses({200: PipelineFileSerializer}, 404))
    @action(detail=True, methods=["get"])
    def file(self, request, pk=None):
        from engine.api import pipeline_file_name, pipeline_to_text

        pipeline = self.get_object()
        version = version_of(pipeline, version_number(request, "version"))
        text = pipeline_to_text({**version.definition, "name": pipeline.name})
        return Response({"name": pipeline_file_name(pipeline.name), "version": version.number, "text": text})

    @extend_schema(summary="The planner's regions and schedule for a version", parameters=[VERSION_PARAMETER],
                   responses=responses({200: PlanSerializer}, 404))
    @action(detail=True, methods=["get"])
    def plan(self, request, pk=None):
        pipeline = self.get_object()
        return Response(plan_of(version_of(pipeline, version_number(request, "version")).definition))
