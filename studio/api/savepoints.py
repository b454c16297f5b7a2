"""Savepoints: trigger (a request id at once), poll the request, list, delete a savepoint's files.

Like Flink's ``/jobs/:id/savepoints``: ``POST`` answers 202 with a ``request_id``; ``GET
.../savepoints/<request_id>`` is IN_PROGRESS until the driver reports COMPLETED (with the
location) or FAILED (with the cause).
"""
from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import mixins, status, viewsets
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response

from engine.api import discard_checkpoint as discard
from studio.access import RUN, checkpoints_visible_to
from studio.api.exceptions import BadRequest, Conflict
from studio.api.nested import RunNestedMixin
from studio.api.permissions import PipelineAccess
from studio.api.schema import RUN_ID, responses
from studio.api.serializers.savepoints import (
    RequestIdSerializer, SavepointRequestSerializer, SavepointTriggerSerializer,
)
from studio.models import TERMINAL_STATUSES, Checkpoint, SavepointRequest
from studio.runs.control import RunStateConflict, trigger_savepoint
from studio.runs.events import record_discarded
from studio.storage_urls import StorageUrlError

REQUEST_ID = OpenApiParameter("request_id", str, OpenApiParameter.PATH, description="From the trigger's answer.")


@extend_schema_view(
    list=extend_schema(summary="The run's savepoint requests, newest first", parameters=[RUN_ID],
                       responses=responses({200: SavepointRequestSerializer(many=True)}, 404)),
    create=extend_schema(summary="Trigger a savepoint; answers at once with the request id", parameters=[RUN_ID],
                         request=SavepointTriggerSerializer, responses=responses({202: RequestIdSerializer}, 404, 409)),
    retrieve=extend_schema(summary="A savepoint request: IN_PROGRESS, COMPLETED with location, FAILED with cause",
                           parameters=[RUN_ID, REQUEST_ID], responses=responses({200: SavepointRequestSerializer}, 404)),
)
class SavepointRequestViewSet(RunNestedMixin, mixins.ListModelMixin, mixins.CreateModelMixin,
                              mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """A run's savepoint requests: trigger one, poll it by its request id."""

    serializer_class = SavepointRequestSerializer
    action_permissions = {"create": RUN}
    lookup_field = "request_id"

    def get_queryset(self):
        return SavepointRequest.objects.filter(run=self.run).select_related("checkpoint")

    def create(self, request, *args, **kwargs):
        body = SavepointTriggerSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        try:
            savepoint = trigger_savepoint(self.run, request.user, body.validated_data.get("target_directory"))
        except StorageUrlError as error:
            raise BadRequest(f"target_directory: {error}")
        except RunStateConflict as conflict:
            raise Conflict(str(conflict))
        return Response({"request_id": savepoint.request_id}, status=status.HTTP_202_ACCEPTED)


@extend_schema_view(
    destroy=extend_schema(summary="Delete a savepoint's files (409 while a run restores from it)",
                          responses=responses({204: None}, 404, 409)),
)
class SavepointViewSet(mixins.DestroyModelMixin, viewsets.GenericViewSet):
    """``/api/savepoints/<pk>``: savepoints by their checkpoint row id."""

    permission_classes = [IsAuthenticated, PipelineAccess]
    action_permissions = {"destroy": RUN}
    lookup_value_regex = r"\d{1,18}"

    def get_queryset(self):
        return checkpoints_visible_to(self.request.user).exclude(kind="checkpoint").select_related("run__pipeline")

    def perform_destroy(self, savepoint: Checkpoint):
        using = savepoint.restored_runs.exclude(status__in=TERMINAL_STATUSES).values_list("id", flat=True)
        if using:
            raise Conflict(f"savepoint {savepoint.pk} is in use: run(s) {sorted(using)} restored from it "
                           "have not ended")
        if savepoint.status == "IN_PROGRESS":
            raise Conflict(f"savepoint {savepoint.pk} is still in progress")
        if savepoint.external_path:
            discard(savepoint.external_path)
        record_discarded(savepoint, f"deleted by {self.request.user.get_username()}")



