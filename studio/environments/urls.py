"""``/api/environments/``, ``/api/promotions/``, ``/api/secrets/`` and ``/api/runs/<run>/environment``."""
from django.urls import include, path

from studio.api.routers import RUN, StudioRouter, route
from studio.environments.api import EnvironmentViewSet, PromotionViewSet, RunEnvironmentView, SecretViewSet

router = StudioRouter()
router.register("environments", EnvironmentViewSet, basename="environment")
router.register("promotions", PromotionViewSet, basename="promotion")
router.register("secrets", SecretViewSet, basename="secret")

urlpatterns = [
    path("", include(router.urls)),
    route(f"{RUN}/environment", RunEnvironmentView.as_view(), "run-environment"),
]
