"""``/api/runs/<run>/taps/``: a run's live taps."""
from studio.api.routers import RUN, route
from studio.taps.api import TapViewSet

urlpatterns = [
    route(f"{RUN}/taps", TapViewSet.as_view({"get": "list", "post": "create"}), "run-taps"),
    route(rf"{RUN}/taps/(?P<tap_id>[0-9a-f]{{1,32}})", TapViewSet.as_view({"get": "retrieve", "delete": "destroy"}),
          "run-tap"),
]
