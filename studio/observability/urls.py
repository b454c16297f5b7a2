"""``/metrics`` (at the top, where Prometheus looks for it)."""
from django.urls import path

from studio.observability.api import MetricsExportView

urlpatterns = [
    path("metrics", MetricsExportView.as_view(), name="metrics-export"),
]
