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
from studio.api.exceptions import BadRequest
from studio.api.schema import RUN_ID, responses
from studio.api.serializers.checkpoints import (
    CheckpointConfigSerializer, CheckpointDetailSerializer, CheckpointOverviewSerializer, CheckpointTimelineSerializer,
    RestorePointSerializer,
)
from studio.models import Checkpoint
from studio.runs import checkpoint_stats
from studio.runs.restore import restore_points


class CheckpointViewSet(RunNestedMixin, viewsets.GenericViewSet):
    """A run's checkpoints and savepoints: the overview, one checkpoint's statistics, the configuration and
    what the run can be restarted from."""

    action_permissions = {}
    lookup_field = "checkpoint_id"

    @extend_schema(summary="Counts, summary (min/avg/max/p50/p90/p99), latest and history (newest first)",
                   operation_id="runs_checkpoints_overview", parameters=[RUN_ID, OpenApiParameter(
                       "limit", {"type": "integer", "minimum": 0, "maximum": checkpoint_stats.HISTORY_MAX},
                       description=f"History rows (default {checkpoint_stats.HISTORY_DEFAULT}, "
                                                 f"at most {checkpoint_stats.HISTORY_MAX}).")],
                   responses=responses({200: CheckpointOverviewSerializer}, 404))
    def overview(self, request, **kwargs):
        # one object, not a list (its ``history`` is the list: a ``list`` action would be documented as an
        # array); from the cache (studio.api.caching) when the user may view the run and nothing changed (no
        # docstring: the OpenAPI schema would take it for the operation's description)
        limit = request.query_params.get("limit")
        access = access_to_run(request.user, self.run_id) if canonical_int(limit) else None
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
                   parameters=[RUN_ID, OpenApiParameter("checkpoint_id", int, OpenApiParameter.PATH,
                                                        description="The checkpoint id (not the row's pk).")],
                   responses=responses({200: CheckpointDetailSerializer}, 404))
    def retrieve(self, request, checkpoint_id=None, **kwargs):
        checkpoint = get_object_or_404(Checkpoint, run=self.run, checkpoint_id=checkpoint_id)
        return Response(checkpoint_stats.details(self.run, checkpoint))

    @extend_schema(summary="What the run can be restarted from, newest first",
                   description="Its completed checkpoints and savepoints whose files are still there: deleted "
                               "ones (by retention, a user, or outside the studio) are left out.",
                   parameters=[RUN_ID], responses=responses({200: RestorePointSerializer(many=True)}, 404))
    def restore_points(self, request, **kwargs):
        return Response(restore_points(self.run))

    @extend_schema(summary="Checkpoints per minute or hour of trigger time, newest first: counts and summary, "
                           "the folded ones included",
                   parameters=[RUN_ID,
                               OpenApiParameter("resolution", str, enum=["minute", "hour"],
                                                description="Bucket width (default minute; minute buckets are "
                                                            "kept for the last days, hours for good)."),
                               OpenApiParameter("before", {"type": "integer", "minimum": 0},
                                                description="Only buckets starting before this epoch ms (paging)."),
                               OpenApiParameter("limit", {"type": "integer", "minimum": 1,
                                                          "maximum": checkpoint_stats.TIMELINE_MAX},
                                                description=f"Buckets (default {checkpoint_stats.TIMELINE_DEFAULT}).")],
                   responses=responses({200: CheckpointTimelineSerializer}, 404))
    @action(detail=False, methods=["get"])
    def timeline(self, request, **kwargs):
        resolution = request.query_params.get("resolution", "minute")
        if resolution not in checkpoint_stats.BUCKET_MS:
            raise BadRequest(f"resolution: {resolution!r} is not one of minute, hour")
        before = int_param(request, "before", default=None, minimum=0, maximum=2 ** 62)
        limit = int_param(request, "limit", default=checkpoint_stats.TIMELINE_DEFAULT, minimum=1,
                          maximum=checkpoint_stats.TIMELINE_MAX)
        return Response(checkpoint_stats.timeline(self.run, resolution, before, limit))

    @extend_schema(summary="The run's checkpointing configuration", parameters=[RUN_ID],
                   responses=responses({200: CheckpointConfigSerializer}, 404))
    @action(detail=False, methods=["get"])
    def config(self, request, **kwargs):
        return Response(checkpoint_stats.config(self.run))
