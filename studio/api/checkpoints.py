"""Checkpoint statistics of a run, with Flink's field names (``studio.runs.checkpoint_stats``)."""
from __future__ import annotations

from functools import partial

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from studio.access import VIEW, access_to_run
from studio.api.caching import cached_answer, canonical_int
from studio.api.nested import RunNestedMixin
from studio.api.parameters import int_param
from studio.api.schema import responses
from studio.api.serializers.checkpoints import (
    CheckpointConfigSerializer, CheckpointDetailSerializer, CheckpointOverviewSerializer, RestorePointSerializer,
)
from studio.models import Checkpoint
from studio.runs import checkpoint_stats
from studio.runs.restore import restore_points

RUN_PK = OpenApiParameter("run_pk", int, OpenApiParameter.PATH, description="The run's id.")


class CheckpointViewSet(RunNestedMixin, viewsets.GenericViewSet):
    action_permissions = {}
    lookup_field = "checkpoint_id"

    @extend_schema(summary="Counts, summary (min/avg/max/p50/p90/p99), latest and history (newest first)",
                   parameters=[RUN_PK, OpenApiParameter(
                       "limit", {"type": "integer", "minimum": 0, "maximum": checkpoint_stats.HISTORY_MAX},
                       description=f"History rows (default {checkpoint_stats.HISTORY_DEFAULT}, "
                                                 f"at most {checkpoint_stats.HISTORY_MAX}).")],
                   responses=responses({200: CheckpointOverviewSerializer}, 404))
    def list(self, request, run_pk=None):
        # from the cache (studio.api.caching) when the user may view the run and nothing changed (no
        # docstring: the OpenAPI schema would take it for the operation's description)
        limit = request.query_params.get("limit")
        access = access_to_run(request.user, run_pk) if canonical_int(limit) else None
        if access is None or VIEW not in access.permissions:
            return self._overview(request)  # answers 400, 403 or 404 as before
        # the overview shows no pipeline field: the pipeline's token is not part of the key
        return cached_answer(self, request, ("checkpoints", access.run_id, access.change_token, limit),
                             partial(self._overview, request))

    def _overview(self, request):
        limit = int_param(request, "limit", default=checkpoint_stats.HISTORY_DEFAULT, minimum=0,
                          maximum=checkpoint_stats.HISTORY_MAX)
        return Response(checkpoint_stats.overview(self.run, limit))

    @extend_schema(summary="One checkpoint with per-vertex and per-subtask statistics",
                   parameters=[RUN_PK, OpenApiParameter("checkpoint_id", int, OpenApiParameter.PATH,
                                                        description="The checkpoint id (not the row's pk).")],
                   responses=responses({200: CheckpointDetailSerializer}, 404))
    def retrieve(self, request, run_pk=None, checkpoint_id=None):
        checkpoint = get_object_or_404(Checkpoint, run=self.run, checkpoint_id=checkpoint_id)
        return Response(checkpoint_stats.details(self.run, checkpoint))

    @extend_schema(summary="What the run can be restarted from, newest first",
                   description="Its completed checkpoints and savepoints whose files are still there: deleted "
                               "ones (by retention, a user, or outside the studio) are left out.",
                   parameters=[RUN_PK], responses=responses({200: RestorePointSerializer(many=True)}, 404))
    def restore_points(self, request, run_pk=None):
        return Response(restore_points(self.run))

    @extend_schema(summary="The run's checkpointing configuration", parameters=[RUN_PK],
                   responses=responses({200: CheckpointConfigSerializer}, 404))
    @action(detail=False, methods=["get"])
    def config(self, request, run_pk=None):
        return Response(checkpoint_stats.config(self.run))
