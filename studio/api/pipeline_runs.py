"""A pipeline's runs: list them, and start one of a version (optionally from a checkpoint or savepoint).

``PipelineRunActions`` is a mixin of ``PipelineViewSet`` (``pipelines/<id>/runs``).
"""
from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.decorators import action
from rest_framework.exceptions import PermissionDenied
from rest_framework.response import Response

from studio.access import RUN
from studio.api.exceptions import BadRequest, Conflict, InvalidDefinition, values_refused
from studio.api.pipeline_versions import version_of
from studio.api.schema import responses
from studio.api.serializers.runs import RunSerializer, RunStartSerializer, RunSummarySerializer
from studio.run_values import ValuesRefused
from studio.runs.overview import for_summary, with_ending, with_last_checkpoint
from studio.runs.restore import RestoreError
from studio.runs.start import DefinitionProblems, start_run


class PipelineRunActions:
    """The run actions of a pipeline viewset (``self.get_object()`` is the pipeline)."""

    run_action_permissions = {"runs:POST": RUN}

    @extend_schema(methods=["get"], summary="The pipeline's runs, newest first",
                   responses=responses({200: RunSummarySerializer(many=True)}, 404))
    @extend_schema(methods=["post"], summary="Start a run of a version, optionally from a checkpoint or savepoint",
                   request=RunStartSerializer, responses=responses({201: RunSerializer}, 404, 409))
    @action(detail=True, methods=["get", "post"])
    def runs(self, request, pk=None):
        pipeline = self.get_object()
        if request.method == "GET":
            runs = pipeline.runs.select_related("version", "pipeline", "created_by")
            runs = for_summary(with_ending(with_last_checkpoint(runs)))
            return Response(RunSummarySerializer(runs, many=True).data)
        body = RunStartSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        version = version_of(pipeline, data.get("version"))
        try:
            run = start_run(pipeline, version, user=request.user, mode=data.get("mode"),
                            restore_from=data.get("restore_from"),
                            allow_non_restored_state=data["allow_non_restored_state"],
                            environment=data.get("environment") or None)
        except ValuesRefused as refused:
            raise values_refused(refused, f"version {version.number} cannot run")
        except DefinitionProblems as problems:
            raise InvalidDefinition(problems.errors, f"version {version.number} cannot run: its definition is invalid")
        except RestoreError as error:
            raise {409: Conflict, 403: PermissionDenied}.get(error.status, BadRequest)(str(error))
        return Response(RunSerializer(run).data, status=status.HTTP_201_CREATED)

