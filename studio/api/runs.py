"""Runs: list and filter, and one run's status with its history.

``RunViewSet`` composes these with the commands to a run (``run_control``: cancel, stop,
rescale) and what it reported (``run_reports``: events, metrics, exceptions, state
compatibility).
"""
from __future__ import annotations

from functools import partial

from django.http import Http404
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import mixins, viewsets
from rest_framework.permissions import IsAuthenticated

from studio.access import VIEW, access_to_pipeline, access_to_run, runs_visible_to, visible_run
from studio.api.caching import cached_answer, canonical_int
from studio.api.exceptions import BadRequest
from studio.api.pagination import RunPagination
from studio.api.parameters import int_param
from studio.api.permissions import PipelineAccess
from studio.api.run_control import RunControlActions
from studio.api.run_reports import RunReportActions
from studio.api.schema import bounded_int, responses
from studio.api.serializers.runs import RUN_STATUSES, RunSerializer, RunSummarySerializer
from studio.runs.overview import for_summary, with_ending, with_last_checkpoint

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
class RunViewSet(RunControlActions, RunReportActions, mixins.ListModelMixin, mixins.RetrieveModelMixin,
                 viewsets.GenericViewSet):
    """Runs: status, cancel, stop with a savepoint, the stored event log and metrics."""

    permission_classes = [IsAuthenticated, PipelineAccess]
    action_permissions = {**RunControlActions.control_action_permissions}
    pagination_class = RunPagination
    lookup_value_regex = r"\d{1,18}"

    def get_queryset(self):
        runs = runs_visible_to(self.request.user).select_related("pipeline", "version", "created_by")
        if self.action != "list":
            return runs.select_related("restored_from")
        runs = for_summary(with_ending(with_last_checkpoint(runs)))
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
