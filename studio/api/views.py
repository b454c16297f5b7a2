"""REST views: operators, pipelines with versions, runs and their checkpoints."""
from __future__ import annotations

from django.db import transaction
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response
from rest_framework.views import APIView

from engine.spec import OPERATOR_CATALOG, validate_definition
from studio.api.exceptions import Conflict, InvalidDefinition
from studio.api.serializers import (
    CheckpointSerializer, PipelineListSerializer, PipelineSerializer, PipelineWriteSerializer,
    RunSerializer, RunStartSerializer, ValidateSerializer,
)
from studio.models import Checkpoint, Pipeline, PipelineVersion, Run, RunEvent, RunStatus
from studio.realtime.events import serialise_event, set_status
from studio.run_commands import send_command


class OperatorListView(APIView):
    """The operator catalog the editor builds its palette and forms from."""

    @extend_schema(responses={200: dict})
    def get(self, request):
        return Response(OPERATOR_CATALOG)


def _checked(definition) -> dict:
    errors = validate_definition(definition)
    if errors:
        raise InvalidDefinition(errors)
    return definition


class PipelineViewSet(viewsets.ModelViewSet):
    """Pipelines; every save writes a new immutable version."""

    queryset = Pipeline.objects.prefetch_related("versions")
    http_method_names = ["get", "post", "put", "delete"]

    def get_serializer_class(self):
        if self.action == "list":
            return PipelineListSerializer
        if self.action in ("create", "update"):
            return PipelineWriteSerializer
        return PipelineSerializer

    @extend_schema(request=PipelineWriteSerializer, responses={201: PipelineSerializer})
    def create(self, request, *args, **kwargs):
        data = self._write_data(request)
        with transaction.atomic():
            pipeline = Pipeline.objects.create(name=data["name"])
            PipelineVersion.objects.create(pipeline=pipeline, number=1, definition=data["definition"],
                                           message=data["message"])
        return Response(PipelineSerializer(pipeline).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=PipelineWriteSerializer, responses={200: PipelineSerializer})
    def update(self, request, *args, **kwargs):
        pipeline = self.get_object()
        data = self._write_data(request, default_name=pipeline.name)
        with transaction.atomic():
            number = pipeline.latest_version().number + 1
            PipelineVersion.objects.create(pipeline=pipeline, number=number, definition=data["definition"],
                                           message=data["message"])
            pipeline.name = data["name"]
            pipeline.save()
        return Response(PipelineSerializer(pipeline).data)

    def _write_data(self, request, default_name: str | None = None) -> dict:
        serializer = PipelineWriteSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = dict(serializer.validated_data)
        definition = _checked(data["definition"])
        data["name"] = data.get("name") or definition.get("name") or default_name or "pipeline"
        return data

    @extend_schema(request=ValidateSerializer, responses={200: dict})
    @action(detail=False, methods=["post"])
    def validate(self, request):
        serializer = ValidateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        errors = validate_definition(serializer.validated_data["definition"])
        return Response({"valid": not errors, "errors": errors})

    @extend_schema(methods=["get"], responses={200: RunSerializer(many=True)})
    @extend_schema(methods=["post"], request=RunStartSerializer, responses={201: RunSerializer})
    @action(detail=True, methods=["get", "post"])
    def runs(self, request, pk=None):
        pipeline = self.get_object()
        if request.method == "GET":
            runs = pipeline.runs.select_related("version", "pipeline")
            return Response(RunSerializer(runs, many=True).data)
        return self._start_run(request, pipeline)

    def _start_run(self, request, pipeline: Pipeline) -> Response:
        from studio.tasks import launch_run

        serializer = RunStartSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        number = serializer.validated_data.get("version")
        version = (get_object_or_404(pipeline.versions, number=number) if number
                   else pipeline.latest_version())
        definition = _checked(version.definition)
        mode = serializer.validated_data.get("mode") or definition.get("mode", "streaming")
        with transaction.atomic():
            run = Run.objects.create(pipeline=pipeline, version=version, mode=mode)
            transaction.on_commit(lambda: launch_run.delay(run.id))
        set_status(run.id, RunStatus.CREATED)
        run.refresh_from_db()
        return Response(RunSerializer(run).data, status=status.HTTP_201_CREATED)


class RunViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Runs: status, cancel, checkpoints and the stored event log."""

    queryset = Run.objects.select_related("pipeline", "version")
    serializer_class = RunSerializer

    @extend_schema(request=None, responses={202: RunSerializer})
    @action(detail=True, methods=["post"])
    def cancel(self, request, pk=None):
        run = self.get_object()
        if run.is_terminal:
            raise Conflict(f"run {run.id} already ended with status {run.status}")
        if run.status != RunStatus.CANCELING:
            set_status(run.id, RunStatus.CANCELING)
        send_command(run.id, {"command": "cancel"})
        run.refresh_from_db()
        return Response(RunSerializer(run).data, status=status.HTTP_202_ACCEPTED)

    @extend_schema(responses={200: dict})
    @action(detail=True, methods=["get"])
    def checkpoints(self, request, pk=None):
        run = self.get_object()
        history = Checkpoint.objects.filter(run=run).order_by("-checkpoint_id")
        counts = {"total": history.count()}
        for name, status_value in (("in_progress", "IN_PROGRESS"), ("completed", "COMPLETED"),
                                   ("failed", "FAILED")):
            counts[name] = history.filter(status=status_value).count()
        return Response({"counts": counts, "history": CheckpointSerializer(history, many=True).data})

    @extend_schema(responses={200: dict})
    @action(detail=True, methods=["get"])
    def events(self, request, pk=None):
        run = self.get_object()
        try:
            after = int(request.query_params.get("after", 0))
        except ValueError:
            raise InvalidDefinition([{"node": None, "edge": None, "field": "after",
                                      "message": "after must be an integer"}])
        events = RunEvent.objects.filter(run=run, seq__gt=after).order_by("seq")[:1000]
        return Response([serialise_event(event) for event in events])
