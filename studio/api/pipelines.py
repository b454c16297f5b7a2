"""Pipelines and their versions: save (a new immutable version), list, diff, roll back, import, export, plan."""
from __future__ import annotations

from django.db import IntegrityError, transaction
from django.db.models import Max
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound, PermissionDenied
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response

from studio.access import EDIT, OWN, RUN, pipelines_visible_to
from studio.api.definitions import checked, plan_of
from studio.api.exceptions import BadRequest, Conflict, InvalidDefinition
from studio.api.permissions import PipelineAccess
from studio.api.schema import VERSION_PARAMETER, bounded_int, responses
from studio.api.serializers import (
    DiffSerializer, ImportSerializer, PipelineListSerializer, PipelineSerializer, PipelineWriteSerializer,
    PlanSerializer, RollbackSerializer, RunSerializer, RunStartSerializer, RunSummarySerializer, ShareSerializer,
    VersionDetailSerializer, VersionSerializer,
)
from studio.locations import claim_sinks, policy_for, sink_uses
from studio.models import Pipeline, PipelineShare
from studio.runs.overview import with_last_checkpoint, with_latest_run
from studio.runs.restore import RestoreError
from studio.runs.start import DefinitionProblems, start_run
from studio.trusted_code import require_code_permission
from studio.versions_diff import diff_definitions


class PipelineSaveSerializer(PipelineWriteSerializer):
    """Writes: a new pipeline with version 1, or a new version of an existing one."""

    def validate_definition(self, definition):
        require_code_permission(self.context["request"].user, definition, "save")
        return checked(definition, self.context["request"].user, self.instance)

    def create(self, validated):
        request = self.context["request"]
        definition = validated["definition"]
        with transaction.atomic():  # a sink target another pipeline owns undoes the creation
            pipeline = Pipeline.objects.create(name=_name(validated, definition), owner=request.user)
            _claim_sinks(pipeline, definition, request.user)
            pipeline.save_version(definition, validated["message"], request.user)
        return pipeline

    def update(self, pipeline, validated):
        definition = validated["definition"]
        user = self.context["request"].user
        with transaction.atomic():
            _claim_sinks(pipeline, definition, user)
            pipeline.name = _name(validated, definition, pipeline.name)
            pipeline.save(update_fields=["name", "updated_at"])
            pipeline.save_version(definition, validated["message"], user)
        return pipeline

    def to_representation(self, pipeline):
        return PipelineSerializer(pipeline, context=self.context).data


class PipelineImportSerializer(ImportSerializer, PipelineSaveSerializer):
    pass


def _claim_sinks(pipeline: Pipeline, definition: dict, user) -> None:
    """Make ``pipeline`` the owner of its sink targets; a 400 naming the node when another pipeline owns one."""
    problems = claim_sinks(pipeline, sink_uses(definition, policy_for(user, pipeline)))
    if problems:
        raise InvalidDefinition(problems)


def _name(validated: dict, definition: dict, current: str | None = None) -> str:
    return validated.get("name") or current or definition.get("name") or "pipeline"


