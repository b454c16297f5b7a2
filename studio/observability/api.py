"""``GET /metrics``: the Prometheus text format, secured like the API (a token or a session); each scraper
sees the runs it may view (``studio.observability.exposition``)."""
from __future__ import annotations

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from prometheus_client import CONTENT_TYPE_LATEST
from rest_framework.views import APIView

from studio.api.schema import responses
from studio.observability.exposition import exposition


class MetricsExportView(APIView):
    @extend_schema(tags=["observability"], summary="Metrics of the studio and of every running job, for Prometheus",
                   description="The Prometheus text format (scrape with `Authorization: Token <key>`). Labels: "
                               "pipeline, run, vertex, operator, subtask; expectations by operator, scope and "
                               "expectation.",
                   responses=responses({(200, "text/plain"): OpenApiResponse(
                       OpenApiTypes.STR, description="The Prometheus text format, version 0.0.4")}))
    def get(self, request):
        return HttpResponse(exposition(request.user), content_type=CONTENT_TYPE_LATEST)
