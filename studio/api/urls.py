"""API routes. Every path works with and without its trailing slash; unknown paths answer JSON 404s."""
from django.urls import include, path, re_path
from rest_framework.routers import DefaultRouter

from studio.api.auth import LoginView, LogoutView, MeView, TokenViewSet
from studio.api.checkpoints import CheckpointViewSet
from studio.api.definitions import DraftDiffView, OperatorListView, PlanView, PreviewView, ValidateView
from studio.api.exceptions import api_not_found
from studio.api.health import HealthView
from studio.api.locations import LocationViewSet
from studio.api.pipelines import PipelineViewSet
from studio.api.runs import RunViewSet
from studio.api.savepoints import SavepointRequestViewSet, SavepointViewSet
from studio.alerts.api import AlertRuleViewSet, NotificationViewSet
from studio.schedules.api import ScheduleViewSet
from studio.taps.api import TapViewSet

router = DefaultRouter()
router.trailing_slash = "/?"  # scripts may write /api/pipelines or /api/pipelines/
router.include_root_view = False
router.register("pipelines", PipelineViewSet, basename="pipeline")
router.register("runs", RunViewSet, basename="run")
router.register("savepoints", SavepointViewSet, basename="savepoint")
router.register("auth/tokens", TokenViewSet, basename="token")
router.register("schedules", ScheduleViewSet, basename="schedule")
router.register("alerts/rules", AlertRuleViewSet, basename="alert-rule")
router.register("alerts/notifications", NotificationViewSet, basename="notification")
router.register("locations", LocationViewSet, basename="location")

RUN = r"runs/(?P<run_pk>\d{1,18})"


def route(pattern: str, view, name: str):
    return re_path(rf"^{pattern}/?$", view, name=name)


urlpatterns = [
    route("health", HealthView.as_view(), "health"),
    route("operators", OperatorListView.as_view(), "operators"),
    route("pipelines/validate", ValidateView.as_view(), "pipeline-validate"),
    route("pipelines/diff", DraftDiffView.as_view(), "pipeline-draft-diff"),
    route("plan", PlanView.as_view(), "plan"),
    route("preview", PreviewView.as_view(), "preview"),
    route("auth/login", LoginView.as_view(), "login"),
    route("auth/logout", LogoutView.as_view(), "logout"),
    route("auth/me", MeView.as_view(), "me"),
    route(f"{RUN}/savepoints", SavepointRequestViewSet.as_view({"get": "list", "post": "create"}),
          "run-savepoints"),
    route(rf"{RUN}/savepoints/(?P<request_id>[0-9a-f]{{1,64}})",
          SavepointRequestViewSet.as_view({"get": "retrieve"}), "run-savepoint"),
    route(f"{RUN}/taps", TapViewSet.as_view({"get": "list", "post": "create"}), "run-taps"),
    route(rf"{RUN}/taps/(?P<tap_id>[0-9a-f]{{1,32}})", TapViewSet.as_view({"get": "retrieve", "delete": "destroy"}),
          "run-tap"),
    route(f"{RUN}/checkpoints", CheckpointViewSet.as_view({"get": "list"}), "run-checkpoints"),
    route(f"{RUN}/checkpoints/config", CheckpointViewSet.as_view({"get": "config"}), "run-checkpoint-config"),
    route(rf"{RUN}/checkpoints/(?P<checkpoint_id>\d{{1,9}})", CheckpointViewSet.as_view({"get": "retrieve"}),
          "run-checkpoint"),
    path("", include(router.urls)),
    re_path(r"^.*$", api_not_found),
]