VERSION_NUMBER = OpenApiParameter("number", int, OpenApiParameter.PATH, description="A version number.")
DIFF_PARAMETERS = [
    OpenApiParameter("from", bounded_int(), description="The older version; the one before `to` when omitted."),
    OpenApiParameter("to", bounded_int(), description="The newer version; the latest when omitted."),
]


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
class PipelineViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, mixins.CreateModelMixin,
                      mixins.UpdateModelMixin, mixins.DestroyModelMixin, viewsets.GenericViewSet):
    """Pipelines; every save writes a new immutable version."""

    permission_classes = [IsAuthenticated, PipelineAccess]
    action_permissions = {"update": EDIT, "destroy": OWN, "rollback": EDIT, "runs:POST": RUN,
                          "shares:POST": OWN, "share": OWN}
    lookup_value_regex = r"\d{1,18}"
    http_method_names = ["get", "post", "put", "delete"]

    def get_queryset(self):
        pipelines = pipelines_visible_to(self.request.user).select_related("owner")
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

    @extend_schema(summary="Import a definition as a new pipeline", request=ImportSerializer,
                   responses=responses({201: PipelineSerializer}))
    @action(detail=False, methods=["post"], url_path="import")
    def import_definition(self, request):
        return self.create(request)

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
        return Response(VersionDetailSerializer(self._version(self.get_object(), number)).data)

    @extend_schema(summary="What changed between two versions", parameters=DIFF_PARAMETERS,
                   responses=responses({200: DiffSerializer}, 404))
    @action(detail=True, methods=["get"])
    def diff(self, request, pk=None):
        pipeline = self.get_object()
        to = self._version(pipeline, _int_param(request, "to"))
        before = _int_param(request, "from")
        if before is None:
            before = to.number - 1
        source = self._version(pipeline, before) if before >= 1 else None
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
        version = self._version(pipeline, number)
        message = body.validated_data.get("message") or f"Rolled back to version {number}"
        require_code_permission(request.user, version.definition, "save")
        definition = checked(version.definition, request.user, pipeline)  # grants may have changed since
        _claim_sinks(pipeline, definition, request.user)
        pipeline.save_version(definition, message, request.user)
        return Response(PipelineSerializer(pipeline, context=self.get_serializer_context()).data)

    @extend_schema(summary="Download a version's definition (JSON attachment)", parameters=[VERSION_PARAMETER],
                   responses=responses({(200, "application/json"): OpenApiTypes.OBJECT}, 404))
    @action(detail=True, methods=["get"])
    def export(self, request, pk=None):
        pipeline = self.get_object()
        version = self._version(pipeline, _int_param(request, "version"))
        filename = "".join(c if c.isalnum() or c in "-_." else "-" for c in pipeline.name) or "pipeline"
        return Response(version.definition, headers={
            "Content-Disposition": f'attachment; filename="{filename}-v{version.number}.json"'})

    @extend_schema(summary="The planner's regions and schedule for a version", parameters=[VERSION_PARAMETER],
                   responses=responses({200: PlanSerializer}, 404))
    @action(detail=True, methods=["get"])
    def plan(self, request, pk=None):
        pipeline = self.get_object()
        return Response(plan_of(self._version(pipeline, _int_param(request, "version")).definition))

    @extend_schema(methods=["get"], summary="The pipeline's runs, newest first",
                   responses=responses({200: RunSummarySerializer(many=True)}, 404))
    @extend_schema(methods=["post"], summary="Start a run of a version, optionally from a checkpoint or savepoint",
                   request=RunStartSerializer, responses=responses({201: RunSerializer}, 404, 409))
    @action(detail=True, methods=["get", "post"])
    def runs(self, request, pk=None):
        pipeline = self.get_object()
        if request.method == "GET":
            runs = with_last_checkpoint(pipeline.runs.select_related("version", "pipeline", "created_by"))
            return Response(RunSummarySerializer(runs, many=True).data)
        body = RunStartSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        version = self._version(pipeline, data.get("version"))
        try:
            run = start_run(pipeline, version, user=request.user, mode=data.get("mode"),
                            restore_from=data.get("restore_from"),
                            allow_non_restored_state=data["allow_non_restored_state"])
        except DefinitionProblems as problems:
            raise InvalidDefinition(problems.errors, f"version {version.number} cannot run: its definition is invalid")
        except RestoreError as error:
            raise {409: Conflict, 403: PermissionDenied}.get(error.status, BadRequest)(str(error))
        return Response(RunSerializer(run).data, status=status.HTTP_201_CREATED)

    @extend_schema(methods=["get"], summary="The groups the pipeline is shared with",
                   responses=responses({200: ShareSerializer(many=True)}, 404))
    @extend_schema(methods=["post"], summary="Share with a group (owner only)", request=ShareSerializer,
                   responses=responses({201: ShareSerializer}, 404, 409))
    @action(detail=True, methods=["get", "post"])
    def shares(self, request, pk=None):
        pipeline = self.get_object()
        if request.method == "GET":
            return Response(ShareSerializer(pipeline.shares.select_related("group"), many=True).data)
        body = ShareSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        if pipeline.shares.filter(group=body.validated_data["group"]).exists():
            raise Conflict(f"pipeline {pipeline.id} is already shared with {body.validated_data['group'].name}")
        try:
            share = body.save(pipeline=pipeline)
        except IntegrityError:
            raise Conflict(f"pipeline {pipeline.id} is already shared with that group")
        return Response(ShareSerializer(share).data, status=status.HTTP_201_CREATED)

    @extend_schema(summary="Stop sharing with a group (owner only)",
                   parameters=[OpenApiParameter("share_id", int, OpenApiParameter.PATH)],
                   responses=responses({204: None}, 404))
    @action(detail=True, methods=["delete"], url_path=r"shares/(?P<share_id>\d+)")
    def share(self, request, pk=None, share_id=None):
        pipeline = self.get_object()
        get_object_or_404(PipelineShare, pipeline=pipeline, pk=share_id).delete()
        return Response(status=status.HTTP_204_NO_CONTENT)

    def _version(self, pipeline: Pipeline, number):
        """The version ``number`` (the latest when None); 404 when there is none, named in the body or the URL."""
        if number is None:
            return pipeline.latest_version()
        version = pipeline.versions.filter(number=number).first()
        if version is None:
            raise NotFound(f"pipeline {pipeline.id} has no version {number}")
        return version


def _int_param(request, name: str) -> int | None:
    value = request.query_params.get(name)
    if value in (None, ""):
        return None
    try:
        number = int(value)
    except ValueError:
        raise BadRequest(f"{name} must be an integer, not {value!r}")
    if number < 0 or number > 2**31:
        raise BadRequest(f"{name} must be a version number")
    return number

