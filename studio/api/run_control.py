"""Commands to a run: cancel it, stop it with a savepoint, rescale it, and its rescales.

``RunControlActions`` is a mixin of ``RunViewSet`` (``runs/<id>/cancel`` and the rest); each
command needs *run* on the pipeline.
"""
from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.decorators import action
from rest_framework.response import Response

from studio.access import RUN
from studio.api.exceptions import BadRequest, Conflict
from studio.api.schema import responses
from studio.api.serializers.runs import RescaleRequestSerializer, RescaleSerializer, RunSerializer
from studio.api.serializers.savepoints import RequestIdSerializer, StopSerializer
from studio.runs.control import RunStateConflict, cancel, stop_with_savepoint
from studio.runs.rescale import RescaleRefused, as_dict, request_rescale
from studio.storage_urls import StorageUrlError


class RunControlActions:
    """The command actions of a run viewset (``self.get_object()`` is the run)."""

    control_action_permissions = {"cancel": RUN, "stop": RUN, "rescale:POST": RUN}

    @extend_schema(summary="Cancel a run (409 when it already ended)", request=None,
                   responses=responses({202: RunSerializer}, 404, 409))
    @action(detail=True, methods=["post"])
    def cancel(self, request, pk=None):
        run = self.get_object()
        try:
            cancel(run)
        except RunStateConflict as conflict:
            raise Conflict(str(conflict))
        run.refresh_from_db()
        return Response(RunSerializer(run).data, status=status.HTTP_202_ACCEPTED)

    @extend_schema(summary="Stop with a savepoint (drain or not); poll the request under /savepoints/<request_id>",
                   request=StopSerializer, responses=responses({202: RequestIdSerializer}, 404, 409))
    @action(detail=True, methods=["post"])
    def stop(self, request, pk=None):
        run = self.get_object()
        body = StopSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        try:
            savepoint = stop_with_savepoint(run, request.user, body.validated_data["drain"],
                                            body.validated_data.get("target_directory"))
        except StorageUrlError as error:
            raise BadRequest(f"target_directory: {error}")
        except RunStateConflict as conflict:
            raise Conflict(str(conflict))
        return Response({"request_id": savepoint.request_id}, status=status.HTTP_202_ACCEPTED)

    @extend_schema(summary="Rescale in one click: stop with a savepoint, then start a rescaled version from it "
                           "(on failure the old parallelism starts again from the same savepoint); follow it "
                           "through the run's rescale events or GET rescales",
                   request=RescaleRequestSerializer, responses=responses({202: RescaleSerializer}, 400, 404, 409))
    @action(detail=True, methods=["post"])
    def rescale(self, request, pk=None):
        run = self.get_object()
        body = RescaleRequestSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        try:
            rescale = request_rescale(run, request.user, body.validated_data.get("parallelism"),
                                      body.validated_data.get("nodes") or {})
        except RescaleRefused as refused:
            if refused.errors:
                raise BadRequest({"detail": str(refused), "errors": refused.errors})
            raise Conflict(str(refused))
        except RunStateConflict as conflict:
            raise Conflict(str(conflict))
        return Response(as_dict(rescale), status=status.HTTP_202_ACCEPTED)

    @extend_schema(summary="The run's rescales, newest first", responses=responses({200: RescaleSerializer(many=True)}, 404))
    @action(detail=True, methods=["get"], pagination_class=None)
    def rescales(self, request, pk=None):
        return Response([as_dict(rescale) for rescale in self.get_object().rescales.all()])
