from django.urls import include, path
from rest_framework.routers import DefaultRouter

from studio.api.views import OperatorListView, PipelineViewSet, RunViewSet

router = DefaultRouter()
router.trailing_slash = "/?"  # scripts may write /api/pipelines or /api/pipelines/
router.register("pipelines", PipelineViewSet, basename="pipeline")
router.register("runs", RunViewSet, basename="run")

urlpatterns = [
    path("operators", OperatorListView.as_view(), name="operators"),
    path("", include(router.urls)),
]
