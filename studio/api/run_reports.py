"""What a run reported, read back: its stored events, its metrics, its exceptions history, and whether
its state fits another version of its pipeline.

``RunReportActions`` is a mixin of ``RunViewSet`` (``runs/<id>/events`` and the rest); reading
needs *view* on the pipeline.
"""
from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound
from rest_framework.response import Response

from studio.api.exceptions import BadRequest
from studio.api.parameters import int_param
from studio.api.schema import bounded_int, responses
from studio.api.serializers.exception_history import ExceptionsSerializer
from studio.api.serializers.metrics import MetricsSerializer
from studio.api.serializers.runs import EventSerializer, StateCompatibilitySerializer
from studio.models import RunEvent
from studio.runs.events import serialise_event
from studio.runs.exception_history import exceptions_of
from studio.runs.metrics import metrics_of
from studio.state_compatibility import state_compatibility

EVENTS_PAGE = 1000


class RunReportActions:
    """The reading actions of a run viewset (``self.get_object()`` is the run)."""

    @extend_schema(summary="The run's stored events after a sequence number, oldest first (1000 at most)",
                   parameters=[OpenApiParameter("after", bounded_int(), description="Only events with a larger seq.")],
                   responses=responses({200: EventSerializer(many=True)}, 404))
    @action(detail=True, methods=["get"], pagination_class=None)
    def events(self, request, pk=None):
        run = self.get_object()
        after = int_param(request, "after", default=0)
        events = RunEvent.objects.filter(run=run, seq__gt=after).order_by("seq")[:EVENTS_PAGE]
        return Response([serialise_event(event) for event in events])

    @extend_schema(summary="Per-vertex and per-node records in/out, rates, busy/idle/backpressured ratios and watermarks "
                           "(per subtask for each node), with the last "
                           "samples", parameters=[OpenApiParameter("samples", bounded_int(0, 1000), description="How many samples "
                                                                  "(default 60, at most 1000).")],
                   responses=responses({200: MetricsSerializer}, 404))
    @action(detail=True, methods=["get"])
    def metrics(self, request, pk=None):
        run = self.get_object()
        return Response(metrics_of(run, int_param(request, "samples", default=60, minimum=0, maximum=1000)))

    @extend_schema(summary="The exceptions history: every subtask failure (vertex, subtask, attempt, message, "
                           "traceback) and every restart, newest first",
                   responses=responses({200: ExceptionsSerializer}, 404))
    @action(detail=True, methods=["get"])
    def exceptions(self, request, pk=None):
        return Response(exceptions_of(self.get_object()))

    @extend_schema(summary="Whether this run's state fits another version of its pipeline (the check before an "
                           "upgrade or rollback with state)",
                   parameters=[OpenApiParameter("version", bounded_int(1), required=True,
                                                description="The version to restore the state into.")],
                   responses=responses({200: StateCompatibilitySerializer}, 404))
    @action(detail=True, methods=["get"], url_path="state-compatibility")
    def state_compatibility(self, request, pk=None):
        run = self.get_object()
        number = int_param(request, "version", minimum=1)
        if number is None:
            raise BadRequest("version: the version to check against is required")
        target = run.pipeline.versions.filter(number=number).first()
        if target is None:
            raise NotFound(f"pipeline {run.pipeline_id} has no version {number}")
        return Response({"from": run.version.number, "to": number,
                         **state_compatibility(run.version.definition, target.definition)})
