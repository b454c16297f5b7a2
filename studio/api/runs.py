"""Runs: list and filter, status with its history, cancel, stop with a savepoint, events, metrics."""
from __future__ import annotations

from functools import partial

from django.http import Http404
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response

from studio.access import RUN, VIEW, access_to_pipeline, access_to_run, runs_visible_to, visible_run
from studio.api.caching import cached_answer, canonical_int
from studio.api.exceptions import BadRequest, Conflict
from studio.api.pagination import RunPagination
from studio.api.parameters import int_param
from studio.api.permissions import PipelineAccess
from studio.api.schema import bounded_int, responses
from studio.api.serializers.exception_history import ExceptionsSerializer
from studio.api.serializers.metrics import MetricsSerializer
from studio.api.serializers.runs import (
    RUN_STATUSES, EventSerializer, RescaleRequestSerializer, RescaleSerializer, RunSerializer, RunSummarySerializer,
    StateCompatibilitySerializer,
)
from studio.api.serializers.savepoints import RequestIdSerializer, StopSerializer
from studio.models import RunEvent
from studio.runs.control import RunStateConflict, cancel, stop_with_savepoint
from studio.runs.events import serialise_event
from studio.runs.exception_history import exceptions_of
from studio.runs.metrics import metrics_of
from studio.runs.overview import with_last_checkpoint
from studio.runs.rescale import RescaleRefused, as_dict, request_rescale
from studio.state_compatibility import state_compatibility
from studio.storage_urls import StorageUrlError

EVENTS_PAGE = 1000
LIST_PARAMETERS = [
    OpenApiParameter("pipeline", bounded_int(), description="Only runs of this pipeline."),
    OpenApiParameter("status", {"type": "string", "pattern": f"^({'|'.join(RUN_STATUSES)})(,({'|'.join(RUN_STATUSES)}))*$"},
                     description=f"Only runs in these statuses, comma separated ({', '.join(RUN_STATUSES)}); "
                                 "an unknown one is a 400."),
]


def canonical_statuses(value: str | None) -> bool:
    """Whether a ``status`` parameter is absent or lists distinct known statuses in ``RUN_STATUSES`` order."""
    if value is None:
        return True
    positions = [RUN_STATUSES.index(name) if name in RUN_STATUSES else -1 for name in value.split(",")]
    return -1 not in positions and positions == sorted(set(positions))


@extend_schema_view(
    list=extend_schema(summary="Runs you may view, newest first, paginated", parameters=LIST_PARAMETERS,
                       responses=responses({200: RunSummarySerializer(many=True)}, 404)),
    retrieve=extend_schema(summary="A run: status with every transition, failure cause, restore, savepoints",
                           responses=responses({200: RunSerializer}, 404)),
)
class RunViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Runs: status, cancel, stop with a savepoint, the stored event log and metrics."""

    permission_classes = [IsAuthenticated, PipelineAccess]
    action_permissions = {"cancel": RUN, "stop": RUN, "rescale:POST": RUN}
    pagination_class = RunPagination
    lookup_value_regex = r"\d{1,18}"

    def get_queryset(self):
        runs = runs_visible_to(self.request.user).select_related("pipeline", "version", "created_by")
        if self.action != "list":
            return runs.select_related("restored_from")
        runs = with_last_checkpoint(runs)
        pipeline = int_param(self.request, "pipeline")
        if pipeline is not None:
            runs = runs.filter(pipeline_id=pipeline)
        wanted = self.request.query_params.get("status")
        if wanted is None:
            return runs
        statuses = wanted.split(",")
        unknown = sorted(set(statuses) - set(RUN_STATUSES))
        if unknown:
            raise BadRequest(f"unknown status {', '.join(map(repr, unknown))}; one of {', '.join(RUN_STATUSES)}")
        return runs.filter(status__in=statuses)

    def get_object(self):
        run = visible_run(self.request.user, self.kwargs["pk"], "version", "created_by", "restored_from")
        if run is None:
            raise Http404("No run matches the given query.")
        self.check_object_permissions(self.request, run)
        return run

    def get_serializer_class(self):
        return RunSummarySerializer if self.action == "list" else RunSerializer

    LIST_CACHE_PARAMETERS = frozenset({"pipeline", "status", "page", "page_size"})

    def retrieve(self, request, *args, **kwargs):
        # from the cache (studio.api.caching) when the user may view it and nothing changed; no docstring
        # here: the OpenAPI schema would take it for the operation's description
        access = access_to_run(request.user, kwargs["pk"])
        if access is None or VIEW not in access.permissions:
            return super().retrieve(request, *args, **kwargs)  # answers 404 as before
        return cached_answer(self, request, ("run", access.run_id, access.change_token, access.pipeline_change_token),
                             partial(super().retrieve, request, *args, **kwargs))

    def list(self, request, *args, **kwargs):
        # one pipeline's runs from the cache when the user may view it and none of its runs changed; only
        # canonical spellings of the list's own parameters, as the page links in the answer repeat them
        params = request.query_params
        pipeline = params.get("pipeline")
        cacheable = (pipeline is not None and set(params) <= self.LIST_CACHE_PARAMETERS
                     and all(len(params.getlist(name)) == 1 for name in params)
                     and all(canonical_int(params.get(name)) for name in ("pipeline", "page", "page_size"))
                     and canonical_statuses(params.get("status")))
        access = access_to_pipeline(request.user, pipeline) if cacheable and len(pipeline) <= 18 else None
        if access is None or VIEW not in access.permissions:
            return super().list(request, *args, **kwargs)
        parts = ("runs", access.pipeline_id, access.change_token, access.runs_change_token, request.scheme,
                 request.get_host(), tuple(sorted(params.items())))
        return cached_answer(self, request, parts, partial(super().list, request, *args, **kwargs))

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
