"""``/api/runs/<id>/shadows``: shadow runs beside a run."""
from studio.api.routers import RUN, route
from studio.shadows.api import ShadowViewSet

SHADOW = rf"{RUN}/shadows/(?P<shadow_id>\d{{1,18}})"

urlpatterns = [
    route(f"{RUN}/shadows", ShadowViewSet.as_view({"get": "list", "post": "create"}), "run-shadows"),
    route(SHADOW, ShadowViewSet.as_view({"get": "retrieve"}), "run-shadow"),
    route(f"{SHADOW}/promote", ShadowViewSet.as_view({"post": "promote"}), "run-shadow-promote"),
    route(f"{SHADOW}/discard", ShadowViewSet.as_view({"post": "discard"}), "run-shadow-discard"),
    route(rf"{SHADOW}/outputs/(?P<node>[A-Za-z0-9_.:-]{{1,100}})", ShadowViewSet.as_view({"get": "outputs"}),
          "run-shadow-outputs"),
]
