"""``/api/runs/<run>/disk``: a run's disk use."""
from studio.api.routers import RUN, route
from studio.retention.api import DiskUsageViewSet

urlpatterns = [
    route(f"{RUN}/disk", DiskUsageViewSet.as_view({"get": "retrieve"}), "run-disk"),
]
